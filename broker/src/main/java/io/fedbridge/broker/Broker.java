package io.fedbridge.broker;

import io.fedbridge.broker.internal.BrokerCore;
import io.fedbridge.broker.jmx.BrokerJmx;
import io.fedbridge.broker.internal.ServerSession;
import io.fedbridge.broker.security.ListenerConfig;
import io.fedbridge.broker.security.internal.ConnectionLimiter;
import io.fedbridge.broker.security.internal.SecurityGuard;
import io.fedbridge.broker.store.DedupeLog;
import io.fedbridge.broker.store.InMemoryMessageStore;
import io.fedbridge.broker.store.JournalMessageStore;
import io.fedbridge.broker.store.StoreConfig;
import io.fedbridge.broker.store.StoreException;
import io.fedbridge.core.ClientConfig;
import io.fedbridge.core.bridge.BridgeStats;
import io.fedbridge.core.bridge.NetworkConnector;
import io.fedbridge.core.internal.LocalFrames;
import io.fedbridge.core.internal.PipelineNames;
import io.fedbridge.core.internal.Transports;
import io.fedbridge.core.uri.CompositeUri;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An embeddable fedbridge broker node speaking STOMP 1.2 on every configured listener, and always on
 * {@code vm://NAME} inside its JVM.
 *
 * <pre>{@code
 * try (Broker broker = Broker.start(BrokerConfig.builder("A").listen("tcp://127.0.0.1:0").build())) {
 *     String uri = broker.connectUris().get(0);   // e.g. tcp://127.0.0.1:40123
 * }
 * }</pre>
 *
 * Thread-safe. {@link #close()} closes every listener and connection and waits for its threads.
 */
public final class Broker implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(Broker.class);
    private static final java.time.Duration WARM_UP_TIMEOUT = java.time.Duration.ofSeconds(2);

    private final BrokerConfig config;
    private final BrokerCore core;
    private final MessageStore store;
    private final EventLoopGroup boss;
    private final EventLoopGroup workers;
    private final List<Channel> serverChannels = new ArrayList<>();
    private final List<String> connectUris = new ArrayList<>();
    /** Where {@link #warmUp} connects: the first tcp:// listener without limits, on loopback if bound to any; or null. */
    private String warmUpUri;
    private final List<NetworkConnector> networkConnectors = new java.util.concurrent.CopyOnWriteArrayList<>();
    private volatile boolean running;
    private volatile BrokerJmx jmx;
    private volatile java.util.concurrent.ScheduledFuture<?> jmxRefresh;
    private volatile java.util.concurrent.ScheduledExecutorService housekeeping;
    private final SecurityGuard guard;
    private volatile io.fedbridge.broker.management.BrokerManagement management;
    private final List<io.fedbridge.broker.management.ListenerInfo> listenerInfos = new java.util.concurrent.CopyOnWriteArrayList<>();
    private volatile io.fedbridge.broker.cluster.ClusterDestinations cluster;
    /** Started {@link BrokerExtension}s, closed in reverse order before the broker's listeners. */
    private final List<AutoCloseable> extensions = new java.util.concurrent.CopyOnWriteArrayList<>();

    private Broker(BrokerConfig config, MessageStore store, String id) {
        this.config = config;
        this.store = store;
        this.guard = config.security().isOpen() && config.security().federationSecret() == null ? SecurityGuard.open()
                : new SecurityGuard(config.security(), config.name());
        this.boss = io.fedbridge.core.internal.Transports.newEventLoopGroup(1,
                new DefaultThreadFactory("fedbridge-" + config.name() + "-accept"));
        // Sockets and vm:// connections on the same loops: the broker's bridges run here too (addNetworkConnector).
        this.workers = io.fedbridge.core.internal.Transports.newEventLoopGroup(config.ioThreads(),
                new DefaultThreadFactory("fedbridge-" + config.name() + "-io"));
        try {
            LoadedLog dedupe = openDedupeWindow(config);
            this.core = new BrokerCore(config, id, store, Clock.systemUTC(), dedupe.log(), dedupe.known(), workers);
        } catch (RuntimeException e) {
            boss.shutdownGracefully(0, 1, TimeUnit.SECONDS);
            workers.shutdownGracefully(0, 1, TimeUnit.SECONDS);
            throw e;
        }
    }

    /**
     * Starts a broker: opens its store, recovers persistent messages, binds every listener.
     *
     * @throws BrokerException if a listener cannot be bound or the store cannot be opened; nothing is left running
     */
    public static Broker start(BrokerConfig config) {
        return start(config, null);
    }

    /**
     * Starts a broker on a store of the embedder's choosing (null: the journal store in the data directory,
     * or memory without one). The broker closes the store when it stops.
     */
    public static Broker start(BrokerConfig config, MessageStore customStore) {
        if (config.ha() != null) {
            throw new BrokerException("broker " + config.name() + " is a member of HA group '" + config.ha().group()
                    + "' (ha.group): start it with io.fedbridge.ha.HaMember.start(config), module fedbridge-ha");
        }
        return start(config, customStore, null);
    }

    /**
     * Starts a broker that is a member of an HA group, answering connections as {@code gate} says. For module
     * {@code fedbridge-ha}; applications start a member with {@code io.fedbridge.ha.HaMember}.
     */
    public static Broker start(BrokerConfig config, MessageStore customStore, io.fedbridge.broker.internal.HaGate gate) {
        String id = brokerId(config);
        MessageStore store = customStore != null ? customStore : openStore(config);
        Broker b;
        try {
            b = new Broker(config, store, id);
        } catch (RuntimeException e) {
            store.close();
            throw e;
        }
        b.core.haGate = gate;
        try {
            b.bindAll();
            b.cluster = io.fedbridge.broker.cluster.ClusterDestinations.start(new io.fedbridge.broker.internal.ClusterCore(b.core),
                    config.cluster(), config.dataDirectory(), peer -> b.links().stream().anyMatch(l -> peer.equals(l.peerName())
                            && l.state() == io.fedbridge.core.bridge.BridgeState.UP));
            b.management = io.fedbridge.broker.management.BrokerManagement.start(b, new io.fedbridge.broker.internal.ManagedCore(b.core));
            for (String nc : config.networkConnectors()) {
                b.addNetworkConnector(nc);
            }
            b.startJmx();
            b.startExtensions();
        } catch (RuntimeException e) {
            b.close();
            throw e;
        }
        b.warmUp();
        return b;
    }

    /**
     * The broker's stable id: kept in {@code DATA/broker.id} so that it survives restarts (peers recognise
     * the broker, and federation ids stay unique); random for a broker without a data directory.
     */
    private static String brokerId(BrokerConfig config) {
        Path dir = config.dataDirectory();
        if (dir == null) {
            return UUID.randomUUID().toString();
        }
        Path file = dir.resolve("broker.id");
        try {
            Files.createDirectories(dir);
            if (Files.exists(file)) {
                String id = Files.readString(file, StandardCharsets.UTF_8).trim();
                try {
                    UUID.fromString(id);
                } catch (IllegalArgumentException e) {
                    throw new BrokerException("broker " + config.name() + ": " + file + " does not hold a broker id (a UUID), but '"
                            + (id.length() > 40 ? id.substring(0, 40) + "..." : id) + "'; is this a fedbridge data directory?");
                }
                return id;
            }
            String id = UUID.randomUUID().toString();
            Path tmp = dir.resolve("broker.id.tmp");
            Files.writeString(tmp, id + "\n", StandardCharsets.UTF_8);
            Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE);
            return id;
        } catch (IOException e) {
            throw new BrokerException("broker " + config.name() + " cannot use data directory " + dir + ": " + e, e);
        }
    }

    /** The dedupe log (null without a data directory) and the fingerprints it holds, read once at start. */
    private record LoadedLog(DedupeLog log, java.util.List<DedupeLog.Fingerprint> known) {
    }

    private static LoadedLog openDedupeWindow(BrokerConfig config) {
        Path dir = config.dataDirectory();
        if (dir == null) {
            return new LoadedLog(null, java.util.List.of());
        }
        Path file = dir.resolve("dedupe.db");
        DedupeLog window = null;
        try {
            window = openLog(file);
            return new LoadedLog(window, window.load()); // reads every entry: a damaged file shows here
        } catch (StoreException e) {
            if (e.getCause() instanceof org.mapdb.DBException.FileLocked) {
                throw new BrokerException("broker " + config.name() + " cannot open its dedupe window: " + e.getMessage(), e);
            }
            closeQuietly(window);
            // The window only narrows duplicates after a restart (the journal keeps the messages themselves): a broker
            // that cannot start over it would be far worse. Keep the damaged files for a post-mortem, start afresh.
            Path aside = dir.resolve("dedupe.db.damaged-" + System.currentTimeMillis());
            try {
                Files.createDirectories(aside);
                try (var files = Files.list(dir)) {
                    for (Path f : files.filter(f -> f.getFileName().toString().startsWith("dedupe.db")
                            && !f.getFileName().toString().startsWith("dedupe.db.damaged-")).toList()) {
                        Files.move(f, aside.resolve(f.getFileName()));
                    }
                }
            } catch (IOException io) {
                throw new BrokerException("broker " + config.name() + " cannot open its dedupe window (" + e.getMessage()
                        + ") nor move it aside: " + io, io);
            }
            LOG.warn("broker {}: {}; moved it to {} and started an empty one (resends of messages accepted before "
                    + "the restart are recognised only while those messages are still stored)", config.name(), e.getMessage(), aside);
            try {
                return new LoadedLog(openLog(file), java.util.List.of());
            } catch (StoreException again) {
                throw new BrokerException("broker " + config.name() + " cannot open its dedupe window: " + again.getMessage(), again);
            }
        }
    }

    private static DedupeLog openLog(Path file) {
        return DedupeLog.open(file, io.fedbridge.broker.internal.BrokerCore.DEDUPE_CAPACITY, java.time.Duration.ofHours(1),
                java.time.Clock.systemUTC());
    }

    private static void closeQuietly(DedupeLog window) {
        if (window == null) {
            return;
        }
        try {
            window.close();
        } catch (RuntimeException | java.io.IOError e) {
            // damaged: closing may fail too; the files are moved aside next
        }
    }

    private static MessageStore openStore(BrokerConfig config) {
        Path dir = config.dataDirectory();
        if (dir == null) {
            return new InMemoryMessageStore();
        }
        try {
            return JournalMessageStore.open(StoreConfig.ofDefaults(dir.resolve("journal")).toBuilder().durability(config.durability()).build());
        } catch (StoreException e) {
            throw new BrokerException("broker " + config.name() + " cannot open its store: " + e.getMessage(), e);
        }
    }

    private void bindAll() {
        List<String> all = new ArrayList<>(config.listeners());
        all.add("vm://" + config.name());
        for (String l : all) {
            CompositeUri uri = CompositeUri.parse(l);
            ListenerConfig listener = ListenerConfig.of(l, config.security());
            io.netty.handler.ssl.SslContext ssl;
            try {
                ssl = listener.tls() == null ? null : io.fedbridge.core.tls.internal.SslContexts.forServer(listener.tls());
            } catch (RuntimeException e) {
                throw new BrokerException("broker " + config.name() + " could not listen on " + uri + ": " + e.getMessage(), e);
            }
            ConnectionLimiter limiter = listener.limits().isUnlimited() ? null
                    : new ConnectionLimiter(listener.uri().toString(), listener.limits());
            ChannelFuture f = Transports.bind(uri, boss, workers, new ChannelInitializer<>() {
                @Override
                protected void initChannel(Channel ch) {
                    if (limiter != null && !limiter.tryAccept(ch)) {
                        ch.close();
                        return;
                    }
                    if (ssl != null) {
                        ch.pipeline().addLast(PipelineNames.TLS, io.fedbridge.core.tls.internal.SslContexts
                                .newServerHandler(ssl, listener.tls(), ch.alloc()));
                    }
                    if (Transports.isWebSocket(uri)) {
                        io.fedbridge.core.internal.WebSockets.installServer(ch.pipeline(), uri, config.limits());
                    }
                    LocalFrames.install(ch, config.limits());
                    ch.pipeline().addLast(PipelineNames.HANDLER, new ServerSession(core, guard));
                }
            });
            f.awaitUninterruptibly();
            if (!f.isSuccess()) {
                throw new BrokerException("broker " + config.name() + " could not listen on " + uri + ": "
                        + (f.cause().getMessage() != null ? f.cause().getMessage() : f.cause().toString()), f.cause());
            }
            serverChannels.add(f.channel());
            listenerInfos.add(new io.fedbridge.broker.management.ListenerInfo(uri.toString(),
                    Transports.isLocal(uri) ? uri.toString() : Transports.boundUri(uri, f.channel()), uri.scheme(), ssl != null,
                    System.currentTimeMillis()));
            String exposed = io.fedbridge.broker.internal.OpenListenerWarning.of(config.name(), uri.toString(),
                    f.channel().localAddress(), config.security().isOpen());
            if (exposed != null) {
                LOG.warn(exposed);
            }
            if (!Transports.isLocal(uri)) {
                connectUris.add(Transports.boundUri(uri, f.channel()));
                if ("tcp".equals(uri.scheme()) && limiter == null && warmUpUri == null
                        && f.channel().localAddress() instanceof java.net.InetSocketAddress a) {
                    warmUpUri = Transports.tcpUri(a.getAddress().isAnyLocalAddress()
                            ? new java.net.InetSocketAddress(java.net.InetAddress.getLoopbackAddress(), a.getPort()) : a);
                }
            }
        }
        running = true;
        LOG.info("broker {} ({}) started, listening on {} and vm://{}; fedbridge {}, durability {}, security {}, data directory {}",
                config.name(), core.brokerId(), connectUris, config.name(), version(),
                config.dataDirectory() == null ? "none (in memory)" : config.durability(),
                io.fedbridge.broker.management.BrokerManagement.securityMode(config.security()),
                config.dataDirectory() == null ? "none" : config.dataDirectory().toAbsolutePath());
    }

    /**
     * Takes one connection through this broker's first listener without TLS: CONNECT, CONNECTED, DISCONNECT, before
     * {@link #start} returns. A JVM's first STOMP connection pays for loading the session, codec and buffer classes
     * (Netty's allocator also sets up its JFR event types on its first chunk): a fresh broker took 165 ms to answer its
     * first CONNECT and 4 ms for the second. On a standby broker, that first connection is a failover client's, in
     * the middle of its failover. Costs a few ms once the JVM is warm. Skipped when logins are required (a CONNECT
     * without one would be logged and counted as a failed login), and without a tcp:// listener free of connection
     * limits (it would take a client's place). A failure only costs the benefit: it is logged at DEBUG.
     */
    private void warmUp() {
        if (warmUpUri == null || !config.security().isOpen()) {
            return;
        }
        long start = System.nanoTime();
        int before = core.sessionCount();
        ClientConfig cc = ClientConfig.builder(warmUpUri).heartBeats(java.time.Duration.ZERO)
                .connectTimeout(WARM_UP_TIMEOUT).closeTimeout(WARM_UP_TIMEOUT).build();
        try {
            io.fedbridge.core.StompConnection.connect(cc).close();
        } catch (RuntimeException e) {
            LOG.debug("broker {}: warm-up connection to {} failed: {}", config.name(), warmUpUri, e.toString());
            return;
        }
        // The client saw DISCONNECT's receipt; the broker drops the session as it closes the socket right after.
        long deadline = System.nanoTime() + WARM_UP_TIMEOUT.toNanos();
        while (core.sessionCount() > before && System.nanoTime() < deadline) {
            java.util.concurrent.locks.LockSupport.parkNanos(100_000);
        }
        LOG.debug("broker {}: warm-up connection to {} took {} ms", config.name(), warmUpUri,
                (System.nanoTime() - start) / 1_000_000);
    }

    private void startJmx() {
        jmx = new BrokerJmx(this);
        jmx.refresh();
        // Its own thread, not an I/O loop: with thousands of queues a pass takes long enough to stall every
        // connection on that loop; with a fixed delay, a slow pass never runs back to back with the next.
        housekeeping = java.util.concurrent.Executors.newSingleThreadScheduledExecutor(
                new DefaultThreadFactory("fedbridge-" + config.name() + "-housekeeping", true));
        jmxRefresh = housekeeping.scheduleWithFixedDelay(() -> {
            try {
                jmx.refresh();
                core.updateCluster(clusterUris(), false);
                management.tick();
            } catch (RuntimeException e) {
                LOG.debug("broker {}: housekeeping failed: {}", config.name(), e.toString());
            }
        }, 1, 1, TimeUnit.SECONDS);
        core.updateCluster(clusterUris(), false);
    }

    /**
     * This broker's client URIs first, then those of the peers its bridges are up to: what failover clients are
     * told in CONNECTED and on {@code /topic/fedbridge.advisory.cluster} (checked every second). WebSocket listeners
     * ({@code ws://}, {@code wss://}) are left out: they serve browsers and Node, which do not follow these updates,
     * and a failover client that connected over TCP or TLS stays on it.
     */
    public String clusterUris() {
        java.util.LinkedHashSet<String> uris = new java.util.LinkedHashSet<>();
        for (String u : connectUris) {
            if (!Transports.isWebSocket(CompositeUri.parse(u))) {
                uris.add(u);
            }
        }
        java.util.TreeSet<String> peers = new java.util.TreeSet<>(); // sorted: a stable list changes only when the cluster does
        for (NetworkConnector nc : networkConnectors) {
            for (io.fedbridge.core.bridge.FederationBridge b : nc.bridges()) {
                if (b.state() == io.fedbridge.core.bridge.BridgeState.UP) {
                    peers.add(CompositeUri.parse(b.config().remoteUri()).withoutOptions().toUnmaskedString());
                }
            }
        }
        uris.addAll(peers);
        return String.join(",", uris);
    }

    /** Tells connected failover clients to spread out again over the cluster list. */
    public void rebalanceClients() {
        core.updateCluster(clusterUris(), true);
    }

    /** Destinations defined for the whole federation (docs/cluster.md). */
    public io.fedbridge.broker.cluster.ClusterDestinations cluster() {
        return cluster;
    }

    /**
     * The broker's management: a read-only snapshot of its objects (queues, topics, connections, bridges…), their methods
     * and events; the same model answers requests on {@code /queue/fedbridge.management} (docs/management.md).
     */
    /**
     * Its HA group's state as this member sees it ({@code group}, {@code member}, {@code role}, {@code state},
     * {@code epoch}, {@code primary}, ...; see docs/ha.md) if it is a member of one; else null.
     */
    public java.util.Map<String, Object> haStatus() {
        io.fedbridge.broker.internal.HaGate g = core.haGate;
        return g == null ? null : g.status();
    }

    /**
     * Closes every client and bridge connection; listeners stay bound. For an HA
     * primary that must stop receipting: its clients resend what was not receipted elsewhere.
     */
    public void closeConnections() {
        core.closeSessions();
    }

    public io.fedbridge.broker.management.BrokerManagement management() {
        return management;
    }

    /** Every listener, the in-JVM {@code vm://NAME} one last. */
    public List<io.fedbridge.broker.management.ListenerInfo> listeners() {
        return List.copyOf(listenerInfos);
    }

    /** The fedbridge version of this build, e.g. {@code 0.1.0}; {@code unknown} if the build did not record it. */
    public static String version() {
        try (java.io.InputStream in = Broker.class.getResourceAsStream("version.properties")) {
            if (in == null) {
                return "unknown";
            }
            java.util.Properties p = new java.util.Properties();
            p.load(in);
            String v = p.getProperty("version", "unknown");
            return v.startsWith("${") ? "unknown" : v;
        } catch (IOException e) {
            return "unknown";
        }
    }

    private void startExtensions() {
        for (BrokerExtension x : java.util.ServiceLoader.load(BrokerExtension.class, Broker.class.getClassLoader())) {
            AutoCloseable started;
            try {
                started = x.start(this);
            } catch (RuntimeException e) {
                throw new BrokerException("broker " + config.name() + ": " + e.getMessage(), e);
            }
            if (started != null) {
                extensions.add(started);
            }
        }
        if (config.metrics() != null && extensions.isEmpty()) {
            throw new BrokerException("broker " + config.name() + ": metrics = " + config.metrics()
                    + " needs the module fedbridge-metrics (io.fedbridge:fedbridge-metrics) on the class path");
        }
    }

    /**
     * The started {@link BrokerExtension} of this type, e.g. {@code broker.extension(MetricsEndpoint.class)}; null if
     * none is running.
     */
    public <T> T extension(Class<T> type) {
        for (AutoCloseable x : extensions) {
            if (type.isInstance(x)) {
                return type.cast(x);
            }
        }
        return null;
    }

    /**
     * Tells {@code listener} of every message a queue hands to a consumer (replacing the previous listener; null for
     * none). For metrics: see {@link DispatchListener} for what it may do.
     */
    public void onDispatch(DispatchListener listener) {
        core.dispatchListener = listener == null ? DispatchListener.NONE : listener;
    }

    /** The store this broker keeps persistent messages in (read its counters; writing to it is the broker's job). */
    public MessageStore store() {
        return store;
    }

    /**
     * The hooks of single-queue replication, for module {@code fedbridge-ha}; applications use
     * {@link io.fedbridge.broker.management.BrokerManagement#replicateQueue} instead.
     */
    public io.fedbridge.broker.internal.QueueReplicas queueReplicas() {
        return core.replicas;
    }

    /**
     * Every link of every network connector, one per peer, with counters that outlive a reconnect and the peer's
     * name (see {@link NetworkConnector#links()}).
     */
    public List<io.fedbridge.core.bridge.LinkStats> links() {
        List<io.fedbridge.core.bridge.LinkStats> l = new ArrayList<>();
        for (NetworkConnector nc : networkConnectors) {
            l.addAll(nc.links());
        }
        return l;
    }

    /** Federation ids the dedupe window remembers now (at most {@link BrokerCore#DEDUPE_CAPACITY}). */
    public int dedupeWindowSize() {
        return core.dedupeWindowSize();
    }

    /** The broker's JMX beans (refreshed every second); null before start completes. */
    public BrokerJmx jmx() {
        return jmx;
    }

    /**
     * Adds a network connector at run time, e.g. {@code static:(tcp://b:61613)?networkTTL=2&duplex=true}.
     *
     * @throws IllegalArgumentException for a bad URI or option, naming it and listing the valid ones
     */
    public NetworkConnector addNetworkConnector(String discoveryUri) {
        io.fedbridge.broker.management.BrokerManagement m = management;
        NetworkConnector nc = NetworkConnector.start(discoveryUri,
                NetworkConnector.Local.of(vmUri(), core.brokerId(), config.name(), connectUris, workers)
                        .withFederationSecret(config.security().federationSecret()),
                m != null ? m.bridgeListener() : new io.fedbridge.core.bridge.BridgeListener() {
                });
        networkConnectors.add(nc);
        return nc;
    }

    /** Stops and removes a network connector; false if there is none with that URI. */
    public boolean removeNetworkConnector(String discoveryUri) {
        for (NetworkConnector nc : networkConnectors) {
            if (nc.uri().toUnmaskedString().equals(CompositeUri.parse(discoveryUri).toUnmaskedString())) {
                networkConnectors.remove(nc);
                nc.close();
                return true;
            }
        }
        return false;
    }

    public List<NetworkConnector> networkConnectors() {
        return List.copyOf(networkConnectors);
    }

    /** Every bridge of every network connector, with its state and counters. */
    public List<BridgeStats> bridges() {
        List<BridgeStats> l = new ArrayList<>();
        for (NetworkConnector nc : networkConnectors) {
            l.addAll(nc.stats());
        }
        return l;
    }

    /** Messages dropped because their federation id was already accepted (resends after failures). */
    public long duplicatesDropped() {
        return core.duplicatesDropped();
    }

    public String name() {
        return config.name();
    }

    /** The broker's id, announced to peers and clients in CONNECTED. */
    public String id() {
        return core.brokerId();
    }

    public BrokerConfig config() {
        return config;
    }

    /** URIs clients use to reach the network listeners, with port 0 resolved. */
    public List<String> connectUris() {
        return Collections.unmodifiableList(connectUris);
    }

    /** The in-JVM address of this broker: {@code vm://NAME}. */
    public String vmUri() {
        return "vm://" + config.name();
    }

    public boolean isRunning() {
        return running;
    }

    /** Counters of every queue. */
    public List<DestinationStats> queues() {
        return core.queueSnapshots();
    }

    /** Counters of one queue, or null if it does not exist. */
    public DestinationStats queue(String name) {
        for (DestinationStats s : core.queueSnapshots()) {
            if (s.name().equals(name)) {
                return s;
            }
        }
        return null;
    }

    /** Bytes of message data held now (flow control starts at {@link BrokerConfig#memoryLimit()}). */
    public long memoryUsed() {
        return core.memoryUsed();
    }

    /**
     * How many times the broker's memory reached {@link BrokerConfig#memoryLimit()} and paused producers since it started;
     * each time the log names the queues holding the most (WARN) and a {@code memory-limit-reached} event is published.
     */
    public long memoryLimitReached() {
        return core.memoryLimitReached();
    }

    /** Producer connections paused now until the broker's memory falls below 70% of {@link BrokerConfig#memoryLimit()}. */
    public int memoryPausedConnections() {
        return core.memoryPausedConnections();
    }

    /**
     * True while the disk of the data directory has less free space than {@link ResourceLimits#minFreeDisk()}: persistent
     * sends wait for space meanwhile (checked every second).
     */
    public boolean isDiskSpaceLow() {
        return core.isDiskSpaceLow();
    }

    public int connectionCount() {
        return core.sessionCount();
    }

    /** Stops the broker: closes listeners and connections, then its threads and store. Idempotent. */
    @Override
    public void close() {
        boolean wasRunning = running;
        running = false;
        for (int i = extensions.size() - 1; i >= 0; i--) {
            try {
                extensions.get(i).close();
            } catch (Exception e) {
                LOG.warn("broker {}: closing {} failed: {}", config.name(), extensions.get(i), e.toString());
            }
        }
        extensions.clear();
        if (jmxRefresh != null) {
            jmxRefresh.cancel(false);
        }
        if (housekeeping != null) {
            housekeeping.shutdown();
            try {
                housekeeping.awaitTermination(2, TimeUnit.SECONDS); // a pass under way must not register beans after close
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        if (jmx != null) {
            jmx.close();
        }
        if (management != null) {
            management.close();
        }
        for (NetworkConnector nc : networkConnectors) {
            nc.close();
        }
        networkConnectors.clear();
        for (Channel ch : serverChannels) {
            ch.close().awaitUninterruptibly();
        }
        serverChannels.clear();
        core.closeSessions();
        if (cluster != null) {
            cluster.close();
        }
        boss.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly();
        workers.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly();
        core.close();
        store.close();
        guard.close();
        if (wasRunning) {
            LOG.info("broker {} stopped", config.name());
        }
    }

    @Override
    public String toString() {
        return "Broker[" + config.name() + ", " + connectUris + "]";
    }
}
