package io.fedbridge.broker.internal;

import io.fedbridge.core.StompHeaders;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Topic subscriptions by pattern. A message published to a topic goes to the queue of every subscription
 * whose pattern matches it (exact names by hash lookup, wildcard patterns by scan).
 */
final class TopicRegistry {

    /** One subscription's pattern, its selector (or null) and the queue that holds its copies. */
    record Registration(String pattern, QueueDestination queue, DeliveryFilter filter) {
        boolean accepts(StompHeaders headers) {
            return filter == null || headers == null || filter.accepts(headers);
        }
    }

    private final Map<String, List<Registration>> exact = new ConcurrentHashMap<>();
    private final List<Registration> wildcard = new CopyOnWriteArrayList<>();
    private final Set<String> knownTopics = ConcurrentHashMap.newKeySet();
    /** Most names {@link #knownTopics} keeps (a SEND to a topic nobody subscribes creates nothing else); 0 = all. */
    private final int maxKnown;

    TopicRegistry(int maxKnown) {
        this.maxKnown = maxKnown;
    }

    /** Subscribes; the selector filters at routing time, so non-matching messages never occupy the queue. */
    Registration subscribe(String pattern, QueueDestination queue, DeliveryFilter filter) {
        Registration r = new Registration(pattern, queue, filter);
        if (Destinations.isWildcard(pattern)) {
            wildcard.add(r);
        } else {
            knownTopics.add(pattern);
            exact.compute(pattern, (k, l) -> {
                List<Registration> list = l == null ? new CopyOnWriteArrayList<>() : l;
                list.add(r);
                return list;
            });
        }
        return r;
    }

    void unsubscribe(Registration r) {
        if (Destinations.isWildcard(r.pattern())) {
            wildcard.remove(r);
        } else {
            // the last one out removes the topic, so that exact.size() counts topics with subscribers
            exact.computeIfPresent(r.pattern(), (k, l) -> l.remove(r) && l.isEmpty() ? null : l);
        }
    }

    /**
     * Every subscription a message published to {@code topic} with {@code headers} goes to; with null
     * headers, every subscription of the topic whatever its selector.
     */
    List<Registration> matching(String topic, StompHeaders headers) {
        if (maxKnown == 0 || knownTopics.size() < maxKnown) {
            knownTopics.add(topic);
        }
        List<Registration> l = exact.get(topic);
        List<Registration> out = new ArrayList<>(l == null ? wildcard.size() : l.size() + wildcard.size());
        if (l != null) {
            for (Registration r : l) {
                if (r.accepts(headers)) {
                    out.add(r);
                }
            }
        }
        for (Registration r : wildcard) {
            if (Destinations.matches(r.pattern(), topic) && r.accepts(headers)) {
                out.add(r);
            }
        }
        return out;
    }

    boolean hasSubscriptions(String topic) {
        return exact.containsKey(topic);
    }

    /** Topics (not wildcard patterns) with at least one subscription. */
    int subscribedTopics() {
        return exact.size();
    }

    /** Every subscription, exact and wildcard (management's view). */
    List<Registration> registrations() {
        List<Registration> all = new ArrayList<>(wildcard);
        exact.values().forEach(all::addAll);
        return all;
    }

    Set<String> topics() {
        return Set.copyOf(knownTopics);
    }
}
