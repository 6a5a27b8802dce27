package io.fedbridge.broker.internal;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Aborts topic subscribers that stopped taking messages ({@code maxSlowDuration}, after ActiveMQ's
 * abortSlowConsumerStrategy). A topic publisher's message is copied into every subscriber's queue, so one subscriber
 * that stops reading its socket (or acknowledging) makes its queue grow until the broker's memoryLimit is reached and
 * every producer of the broker is paused. Here, a subscriber is <em>stuck</em> while messages wait for it and it has
 * no room for them (its prefetch window is full, or its connection's socket is not writable); one that stays stuck
 * with no delivery and no acknowledgement for maxSlowDuration gets an ERROR naming the policy and its connection is
 * closed, which releases every message it held.
 *
 * <p>Watches the consumers of queues that are not shared (topic subscriptions, durable or not, bridges' included).
 * A scan runs on one of the broker's I/O threads every quarter of maxSlowDuration (at least every 10 ms, at most
 * every 5 s), so an abort comes between 1 and 1.25 maxSlowDuration after the subscriber got stuck. Thread-safe.
 */
final class SlowConsumerPolicy {

    private static final Logger LOG = LoggerFactory.getLogger(SlowConsumerPolicy.class);

    private final BrokerCore core;
    private final long maxSlowMillis;
    private final Map<ServerConsumer, Watch> watched = new ConcurrentHashMap<>();
    private final AtomicBoolean started = new AtomicBoolean();

    /** Since when a consumer has been seen stuck, and its progress count then. */
    private static final class Watch {
        long stuckSince = -1;
        long progressThen;
    }

    SlowConsumerPolicy(BrokerCore core, Duration maxSlowDuration) {
        this.core = core;
        this.maxSlowMillis = maxSlowDuration.toMillis();
    }

    /** Starts watching a topic subscriber; no-op when the policy is off. */
    void watch(ServerConsumer c) {
        if (maxSlowMillis == 0) {
            return;
        }
        watched.put(c, new Watch());
        if (started.compareAndSet(false, true)) {
            long period = Math.max(10, Math.min(5000, maxSlowMillis / 4));
            core.scheduler.scheduleWithFixedDelay(this::scan, period, period, TimeUnit.MILLISECONDS);
        }
    }

    void unwatch(ServerConsumer c) {
        watched.remove(c);
    }

    private void scan() {
        long now = core.clock.millis();
        try {
            for (Map.Entry<ServerConsumer, Watch> e : watched.entrySet()) {
                check(e.getKey(), e.getValue(), now);
            }
        } catch (RuntimeException e) {
            LOG.warn("broker {}: slow consumer check failed: {}", core.config.name(), e.toString());
        }
    }

    private void check(ServerConsumer c, Watch w, long now) {
        boolean stuck;
        long progress;
        synchronized (c.queue) {
            stuck = c.queue.pendingApprox() > 0 && !c.hasCapacity();
            progress = c.progress();
        }
        if (!stuck || w.stuckSince < 0 || progress != w.progressThen) {
            w.stuckSince = stuck ? now : -1;
            w.progressThen = progress;
            return;
        }
        if (now - w.stuckSince >= maxSlowMillis) {
            watched.remove(c);
            String message = "subscription " + c.subscriptionId + " to " + c.subscribedDestination + " aborted: it took no"
                    + " message for " + SessionLimits.describe(Duration.ofMillis(now - w.stuckSince)) + " while "
                    + c.queue.pendingApprox() + " waited for it (maxSlowDuration="
                    + SessionLimits.describe(Duration.ofMillis(maxSlowMillis)) + ")";
            LOG.warn("broker {}: slow consumer on {}: {}", core.config.name(), c.session, message);
            c.session.abort(message);
        }
    }
}
