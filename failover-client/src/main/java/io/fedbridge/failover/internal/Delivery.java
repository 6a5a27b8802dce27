package io.fedbridge.failover.internal;

import io.fedbridge.core.FederationHeaders;
import io.fedbridge.core.ReceivedMessage;
import io.fedbridge.core.StompCommand;
import io.fedbridge.core.StompConnection;
import io.fedbridge.core.StompFrame;
import io.fedbridge.core.StompHeaders;

/** One MESSAGE frame as it arrived over one connection: what an ACK or NACK must name, and where it must go. */
record Delivery(StompConnection connection, ReceivedMessage message) {

    /** How an {@link #identity()} that only one connection vouches for begins. */
    static final String CONNECTION_SCOPED = "connection:";

    /**
     * What the redelivery audit knows the message by. From a broker that vouches for its ids
     * ({@value FederationHeaders#VOUCHED_IDS} in CONNECTED): its {@code fedbridge-id}, else its {@code message-id}, the
     * same over every connection, so a redelivery after a failover is recognised. From any other broker, ids could be
     * a client's choice (another client could forge them to have this one drop its messages) or collide between
     * brokers: the {@code message-id} scoped to this one connection, so nothing is dropped across connections.
     */
    String identity() {
        String mid = message.messageId();
        if (vouchesForIds(connection)) {
            String id = message.header(FederationHeaders.FEDERATION_ID);
            if (id != null && !id.isEmpty()) {
                return id;
            }
            if (mid != null) {
                return "message-id:" + mid;
            }
        }
        return CONNECTION_SCOPED + connection.name() + "/" + (mid != null ? "message-id:" + mid : "ack:" + message.ackId());
    }

    /** Whether the broker at the other end of {@code c} said its MESSAGE ids are minted or scoped by the federation. */
    static boolean vouchesForIds(StompConnection c) {
        StompHeaders h = c.connectedHeaders();
        return h != null && "true".equals(h.get(FederationHeaders.VOUCHED_IDS));
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
