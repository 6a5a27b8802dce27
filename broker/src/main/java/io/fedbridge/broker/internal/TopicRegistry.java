package io.fedbridge.broker.internal;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Topic subscriptions. A message published to a topic is enqueued on the queue of every subscription whose
 * pattern matches it (exact names by hash lookup, wildcard patterns by scan).
 */
final class TopicRegistry {

    /** One subscription's pattern and the queue that holds its copies. */
    record Registration(String pattern, QueueDestination queue) {
    }

    private final BrokerCore core;
    private final Map<String, List<Registration>> exact = new ConcurrentHashMap<>();
    private final List<Registration> wildcard = new CopyOnWriteArrayList<>();
    private final Set<String> knownTopics = ConcurrentHashMap.newKeySet();

    TopicRegistry(BrokerCore core) {
        this.core = core;
    }

    Registration subscribe(String pattern, QueueDestination queue) {
        Registration r = new Registration(pattern, queue);
        if (Destinations.isWildcard(pattern)) {
            wildcard.add(r);
        } else {
            knownTopics.add(pattern);
            exact.computeIfAbsent(pattern, k -> new CopyOnWriteArrayList<>()).add(r);
        }
        return r;
    }

    void unsubscribe(Registration r) {
        if (Destinations.isWildcard(r.pattern())) {
            wildcard.remove(r);
        } else {
            List<Registration> l = exact.get(r.pattern());
            if (l != null) {
                l.remove(r);
            }
        }
    }

    /** Routes to every matching subscription; returns how many copies were made. */
    int publish(BrokerMessage m) {
        knownTopics.add(m.destination);
        int copies = 0;
        List<Registration> l = exact.get(m.destination);
        if (l != null) {
            for (Registration r : l) {
                enqueue(r, m);
                copies++;
            }
        }
        for (Registration r : wildcard) {
            if (Destinations.matches(r.pattern(), m.destination)) {
                enqueue(r, m);
                copies++;
            }
        }
        return copies;
    }

    private void enqueue(Registration r, BrokerMessage m) {
        core.memory.reserve(m.size);
        r.queue().enqueue(new QueueEntry(m, r.queue().storeKey, 0));
    }

    Set<String> topics() {
        return Set.copyOf(knownTopics);
    }
}
