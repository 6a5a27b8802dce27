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
 */
public final class DemandRegistry {

    /** A direction that can carry demand. */
    public interface Route {
        /** This route now carries the demand of {@code originId}. */
        void activate(String originId);

        /** This route no longer carries it. */
        void deactivate(String originId);

        String targetId();
    }

    private record Candidate(Route route, int pathLength) {
    }

    private static final Comparator<Candidate> BEST = Comparator.comparingInt(Candidate::pathLength)
            .thenComparing(c -> String.valueOf(c.route().targetId()));

    public static final DemandRegistry GLOBAL = new DemandRegistry();

    private final Map<String, Map<String, List<Candidate>>> bySource = new ConcurrentHashMap<>();

    /** {@code route} can carry {@code originId}'s demand over {@code pathLength} brokers. */
    public void offer(String sourceId, String originId, Route route, int pathLength) {
        Route activate = null;
        Route deactivate = null;
        synchronized (this) {
            List<Candidate> l = bySource.computeIfAbsent(sourceId, k -> new ConcurrentHashMap<>())
                    .computeIfAbsent(originId, k -> new ArrayList<>());
            Candidate before = l.isEmpty() ? null : l.get(0);
            l.removeIf(c -> c.route() == route);
            l.add(new Candidate(route, pathLength));
            l.sort(BEST);
            Candidate after = l.get(0);
            if (before == null || before.route() != after.route()) {
                deactivate = before == null ? null : before.route();
                activate = after.route();
            }
        }
        if (deactivate != null) {
            deactivate.deactivate(originId);
        }
        if (activate != null) {
            activate.activate(originId);
        }
    }

    /** {@code route} no longer sees {@code originId} (consumer removed, or the route is down). */
    public void withdraw(String sourceId, String originId, Route route) {
        Route activate = null;
        boolean wasBest;
        synchronized (this) {
            Map<String, List<Candidate>> m = bySource.get(sourceId);
            List<Candidate> l = m == null ? null : m.get(originId);
            if (l == null || l.isEmpty()) {
                return;
            }
            wasBest = l.get(0).route() == route;
            l.removeIf(c -> c.route() == route);
            if (l.isEmpty()) {
                m.remove(originId);
            } else if (wasBest) {
                activate = l.get(0).route();
            }
        }
        if (wasBest) {
            route.deactivate(originId);
        }
        if (activate != null) {
            activate.activate(originId);
        }
    }
}
