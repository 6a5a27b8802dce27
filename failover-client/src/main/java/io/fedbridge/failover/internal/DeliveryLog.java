package io.fedbridge.failover.internal;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What one subscription handed to the application, by message identity ({@link Delivery#identity()}: the
 * {@code fedbridge-id} or {@code message-id} a broker vouches for, else one scoped to the connection), so that a copy
 * of a message it already handed out is recognised, however late it comes and over whichever broker:
 * <ul>
 *   <li>handed out and not acknowledged yet: the copy replaces the delivery the message is acknowledged with;</li>
 *   <li>acknowledged, the broker's receipt of the ACK still missing: kept one by one until confirmed (a broker that
 *       died before taking the ACK redelivers it, possibly much later, through another broker), at most
 *       {@code 10 * depth} (a broker that never comes back never confirms);</li>
 *   <li>acknowledged: in a {@link SequenceAudit} of {@code depth} ranges and single ids, which remembers a producer's
 *       numbered messages as ranges, so copies of them are recognised at any distance (a second copy of a resent
 *       message that a broker stored before it died, delivered when it restarts).</li>
 * </ul>
 * Not thread-safe: the subscription guards it.
 */
final class DeliveryLog {

    enum Status { UNKNOWN, HANDED, ACKED }

    private final int depth;
    private final Map<String, DefaultFailoverMessage> handed = new HashMap<>();
    private final LinkedHashMap<String, Boolean> unconfirmed = new LinkedHashMap<>();
    private final SequenceAudit acked;

    DeliveryLog(int depth) {
        this.depth = depth;
        this.acked = new SequenceAudit(depth);
    }

    Status status(String identity) {
        if (handed.containsKey(identity)) {
            return Status.HANDED;
        }
        if (unconfirmed.containsKey(identity) || acked.contains(identity)) {
            return Status.ACKED;
        }
        return Status.UNKNOWN;
    }

    DefaultFailoverMessage handedMessage(String identity) {
        return handed.get(identity);
    }

    void handed(String identity, DefaultFailoverMessage m) {
        unconfirmed.remove(identity);
        acked.remove(identity);
        handed.put(identity, m);
    }

    void acked(String identity) {
        handed.remove(identity);
        acked.add(identity);
        unconfirmed.put(identity, Boolean.TRUE);
        // A last resort against unbounded growth: ids whose ACK a vanished broker never confirmed, beyond 10x depth
        // (still in the audit, unless it had to forget them too).
        if (unconfirmed.size() > 10L * depth) {
            unconfirmed.remove(unconfirmed.keySet().iterator().next());
        }
    }

    void confirmed(String identity) {
        unconfirmed.remove(identity);
    }

    void forget(String identity) {
        handed.remove(identity);
        unconfirmed.remove(identity);
        acked.remove(identity);
    }

    int handedCount() {
        return handed.size();
    }

    int unconfirmedCount() {
        return unconfirmed.size();
    }

    /** Ranges and single ids the audit of acknowledged messages holds. */
    int auditSize() {
        return acked.size();
    }
}
