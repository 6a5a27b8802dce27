package io.fedbridge.broker.internal;

import io.fedbridge.core.AckMode;
import io.fedbridge.core.StompCommand;
import io.fedbridge.core.StompFrame;
import io.fedbridge.core.StompHeaders;
import java.util.List;

/** One SUBSCRIBE of one connection, attached to the queue that feeds it. Guarded by that queue's monitor. */
final class ServerConsumer {

    final ServerSession session;
    final int number;
    final String subscriptionId;
    final String subscribedDestination;
    final AckMode ackMode;
    final DeliveryFilter filter;
    /** The selector as the client wrote it (for advisories), or null. */
    final String selectorText;
    final int prefetch;
    final int priority;
    final QueueDestination queue;
    /** For a topic subscription, the registration to remove on unsubscribe; null for queues. */
    TopicRegistry.Registration topicRegistration;
    /** True for a durable subscription's consumer: detaching leaves the subscription in place. */
    boolean durable;
    /** True for a bridge's network subscription. */
    boolean network;
    /** For a network consumer: what it takes is lent to its peer ({@link io.fedbridge.core.FederationHeaders#ACK_THROUGH}), never in doubt. */
    boolean ackThrough;
    /** For a network consumer: the broker id of the peer it forwards to (its exclude-broker), or null. */
    String peer;
    /** For a network consumer: take back messages that came from its peer after they waited this long with no local consumer; -1 = never. */
    long replayDelayMillis = -1;
    boolean replaySelectorAware;
    /**
     * The federation-wide rank on a queue whose active consumers are limited ({@link ConsumerRanks}): a local consumer's
     * is given when it attaches, a network consumer's comes from its SUBSCRIBE. Null: unranked (ranks last).
     */
    String rank;
    /** The federation-wide id of the consumer (a network consumer's: the remote consumer's), as advisories name it. */
    String originId;
    private final InflightWindow inflight = new InflightWindow();
    private long nextTag;
    /** Deliveries plus acknowledgements (and nacks) so far: whether it moves, for the slow consumer policy. */
    private long progress;

    ServerConsumer(ServerSession session, int number, String subscriptionId, String subscribedDestination,
                   AckMode ackMode, DeliveryFilter filter, String selectorText, int prefetch, int priority,
                   QueueDestination queue) {
        this.session = session;
        this.number = number;
        this.subscriptionId = subscriptionId;
        this.subscribedDestination = subscribedDestination;
        this.ackMode = ackMode;
        this.filter = filter;
        this.selectorText = selectorText;
        this.prefetch = prefetch;
        this.priority = priority;
        this.queue = queue;
    }

    boolean autoAck() {
        return ackMode == AckMode.AUTO;
    }

    boolean hasCapacity() {
        return session.isWritable() && (ackMode == AckMode.AUTO || inflight.size() < prefetch);
    }

    boolean accepts(BrokerMessage m) {
        return filter == null || filter.accepts(m);
    }

    /**
     * Replay when no consumers: a message this network consumer would refuse only because it came from (or
     * went too far past) its peer may still go back there once it waited {@link #replayDelayMillis} here and
     * the queue has no local consumer for it.
     */
    boolean acceptsAsReplay(QueueEntry e, QueueDestination q, long now) {
        if (replayDelayMillis < 0 || filter == null || now - e.arrivalMillis < replayDelayMillis) {
            return false;
        }
        if (filter.selector() != null && !filter.selector().matches(e.message.headers::get)) {
            return false;
        }
        return !q.hasLocalConsumerFor(e.message, replaySelectorAware);
    }

    /**
     * On a ranked queue ({@link ConsumerRanks}) a network consumer that is active stands for the one active consumer:
     * no local consumer competes, so a message that came from its peer goes back there at once, if the bridge replays.
     */
    boolean acceptsAsRankedReplay(BrokerMessage m) {
        return replayDelayMillis >= 0 && filter != null && (filter.selector() == null || filter.selector().matches(m.headers::get));
    }

    void deliver(QueueEntry e) {
        progress++;
        long tag = ++nextTag;
        BrokerMessage m = e.message;
        StompHeaders h = new StompHeaders(m.headers.size() + 6);
        h.add(StompHeaders.SUBSCRIPTION, subscriptionId);
        h.add(StompHeaders.MESSAGE_ID, m.messageId);
        h.add(StompHeaders.DESTINATION, m.destination);
        if (ackMode != AckMode.AUTO) {
            h.add(StompHeaders.ACK, ackId(tag));
            e.deliveryTag = tag;
            inflight.add(tag, e);
        }
        if (e.redeliveryCount > 0) {
            h.add(StompHeaders.REDELIVERED, "true");
            h.add(StompHeaders.REDELIVERY_COUNT, Integer.toString(e.redeliveryCount));
        }
        boolean length = false;
        for (int i = 0; i < m.headers.size(); i++) {
            String name = m.headers.name(i);
            if (!name.equals(StompHeaders.DESTINATION)) {
                h.add(name, m.headers.value(i));
                length |= name.equals(StompHeaders.CONTENT_LENGTH);
            }
        }
        if (!length && m.body.length > 0) {
            // the encoder writes it anyway; said here, the frame reads as its decoded copy would, so the vm:// hop
            // to this broker's own bridge passes it on as it is instead of copying its headers to add it
            h.add(StompHeaders.CONTENT_LENGTH, io.fedbridge.core.internal.Decimals.of(m.body.length));
        }
        session.write(new StompFrame(StompCommand.MESSAGE, h, m.body));
    }

    /** The deliveries awaiting acknowledgement, oldest first; under the queue's monitor. */
    java.util.Collection<QueueEntry> inflightEntries() {
        return inflight.values();
    }

    /** Deliveries awaiting acknowledgement; under the queue's monitor. */
    int inflightCount() {
        return inflight.size();
    }

    long progress() {
        return progress;
    }

    String ackId(long tag) {
        return number + "-" + tag;
    }

    /** Looks up an inflight delivery by message id (STOMP 1.0/1.1 acks); -1 if absent. */
    long tagOfMessageId(String messageId) {
        return inflight.tagOfMessageId(messageId);
    }

    /**
     * Removes the delivery {@code tag} (and every earlier one if cumulative) from the inflight window.
     * Returns null if {@code tag} is not inflight.
     */
    List<QueueEntry> takeInflight(long tag, boolean cumulative) {
        if (!inflight.contains(tag)) {
            return null;
        }
        progress++;
        return cumulative ? inflight.removeThrough(tag) : List.of(inflight.remove(tag));
    }

    List<QueueEntry> drainInflight() {
        return inflight.removeAll();
    }

    @Override
    public String toString() {
        return "consumer " + subscriptionId + " on " + subscribedDestination + " of " + session;
    }
}
