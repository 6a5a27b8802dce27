package io.fedbridge.broker.internal;

import io.fedbridge.core.AckMode;
import io.fedbridge.core.StompFrame;
import io.fedbridge.core.StompHeaders;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * ACK and NACK on one {@link ServerSession}: finds the consumer and delivery an ack names (a STOMP 1.2
 * {@code <consumer>-<tag>} id, or a 1.0/1.1 message-id with an optional subscription), then applies it at once or
 * enlists it in a transaction.
 *
 * <p>Confined to the connection's event loop, like the session whose consumer maps it reads.
 */
final class SessionAcks {

    private final ServerSession session;
    private final Map<String, ServerConsumer> consumers;
    private final Map<Integer, ServerConsumer> consumersByNumber;
    private final SessionTransactions transactions;
    private final SessionReceipts receipts;

    SessionAcks(ServerSession session, Map<String, ServerConsumer> consumers, Map<Integer, ServerConsumer> consumersByNumber,
                SessionTransactions transactions, SessionReceipts receipts) {
        this.session = session;
        this.consumers = consumers;
        this.consumersByNumber = consumersByNumber;
        this.transactions = transactions;
        this.receipts = receipts;
    }

    /** Handles an ACK ({@code ack} true) or NACK frame. */
    void onAck(StompFrame f, boolean ack) {
        String receipt = f.header(StompHeaders.RECEIPT);
        String cmd = ack ? "ACK" : "NACK";
        String id = f.header(StompHeaders.ID);
        ServerConsumer c = null;
        long tag = -1;
        if (id != null) {
            int colon = id.indexOf('-');
            if (colon > 0) {
                try {
                    c = consumersByNumber.get(Integer.parseInt(id, 0, colon, 10)); // no substrings: once per ACK
                    tag = Long.parseLong(id, colon + 1, id.length(), 10);
                } catch (NumberFormatException e) {
                    c = null;
                }
            }
        }
        if (c == null) {
            // STOMP 1.0/1.1 style: message-id (+ subscription).
            String messageId = f.header(StompHeaders.MESSAGE_ID);
            if (messageId == null && id != null) {
                messageId = id;
            }
            if (messageId != null) {
                String sub = f.header(StompHeaders.SUBSCRIPTION);
                for (ServerConsumer candidate : consumers.values()) {
                    if (sub != null && !sub.equals(candidate.subscriptionId)) {
                        continue;
                    }
                    synchronized (candidate.queue) {
                        long t = candidate.tagOfMessageId(messageId);
                        if (t >= 0) {
                            c = candidate;
                            tag = t;
                            break;
                        }
                    }
                }
            }
        }
        if (c == null || id == null && f.header(StompHeaders.MESSAGE_ID) == null) {
            session.error(cmd + " of unknown id '" + (id != null ? id : f.header(StompHeaders.MESSAGE_ID))
                    + "': no such unacknowledged message on this connection", null, receipt);
            return;
        }
        String tx = f.header(StompHeaders.TRANSACTION);
        ServerConsumer consumer = c;
        long t = tag;
        boolean cumulative = c.ackMode == AckMode.CLIENT;
        if (tx != null) {
            List<Supplier<CompletableFuture<Void>>> actions = transactions.actions(tx);
            if (actions == null) {
                session.error(cmd + " in unknown transaction '" + tx + "'", null, receipt);
                return;
            }
            actions.add(() -> {
                CompletableFuture<Void> r = applyAck(consumer, t, cumulative, ack, true);
                return r == null ? BrokerCore.DONE : r;
            });
            session.receipt(f);
            return;
        }
        // an ACK that asks for no receipt has nobody to tell when its removals are durable: they are batched
        CompletableFuture<Void> done = applyAck(consumer, t, cumulative, ack, receipt != null);
        if (done == null) {
            session.error(cmd + " of unknown id '" + id + "': the message is not awaiting acknowledgement (already acknowledged?)", null, receipt);
            return;
        }
        receipts.whenDone(f, done);
    }

    /** Null if the delivery is not inflight. */
    private CompletableFuture<Void> applyAck(ServerConsumer c, long tag, boolean cumulative, boolean ack, boolean awaited) {
        if (ack) {
            return c.queue.ack(c, tag, cumulative, awaited);
        }
        return c.queue.nack(c, tag, cumulative) ? BrokerCore.DONE : null;
    }
}
