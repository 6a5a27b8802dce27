package io.fedbridge.failover.internal;

import io.fedbridge.core.FederationHeaders;
import io.fedbridge.core.ReceivedMessage;
import io.fedbridge.core.StompCommand;
import io.fedbridge.core.StompConnection;
import io.fedbridge.core.StompFrame;
import io.fedbridge.core.StompHeaders;

/** One MESSAGE frame as it arrived over one connection: what an ACK or NACK must name, and where it must go. */
record Delivery(StompConnection connection, ReceivedMessage message) {

    /** The message's identity across brokers: its {@code fedbridge-id}, else its {@code message-id}. */
    String identity() {
        String id = message.header(FederationHeaders.FEDERATION_ID);
        if (id != null && !id.isEmpty()) {
            return id;
        }
        String mid = message.messageId();
        return mid != null ? "message-id:" + mid : "ack:" + connection.sessionId() + "/" + message.ackId();
    }

    boolean isLive() {
        return connection.isConnected();
    }

    /** An ACK or NACK of this delivery, in the form the connection's STOMP version wants. */
    StompFrame frame(StompCommand command, String transactionId) {
        StompHeaders h = new StompHeaders(4);
        h.add(StompHeaders.ID, message.ackId());
        if (!"1.2".equals(connection.version())) {
            h.add(StompHeaders.MESSAGE_ID, message.messageId());
            h.add(StompHeaders.SUBSCRIPTION, message.subscription().id());
        }
        if (transactionId != null) {
            h.add(StompHeaders.TRANSACTION, transactionId);
        }
        return new StompFrame(command, h);
    }
}
