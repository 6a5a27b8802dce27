package io.fedbridge.core;

import java.nio.charset.StandardCharsets;
import java.util.Map;

/** A MESSAGE frame delivered to a subscription, with the means to ACK or NACK it. */
public final class ReceivedMessage {

    private final StompConnection connection;
    private final Subscription subscription;
    private final StompFrame frame;

    ReceivedMessage(StompConnection connection, Subscription subscription, StompFrame frame) {
        this.connection = connection;
        this.subscription = subscription;
        this.frame = frame;
    }

    public String destination() {
        return frame.header(StompHeaders.DESTINATION);
    }

    public String messageId() {
        return frame.header(StompHeaders.MESSAGE_ID);
    }

    /** The id to acknowledge with: the {@code ack} header (STOMP 1.2), else the message id. */
    public String ackId() {
        String ack = frame.header(StompHeaders.ACK);
        return ack != null ? ack : messageId();
    }

    public String header(String name) {
        return frame.header(name);
    }

    public Map<String, String> headers() {
        return frame.headers().toMap();
    }

    public byte[] body() {
        return frame.body();
    }

    public String bodyAsString() {
        return new String(frame.body(), StandardCharsets.UTF_8);
    }

    /** How many times the broker delivered this message before (0 on first delivery). */
    public int redeliveryCount() {
        String v = frame.header(StompHeaders.REDELIVERY_COUNT);
        if (v == null) {
            return 0;
        }
        try {
            return Integer.parseInt(v);
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    public Subscription subscription() {
        return subscription;
    }

    public StompFrame frame() {
        return frame;
    }

    /** Acknowledges this message (cumulatively in {@link AckMode#CLIENT} mode). No-op in auto mode. */
    public void ack() {
        if (subscription.ackMode() != AckMode.AUTO) {
            connection.ack(this, null);
        }
    }

    /** Acknowledges inside a transaction. */
    public void ack(Transaction tx) {
        if (subscription.ackMode() != AckMode.AUTO) {
            connection.ack(this, tx.id());
        }
    }

    /** Rejects this message so the broker redelivers it (or dead-letters it). */
    public void nack() {
        if (subscription.ackMode() != AckMode.AUTO) {
            connection.nack(this, null);
        }
    }

    @Override
    public String toString() {
        return "ReceivedMessage" + frame;
    }
}
