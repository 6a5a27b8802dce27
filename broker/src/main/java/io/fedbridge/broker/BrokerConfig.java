package io.fedbridge.broker;

import io.fedbridge.broker.security.ListenerConfig;
import io.fedbridge.broker.security.SecurityConfig;
import io.fedbridge.broker.store.Durability;
import io.fedbridge.core.FrameLimits;
import io.fedbridge.core.internal.Transports;
import io.fedbridge.core.uri.CompositeUri;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * A broker node's configuration. Build with {@link #builder(String)}:
 *
 * <pre>{@code
 * Broker a = Broker.start(BrokerConfig.builder("A").listen("tcp://127.0.0.1:61613").build());
 * }</pre>
 *
 * @param name             the broker's name, letters, digits, '.', '_' and '-'; also its in-JVM address {@code vm://NAME}
 * @param listeners        URIs to accept STOMP connections on ({@code tcp://host:port}, {@code ssl://host:port}, STOMP over
 *                         WebSocket on {@code ws://host:port/path} and {@code wss://host:port/path}; port 0 = any free
 *                         port), with options as {@link ListenerConfig} describes
 * @param dataDirectory    where persistent messages are kept; null = in memory only
 * @param limits           limits on incoming frames
 * @param heartBeat        the broker's heart-beat offer to clients (both directions); ZERO = none. Default 10 s
 * @param memoryLimit      bytes of message data the broker holds before producers are flow-controlled
 * @param defaultPrefetch  unacknowledged messages per subscription when the client asks for none (default 1000)
 * @param durability       {@code SYNC} (default): a persistent send is receipted once on disk; {@code ASYNC}: once
 *                         written, forced to disk at least every 100 ms
 * @param policies         destination policies, matched by pattern (see {@link DestinationPolicy})
 * @param networkConnectors discovery URIs of the bridges this broker runs, e.g. {@code static:(tcp://b:61613)}
 * @param security         authentication, authorization, TLS and connection limits; default
 *                         {@link SecurityConfig#ofDefaults()}: an open broker
 * @param inDoubtHold      how long a message a bridge forwarded without the peer's receipt (the link or the peer died)
 *                         goes only back to that peer, whose dedupe settles it if it had stored the message; after it,
 *                         any consumer may take it. Default 10 s (long enough for a broker restart); ZERO = no hold
 * @param ioThreads        event loops for the broker's connections, its bridges included; 0 (default) = one per
 *                         processor (see {@link #defaultIoThreads()})
 * @param resourceLimits   bounds on what one client can make the broker hold (CONNECT timeout, subscriptions,
 *                         transactions, destinations, durable subscriptions, slow consumers, free disk); default
 *                         {@link ResourceLimits#ofDefaults()}
 * @param metrics          where to serve Prometheus metrics, health checks and the web console, e.g.
 *                         {@code http://127.0.0.1:9404} (port 0 = any free port); needs the module
 *                         {@code fedbridge-metrics}, see docs/metrics.md. Null (default) = none
 * @param cluster          destinations defined for the whole federation and auto-deletion of idle queues
 *                         (docs/cluster.md); default {@link io.fedbridge.broker.cluster.ClusterConfig#ofDefaults()}
 * @param ha               the high-availability group this broker is a member of ({@code ha.*} keys), started with
 *                         {@code io.fedbridge.ha.HaMember}; null (default) = a stand-alone broker
 */
public record BrokerConfig(String name, List<String> listeners, Path dataDirectory, FrameLimits limits,
                           Duration heartBeat, long memoryLimit, int defaultPrefetch, Durability durability,
                           List<DestinationPolicy> policies, List<String> networkConnectors, SecurityConfig security,
                           Duration inDoubtHold, int ioThreads, ResourceLimits resourceLimits, String metrics,
                           io.fedbridge.broker.cluster.ClusterConfig cluster, HaConfig ha) {

    /** A configuration outside any HA group. */
    public BrokerConfig(String name, List<String> listeners, Path dataDirectory, FrameLimits limits,
                        Duration heartBeat, long memoryLimit, int defaultPrefetch, Durability durability,
                        List<DestinationPolicy> policies, List<String> networkConnectors, SecurityConfig security,
                        Duration inDoubtHold, int ioThreads, ResourceLimits resourceLimits, String metrics,
                        io.fedbridge.broker.cluster.ClusterConfig cluster) {
        this(name, listeners, dataDirectory, limits, heartBeat, memoryLimit, defaultPrefetch, durability, policies,
                networkConnectors, security, inDoubtHold, ioThreads, resourceLimits, metrics, cluster, null);
    }

    /** A configuration without federation-wide destinations, outside any HA group. */
    public BrokerConfig(String name, List<String> listeners, Path dataDirectory, FrameLimits limits,
                        Duration heartBeat, long memoryLimit, int defaultPrefetch, Durability durability,
                        List<DestinationPolicy> policies, List<String> networkConnectors, SecurityConfig security,
                        Duration inDoubtHold, int ioThreads, ResourceLimits resourceLimits, String metrics) {
        this(name, listeners, dataDirectory, limits, heartBeat, memoryLimit, defaultPrefetch, durability, policies,
                networkConnectors, security, inDoubtHold, ioThreads, resourceLimits, metrics, null, null);
    }

    /** A configuration without a metrics listener. */
    public BrokerConfig(String name, List<String> listeners, Path dataDirectory, FrameLimits limits,
                        Duration heartBeat, long memoryLimit, int defaultPrefetch, Durability durability,
                        List<DestinationPolicy> policies, List<String> networkConnectors, SecurityConfig security,
                        Duration inDoubtHold, int ioThreads, ResourceLimits resourceLimits) {
        this(name, listeners, dataDirectory, limits, heartBeat, memoryLimit, defaultPrefetch, durability, policies,
                networkConnectors, security, inDoubtHold, ioThreads, resourceLimits, null);
    }

    /** The default in-doubt hold: long enough for a broker restart or a link reconnect. */
    public static final Duration DEFAULT_IN_DOUBT_HOLD = Duration.ofSeconds(10);

    /** A configuration with the default resource limits. */
    public BrokerConfig(String name, List<String> listeners, Path dataDirectory, FrameLimits limits,
                        Duration heartBeat, long memoryLimit, int defaultPrefetch, Durability durability,
                        List<DestinationPolicy> policies, List<String> networkConnectors, SecurityConfig security,
                        Duration inDoubtHold, int ioThreads) {
        this(name, listeners, dataDirectory, limits, heartBeat, memoryLimit, defaultPrefetch, durability, policies,
                networkConnectors, security, inDoubtHold, ioThreads, null);
    }

    /** A configuration with the default number of I/O threads. */
    public BrokerConfig(String name, List<String> listeners, Path dataDirectory, FrameLimits limits,
                        Duration heartBeat, long memoryLimit, int defaultPrefetch, Durability durability,
                        List<DestinationPolicy> policies, List<String> networkConnectors, SecurityConfig security,
                        Duration inDoubtHold) {
        this(name, listeners, dataDirectory, limits, heartBeat, memoryLimit, defaultPrefetch, durability, policies,
                networkConnectors, security, inDoubtHold, 0);
    }

    /** A configuration with the default in-doubt hold. */
    public BrokerConfig(String name, List<String> listeners, Path dataDirectory, FrameLimits limits,
                        Duration heartBeat, long memoryLimit, int defaultPrefetch, Durability durability,
                        List<DestinationPolicy> policies, List<String> networkConnectors, SecurityConfig security) {
        this(name, listeners, dataDirectory, limits, heartBeat, memoryLimit, defaultPrefetch, durability, policies,
                networkConnectors, security, null, 0);
    }

    /** An open broker's configuration, as before security existed. */
    public BrokerConfig(String name, List<String> listeners, Path dataDirectory, FrameLimits limits,
                        Duration heartBeat, long memoryLimit, int defaultPrefetch, Durability durability,
                        List<DestinationPolicy> policies, List<String> networkConnectors) {
        this(name, listeners, dataDirectory, limits, heartBeat, memoryLimit, defaultPrefetch, durability, policies,
                networkConnectors, null, null, 0);
    }

    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9._-]{1,64}");

    public BrokerConfig {
        if (name == null || !NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("name must be 1-64 letters, digits, '.', '_' or '-', but was '" + name + "'");
        }
        listeners = List.copyOf(listeners == null ? List.of() : listeners);
        security = security == null ? SecurityConfig.ofDefaults() : security;
        for (String l : listeners) {
            CompositeUri u;
            try {
                u = CompositeUri.parse(l);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("listener " + e.getMessage(), e);
            }
            Transports.checkScheme(u);
            ListenerConfig.of(l, security); // its options: TLS, connection limits
        }
        limits = limits == null ? FrameLimits.ofDefaults() : limits;
        heartBeat = heartBeat == null ? Duration.ofSeconds(10) : heartBeat;
        if (heartBeat.isNegative()) {
            throw new IllegalArgumentException("heartBeat must be >= 0, but was " + heartBeat);
        }
        if (memoryLimit == 0) {
            memoryLimit = Math.min(512L * 1024 * 1024, Runtime.getRuntime().maxMemory() / 4);
        }
        if (memoryLimit < 64 * 1024) {
            throw new IllegalArgumentException("memoryLimit must be at least 65536 bytes, but was " + memoryLimit);
        }
        if (defaultPrefetch == 0) {
            defaultPrefetch = 1000;
        }
        if (defaultPrefetch < 0) {
            throw new IllegalArgumentException("defaultPrefetch must be > 0, but was " + defaultPrefetch);
        }
        durability = durability == null ? Durability.SYNC : durability;
        cluster = cluster == null ? io.fedbridge.broker.cluster.ClusterConfig.ofDefaults() : cluster;
        policies = List.copyOf(policies == null ? List.of() : policies);
        java.util.Set<String> seen = new java.util.HashSet<>();
        for (DestinationPolicy p : policies) {
            if (!seen.add(p.pattern())) {
                throw new IllegalArgumentException("policies must have distinct patterns, but '" + p.pattern() + "' appears twice");
            }
        }
        networkConnectors = List.copyOf(networkConnectors == null ? List.of() : networkConnectors);
        inDoubtHold = inDoubtHold == null ? DEFAULT_IN_DOUBT_HOLD : inDoubtHold;
        if (inDoubtHold.isNegative()) {
            throw new IllegalArgumentException("inDoubtHold must be >= 0, but was " + inDoubtHold);
        }
        if (ioThreads == 0) {
            ioThreads = defaultIoThreads();
        }
        if (ioThreads < 0 || ioThreads > MAX_IO_THREADS) {
            throw new IllegalArgumentException("ioThreads must be 1-" + MAX_IO_THREADS + " (0 = the default, "
                    + defaultIoThreads() + " here), but was " + ioThreads);
        }
        resourceLimits = resourceLimits == null ? ResourceLimits.ofDefaults() : resourceLimits;
        checkMetrics(metrics);
    }

    private static void checkMetrics(String metrics) {
        if (metrics == null) {
            return;
        }
        java.net.URI u;
        try {
            u = new java.net.URI(metrics);
        } catch (java.net.URISyntaxException e) {
            throw new IllegalArgumentException("metrics must be a URI http://HOST:PORT, but was '" + metrics + "'", e);
        }
        if (!"http".equals(u.getScheme()) || u.getHost() == null || u.getPort() < 0
                || u.getRawPath() != null && !u.getRawPath().isEmpty() && !"/".equals(u.getRawPath()) || u.getRawFragment() != null) {
            throw new IllegalArgumentException("metrics must be a URI http://HOST:PORT (port 0 = any free port, options "
                    + "after '?'), but was '" + metrics + "'");
        }
    }

    /** The most I/O threads a broker may have. */
    public static final int MAX_IO_THREADS = 1024;

    /**
     * The default number of I/O threads: one per processor. Fewer keep more of the two connections a message crosses in
     * a broker on one thread (no wait for a second thread to wake up): on 2 cores one thread gave a lower median
     * latency at 1,000 msg/s, but two forwarded about 20% more messages per second. The system property
     * {@value #IO_THREADS_PROPERTY}, when set, replaces this default.
     */
    public static int defaultIoThreads() {
        String set = System.getProperty(IO_THREADS_PROPERTY);
        if (set == null) {
            return Runtime.getRuntime().availableProcessors();
        }
        try {
            int n = Integer.parseInt(set.trim());
            if (n >= 1 && n <= MAX_IO_THREADS) {
                return n;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalArgumentException("system property " + IO_THREADS_PROPERTY + " must be 1-" + MAX_IO_THREADS
                + ", but was '" + set + "'");
    }

    /** The JVM system property that, when set, is {@link #defaultIoThreads()}: e.g. to compare settings in benchmarks. */
    public static final String IO_THREADS_PROPERTY = "fedbridge.ioThreads";

    /** As a record prints itself, but with every secret in listener and network-connector URIs masked. */
    @Override
    public String toString() {
        return "BrokerConfig[name=" + name + ", listeners=" + masked(listeners) + ", dataDirectory=" + dataDirectory
                + ", limits=" + limits + ", heartBeat=" + heartBeat + ", memoryLimit=" + memoryLimit + ", defaultPrefetch="
                + defaultPrefetch + ", durability=" + durability + ", policies=" + policies + ", networkConnectors="
                + masked(networkConnectors) + ", security=" + security + ", inDoubtHold=" + inDoubtHold + ", ioThreads=" + ioThreads
                + ", resourceLimits=" + resourceLimits + ", metrics=" + metrics + "]";
    }

    private static List<String> masked(List<String> uris) {
        List<String> l = new ArrayList<>(uris.size());
        for (String u : uris) {
            try {
                l.add(CompositeUri.parse(u).toString());
            } catch (IllegalArgumentException e) {
                l.add("(invalid URI)");
            }
        }
        return l;
    }

    public static Builder builder(String name) {
        return new Builder(name);
    }

    public static BrokerConfig ofDefaults(String name) {
        return builder(name).build();
    }

    public Builder toBuilder() {
        Builder b = new Builder(name);
        b.listeners.addAll(listeners);
        b.dataDirectory = dataDirectory;
        b.limits = limits;
        b.heartBeat = heartBeat;
        b.memoryLimit = memoryLimit;
        b.defaultPrefetch = defaultPrefetch;
        b.durability = durability;
        b.policies.addAll(policies);
        b.networkConnectors.addAll(networkConnectors);
        b.security = security;
        b.inDoubtHold = inDoubtHold;
        b.ioThreads = ioThreads;
        b.resourceLimits = resourceLimits;
        b.metrics = metrics;
        b.ha = ha;
        b.cluster = cluster.toBuilder();
        return b;
    }

    public static final class Builder {
        private String name;
        private final List<String> listeners = new ArrayList<>();
        private Path dataDirectory;
        private FrameLimits limits;
        private Duration heartBeat;
        private Duration inDoubtHold;
        private long memoryLimit;
        private int defaultPrefetch;
        private Durability durability;
        private final List<DestinationPolicy> policies = new ArrayList<>();
        private final List<String> networkConnectors = new ArrayList<>();
        private SecurityConfig security;
        private int ioThreads;
        private ResourceLimits resourceLimits;
        private String metrics;
        private HaConfig ha;
        private io.fedbridge.broker.cluster.ClusterConfig.Builder cluster = io.fedbridge.broker.cluster.ClusterConfig.builder();

        private Builder(String name) {
            this.name = name;
        }

        public Builder name(String name) {
            this.name = name;
            return this;
        }

        /** Replaces every listener URI. */
        public Builder listeners(List<String> uris) {
            listeners.clear();
            listeners.addAll(uris);
            return this;
        }

        /** Adds a listener URI; may be called several times. */
        public Builder listen(String uri) {
            listeners.add(uri);
            return this;
        }

        public Builder dataDirectory(Path dir) {
            this.dataDirectory = dir;
            return this;
        }

        public Builder limits(FrameLimits limits) {
            this.limits = limits;
            return this;
        }

        /** See {@link BrokerConfig#inDoubtHold()}. */
        public Builder inDoubtHold(Duration inDoubtHold) {
            this.inDoubtHold = inDoubtHold;
            return this;
        }

        public Builder heartBeat(Duration heartBeat) {
            this.heartBeat = heartBeat;
            return this;
        }

        public Builder memoryLimit(long bytes) {
            this.memoryLimit = bytes;
            return this;
        }

        public Builder defaultPrefetch(int prefetch) {
            this.defaultPrefetch = prefetch;
            return this;
        }

        public Builder durability(Durability durability) {
            this.durability = durability;
            return this;
        }

        /** Adds a destination policy. */
        public Builder policy(DestinationPolicy policy) {
            policies.add(policy);
            return this;
        }

        /** Adds a network connector (a discovery URI); may be called several times. */
        public Builder networkConnector(String uri) {
            networkConnectors.add(uri);
            return this;
        }

        /** Authentication, authorization, TLS and limits; null for an open broker. */
        public Builder security(SecurityConfig security) {
            this.security = security;
            return this;
        }

        /** See {@link BrokerConfig#ioThreads()}; 0 = the default. */
        public Builder ioThreads(int ioThreads) {
            this.ioThreads = ioThreads;
            return this;
        }

        /** See {@link BrokerConfig#resourceLimits()}; null = the defaults. */
        public Builder resourceLimits(ResourceLimits resourceLimits) {
            this.resourceLimits = resourceLimits;
            return this;
        }

        /**
         * Changes some resource limits, keeping the others as set so far (or the defaults), e.g.
         * {@code resourceLimits(l -> l.maxSlowDuration(Duration.ofSeconds(10)))}.
         */
        public Builder resourceLimits(java.util.function.Consumer<ResourceLimits.Builder> change) {
            ResourceLimits.Builder b = (resourceLimits == null ? ResourceLimits.ofDefaults() : resourceLimits).toBuilder();
            change.accept(b);
            this.resourceLimits = b.build();
            return this;
        }

        /** See {@link BrokerConfig#metrics()}: e.g. {@code http://127.0.0.1:9404}; null = none. */
        public Builder metrics(String uri) {
            this.metrics = uri;
            return this;
        }

        /** See {@link BrokerConfig#ha()}; null = not in a group. */
        public Builder ha(HaConfig ha) {
            this.ha = ha;
            return this;
        }

        /**
         * Changes this broker's HA membership with the {@code ha.*} keys' names, e.g.
         * {@code ha(h -> h.group("g").brokers("tcp://a:61613,tcp://b:61613").zookeeper("zk:2181"))}.
         */
        public Builder ha(java.util.function.Consumer<HaConfig.Builder> change) {
            HaConfig.Builder b = ha == null ? new HaConfig.Builder() : ha.toBuilder();
            change.accept(b);
            this.ha = b.build();
            return this;
        }

        /** See {@link BrokerConfig#cluster()}; replaces destinations and auto-deletion set so far. */
        public Builder cluster(io.fedbridge.broker.cluster.ClusterConfig cluster) {
            this.cluster = (cluster == null ? io.fedbridge.broker.cluster.ClusterConfig.ofDefaults() : cluster).toBuilder();
            return this;
        }

        /** Defines a destination for the whole federation ({@code policy}'s pattern is its exact name): docs/cluster.md. */
        public Builder destination(DestinationPolicy policy) {
            cluster.destination(policy);
            return this;
        }

        /** See {@link io.fedbridge.broker.cluster.ClusterConfig#autoDeleteIdle()}. */
        public Builder autoDeleteIdle(Duration idle) {
            cluster.autoDeleteIdle(idle);
            return this;
        }

        /** See {@link io.fedbridge.broker.cluster.ClusterConfig#tempDestinationReconnectGrace()}. */
        public Builder tempDestinationReconnectGrace(Duration grace) {
            cluster.tempDestinationReconnectGrace(grace);
            return this;
        }

        /** See {@link io.fedbridge.broker.cluster.ClusterConfig#masterBroker()}. */
        public Builder masterBroker(String name) {
            cluster.masterBroker(name);
            return this;
        }

        public BrokerConfig build() {
            return new BrokerConfig(name, listeners, dataDirectory, limits, heartBeat, memoryLimit, defaultPrefetch,
                    durability, policies, networkConnectors, security, inDoubtHold, ioThreads, resourceLimits, metrics,
                    cluster.build(), ha);
        }
    }
}
