package io.fedbridge.discovery.staticlist;

import io.fedbridge.core.ReconnectConfig;
import io.fedbridge.core.discovery.DiscoveryAgent;
import io.fedbridge.core.discovery.DiscoveryContext;
import io.fedbridge.core.discovery.DiscoveryListener;
import io.fedbridge.core.discovery.PeerBackoff;
import io.fedbridge.core.discovery.PeerInfo;
import io.fedbridge.core.uri.CompositeUri;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Discovers a fixed list of peers and reconnects each one with back-off, as ActiveMQ's static discovery does.
 *
 * <ul>
 *   <li>{@link #start} tells the listener about every peer at once, on the context's scheduler.</li>
 *   <li>After {@link #peerFailed} the peer is discovered again after the back-off of {@link PeerBackoff}: 1 s, 2 s,
 *       4 s, ... up to 30 s by default, failures in a row counting; a link that stayed up for at least
 *       {@link ReconnectConfig#minConnectTime() minConnectTime} starts afresh. After
 *       {@link ReconnectConfig#maxReconnectAttempts() maxReconnectAttempts} failures in a row (0, the default, is
 *       never) the agent gives up on the peer and calls {@link DiscoveryListener#peerLost}.</li>
 *   <li>A peer reported by {@link #peerIsSelf} is never tried again.</li>
 * </ul>
 *
 * <pre>{@code
 * DiscoveryAgent agent = StaticDiscoveryAgent.of(
 *         List.of(PeerInfo.of("tcp://broker-b:61613")), ReconnectConfig.ofDefaults(), context);
 * agent.start(listener);   // listener.peerDiscovered(tcp://broker-b:61613) follows on context.scheduler()
 * }</pre>
 *
 * Reports about URIs that are not in the list are ignored, as are reports after {@link #close()}.
 *
 * <p>Thread-safe. Listener methods are called from the context's scheduler, one at a time (so they should
 * return quickly); a listener may call back into the agent, {@link #close()} included, from inside them.
 */
public final class StaticDiscoveryAgent implements DiscoveryAgent {

    private static final Logger LOG = LoggerFactory.getLogger(StaticDiscoveryAgent.class);

    private final List<PeerInfo> peers;
    private final PeerBackoff backoff;

    /** Guards the peer states and {@link #listener}; never held while calling the listener. */
    private final Object lock = new Object();
    private final Map<String, PeerState> states = new LinkedHashMap<>();
    private DiscoveryListener listener;
    private volatile boolean closed;

    /**
     * Held while calling the listener. {@link #close()} takes it after setting {@link #closed}, so that a call in
     * progress on another thread ends before close returns and none starts afterwards.
     */
    private final ReentrantLock delivery = new ReentrantLock();

    private StaticDiscoveryAgent(List<PeerInfo> peers, ReconnectConfig config, DiscoveryContext context) {
        this.backoff = new PeerBackoff(config, context, lock, LOG, "");
        for (PeerInfo peer : peers) {
            Objects.requireNonNull(peer, "peer");
            String display = masked(peer.uri());
            states.putIfAbsent(peer.uri(), new PeerState(peer, display, backoff.newPeer(display)));
        }
        List<PeerInfo> distinct = new ArrayList<>();
        states.values().forEach(s -> distinct.add(s.peer));
        this.peers = List.copyOf(distinct);
    }

    /**
     * An agent for {@code peers}; a URI listed twice is one peer.
     *
     * @param peers   the peers, at least one
     * @param config  the back-off
     * @param context supplies the scheduler for timers and listener calls, and the clock
     * @throws IllegalArgumentException if {@code peers} is empty
     */
    public static StaticDiscoveryAgent of(List<PeerInfo> peers, ReconnectConfig config, DiscoveryContext context) {
        Objects.requireNonNull(peers, "peers");
        Objects.requireNonNull(config, "config");
        Objects.requireNonNull(context, "context");
        Objects.requireNonNull(context.scheduler(), "context.scheduler");
        Objects.requireNonNull(context.clock(), "context.clock");
        if (peers.isEmpty()) {
            throw new IllegalArgumentException("peers must not be empty, but was " + peers);
        }
        return new StaticDiscoveryAgent(peers, config, context);
    }

    /** The peers, without duplicates, in the order listed. */
    public List<PeerInfo> peers() {
        return peers;
    }

    /** The back-off this agent applies. */
    public ReconnectConfig config() {
        return backoff.config();
    }

    /**
     * Discovers every peer: {@link DiscoveryListener#peerDiscovered} follows for each, on the scheduler.
     *
     * @throws IllegalStateException if already started or closed
     */
    @Override
    public void start(DiscoveryListener listener) {
        Objects.requireNonNull(listener, "listener");
        synchronized (lock) {
            if (closed) {
                throw new IllegalStateException("static discovery of " + displayPeers() + " is closed");
            }
            if (this.listener != null) {
                throw new IllegalStateException("static discovery of " + displayPeers() + " is already started");
            }
            this.listener = listener;
            LOG.debug("static discovery of {} starting", displayPeers());
            for (PeerState state : states.values()) {
                state.backoff.schedule(Duration.ZERO, () -> discover(state));
            }
        }
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
     * A report while a retry is already scheduled (a duplicate) is ignored.
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
    }

    /** Never tries {@code peer} again. */
    @Override
    public void peerIsSelf(PeerInfo peer) {
        Objects.requireNonNull(peer, "peer");
        synchronized (lock) {
            PeerState state = stateOf(peer, "self");
            if (state == null || state.self) {
                return;
            }
            state.self = true;
            state.backoff.cancelPending();
            LOG.info("skipping peer {}: it is this broker", state.display);
        }
    }

    /**
     * Cancels every timer. No listener call starts after this returns; one in progress on another thread is
     * waited for, so a listener must not block on a lock the closing thread holds. Idempotent.
     */
    @Override
    public void close() {
        synchronized (lock) {
            if (!closed) {
                closed = true;
                states.values().forEach(s -> s.backoff.cancelPending());
                LOG.debug("static discovery of {} closed", displayPeers());
            }
        }
        delivery.lock();
        delivery.unlock();
    }

    @Override
    public String toString() {
        return "StaticDiscoveryAgent" + displayPeers();
    }

    // ---------------------------------------------------------------------------------------------
    // Under lock

    /** The state of a listed peer, or null (and the report is ignored) if closed or the peer is not listed. */
    private PeerState stateOf(PeerInfo peer, String report) {
        if (closed) {
            return null;
        }
        if (listener == null) {
            throw new IllegalStateException("static discovery of " + displayPeers() + " is not started, but peer "
                    + masked(peer.uri()) + " was reported " + report);
        }
        PeerState state = states.get(peer.uri());
        if (state == null) {
            LOG.debug("ignoring peer {} reported {}: it is not one of {}", masked(peer.uri()), report, displayPeers());
        }
        return state;
    }

    private void failed(PeerState state, Throwable failure) {
        if (state.self || state.lost) {
            return;
        }
        // As text: SLF4J would take a trailing Throwable for a stack trace, too much for "connection refused".
        String cause = failure == null ? "no cause given" : failure.toString();
        if (state.backoff.failed(cause, () -> discover(state)) == PeerBackoff.Outcome.GAVE_UP) {
            state.lost = true;
            LOG.warn("giving up on peer {} after {} attempts: {}", state.display, state.backoff.failures(), cause);
            state.backoff.schedule(Duration.ZERO, () -> lose(state));
        }
    }

    // ---------------------------------------------------------------------------------------------
    // On the scheduler

    private void discover(PeerState state) {
        delivery.lock();
        try {
            DiscoveryListener target;
            synchronized (lock) {
                if (closed || state.self || state.lost) {
                    return;
                }
                target = listener;
            }
            try {
                target.peerDiscovered(state.peer);
            } catch (RuntimeException e) {
                LOG.warn("listener failed on discovery of peer {}; retrying as after a failed connect", state.display, e);
                peerFailed(state.peer, e);
            }
        } finally {
            delivery.unlock();
        }
    }

    private void lose(PeerState state) {
        delivery.lock();
        try {
            DiscoveryListener target;
            synchronized (lock) {
                if (closed || state.self) {
                    return;
                }
                target = listener;
            }
            try {
                target.peerLost(state.peer);
            } catch (RuntimeException e) {
                LOG.warn("listener failed on loss of peer {}", state.display, e);
            }
        } finally {
            delivery.unlock();
        }
    }

    // ---------------------------------------------------------------------------------------------

    private String displayPeers() {
        List<String> shown = new ArrayList<>();
        states.values().forEach(s -> shown.add(s.display));
        return shown.toString();
    }

    /** The URI for logs and messages: a peer URI may carry a password. */
    private static String masked(String uri) {
        try {
            return CompositeUri.parse(uri).toString();
        } catch (IllegalArgumentException e) {
            return "(unparseable URI)";
        }
    }

    /** One listed peer; guarded by {@link #lock}. */
    private static final class PeerState {
        final PeerInfo peer;
        final String display;
        /** Failures in a row, the link's start and the scheduled discovery or loss, until it runs. */
        final PeerBackoff.Peer backoff;
        boolean self;
        boolean lost;

        PeerState(PeerInfo peer, String display, PeerBackoff.Peer backoff) {
            this.peer = peer;
            this.display = display;
            this.backoff = backoff;
        }
    }
}
