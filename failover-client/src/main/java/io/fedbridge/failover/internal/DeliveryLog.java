package io.fedbridge.failover.internal;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What one subscription handed to the application, by message identity ({@link Delivery#identity()}: the
 * {@code fedbridge-id} or {@code message-id} a broker vouches for, else one scoped to the connection), so that a
 * broker's redelivery after a failover is recognised:
 * <ul>
 *   <li>handed out and not acknowledged yet: the redelivery replaces the delivery the message is acknowledged with;</li>
 *   <li>acknowledged, the broker's receipt of the ACK still missing: kept until confirmed (a broker that died before
 *       taking the ACK redelivers it, possibly much later, through another broker);</li>
 *   <li>acknowledged and confirmed: the last {@code depth} are remembered, a safety net.</li>
 * </ul>
 * Not thread-safe: the subscription guards it.
 */
final class DeliveryLog {

    enum Status { UNKNOWN, HANDED, ACKED }

    private final int depth;
    private final Map<String, DefaultFailoverMessage> handed = new HashMap<>();
    private final LinkedHashMap<String, Boolean> unconfirmed = new LinkedHashMap<>();
    private final LinkedHashMap<String, Boolean> confirmed;

    DeliveryLog(int depth) {
        this.depth = depth;
        this.confirmed = new LinkedHashMap<>(Math.min(depth, 1024) * 2, 0.75f, false) {
            private static final long serialVersionUID = 1L;

            @Override
            protected boolean removeEldestEntry(Map.Entry<String, Boolean> eldest) {
                return size() > DeliveryLog.this.depth;
            }
        };
    }

    Status status(String identity) {
        if (handed.containsKey(identity)) {
            return Status.HANDED;
        }
        if (unconfirmed.containsKey(identity) || confirmed.containsKey(identity)) {
            return Status.ACKED;
        }
        return Status.UNKNOWN;
    }

    DefaultFailoverMessage handedMessage(String identity) {
        return handed.get(identity);
    }

    void handed(String identity, DefaultFailoverMessage m) {
        unconfirmed.remove(identity);
        confirmed.remove(identity);
        handed.put(identity, m);
    }

    void acked(String identity) {
        handed.remove(identity);
        confirmed.remove(identity);
        unconfirmed.put(identity, Boolean.TRUE);
        // A last resort against unbounded growth: ids whose ACK a vanished broker never confirmed, beyond 10x depth.
        if (unconfirmed.size() > 10L * depth) {
            String eldest = unconfirmed.keySet().iterator().next();
            unconfirmed.remove(eldest);
            confirmed.put(eldest, Boolean.TRUE);
        }
    }

    void confirmed(String identity) {
        if (unconfirmed.remove(identity) != null) {
            confirmed.put(identity, Boolean.TRUE);
        }
    }

    void forget(String identity) {
        handed.remove(identity);
        unconfirmed.remove(identity);
        confirmed.remove(identity);
    }

    int handedCount() {
        return handed.size();
    }

    int unconfirmedCount() {
        return unconfirmed.size();
    }

    int confirmedCount() {
        return confirmed.size();
    }
}
