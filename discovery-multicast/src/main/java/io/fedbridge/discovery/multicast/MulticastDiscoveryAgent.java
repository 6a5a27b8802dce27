package io.fedbridge.discovery.multicast;

import io.fedbridge.core.discovery.DiscoveryAgent;
import io.fedbridge.core.discovery.DiscoveryContext;
import io.fedbridge.core.discovery.DiscoveryListener;
import io.fedbridge.core.discovery.PeerBackoff;
import io.fedbridge.core.discovery.PeerInfo;
import io.fedbridge.core.uri.CompositeUri;
import io.fedbridge.discovery.multicast.internal.Announcement;
import io.fedbridge.discovery.multicast.internal.AnnouncementCodec;
import io.fedbridge.discovery.multicast.internal.AnnouncementGate;
import io.fedbridge.discovery.multicast.internal.AnnouncementHandler;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Announces this broker to a multicast group and bridges to every other broker announcing itself there, as
 * ActiveMQ's multicast discovery does, with broker identity in each datagram (the format is described in
 * {@link MulticastDiscoveryAgentProvider}).
 *
 * <ul>
 *   <li><b>Announcing</b> ({@code advertise}): at {@link #start}, then every {@code heartbeatInterval}, an
 *       {@code ALIVE} datagram carries the group, the broker id and name, the interval and the broker's connector
 *       URIs; {@link #close()} sends {@code DEAD}. On first hearing a new peer the agent announces at once, so a
 *       newcomer learns the group in one round trip rather than one interval.</li>
 *   <li><b>Discovering</b> ({@code discover}): a peer is a broker id with the first URI it announces. The first
 *       {@code ALIVE} from it calls {@link DiscoveryListener#peerDiscovered}; its {@code DEAD}, or silence for
 *       {@code expiry} of <em>its</em> heartbeat intervals, calls {@link DiscoveryListener#peerLost}. A broker id
 *       that starts announcing another URI, or a URI announced under another broker id (a restart), replaces the
 *       old peer: lost, then discovered. A URI on the wildcard address ({@code tcp://0.0.0.0:61613}) is reached at
 *       the address the datagram came from. A peer's URI is used without any options the peer announced with it:
 *       the connector's own settings (TLS trust, host name check, ...) always apply. Announcements of other groups
 *       and this broker's own are ignored, and so is anything malformed; all of them are counted ({@link #stats()}).
 *       At most {@code maxPeers} peers are known at once; announcements of more are ignored and counted.</li>
 *   <li><b>Signing</b> ({@code secret}): with a secret every datagram is signed (HMAC-SHA256 over the datagram,
 *       which carries a timestamp, a random session id and a sequence number), and only datagrams that are signed
 *       with the same secret, whose timestamp is within {@code maxClockSkew} of this broker's clock and that were
 *       not seen before are acted on. The others are ignored, counted and logged at WARN, at most once a minute
 *       per source address and kind. Without a secret the agent sends and reads unsigned datagrams only, and
 *       ignores signed ones, which it cannot check; it then refuses to start on an interface other than
 *       loopback.</li>
 *   <li><b>Reconnecting</b>: after {@link #peerFailed} the peer is discovered again after the back-off of
 *       {@link PeerBackoff} (1 s, 2 s, 4 s, ... 30 s by default; a link that lasted {@code minConnectTime}
 *       starts afresh), for as long as it keeps announcing itself; more announcements do not hurry it. After
 *       {@code maxReconnectAttempts} (0 = never) the agent gives up on it until it departs or expires and
 *       announces itself anew. A peer reported by {@link #peerIsSelf} is never tried again.</li>
 * </ul>
 *
 * <pre>{@code
 * MulticastDiscoveryAgent agent = MulticastDiscoveryAgent.of(MulticastDiscoveryConfig.builder()
 *         .group("orders").networkInterface("eth0").build(), context);
 * agent.start(listener);   // binds 239.255.2.3:6155 on eth0, announces, calls listener.peerDiscovered(...)
 * }</pre>
 *
 * <p>Thread-safe. Datagrams are read on a thread of the agent's own; timers and listener calls run on the
 * context's scheduler, listener calls one at a time and in the order of the events that caused them (so a peer's
 * loss comes before its successor's discovery). A listener may call back into the agent, {@link #close()}
 * included.
 */
public final class MulticastDiscoveryAgent implements DiscoveryAgent {

    private static final Logger LOG = LoggerFactory.getLogger(MulticastDiscoveryAgent.class);

    /** How long binding the socket or joining the group may take. */
    static final Duration OPEN_TIMEOUT = Duration.ofSeconds(5);

    private static final Set<String> ADVERTISED_SCHEMES = Set.of("tcp", "ssl");

    /** The network side, a seam for tests. */
    interface Transport {
        /**
         * Sends a datagram to the group, without waiting. {@code sealer} makes it (signing it with the next sequence
         * number) and is called on the transport's one sending thread, so that datagrams leave in sequence order.
         */
        void send(Supplier<byte[]> sealer);

        /** As {@link #send}, and waits (bounded) until the datagram has left. */
        void sendAndWait(Supplier<byte[]> sealer);

        void close();
    }

    /** Opens the network side, handing what it receives to the sink. */
    interface TransportFactory {
        Transport open(AnnouncementHandler.Sink sink) throws IOException;
    }

    private final MulticastDiscoveryConfig config;
    private final String brokerId;
    private final ScheduledExecutorService scheduler;
    private final Clock clock;
    private final TransportFactory transports;
    /** Failures in a row and the scheduled retry of each peer; guarded by {@link #lock}. */
    private final PeerBackoff backoff;
    private final String display;
    /** Seals what the agent sends, judges and counts what it receives. */
    private final AnnouncementGate gate;
    /** What this agent announces, or null if it does not advertise. */
    private final Announcement alive;
    private final Announcement dead;
    /** The URIs this agent announces, to tell its own datagrams from another broker's using its id. */
    private final Set<String> ownUris;

    private final AtomicLong sent = new AtomicLong();
    private final AtomicLong received = new AtomicLong();
    private final AtomicLong own = new AtomicLong();

    /** Guards everything below; never held while calling the listener or doing I/O. */
    private final Object lock = new Object();
    private final Map<String, PeerState> peers = new LinkedHashMap<>();
    /** Broker id and URI of peers reported by {@link #peerIsSelf}. */
    private final Set<String> selfPeers = new HashSet<>();
    /** Listener calls not yet made, in the order of their causes. */
    private final Queue<Call> calls = new ArrayDeque<>();
    private DiscoveryListener listener;
    private Transport transport;
    private ScheduledFuture<?> tick;
    private volatile boolean closed;
    private boolean warnedDuplicateId;

    /**
     * Held while calling the listener, so calls are made one at a time. {@link #close()} takes it after setting
     * {@link #closed}, so that a call in progress on another thread ends before close returns and none starts later.
     */
    private final ReentrantLock delivery = new ReentrantLock();

    private MulticastDiscoveryAgent(MulticastDiscoveryConfig config, DiscoveryContext context, TransportFactory transports) {
        this.config = config;
        this.brokerId = context.brokerId();
        this.scheduler = context.scheduler();
        this.clock = context.clock();
        this.transports = transports != null ? transports : new NettyTransports(config, context.brokerName(), OPEN_TIMEOUT);
        this.display = "multicast discovery of group '" + config.group() + "' on " + config.endpoint();
        this.backoff = new PeerBackoff(config.reconnect(), context, lock, LOG, display + ": ");
        this.gate = new AnnouncementGate(config.group(), config.secret(), config.maxClockSkew(), config.maxPeers(), clock,
                display);
        this.alive = config.advertise() ? announcement(config, context, gate, display) : null;
        this.dead = alive == null ? null : alive.withType(Announcement.Type.DEAD);
        this.ownUris = alive == null ? Set.of() : Set.copyOf(alive.uris());
    }

    /**
     * An agent for {@code config}, working for the broker described by {@code context}.
     *
     * @throws IllegalArgumentException if the broker's connector URIs do not fit in one datagram
     */
    public static MulticastDiscoveryAgent of(MulticastDiscoveryConfig config, DiscoveryContext context) {
        return create(config, context, null);
    }

    /** An agent on a transport of the test's choosing (null: the network). */
    static MulticastDiscoveryAgent create(MulticastDiscoveryConfig config, DiscoveryContext context,
                                          TransportFactory transports) {
        Objects.requireNonNull(config, "config");
        Objects.requireNonNull(context, "context");
        Objects.requireNonNull(context.brokerId(), "context.brokerId");
        Objects.requireNonNull(context.brokerName(), "context.brokerName");
        Objects.requireNonNull(context.scheduler(), "context.scheduler");
        Objects.requireNonNull(context.clock(), "context.clock");
        return new MulticastDiscoveryAgent(config, context, transports);
    }

    /**
     * What this agent announces: the broker's tcp:// and ssl:// URIs without their options (which could hold a
     * password, and which peers ignore), as many as fit in a datagram.
     */
    private static Announcement announcement(MulticastDiscoveryConfig config, DiscoveryContext context,
                                             AnnouncementGate gate, String display) {
        List<String> uris = new ArrayList<>();
        for (String uri : context.advertiseUris()) {
            CompositeUri parsed = CompositeUri.parse(uri);
            if (!parsed.isComposite() && ADVERTISED_SCHEMES.contains(parsed.scheme()) && parsed.hasPort()) {
                uris.add(parsed.withoutOptions().toUnmaskedString());
            } else {
                LOG.debug("{}: not announcing {}: peers reach brokers over tcp:// or ssl:// only", display, parsed);
            }
        }
        if (uris.isEmpty()) {
            LOG.warn("{}: broker {} has no tcp:// or ssl:// listener to announce ({}); it will find peers but not be "
                    + "found", display, context.brokerName(),
                    context.advertiseUris().stream().map(MulticastDiscoveryAgent::masked).toList());
            return null;
        }
        while (true) {
            Announcement a = new Announcement(Announcement.Type.ALIVE, config.group(), context.brokerId(),
                    context.brokerName(), config.heartbeatInterval(), uris);
            try {
                gate.checkFits(a);
                return a;
            } catch (IllegalArgumentException e) {
                if (uris.size() == 1) {
                    throw new IllegalArgumentException(display + ": connector URI " + CompositeUri.parse(uris.get(0))
                            + " of broker " + context.brokerName() + " is too long to announce (" + e.getMessage() + ")", e);
                }
                String dropped = uris.remove(uris.size() - 1);
                LOG.warn("{}: not announcing {}: the datagram would exceed {} bytes", display,
                        CompositeUri.parse(dropped), AnnouncementCodec.MAX_BYTES);
            }
        }
    }

    /** The settings this agent runs with. */
    public MulticastDiscoveryConfig config() {
        return config;
    }

    /**
     * Binds the group's port on the configured interface, joins the group (if discovering) and starts announcing
     * (if advertising).
     *
     * @throws MulticastDiscoveryException if the interface does not exist or the socket cannot be bound or the
     *                                     group joined within 5 s; the agent is closed then
     * @throws IllegalStateException       if already started or closed
     */
    @Override
    public void start(DiscoveryListener listener) {
        Objects.requireNonNull(listener, "listener");
        synchronized (lock) {
            if (closed) {
                throw new IllegalStateException(display + " is closed");
            }
            if (this.listener != null) {
                throw new IllegalStateException(display + " is already started");
            }
            this.listener = listener;
        }
        Transport opened;
        try {
            opened = transports.open(new Sink());
        } catch (IOException | RuntimeException e) {
            closed = true;
            throw new MulticastDiscoveryException(display + " cannot start: " + e.getMessage(), e);
        }
        synchronized (lock) {
            if (closed) {
                opened.close();
                return;
            }
            transport = opened;
        }
        LOG.debug("{} started (advertise={}, discover={}, heartbeatInterval={}, expiry={})", display,
                alive != null, config.discover(), config.heartbeatInterval(), config.expiry());
        scheduleTick(Duration.ZERO);
    }

    /** Remembers when the link came up, to tell a healthy link from a failed connect when it goes down. */
    @Override
    public void peerConnected(PeerInfo peer) {
        Objects.requireNonNull(peer, "peer");
        synchronized (lock) {
            PeerState state = stateOf(peer, "connected");
            if (state != null) {
                state.backoff.connected();
            }
        }
    }

    /**
     * Schedules the next {@link DiscoveryListener#peerDiscovered} after the back-off, or gives up on the peer.
     * A report while a retry is already scheduled (a duplicate) is ignored, as is one about a peer that has left.
     */
    @Override
    public void peerFailed(PeerInfo peer, Throwable cause) {
        Objects.requireNonNull(peer, "peer");
        synchronized (lock) {
            PeerState state = stateOf(peer, "failed");
            if (state != null) {
                failed(state, cause);
            }
        }
        requestDrain(); // a give-up queues a loss; reports come on I/O threads, the listener is called on the scheduler
    }

    /** Never tries {@code peer} again, even if it departs and comes back. */
    @Override
    public void peerIsSelf(PeerInfo peer) {
        Objects.requireNonNull(peer, "peer");
        synchronized (lock) {
            PeerState state = stateOf(peer, "self");
            if (state == null || state.self) {
                return;
            }
            state.self = true;
            state.cancelPending();
            selfPeers.add(selfKey(state.peer.brokerId(), state.peer.uri()));
            LOG.info("{}: skipping peer {}: it is this broker", display, state.display);
        }
    }

    /**
     * Announces the departure (if advertising), closes the socket and cancels every timer. No listener call starts
     * after this returns; one in progress on another thread is waited for. Idempotent.
     */
    @Override
    public void close() {
        Transport toClose = null;
        synchronized (lock) {
            if (!closed) {
                closed = true;
                if (tick != null) {
                    tick.cancel(false);
                }
                peers.values().forEach(PeerState::cancelPending);
                calls.clear();
                toClose = transport;
                transport = null;
            }
        }
        if (toClose != null) {
            if (dead != null) {
                // Twice: a lost departure would leave peers retrying this broker until it expires.
                toClose.send(() -> gate.seal(dead));
                toClose.sendAndWait(() -> gate.seal(dead));
                sent.addAndGet(2);
            }
            toClose.close();
            LOG.debug("{} closed", display);
        }
        delivery.lock();
        delivery.unlock();
    }

    /** The agent's counters now. */
    public MulticastDiscoveryStats stats() {
        int known;
        synchronized (lock) {
            known = (int) peers.values().stream().filter(s -> !s.self).count();
        }
        return new MulticastDiscoveryStats(sent.get(), received.get(), gate.malformed(), gate.otherGroup(), own.get(),
                gate.unsigned(), gate.badSignature(), gate.stale(), gate.replayed(), gate.overMaxPeers(), known);
    }

    /** The peers known now: announcing, not departed, not expired, not this broker. */
    public List<PeerInfo> peers() {
        synchronized (lock) {
            return peers.values().stream().filter(s -> !s.self).map(s -> s.peer).toList();
        }
    }

    @Override
    public String toString() {
        return "MulticastDiscoveryAgent[" + config.group() + "@" + config.endpoint() + "]";
    }

    // ---------------------------------------------------------------------------------------------
    // Datagrams, on the transport's thread

    private final class Sink implements AnnouncementHandler.Sink {
        @Override
        public void received(ByteBuffer datagram, InetSocketAddress sender) {
            received.incrementAndGet();
            Announcement a = gate.admit(datagram, sender);
            if (a == null) {
                return;
            }
            Transport t;
            synchronized (lock) {
                if (closed) {
                    return;
                }
                boolean newPeer = onAnnouncement(a, sender);
                t = newPeer && alive != null ? transport : null;
            }
            if (t != null) {
                t.send(() -> gate.seal(alive));
                sent.incrementAndGet();
            }
            requestDrain();
        }
    }

    /** Under lock. True if {@code a}, an announcement of this group, made a new peer known. */
    private boolean onAnnouncement(Announcement a, InetSocketAddress sender) {
        if (a.brokerId().equals(brokerId)) {
            own.incrementAndGet();
            if (!ownUris.contains(a.uris().get(0)) && !warnedDuplicateId) {
                warnedDuplicateId = true;
                LOG.warn("{}: another broker ({} at {}) announces this broker's id {}: it is ignored; was a data "
                        + "directory copied?", display, a.brokerName(), masked(a.uris().get(0)), brokerId);
            }
            return false;
        }
        if (!config.discover()) {
            return false;
        }
        // Never the announced options: a peer must not choose this broker's TLS trust, host name check and so on.
        String uri = reachable(CompositeUri.parse(a.uris().get(0)).withoutOptions().toUnmaskedString(), sender);
        PeerState state = peers.get(a.brokerId());
        boolean same = state != null && state.peer.uri().equals(uri);
        if (a.type() == Announcement.Type.DEAD) {
            if (same) {
                remove(state, "left the group");
            }
            return false;
        }
        if (same) {
            state.lastSeen = clock.instant();
            state.interval = a.heartbeatInterval();
            return false;
        }
        if (state != null) {
            remove(state, "now announces " + masked(uri));
        }
        for (PeerState other : new ArrayList<>(peers.values())) {
            if (other.peer.uri().equals(uri)) {
                remove(other, "replaced by broker id " + a.brokerId() + " on the same URI");
            }
        }
        if (selfPeers.contains(selfKey(a.brokerId(), uri))) {
            return false;
        }
        if (peers.size() >= config.maxPeers()) {
            gate.overMaxPeers(a, sender);
            return false;
        }
        PeerInfo info = new PeerInfo(uri, a.brokerId(), a.brokerName());
        PeerState fresh = new PeerState(info, backoff.newPeer(info.toString()), a.heartbeatInterval(), clock.instant());
        peers.put(a.brokerId(), fresh);
        calls.add(new Call(fresh, true));
        LOG.info("{}: discovered peer {} (broker id {})", display, fresh.display, a.brokerId());
        return true;
    }

    /** Under lock: forgets {@code state} and tells the listener, if it was told about the peer. */
    private void remove(PeerState state, String why) {
        peers.remove(state.peer.brokerId());
        state.cancelPending();
        if (!state.self) {
            calls.add(new Call(state, false));
            LOG.info("{}: peer {} {}", display, state.display, why);
        }
    }

    /**
     * The URI to reach a peer at: a wildcard host ({@code 0.0.0.0}, {@code [::]}) is replaced by the address the
     * datagram came from.
     */
    static String reachable(String uri, InetSocketAddress sender) {
        String host = CompositeUri.parse(uri).host();
        boolean wildcard = host.equals("0.0.0.0") || host.equals("::") || host.equals("0:0:0:0:0:0:0:0");
        if (!wildcard || sender == null || sender.getAddress() == null) {
            return uri;
        }
        int start = uri.indexOf("://") + 3;
        int end = uri.charAt(start) == '[' ? uri.indexOf(']', start) + 1 : start + host.length();
        String address = sender.getAddress().getHostAddress();
        return uri.substring(0, start) + (address.contains(":") ? "[" + address + "]" : address) + uri.substring(end);
    }

    // ---------------------------------------------------------------------------------------------
    // Heartbeats and expiry, on the scheduler

    private void scheduleTick(Duration delay) {
        synchronized (lock) {
            if (closed) {
                return;
            }
            try {
                tick = scheduler.schedule(this::tick, delay.toMillis(), TimeUnit.MILLISECONDS);
            } catch (RejectedExecutionException e) {
                LOG.debug("{}: scheduler shut down; no more heartbeats", display);
            }
        }
    }

    private void tick() {
        Transport t;
        synchronized (lock) {
            if (closed) {
                return;
            }
            t = transport;
            expire(clock.instant());
        }
        if (alive != null && t != null) {
            t.send(() -> gate.seal(alive));
            sent.incrementAndGet();
        }
        drain();
        scheduleTick(config.heartbeatInterval());
    }

    /** Under lock. */
    private void expire(Instant now) {
        for (PeerState state : new ArrayList<>(peers.values())) {
            Duration silent = Duration.between(state.lastSeen, now);
            Duration limit = config.expiryAfter(state.interval);
            if (silent.compareTo(limit) > 0) {
                remove(state, "expired: no announcement for " + silent.toMillis() + " ms (" + config.expiry()
                        + " heartbeats of " + state.interval.toMillis() + " ms)");
            }
        }
    }

    // ---------------------------------------------------------------------------------------------
    // Back-off, under lock

    /** The state of a current peer, or null (and the report is ignored) if closed or the peer is gone. */
    private PeerState stateOf(PeerInfo peer, String report) {
        if (closed) {
            return null;
        }
        if (listener == null) {
            throw new IllegalStateException(display + " is not started, but peer " + masked(peer.uri())
                    + " was reported " + report);
        }
        PeerState state = peer.brokerId() == null ? null : peers.get(peer.brokerId());
        if (state == null || !state.peer.uri().equals(peer.uri())) {
            LOG.debug("{}: ignoring peer {} reported {}: it is not a current peer", display, masked(peer.uri()), report);
            return null;
        }
        return state;
    }

    private void failed(PeerState state, Throwable failure) {
        if (state.self || state.gaveUp) {
            return;
        }
        // As text: SLF4J would take a trailing Throwable for a stack trace, too much for "connection refused".
        String cause = failure == null ? "no cause given" : failure.toString();
        if (state.backoff.failed(cause, () -> retry(state)) == PeerBackoff.Outcome.GAVE_UP) {
            state.gaveUp = true;
            calls.add(new Call(state, false));
            LOG.warn("{}: giving up on peer {} after {} attempts, until it announces itself anew: {}", display,
                    state.display, state.backoff.failures(), cause);
        }
    }

    /** On the scheduler: the back-off is over; discover the peer again if it is still the current one. */
    private void retry(PeerState state) {
        synchronized (lock) {
            if (closed || peers.get(state.peer.brokerId()) != state) {
                return;
            }
            calls.add(new Call(state, true));
        }
        drain();
    }

    // ---------------------------------------------------------------------------------------------
    // Listener calls

    /** A listener call: discovery or loss of a peer. */
    private record Call(PeerState state, boolean discover) {
    }

    private void requestDrain() {
        try {
            scheduler.execute(this::drain);
        } catch (RejectedExecutionException e) {
            LOG.debug("{}: scheduler shut down; dropping listener calls", display);
        }
    }

    /** Makes the queued listener calls that still make sense, in order, one at a time. */
    private void drain() {
        delivery.lock();
        try {
            while (true) {
                Call call;
                DiscoveryListener target;
                synchronized (lock) {
                    if (closed) {
                        calls.clear();
                        return;
                    }
                    call = nextCall();
                    if (call == null) {
                        return;
                    }
                    target = listener;
                }
                deliver(target, call);
            }
        } finally {
            delivery.unlock();
        }
    }

    /** Under lock: the next call that still makes sense, or null. */
    private Call nextCall() {
        for (Call call = calls.poll(); call != null; call = calls.poll()) {
            PeerState state = call.state();
            if (call.discover()) {
                if (peers.get(state.peer.brokerId()) == state && !state.self && !state.gaveUp) {
                    state.discovered = true;
                    return call;
                }
            } else if (state.discovered) {
                state.discovered = false;
                return call;
            }
        }
        return null;
    }

    private void deliver(DiscoveryListener target, Call call) {
        PeerState state = call.state();
        if (call.discover()) {
            try {
                target.peerDiscovered(state.peer);
            } catch (RuntimeException e) {
                LOG.warn("{}: listener failed on discovery of peer {}; retrying as after a failed connect", display,
                        state.display, e);
                peerFailed(state.peer, e);
            }
        } else {
            try {
                target.peerLost(state.peer);
            } catch (RuntimeException e) {
                LOG.warn("{}: listener failed on loss of peer {}", display, state.display, e);
            }
        }
    }

    // ---------------------------------------------------------------------------------------------

    private static String selfKey(String brokerId, String uri) {
        return brokerId + ' ' + uri;
    }

    /** The URI for logs and messages: a URI may carry a password. */
    private static String masked(String uri) {
        try {
            return CompositeUri.parse(uri).toString();
        } catch (IllegalArgumentException e) {
            return "(unparseable URI)";
        }
    }

    /** One peer; guarded by {@link #lock}. */
    private static final class PeerState {
        final PeerInfo peer;
        final String display;
        /** Failures in a row, the link's start and the scheduled retry, until it runs. */
        final PeerBackoff.Peer backoff;
        Duration interval;
        Instant lastSeen;
        /** The listener was told of this peer (and not of its loss since). */
        boolean discovered;
        boolean self;
        boolean gaveUp;

        PeerState(PeerInfo peer, PeerBackoff.Peer backoff, Duration interval, Instant lastSeen) {
            this.peer = peer;
            this.display = peer.toString();
            this.backoff = backoff;
            this.interval = interval;
            this.lastSeen = lastSeen;
        }

        void cancelPending() {
            backoff.cancelPending();
        }
    }
}
