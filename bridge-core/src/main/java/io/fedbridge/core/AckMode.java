package io.fedbridge.core;

import java.util.Locale;

/** STOMP subscription ack modes. */
public enum AckMode {
    /** The broker considers a message acknowledged as soon as it is sent to the client. */
    AUTO("auto"),
    /** Cumulative: an ACK acknowledges that message and every earlier one of the subscription. */
    CLIENT("client"),
    /** An ACK acknowledges exactly that message. */
    CLIENT_INDIVIDUAL("client-individual");

    private final String wire;

    AckMode(String wire) {
        this.wire = wire;
    }

    /** The value of the {@code ack} header. */
    public String wireValue() {
        return wire;
    }

    /** Parses an {@code ack} header value; null means {@link #AUTO}. */
    public static AckMode fromWire(String value) {
        if (value == null) {
            return AUTO;
        }
        for (AckMode m : values()) {
            if (m.wire.equals(value.toLowerCase(Locale.ROOT))) {
                return m;
            }
        }
        throw new IllegalArgumentException("ack must be one of auto, client, client-individual, but was '" + value + "'");
    }
}
