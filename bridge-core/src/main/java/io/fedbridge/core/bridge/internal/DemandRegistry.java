package io.fedbridge.core.bridge.internal;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Decides, per source broker and remote consumer, which bridge direction carries the demand: the one with
 * the shortest broker path (ties: the smallest target broker id). In a mesh a consumer reachable by several
 * routes thus gets exactly one network subscription per source broker, on the shortest route; when that
 * route goes away the next best takes over.
 *
 * <p>One registry per JVM, keyed by source broker id, so every bridge of a broker competes in it.
 *
 * <p>Routes are told to {@linkplain Route#reconcile reconcile} outside this registry's lock, and each then reads
 * the current choice under its own lock: two changes racing on two bridges' threads can run those calls in either
 * order and still leave exactly the best route subscribed. (Telling routes "activate" and "deactivate" instead let a
 * late "activate" of a route that had meanwhile lost to a shorter one keep both subscribed for good.)
 */
public final class DemandRegistry {

    /** A direction that can carry demand. */
    public interface Route {
        /**
         * Which route carries {@code originId}'s demand may have changed: subscribe if this route is
         * {@linkplain #isBest best} for it now, unsubscribe otherwise. Must read {@code isBest} and act under one lock
         * of the route's own.
         */
        void reconcile(String originId);

        String targetId();

        /**
         * Completes once this route's subscription for {@code originId} is in place at the source (at once if it has
         * none): only then may the route it replaces leave, or messages published in between reach neither.
         */
        default java.util.concurrent.CompletableFuture<Void> subscribed(String originId) {
            return java.util.concurrent.CompletableFuture.completedFuture(null);
        }
    }

    private record Candidate(Route route, int pathLength) {
    }

    private static final Comparator<Candidate> BEST = Comparator.comparingInt(Candidate::pathLength)
            .thenComparing(c -> String.valueOf(c.route().targetId()));

    public static final DemandRegistry GLOBAL = new DemandRegistry();

    private final Map<String, Map<String, List<Candidate>>> bySource = new ConcurrentHashMap<>();

    /** {@code route} can carry {@code originId}'s demand over {@code pathLength} brokers. */
    public void offer(String sourceId, String originId, Route route, int pathLength) {
        Route before;
        Route after;
        synchronized (this) {
            List<Candidate> l = bySource.computeIfAbsent(sourceId, k -> new ConcurrentHashMap<>())
                    .computeIfAbsent(originId, k -> new ArrayList<>());
            before = l.isEmpty() ? null : l.get(0).route();
            l.removeIf(c -> c.route() == route);
            l.add(new Candidate(route, pathLength));
            l.sort(BEST);
            after = l.get(0).route();
        }
        if (before != after) {
            after.reconcile(originId); // make before break: the old route leaves once the new one's subscription is in place
            if (before != null) {
                after.subscribed(originId).whenComplete((v, e) -> before.reconcile(originId));
            }
        }
    }

    /** {@code route} no longer sees {@code originId} (consumer removed, or the route is down). */
    public void withdraw(String sourceId, String originId, Route route) {
        Route next = null;
        synchronized (this) {
            Map<String, List<Candidate>> m = bySource.get(sourceId);
            List<Candidate> l = m == null ? null : m.get(originId);
            if (l == null || l.isEmpty()) {
                return;
            }
            boolean wasBest = l.get(0).route() == route;
            l.removeIf(c -> c.route() == route);
            if (l.isEmpty()) {
                m.remove(originId);
            } else if (wasBest) {
                next = l.get(0).route();
            }
        }
        if (next != null) {
            next.reconcile(originId);
        }
        route.reconcile(originId); // going away (its consumer or its link is gone): nothing for it to hand over
    }

    /** Whether {@code route} is the one that should carry {@code originId}'s demand now. */
    public synchronized boolean isBest(String sourceId, String originId, Route route) {
        Map<String, List<Candidate>> m = bySource.get(sourceId);
        List<Candidate> l = m == null ? null : m.get(originId);
        return l != null && !l.isEmpty() && l.get(0).route() == route;
    }
}
