package io.fedbridge.failover.internal;

import io.fedbridge.core.uri.CompositeUri;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Random;

/**
 * The brokers a failover client knows, configured ones first then those learned from the federation, and the order in
 * which a connect round tries them: shuffled with {@code randomize}, priority brokers first with
 * {@code priorityBackup}, and the broker that just failed last (as ActiveMQ does). Thread-safe.
 */
final class BrokerList {

    private final List<CompositeUri> configured;
    private final List<CompositeUri> priority;
    private final boolean randomize;
    private final Random random;
    private List<CompositeUri> learned = List.of();

    BrokerList(List<CompositeUri> configured, List<CompositeUri> priority, boolean randomize, Random random) {
        this.configured = List.copyOf(configured);
        List<CompositeUri> p = new ArrayList<>();
        for (CompositeUri u : priority) {
            p.add(resolveConfigured(u));
        }
        this.priority = List.copyOf(p);
        this.randomize = randomize;
        this.random = random;
    }

    /** Equal brokers: the same URI but for its options. */
    static boolean same(CompositeUri a, CompositeUri b) {
        return a != null && b != null && a.withoutOptions().equals(b.withoutOptions());
    }

    /** The configured URI (with its options) for {@code uri}, or {@code uri} itself. */
    private CompositeUri resolveConfigured(CompositeUri uri) {
        for (CompositeUri c : configured) {
            if (same(c, uri)) {
                return c;
            }
        }
        return uri;
    }

    synchronized List<CompositeUri> all() {
        List<CompositeUri> l = new ArrayList<>(configured);
        for (CompositeUri u : learned) {
            if (l.stream().noneMatch(c -> same(c, u))) {
                l.add(u);
            }
        }
        return l;
    }

    /** The learned brokers, as last announced. */
    synchronized List<CompositeUri> learned() {
        return learned;
    }

    /** The order of the next connect round; {@code failed} (may be null) goes last. */
    synchronized List<CompositeUri> connectOrder(CompositeUri failed) {
        List<CompositeUri> l = all();
        if (randomize) {
            Collections.shuffle(l, random);
        }
        if (!priority.isEmpty()) {
            List<CompositeUri> ordered = new ArrayList<>(priority);
            for (CompositeUri u : l) {
                if (!isPriority(u)) {
                    ordered.add(u);
                }
            }
            l = ordered;
        }
        if (failed != null) {
            for (int i = 0; i < l.size(); i++) {
                if (same(l.get(i), failed)) {
                    l.add(l.remove(i));
                    break;
                }
            }
        }
        return l;
    }

    /** Whether {@code uri} is one of the brokers of the failover URI (not one learned from the federation). */
    boolean isConfigured(CompositeUri uri) {
        return configured.stream().anyMatch(c -> same(c, uri));
    }

    boolean isPriority(CompositeUri uri) {
        return priority.stream().anyMatch(p -> same(p, uri));
    }

    List<CompositeUri> priority() {
        return priority;
    }

    /**
     * Replaces the learned brokers with an announcement (configured ones stay, with their options).
     *
     * @return true if the set of known brokers changed (not merely their order)
     */
    synchronized boolean updateLearned(List<CompositeUri> announced) {
        List<CompositeUri> before = all();
        List<CompositeUri> next = new ArrayList<>();
        for (CompositeUri u : announced) {
            if (configured.stream().noneMatch(c -> same(c, u)) && next.stream().noneMatch(n -> same(n, u))) {
                next.add(u.withoutOptions());
            }
        }
        learned = List.copyOf(next);
        return !new HashSet<>(before).equals(new HashSet<>(all()));
    }

    /** {@code uri} as the client would connect to it: the configured one if it is configured. */
    synchronized CompositeUri resolve(CompositeUri uri) {
        return resolveConfigured(uri);
    }
}
