package io.fedbridge.broker.integration.reliability;

import io.fedbridge.core.bridge.BridgeState;
import io.fedbridge.core.bridge.BridgeStats;
import io.fedbridge.core.bridge.FederationBridge;
import io.fedbridge.core.bridge.NetworkConnector;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Samples every bridge of a network connector every few milliseconds, as a monitoring tool would, and keeps what an
 * operator would have seen: each bridge's state changes, and the longest time a bridge was shown {@link BridgeState#UP}
 * while it had forwards awaiting a receipt and no receipt came (no progress). Bridges are told apart by identity: the
 * connector starts a new one for every reconnect.
 */
final class BridgeWatch implements AutoCloseable {

    private static final long PERIOD_MILLIS = 5;

    /** One change of a bridge's state, {@code atMillis} after the watch started. */
    record Change(int bridge, long atMillis, BridgeState state, long pending) {
        @Override
        public String toString() {
            return "#" + bridge + " " + state + "@" + atMillis + "ms(pending " + pending + ")";
        }
    }

    private final class Track {
        final int number;
        BridgeState state;
        long lastAcked = -1;
        long upPendingSince = -1;

        Track(int number) {
            this.number = number;
        }

        void observe(long now, BridgeStats s) {
            if (s.state() != state) {
                state = s.state();
                changes.add(new Change(number, (now - started) / 1_000_000, s.state(), s.pending()));
            }
            if (s.state() == BridgeState.UP && s.pending() > 0) {
                if (upPendingSince < 0 || s.acked() != lastAcked) {
                    upPendingSince = now;
                } else {
                    maxUpWithoutProgressNanos = Math.max(maxUpWithoutProgressNanos, now - upPendingSince);
                }
            } else {
                upPendingSince = -1;
            }
            lastAcked = s.acked();
        }
    }

    private final NetworkConnector connector;
    private final ScheduledExecutorService sampler;
    private final long started = System.nanoTime();
    private final Map<FederationBridge, Track> tracks = new IdentityHashMap<>();
    private final List<Change> changes = new ArrayList<>();
    private long maxUpWithoutProgressNanos;

    private BridgeWatch(NetworkConnector connector) {
        this.connector = connector;
        this.sampler = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "bridge-watch");
            t.setDaemon(true);
            return t;
        });
    }

    static BridgeWatch start(NetworkConnector connector) {
        BridgeWatch w = new BridgeWatch(connector);
        w.sampler.scheduleAtFixedRate(w::sample, 0, PERIOD_MILLIS, TimeUnit.MILLISECONDS);
        return w;
    }

    private synchronized void sample() {
        long now = System.nanoTime();
        for (FederationBridge b : connector.bridges()) {
            tracks.computeIfAbsent(b, k -> new Track(tracks.size() + 1));
        }
        // Bridges the connector dropped (DOWN) are still sampled once more, so their last state is seen.
        tracks.forEach((b, t) -> t.observe(now, b.stats()));
    }

    /** The longest a bridge was shown UP with forwards pending and no receipt coming, in milliseconds. */
    synchronized long maxUpWithPendingAndNoProgressMillis() {
        return maxUpWithoutProgressNanos / 1_000_000;
    }

    /** Every state change seen so far, in order. */
    synchronized List<Change> changes() {
        return List.copyOf(changes);
    }

    /** Bridges the connector has run so far. */
    synchronized int bridgesSeen() {
        return tracks.size();
    }

    @Override
    public void close() {
        sampler.shutdownNow();
    }
}
