package io.fedbridge.broker.security;

import java.util.Locale;

/** What a connection does to a destination, as authorization rules name it. */
public enum Operation {
    /** SUBSCRIBE (receive, browse); also what a bridge needs on the local broker to forward from it. */
    READ,
    /** SEND, including a bridge's forwarded SENDs on the receiving broker. */
    WRITE,
    /** Advisories: subscribing to {@code /topic/fedbridge.advisory.*} (bridges need it on their peer) and publishing to them. */
    ADMIN;

    /** {@code read}, {@code write} or {@code admin}, ignoring case. */
    public static Operation parse(String s) {
        try {
            return valueOf(s.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("operation must be read, write or admin, but was '" + s + "'", e);
        }
    }

    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }
}
