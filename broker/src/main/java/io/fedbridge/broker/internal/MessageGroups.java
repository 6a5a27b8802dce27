package io.fedbridge.broker.internal;

import java.util.HashMap;
import java.util.Map;

/**
 * The message groups of one queue (ActiveMQ's and Artemis' semantics): every message with the same
 * {@value #GROUP_ID} goes to the consumer that took the group's first one, in order, until that consumer leaves (the
 * group then moves, once, to the consumer its next message is dispatched to) or a message with {@value #GROUP_SEQ}
 * {@code -1} closes the group. A bridge's network subscription can own a group: the group's messages then all take
 * that route, and the next broker keeps them together the same way, so a group that enters the federation at one
 * broker has one consumer in the whole federation (docs/cluster.md). Guarded by the queue's monitor.
 */
final class MessageGroups {

    static final String GROUP_ID = "JMSXGroupID";
    static final String GROUP_SEQ = "JMSXGroupSeq";

    private final Map<String, ServerConsumer> owners = new HashMap<>();
    private final Map<ServerConsumer, Integer> counts = new HashMap<>();
    private long assigned;

    /** The consumer that owns {@code group}, or null if nobody does. */
    ServerConsumer owner(String group) {
        return owners.get(group);
    }

    /** {@code c} took {@code group}'s message {@code m}: it owns the group now, unless {@code m} closes it. */
    void took(String group, ServerConsumer c, BrokerMessage m) {
        if (m.closesGroup) {
            release(group);
            return;
        }
        ServerConsumer before = owners.put(group, c);
        if (before != c) {
            if (before != null) {
                counts.computeIfPresent(before, (k, n) -> n > 1 ? n - 1 : null);
            }
            counts.merge(c, 1, Integer::sum);
            assigned++;
        }
    }

    private void release(String group) {
        ServerConsumer c = owners.remove(group);
        if (c != null) {
            counts.computeIfPresent(c, (k, n) -> n > 1 ? n - 1 : null);
        }
    }

    /** {@code c} left: its groups go to whichever consumer takes their next message. */
    void removed(ServerConsumer c) {
        if (counts.remove(c) != null) {
            owners.values().removeIf(o -> o == c);
        }
    }

    /** Groups open now. */
    int size() {
        return owners.size();
    }

    /** Groups {@code c} owns now. */
    int ownedBy(ServerConsumer c) {
        return counts.getOrDefault(c, 0);
    }

    /** Times a group was given to a consumer (a new group, or one that moved) since the queue was created. */
    long assignments() {
        return assigned;
    }
}
