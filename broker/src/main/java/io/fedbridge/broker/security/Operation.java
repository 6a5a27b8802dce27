package io.fedbridge.broker.security;

import java.util.Locale;

/** What a connection does to a destination, as authorization rules name it. */
public enum Operation {
    /** SUBSCRIBE (receive, browse); also what a bridge needs on the local broker to forward from it. */
    READ,
    /** SEND, including a bridge's forwarded SENDs on the receiving broker. */
    WRITE,
    /** Advisories: subscribing to {@code /topic/fedbridge.advisory.*} (bridges need it, or {@link #FEDERATE}, on their peer). */
    ADMIN,
    /**
     * The federation right, which bridges and HA links need and ordinary clients do not hold: a connection that
     * announced itself as a federation link ({@code fedbridge-federate} on CONNECT) and holds it on a destination
     * may forward there with the federation headers (broker path, hops, replays, its {@code fedbridge-id} trusted
     * as is), open network subscriptions there, and write advisory topics.
     */
    FEDERATE;

    /** {@code read}, {@code write}, {@code admin} or {@code federate}, ignoring case. */
    public static Operation parse(String s) {
        try {
            return valueOf(s.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("operation must be read, write, admin or federate, but was '" + s + "'", e);
        }
    }

    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }
}
