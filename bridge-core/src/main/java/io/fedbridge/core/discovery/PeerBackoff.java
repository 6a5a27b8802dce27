package io.fedbridge.core.discovery;

import io.fedbridge.core.ReconnectConfig;
import io.github.resilience4j.core.IntervalFunction;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;

/**
 * The reconnect rule of a discovery agent that keeps trying its peers (the static and multicast agents use it), after
 * {@link ReconnectConfig}, as ActiveMQ's discovery does:
 *
 * <ul>
 *   <li>after a failed connect the peer is tried again after {@code config.intervalFunction().apply(failures)}
 *       milliseconds, where {@code failures} counts failed connects in a row: 1 s, 2 s, 4 s, ... up to 30 s by
 *       default;</li>
 *   <li>after {@link ReconnectConfig#maxReconnectAttempts() maxReconnectAttempts} of them (0, the default, is never)
 *       the agent gives up on the peer ({@link Outcome#GAVE_UP});</li>
 *   <li>a link that stayed up for at least {@link ReconnectConfig#minConnectTime() minConnectTime} and then went down
 *       starts afresh (the count goes back to 0, the retry comes after the initial delay); a link that dies sooner
 *       counts as a failed connect, so a peer that accepts and drops at once is backed off too.</li>
 * </ul>
 *
 * <pre>{@code
 * PeerBackoff backoff = new PeerBackoff(reconnectConfig, context, lock, LOG, "");
 * PeerBackoff.Peer b = backoff.newPeer("tcp://broker-b:61613");
 * synchronized (lock) {
 *     b.connected();                                         // the link came up
 *     Outcome o = b.failed(cause, () -> discover(peer));     // it went down: retry later, or give up
 * }
 * }</pre>
 *
 * <p>One {@code PeerBackoff} per agent, one {@link Peer} per peer. Not thread-safe on its own: the agent calls a
 * peer's methods while holding {@code lock}, the monitor it passes here, which a scheduled task also takes to clear
 * its peer's pending retry before it runs. Time comes from the context's clock, timers from its scheduler.
 */
public final class PeerBackoff {

    /** How far {@link #settledAttempt} looks for the delay to stop changing. */
    private static final int SETTLE_SEARCH_LIMIT = 1_000;

    /** What {@link Peer#failed} did. */
    public enum Outcome {
        /** A retry is already scheduled: the report was a duplicate and changed nothing. */
        IGNORED,
        /** The retry is scheduled after the back-off (or the scheduler is shut down and nothing will run). */
        RETRYING,
        /** {@code maxReconnectAttempts} failures in a row: nothing is scheduled, the agent gives up on the peer. */
        GAVE_UP
    }

    private final ReconnectConfig config;
    private final ScheduledExecutorService scheduler;
    private final Clock clock;
    private final Object lock;
    private final Logger log;
    private final String logPrefix;
    private final IntervalFunction intervalFunction;
    private final int settledAttempt;

    /**
     * @param config    the back-off and give-up settings
     * @param context   supplies the scheduler for retries and the clock that times links
     * @param lock      the agent's monitor, held by every caller of a {@link Peer}'s methods
     * @param log       the agent's logger: retries are logged there (INFO on a peer's 1st failure and every 10th)
     * @param logPrefix put before each log line, e.g. the agent's name and a colon; may be empty
     */
    public PeerBackoff(ReconnectConfig config, DiscoveryContext context, Object lock, Logger log, String logPrefix) {
        this.config = Objects.requireNonNull(config, "config");
        this.scheduler = Objects.requireNonNull(context.scheduler(), "context.scheduler");
        this.clock = Objects.requireNonNull(context.clock(), "context.clock");
        this.lock = Objects.requireNonNull(lock, "lock");
        this.log = Objects.requireNonNull(log, "log");
        this.logPrefix = Objects.requireNonNull(logPrefix, "logPrefix");
        this.intervalFunction = config.intervalFunction();
        this.settledAttempt = settledAttempt(intervalFunction);
    }

    /** The settings this back-off applies. */
    public ReconnectConfig config() {
        return config;
    }

    /** The back-off state of one peer, named {@code display} in logs (mask any password in it first). */
    public Peer newPeer(String display) {
        return new Peer(Objects.requireNonNull(display, "display"));
    }

    /** A peer that stays down logs at INFO on its 1st failure and every 10th, at DEBUG in between. */
    public static boolean logsAtInfo(int failures) {
        return failures == 1 || failures % 10 == 0;
    }

    private long delayMillis(int failures) {
        return intervalFunction.apply(Math.min(failures, settledAttempt));
    }

    /**
     * The first attempt from which the delay no longer changes. Resilience4j computes {@code apply(n)} in n steps,
     * which would grow without bound for a peer that stays down for months; ReconnectConfig's function is a
     * recurrence capped at maxReconnectDelay, so once two attempts in a row get the same delay, every later one does
     * too.
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

    /** One peer's failures in a row, link start and pending task; every method is called under the agent's lock. */
    public final class Peer {
        private final String display;
        private int failures;
        private Instant connectedAt;
        /** The scheduled task, until it runs. */
        private ScheduledFuture<?> pending;
        /** Tells a task whether {@link #pending} is still its own. */
        private int generation;

        private Peer(String display) {
            this.display = display;
        }

        /** Failed connects in a row so far. */
        public int failures() {
            return failures;
        }

        /** True while a task scheduled by {@link #schedule} or {@link #failed} has neither run nor been cancelled. */
        public boolean isPending() {
            return pending != null;
        }

        /** The link to the peer came up now: remembered, to tell a healthy link from a failed connect when it goes down. */
        public void connected() {
            connectedAt = clock.instant();
        }

        /**
         * Connecting failed, or the link went down: schedules {@code retry} after the back-off and logs it, or, after
         * {@code maxReconnectAttempts} failures in a row, schedules nothing (the caller gives up and logs why). A
         * report while a task is pending is a duplicate: ignored (logged at DEBUG).
         *
         * @param cause what went wrong, for the log
         */
        public Outcome failed(String cause, Runnable retry) {
            if (pending != null) {
                log.debug("{}peer {} reported failed while a retry is scheduled; ignoring: {}", logPrefix, display, cause);
                return Outcome.IGNORED;
            }
            Instant since = connectedAt;
            connectedAt = null;
            Duration up = since == null ? null : Duration.between(since, clock.instant());
            if (up != null && up.compareTo(config.minConnectTime()) >= 0) {
                // A healthy link went down: start afresh, as ActiveMQ does; this is not a failed connect.
                failures = 0;
                long delay = delayMillis(1);
                log.info("{}link to peer {} went down after {}: {}; reconnecting in {} ms", logPrefix, display, up, cause,
                        delay);
                schedule(Duration.ofMillis(delay), retry);
                return Outcome.RETRYING;
            }
            if (failures < Integer.MAX_VALUE) {
                failures++;
            }
            if (config.isExhausted(failures)) {
                return Outcome.GAVE_UP;
            }
            long delay = delayMillis(failures);
            String shortLived = up == null ? ""
                    : " (link lasted " + up + ", less than minConnectTime " + config.minConnectTime() + ")";
            if (logsAtInfo(failures)) {
                log.info("{}peer {} failed {} time(s) in a row{}: {}; retrying in {} ms", logPrefix, display, failures,
                        shortLived, cause, delay);
            } else {
                log.debug("{}peer {} failed {} time(s) in a row{}: {}; retrying in {} ms", logPrefix, display, failures,
                        shortLived, cause, delay);
            }
            schedule(Duration.ofMillis(delay), retry);
            return Outcome.RETRYING;
        }

        /**
         * Runs {@code action} on the scheduler after {@code delay}, replacing any pending task: when it runs, the
         * task first takes the lock and clears {@link #isPending()}, then runs {@code action} without the lock. A
         * task that was cancelled or replaced meanwhile does not run its action.
         */
        public void schedule(Duration delay, Runnable action) {
            cancelPending();
            int mine = generation;
            try {
                pending = scheduler.schedule(() -> {
                    synchronized (lock) {
                        if (generation != mine) {
                            return;
                        }
                        pending = null;
                    }
                    action.run();
                }, delay.toMillis(), TimeUnit.MILLISECONDS);
            } catch (RejectedExecutionException e) {
                log.debug("{}scheduler shut down; nothing more for peer {}", logPrefix, display);
            }
        }

        /** Cancels the pending task, if any; it will not run its action. */
        public void cancelPending() {
            generation++;
            if (pending != null) {
                pending.cancel(false);
                pending = null;
            }
        }
    }
}
