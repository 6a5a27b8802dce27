package io.fedbridge.core.bridge;

import io.fedbridge.core.ReconnectConfig;
import io.fedbridge.core.discovery.DiscoveryAgent;
import io.fedbridge.core.discovery.DiscoveryAgentProvider;
import io.fedbridge.core.discovery.DiscoveryAgents;
import io.fedbridge.core.discovery.DiscoveryContext;
import io.fedbridge.core.discovery.DiscoveryListener;
import io.fedbridge.core.discovery.PeerInfo;
import io.fedbridge.core.uri.CompositeUri;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A broker's network connector: a discovery agent finds peers ({@code static:(…)}, {@code multicast://…})
 * and the connector runs one {@link FederationBridge} per peer, starting a new one whenever the agent says
 * to (first discovery, or a retry after its back-off) and reporting each link's fate back to the agent.
 *
 * <pre>{@code
 * NetworkConnector nc = NetworkConnector.start("static:(tcp://b:61613,tcp://c:61613)?networkTTL=2&duplex=true",
 *         NetworkConnector.Local.of("vm://A", brokerId, "A", List.of("tcp://a:61613")));
 * }</pre>
 */
public final class NetworkConnector implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(NetworkConnector.class);

    /**
     * The broker a connector works for.
     *
     * @param localUri      how bridges reach it, usually {@code vm://NAME}
     * @param brokerId      its broker id
     * @param brokerName    its name
     * @param advertiseUris how peers reach it (announced by multicast discovery)
     */
    /**
     * The broker a connector's bridges start from.
     *
     * @param eventLoops where the bridges' connections run (a group from {@code Transports.newEventLoopGroup}: the
     *                   broker's own, so a forward stays on the broker's threads), or null for the shared group
     */
    public record Local(String localUri, String brokerId, String brokerName, List<String> advertiseUris,
                        io.netty.channel.EventLoopGroup eventLoops, String federationSecret) {
        public static Local of(String localUri, String brokerId, String brokerName, List<String> advertiseUris) {
            return of(localUri, brokerId, brokerName, advertiseUris, null);
        }

        public static Local of(String localUri, String brokerId, String brokerName, List<String> advertiseUris,
                               io.netty.channel.EventLoopGroup eventLoops) {
            return new Local(localUri, brokerId, brokerName, List.copyOf(advertiseUris), eventLoops, null);
        }

        /** The same, whose connectors' bridges prove {@code secret} unless their URI sets {@code federationSecret}. */
        public Local withFederationSecret(String secret) {
            return new Local(localUri, brokerId, brokerName, advertiseUris, eventLoops, secret);
        }
    }

    private final CompositeUri uri;
    private final BridgeConfig template;
    private final DiscoveryAgent agent;
    private final ScheduledExecutorService scheduler;
    private final io.netty.channel.EventLoopGroup eventLoops;
    private final Map<String, FederationBridge> bridges = new ConcurrentHashMap<>();
    /** The last stats of each peer's bridge once it went down, shown until a new bridge to that peer is up. */
    private final Map<String, BridgeStats> lastDown = new ConcurrentHashMap<>();
    /** What outlives each bridge of a peer: cumulative counters, its name, since when it is down. */
    private final Map<String, PeerHistory> history = new ConcurrentHashMap<>();
    private volatile boolean closed;
    /** Told of every bridge's link events (the broker's management); no-op by default. */
    private final BridgeListener links;

    private NetworkConnector(CompositeUri uri, BridgeConfig template, DiscoveryAgent agent, ScheduledExecutorService scheduler,
                             io.netty.channel.EventLoopGroup eventLoops, BridgeListener links) {
        this.links = links;
        this.eventLoops = eventLoops;
        this.uri = uri;
        this.template = template;
        this.agent = agent;
        this.scheduler = scheduler;
    }

    /**
     * Parses the URI (bridge options and the agent's own; unknown ones are an error listing every valid
     * option), creates the agent for its scheme and starts discovering.
     */
    public static NetworkConnector start(String discoveryUri, Local local) {
        return start(discoveryUri, local, new BridgeListener() {
        });
    }

    /** The same, telling {@code links} of every bridge's link events (called on I/O threads: do not block). */
    public static NetworkConnector start(String discoveryUri, Local local, BridgeListener links) {
        CompositeUri uri = CompositeUri.parse(discoveryUri);
        DiscoveryAgentProvider provider = DiscoveryAgents.provider(uri);
        Set<String> valid = new TreeSet<>(BridgeConfig.OPTION_NAMES);
        valid.addAll(provider.optionNames());
        List<BridgeFilterProvider> filterProviders = new ArrayList<>();
        for (BridgeFilterProvider fp : java.util.ServiceLoader.load(BridgeFilterProvider.class, NetworkConnector.class.getClassLoader())) {
            filterProviders.add(fp);
            valid.addAll(fp.optionNames());
        }
        String context = "network connector URI '" + uri + "'";
        BridgeConfig.Builder b = BridgeConfig.builder(local.localUri(), "vm://unset");
        Map<String, String> rest = b.bind(uri.options(), context);
        for (BridgeFilterProvider fp : filterProviders) {
            Map<String, String> mine = new java.util.LinkedHashMap<>();
            rest.entrySet().removeIf(e -> {
                if (fp.optionNames().contains(e.getKey())) {
                    mine.put(e.getKey(), e.getValue());
                    return true;
                }
                return false;
            });
            // Asked even without options of its own: a provider's defaults apply to every connector.
            for (BridgeFilter f : fp.create(mine, context)) {
                b.filter(">", f);
            }
        }
        Map<String, String> unknownToBridge = new java.util.LinkedHashMap<>(rest);
        BridgeConfig template = b.build().withDefaultFederationSecret(local.federationSecret());
        ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "fedbridge-" + local.brokerName() + "-discovery");
            t.setDaemon(true);
            return t;
        });
        DiscoveryAgent agent;
        try {
            agent = provider.create(uri, unknownToBridge, valid, new DiscoveryContext(local.brokerId(), local.brokerName(),
                    local.advertiseUris(), scheduler, Clock.systemUTC()));
        } catch (RuntimeException e) {
            scheduler.shutdownNow();
            throw e;
        }
        NetworkConnector nc = new NetworkConnector(uri, template, agent, scheduler, local.eventLoops(), links);
        try {
            agent.start(nc.new Listener());
        } catch (RuntimeException e) {
            agent.close();
            scheduler.shutdownNow();
            throw e;
        }
        LOG.info("network connector {} started", uri);
        return nc;
    }

    /** The reconnect options every agent understands, with ActiveMQ's names. */
    public static Set<String> reconnectOptionNames() {
        return ReconnectConfig.OPTION_NAMES;
    }

    private final class Listener implements DiscoveryListener {
        @Override
        public void peerDiscovered(PeerInfo peer) {
            if (closed) {
                return;
            }
            FederationBridge existing = bridges.get(peer.uri());
            if (existing != null && existing.state() != BridgeState.DOWN) {
                return;
            }
            String name = template.name().contains("->vm://unset") ? null : template.name();
            BridgeConfig cfg = template.toBuilder().remoteUri(peer.uri())
                    .name(name != null ? name + "@" + peer.uri() : template.localUri() + "->" + peer.uri()).build();
            PeerHistory h = history.computeIfAbsent(peer.uri(), u -> new PeerHistory());
            if (h.starts.getAndIncrement() == 0) {
                h.firstStartNanos = System.nanoTime();
            }
            FederationBridge b = FederationBridge.start(cfg, new BridgeListener() {
                @Override
                public void linkUp(FederationBridge bridge) {
                    h.peerName = bridge.remoteBrokerName();
                    h.downSinceNanos = 0;
                    lastDown.remove(peer.uri());
                    agent.peerConnected(peer);
                    links.linkUp(bridge);
                }

                @Override
                public void linkStalled(FederationBridge bridge) {
                    links.linkStalled(bridge);
                }

                @Override
                public void linkResumed(FederationBridge bridge) {
                    links.linkResumed(bridge);
                }

                @Override
                public void linkDown(FederationBridge bridge, Throwable cause) {
                    BridgeStats last = bridge.stats();
                    h.forwardedBefore.addAndGet(last.forwarded());
                    h.duplicatesBefore.addAndGet(last.duplicates());
                    if (h.downSinceNanos == 0) {
                        h.downSinceNanos = System.nanoTime();
                    }
                    if (!closed && cause != null && !(cause instanceof FederationBridge.SelfConnectionException)) {
                        lastDown.put(peer.uri(), bridge.stats());
                    }
                    bridges.remove(peer.uri(), bridge);
                    links.linkDown(bridge, cause);
                    if (closed || cause == null) {
                        return;
                    }
                    if (cause instanceof FederationBridge.SelfConnectionException) {
                        agent.peerIsSelf(peer);
                    } else {
                        agent.peerFailed(peer, cause);
                    }
                }
            }, eventLoops);
            bridges.put(peer.uri(), b);
        }

        @Override
        public void peerLost(PeerInfo peer) {
            lastDown.remove(peer.uri());
            history.remove(peer.uri());
            FederationBridge b = bridges.remove(peer.uri());
            if (b != null) {
                b.close();
            }
        }
    }

    public CompositeUri uri() {
        return uri;
    }

    /** The discovery agent (for its own counters, e.g. the multicast agent's). */
    public DiscoveryAgent agent() {
        return agent;
    }

    /** The bridges running now, one per peer. */
    public List<FederationBridge> bridges() {
        return new ArrayList<>(bridges.values());
    }

    /**
     * One entry per peer: the running bridge's stats, or — while a peer's link is down and being retried —
     * the last stats of its bridge (state {@link BridgeState#DOWN} with the last error), so a broken link is
     * visible rather than missing. Counters start again with each new bridge.
     */
    public List<BridgeStats> stats() {
        return new ArrayList<>(statsByPeer().values());
    }

    /** The same as {@link #stats()}, by the peer's URI as the discovery agent found it. */
    public Map<String, BridgeStats> statsByPeer() {
        Map<String, BridgeStats> l = new java.util.LinkedHashMap<>();
        for (Map.Entry<String, FederationBridge> e : bridges.entrySet()) {
            BridgeStats s = e.getValue().stats();
            if (s.state() == BridgeState.CONNECTING && lastDown.containsKey(e.getKey())) {
                continue; // still retrying: show why it is down
            }
            l.put(e.getKey(), s);
        }
        lastDown.forEach(l::putIfAbsent);
        return l;
    }

    /**
     * One entry per peer, as {@link #stats()}, with what outlives each bridge: counters summed over every bridge to
     * the peer, reconnects, the peer's name and how long the link has been in its state. For monitoring: cheap, and
     * safe from any thread.
     */
    public List<LinkStats> links() {
        List<LinkStats> l = new ArrayList<>();
        java.util.Set<String> shown = new java.util.HashSet<>();
        long now = System.nanoTime();
        for (Map.Entry<String, FederationBridge> e : bridges.entrySet()) {
            FederationBridge b = e.getValue();
            PeerHistory h = history.get(e.getKey());
            BridgeStats s = b.stats();
            if (h == null || s.state() == BridgeState.DOWN
                    || s.state() == BridgeState.CONNECTING && lastDown.containsKey(e.getKey())) {
                continue; // going down, or still retrying: shown below as down, with why
            }
            shown.add(e.getKey());
            String name = b.remoteBrokerName() != null ? b.remoteBrokerName() : h.peerName;
            java.time.Duration inState = s.state() == BridgeState.CONNECTING && h.downSinceNanos == 0
                    ? java.time.Duration.ofNanos(now - h.firstStartNanos) : b.timeInState();
            l.add(new LinkStats(e.getKey(), name, s, h.forwardedBefore.get() + s.forwarded(),
                    h.duplicatesBefore.get() + s.duplicates(), h.starts.get() - 1, inState, b.receiptLag()));
        }
        lastDown.forEach((peer, s) -> {
            PeerHistory h = history.get(peer);
            if (!shown.contains(peer) && h != null) {
                long since = h.downSinceNanos;
                l.add(new LinkStats(peer, h.peerName, s, h.forwardedBefore.get(), h.duplicatesBefore.get(), h.starts.get() - 1,
                        java.time.Duration.ofNanos(since == 0 ? 0 : now - since), java.time.Duration.ZERO));
            }
        });
        return l;
    }

    private static final class PeerHistory {
        final java.util.concurrent.atomic.AtomicLong starts = new java.util.concurrent.atomic.AtomicLong();
        final java.util.concurrent.atomic.AtomicLong forwardedBefore = new java.util.concurrent.atomic.AtomicLong();
        final java.util.concurrent.atomic.AtomicLong duplicatesBefore = new java.util.concurrent.atomic.AtomicLong();
        volatile long firstStartNanos;
        volatile String peerName;
        /** When the link last went down after being up (or first failed to come up); 0 while it is not down. */
        volatile long downSinceNanos;
    }

    @Override
    public void close() {
        closed = true;
        agent.close();
        for (FederationBridge b : new ArrayList<>(bridges.values())) {
            b.close();
        }
        bridges.clear();
        scheduler.shutdownNow();
        LOG.info("network connector {} stopped", uri);
    }
}
