package io.fedbridge.samples;

import io.fedbridge.broker.Broker;
import io.fedbridge.broker.DestinationStats;
import io.fedbridge.core.bridge.BridgeState;
import io.fedbridge.core.bridge.BridgeStats;
import io.fedbridge.core.bridge.FederationBridge;
import io.fedbridge.samples.DemoFederation.Link;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The demo's figures per link and per broker, from {@link Broker#networkConnectors()} and {@link Broker#queue}.
 *
 * <p>A bridge's counters start from zero whenever it reconnects (a new bridge replaces the one that went down), so
 * a link's total is the sum over every bridge that carried it. Rates are over the last second of samples.
 */
final class LinkMonitor {

    /** What a link's state column says while no bridge of it runs and its broker does, i.e. the broker retries. */
    static final String RETRYING = "RETRYING";
    /** What it says while the link's broker is stopped. */
    static final String BROKER_STOPPED = "STOPPED";

    /**
     * One link at one moment.
     *
     * @param state         the bridge's {@link BridgeState}, {@value #RETRYING} or {@value #BROKER_STOPPED}
     * @param perSecond     forwards per second over the last second; 0 while no bridge runs
     * @param forwarded     forwards since the demo started, across reconnections
     * @param pending       forwards awaiting the peer's receipt now
     * @param consumers     the peer's consumers that create demand over this link
     * @param networkSubscriptions network subscriptions the bridge holds on its broker
     */
    record Row(Link link, String state, double perSecond, long forwarded, long pending, int consumers,
               int networkSubscriptions) {

        boolean isUp() {
            return state.equals(BridgeState.UP.name());
        }
    }

    /**
     * One broker at one moment.
     *
     * @param waiting messages on the demo queue not yet acknowledged (pending + in flight), -1 while stopped
     */
    record Node(String name, boolean running, int waiting) {
    }

    /** Everything the view shows, at one moment. */
    record Snapshot(List<Row> links, List<Node> brokers) {

        /** True once every link is up and the producer's broker forwards toward the consumers. */
        boolean isReady(String producerBroker) {
            return links.stream().allMatch(Row::isUp)
                    && links.stream().anyMatch(r -> r.link().from().equals(producerBroker) && r.networkSubscriptions() > 0);
        }
    }

    private static final long RATE_WINDOW_NANOS = 1_000_000_000L;

    private final DemoFederation federation;
    private final String destination;
    private final Map<Link, Tally> tallies = new LinkedHashMap<>();

    LinkMonitor(DemoFederation federation, String destination) {
        this.federation = federation;
        this.destination = destination;
        for (Link link : federation.expectedLinks()) {
            tallies.put(link, new Tally());
        }
    }

    /** Samples every link and broker now; {@code nanos} is {@link System#nanoTime()}. */
    synchronized Snapshot sample(long nanos) {
        Map<Link, List<FederationBridge>> bridges = federation.bridges();
        for (Link link : bridges.keySet()) {
            tallies.computeIfAbsent(link, l -> new Tally());
        }
        List<Row> rows = new ArrayList<>();
        for (Map.Entry<Link, Tally> e : tallies.entrySet()) {
            Link link = e.getKey();
            rows.add(e.getValue().row(link, bridges.getOrDefault(link, List.of()), federation.isRunning(link.from()), nanos));
        }
        List<Node> nodes = new ArrayList<>();
        for (String name : DemoFederation.NAMES) {
            Broker broker = federation.broker(name);
            nodes.add(broker == null ? new Node(name, false, -1) : new Node(name, true, waiting(broker)));
        }
        return new Snapshot(List.copyOf(rows), List.copyOf(nodes));
    }

    private int waiting(Broker broker) {
        try {
            DestinationStats q = broker.queue(destination);
            return q == null ? 0 : q.pending() + q.inflight();
        } catch (RuntimeException closing) {
            return 0;
        }
    }

    /**
     * A link's running total across the bridges that carried it (every bridge seen keeps its final count after it
     * went down), and recent totals for its rate.
     */
    private static final class Tally {
        private final Set<FederationBridge> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        private final Deque<long[]> recent = new ArrayDeque<>();

        Row row(Link link, List<FederationBridge> bridges, boolean brokerRunning, long nanos) {
            long pending = 0;
            int consumers = 0;
            int subscriptions = 0;
            BridgeState best = null;
            for (FederationBridge bridge : bridges) {
                seen.add(bridge);
                BridgeStats s = bridge.stats();
                pending += s.pending();
                consumers += s.remoteConsumers();
                subscriptions += s.networkSubscriptions();
                best = better(best, s.state());
            }
            long total = 0;
            for (FederationBridge bridge : seen) {
                total += bridge.stats().forwarded();
            }
            recent.addLast(new long[] {nanos, total});
            while (recent.size() > 2 && nanos - recent.peekFirst()[0] > RATE_WINDOW_NANOS) {
                recent.removeFirst();
            }
            long[] oldest = recent.peekFirst();
            double perSecond = nanos == oldest[0] || bridges.isEmpty() ? 0 : (total - oldest[1]) * 1e9 / (nanos - oldest[0]);
            String state = best != null ? best.name() : brokerRunning ? RETRYING : BROKER_STOPPED;
            return new Row(link, state, perSecond, total, pending, consumers, subscriptions);
        }

        /** UP beats STALLED beats CONNECTING beats DOWN: a link is as good as its best bridge. */
        private static BridgeState better(BridgeState a, BridgeState b) {
            if (a == null) {
                return b;
            }
            return rank(a) >= rank(b) ? a : b;
        }

        private static int rank(BridgeState s) {
            return switch (s) {
                case UP -> 3;
                case STALLED -> 2;
                case CONNECTING -> 1;
                case DOWN -> 0;
            };
        }
    }
}
