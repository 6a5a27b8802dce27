package io.fedbridge.broker.cluster.internal;

import io.fedbridge.broker.DestinationStats;
import io.fedbridge.broker.internal.ClusterCore;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Removes auto-created queues (those no definition names) that stayed idle — no consumer, no message — for
 * {@code autoDeleteIdle}, looking every quarter of it (at least every 50 ms, at most every 5 s); at start, idle ones go
 * at once. A queue whose counters moved between two looks (a message came and went, a consumer came) starts idling
 * again. Runs on the executor it is given; confined to it.
 */
public final class AutoDeleter {

    private static final Logger LOG = LoggerFactory.getLogger(AutoDeleter.class);

    private record Idle(long sinceNanos, long enqueued, long dequeued) {
    }

    private final ClusterCore core;
    private final Duration idle;
    private final ScheduledExecutorService executor;
    private final Map<String, Idle> idleSince = new HashMap<>();

    public AutoDeleter(ClusterCore core, Duration idle, ScheduledExecutorService executor) {
        this.core = core;
        this.idle = idle;
        this.executor = executor;
    }

    public void start() {
        if (idle.isZero()) {
            return;
        }
        executor.execute(() -> removeIdle(true));
        long period = Math.max(50, Math.min(5_000, idle.toMillis() / 4));
        executor.scheduleWithFixedDelay(() -> removeIdle(false), period, period, TimeUnit.MILLISECONDS);
    }

    private void removeIdle(boolean atStart) {
        try {
            long now = System.nanoTime();
            List<String> idleNow = core.idleAutoCreatedQueues();
            idleSince.keySet().retainAll(idleNow);
            for (String q : idleNow) {
                DestinationStats s = core.stats(q);
                if (s == null) {
                    continue;
                }
                Idle seen = idleSince.get(q);
                if (seen == null || seen.enqueued() != s.enqueued() || seen.dequeued() != s.dequeued()) {
                    idleSince.put(q, new Idle(now, s.enqueued(), s.dequeued()));
                    if (!atStart) {
                        continue;
                    }
                } else if (now - seen.sinceNanos() < idle.toNanos()) {
                    continue;
                }
                if (core.removeIfIdle(q)) {
                    idleSince.remove(q);
                    LOG.info("broker {}: removed {}: no consumer and no message for {}{}", core.brokerName(), q, idle,
                            atStart ? " (empty at start)" : "");
                }
            }
        } catch (RuntimeException e) {
            LOG.warn("broker {}: auto-deletion of idle queues failed: {}", core.brokerName(), e.toString(), e);
        }
    }
}
