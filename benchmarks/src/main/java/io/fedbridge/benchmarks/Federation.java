package io.fedbridge.benchmarks;

import io.fedbridge.broker.Broker;
import io.fedbridge.broker.BrokerConfig;
import io.fedbridge.broker.DestinationStats;
import io.fedbridge.core.bridge.BridgeState;
import io.fedbridge.core.bridge.BridgeStats;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * N fedbridge brokers in this JVM, each listening on {@code tcp://127.0.0.1:0}, bridged over real TCP in one of the
 * {@link Shape}s: one duplex bridge per edge, owned by the broker with the smaller index, with a {@code networkTTL} of
 * the topology's diameter (the longest shortest path: what demand and messages must be able to cross), or a given
 * one. A larger TTL only adds longer, redundant routes: each is a candidate for demand, and when a consumer's broker
 * leaves, the others try those routes one after the other before they give up (path exploration). Used by {@code scale}
 * ({@link ScaleCommand}) to time demand and to weigh brokers and remote subscriptions.
 *
 * <p>Not thread-safe: one caller drives it. {@link #close()} closes every broker.
 */
final class Federation implements AutoCloseable {

    /** How the brokers are linked. */
    enum Shape {
        /** 0 - 1 - 2 - … - N-1. */
        CHAIN,
        /** A chain whose ends are linked too. */
        RING,
        /** Every pair linked: N(N-1)/2 bridges. */
        MESH,
        /** Broker 0 linked to every other; the others only to it. */
        HUB,
        /** A random spanning tree plus N/2 random extra edges: connected, with cycles. */
        RANDOM;

        String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    private final Shape shape;
    private final List<Broker> brokers = new ArrayList<>();
    private final List<int[]> edges;
    private int ttl;

    private Federation(Shape shape, List<int[]> edges) {
        this.shape = shape;
        this.edges = edges;
    }

    /** The edges of {@code shape} over {@code n} brokers, each {@code {a, b}} with a &lt; b. */
    static List<int[]> edges(Shape shape, int n, Random random) {
        if (n < 2) {
            throw new IllegalArgumentException("brokers must be at least 2, but was " + n);
        }
        Set<Long> seen = new HashSet<>();
        List<int[]> l = new ArrayList<>();
        java.util.function.BiConsumer<Integer, Integer> add = (a, b) -> {
            int x = Math.min(a, b);
            int y = Math.max(a, b);
            if (x != y && seen.add((long) x * n + y)) {
                l.add(new int[] {x, y});
            }
        };
        switch (shape) {
            case CHAIN -> {
                for (int i = 0; i + 1 < n; i++) {
                    add.accept(i, i + 1);
                }
            }
            case RING -> {
                for (int i = 0; i < n; i++) {
                    add.accept(i, (i + 1) % n);
                }
            }
            case MESH -> {
                for (int i = 0; i < n; i++) {
                    for (int j = i + 1; j < n; j++) {
                        add.accept(i, j);
                    }
                }
            }
            case HUB -> {
                for (int i = 1; i < n; i++) {
                    add.accept(0, i);
                }
            }
            case RANDOM -> {
                for (int i = 1; i < n; i++) {
                    add.accept(random.nextInt(i), i); // a random tree: connected
                }
                for (int k = 0; k < n / 2; k++) {
                    add.accept(random.nextInt(n), random.nextInt(n));
                }
            }
        }
        return l;
    }

    /** The longest shortest path between two of {@code n} brokers linked by {@code edges}, in links. */
    static int diameter(int n, List<int[]> edges) {
        List<List<Integer>> adj = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            adj.add(new ArrayList<>());
        }
        for (int[] e : edges) {
            adj.get(e[0]).add(e[1]);
            adj.get(e[1]).add(e[0]);
        }
        int d = 0;
        for (int s = 0; s < n; s++) {
            int[] dist = new int[n];
            java.util.Arrays.fill(dist, -1);
            java.util.ArrayDeque<Integer> q = new java.util.ArrayDeque<>(List.of(s));
            dist[s] = 0;
            while (!q.isEmpty()) {
                int u = q.poll();
                for (int v : adj.get(u)) {
                    if (dist[v] < 0) {
                        dist[v] = dist[u] + 1;
                        d = Math.max(d, dist[v]);
                        q.add(v);
                    }
                }
            }
        }
        return d;
    }

    /**
     * Starts the brokers, then the bridges, and waits until every bridge is up.
     *
     * @param ttl the bridges' networkTTL; 0 = the topology's diameter
     */
    static Federation start(Shape shape, int n, int ttl, long seed, Duration timeout) {
        return start(shape, n, ttl, seed, timeout, null);
    }

    /** As {@link #start(Shape, int, int, long, Duration)}, each broker with a data directory under {@code dataRoot} (null: none). */
    static Federation start(Shape shape, int n, int ttl, long seed, Duration timeout, java.nio.file.Path dataRoot) {
        Federation f = new Federation(shape, edges(shape, n, new Random(seed)));
        f.ttl = ttl > 0 ? ttl : diameter(n, f.edges);
        try {
            for (int i = 0; i < n; i++) {
                String name = shape.label() + n + "-" + i;
                BrokerConfig.Builder b = BrokerConfig.builder(name).listen("tcp://127.0.0.1:0");
                if (dataRoot != null) {
                    b.dataDirectory(dataRoot.resolve(name));
                }
                f.brokers.add(Broker.start(b.build()));
            }
            for (int[] e : f.edges) {
                f.brokers.get(e[0]).addNetworkConnector("static:(" + f.brokers.get(e[1]).connectUris().get(0) + ")?duplex=true"
                        + "&networkTTL=" + f.ttl);
            }
            f.await("every bridge of the " + shape.label() + " of " + n + " up", timeout, () -> f.bridgesUp() == f.edges.size());
            return f;
        } catch (RuntimeException | Error e) {
            f.close();
            throw e;
        }
    }

    Shape shape() {
        return shape;
    }

    int ttl() {
        return ttl;
    }

    int size() {
        return brokers.size();
    }

    List<int[]> edges() {
        return edges;
    }

    Broker broker(int i) {
        return brokers.get(i);
    }

    int bridgesUp() {
        int up = 0;
        for (Broker b : brokers) {
            if (b.isRunning()) {
                for (BridgeStats s : b.bridges()) {
                    if (s.state() == BridgeState.UP) {
                        up++;
                    }
                }
            }
        }
        return up;
    }

    /** Network subscriptions held, summed over every running broker's bridges. */
    long networkSubscriptions() {
        long n = 0;
        for (Broker b : brokers) {
            if (b.isRunning()) {
                for (BridgeStats s : b.bridges()) {
                    n += s.networkSubscriptions();
                }
            }
        }
        return n;
    }

    /** Running brokers other than {@code except} on which {@code queue} has no consumer. */
    int brokersWithoutConsumer(String queue, int except) {
        int n = 0;
        for (int i = 0; i < brokers.size(); i++) {
            Broker b = brokers.get(i);
            if (i != except && b.isRunning()) {
                DestinationStats s = b.queue(queue);
                if (s == null || s.consumers() == 0) {
                    n++;
                }
            }
        }
        return n;
    }

    /** Running brokers other than {@code except} on which {@code queue} still has a consumer. */
    int brokersWithConsumer(String queue, int except) {
        int running = 0;
        for (int i = 0; i < brokers.size(); i++) {
            if (i != except && brokers.get(i).isRunning()) {
                running++;
            }
        }
        return running - brokersWithoutConsumer(queue, except);
    }

    /** Polls {@code done} every 0.2 ms; returns the nanoseconds it took, or fails naming {@code what}. */
    long await(String what, Duration timeout, BooleanSupplier done) {
        long t0 = System.nanoTime();
        long deadline = t0 + timeout.toNanos();
        while (!done.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new BenchmarkException(what + ": not within " + timeout.toMillis() + " ms");
            }
            LockSupport.parkNanos(200_000);
        }
        return System.nanoTime() - t0;
    }

    /** Heap in use after two full GCs, in bytes (what {@code MemoryMXBean} says; say so where it is reported). */
    static long settledHeap() {
        for (int i = 0; i < 3; i++) {
            System.gc();
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
        }
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }

    /** Closes broker {@code i} (its bridges go down; peers withdraw what it asked for). */
    void leave(int i) {
        brokers.get(i).close();
    }

    @Override
    public void close() {
        for (Broker b : brokers) {
            try {
                b.close();
            } catch (RuntimeException e) {
                // closing the rest anyway
            }
        }
    }
}
