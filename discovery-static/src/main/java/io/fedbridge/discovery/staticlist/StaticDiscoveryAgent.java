package io.fedbridge.discovery.staticlist;

import io.fedbridge.core.ReconnectConfig;
import io.fedbridge.core.discovery.DiscoveryAgent;
import io.fedbridge.core.discovery.DiscoveryContext;
import io.fedbridge.core.discovery.DiscoveryListener;
import io.fedbridge.core.discovery.PeerInfo;
import io.fedbridge.core.uri.CompositeUri;
import io.github.resilience4j.core.IntervalFunction;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Discovers a fixed list of peers and reconnects each one with back-off, as ActiveMQ's static discovery does.
 *
 * <ul>
 *   <li>{@link #start} tells the listener about every peer at once, on the context's scheduler.</li>
 *   <li>After {@link #peerFailed} the peer is discovered again after
 *       {@code config.intervalFunction().apply(failures)} milliseconds, where {@code failures} counts failed
 *       connects in a row: 1 s, 2 s, 4 s, ... up to 30 s by default. After
 *       {@link ReconnectConfig#maxReconnectAttempts() maxReconnectAttempts} of them (0, the default, is never)
 *       the agent gives up on the peer and calls {@link DiscoveryListener#peerLost}.</li>
 *   <li>A link that stayed up for at least {@link ReconnectConfig#minConnectTime() minConnectTime} and then went
 *       down starts afresh: the count goes back to 0 and the peer is retried after the initial delay. A link
 *       that dies sooner counts as a failed connect, so a peer that accepts and drops at once is backed off
 *       too.</li>
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

    /** How far {@link #settledAttempt} looks for the delay to stop changing. */
    private static final int SETTLE_SEARCH_LIMIT = 1_000;

    private final List<PeerInfo> peers;
    private final ReconnectConfig config;
    private final ScheduledExecutorService scheduler;
    private final Clock clock;
    private final IntervalFunction intervalFunction;
    private final int settledAttempt;

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
        this.config = config;
        this.scheduler = context.scheduler();
        this.clock = context.clock();
        this.intervalFunction = config.intervalFunction();
        this.settledAttempt = settledAttempt(intervalFunction);
        for (PeerInfo peer : peers) {
            Objects.requireNonNull(peer, "peer");
            states.putIfAbsent(peer.uri(), new PeerState(peer, masked(peer.uri())));
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
        return config;
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
                schedule(state, Duration.ZERO, () -> discover(state));
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
                state.connectedAt = clock.instant();
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
            state.cancelPending();
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
                states.values().forEach(PeerState::cancelPending);
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
        // As text: SLF4J would take a trailing Throwable for a stack trace, too much for "connection refused".
        String cause = failure == null ? "no cause given" : failure.toString();
        if (state.self || state.lost) {
            return;
        }
        if (state.pending != null) {
            LOG.debug("peer {} reported failed while a retry is scheduled; ignoring: {}", state.display, cause);
            return;
        }
        Instant connectedAt = state.connectedAt;
        state.connectedAt = null;
        Duration up = connectedAt == null ? null : Duration.between(connectedAt, clock.instant());
        if (up != null && up.compareTo(config.minConnectTime()) >= 0) {
            // A healthy link went down: start afresh, as ActiveMQ does; this is not a failed connect.
            state.failures = 0;
            long delay = delayMillis(1);
            LOG.info("link to peer {} went down after {}: {}; reconnecting in {} ms", state.display, up, cause, delay);
            schedule(state, Duration.ofMillis(delay), () -> discover(state));
            return;
        }
        if (state.failures < Integer.MAX_VALUE) {
            state.failures++;
        }
        int failures = state.failures;
        if (config.isExhausted(failures)) {
            state.lost = true;
            LOG.warn("giving up on peer {} after {} attempts: {}", state.display, failures, cause);
            schedule(state, Duration.ZERO, () -> lose(state));
            return;
        }
        long delay = delayMillis(failures);
        String shortLived = up == null ? "" : " (link lasted " + up + ", less than minConnectTime " + config.minConnectTime() + ")";
        if (logsAtInfo(failures)) {
            LOG.info("peer {} failed {} time(s) in a row{}: {}; retrying in {} ms", state.display, failures, shortLived, cause, delay);
        } else {
            LOG.debug("peer {} failed {} time(s) in a row{}: {}; retrying in {} ms", state.display, failures, shortLived, cause, delay);
        }
        schedule(state, Duration.ofMillis(delay), () -> discover(state));
    }

    private void schedule(PeerState state, Duration delay, Runnable action) {
        int generation = ++state.generation;
        state.pending = scheduler.schedule(() -> {
            synchronized (lock) {
                if (state.generation == generation) {
                    state.pending = null;
                }
            }
            action.run();
        }, delay.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** A peer that stays down logs at INFO on its 1st failure and every 10th, at DEBUG in between. */
    static boolean logsAtInfo(int failures) {
        return failures == 1 || failures % 10 == 0;
    }

    private long delayMillis(int failures) {
        return intervalFunction.apply(Math.min(failures, settledAttempt));
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

    /**
     * The first attempt from which the delay no longer changes. Resilience4j computes {@code apply(n)} in n
     * steps, which would grow without bound for a peer that stays down for months; ReconnectConfig's function
     * is a recurrence capped at maxReconnectDelay, so once two attempts in a row get the same delay, every
     * later one does too.
     */
    private static int settledAttempt(IntervalFunction function) {
        long previous = function.apply(1);
        for (int attempt = 2; attempt <= SETTLE_SEARCH_LIMIT; attempt++) {
            long delay = function.apply(attempt);
            if (delay == previous) {
                return attempt - 1;
            }
            previous = delay;
        }
        return Integer.MAX_VALUE;
    }

    /** One listed peer; guarded by {@link #lock}. */
    private static final class PeerState {
        final PeerInfo peer;
        final String display;
        int failures;
        Instant connectedAt;
        boolean self;
        boolean lost;
        /** The scheduled discovery or loss, until it runs. */
        ScheduledFuture<?> pending;
        /** Tells a task whether {@link #pending} is still its own future. */
        int generation;

        PeerState(PeerInfo peer, String display) {
            this.peer = peer;
            this.display = display;
        }

        void cancelPending() {
            if (pending != null) {
                pending.cancel(false);
                pending = null;
            }
        }
    }
}
