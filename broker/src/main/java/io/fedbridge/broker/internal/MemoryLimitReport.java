package io.fedbridge.broker.internal;

import io.fedbridge.broker.DestinationStats;
import io.fedbridge.core.internal.Sizes;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tells the operator when producers wait for memory: a WARN naming the queues that hold it and a
 * {@code memory-limit-reached} event when it starts, the same again every {@link #REMIND_NANOS} while it lasts, and an
 * INFO and a {@code memory-limit-released} event once producers have run unpaused for {@link #QUIET_NANOS}.
 *
 * <p>A consumer draining a full broker pauses and resumes its producers dozens of times a second (usage crosses the
 * limit, falls below 70%, crosses it again): that is one episode, reported once, not a line per pause.
 */
final class MemoryLimitReport implements MemoryUsage.Listener {

    private static final Logger LOG = LoggerFactory.getLogger(BrokerCore.class);
    static final long QUIET_NANOS = TimeUnit.SECONDS.toNanos(1);
    static final long REMIND_NANOS = TimeUnit.MINUTES.toNanos(1);

    private final BrokerCore core;
    private final long quietNanos;
    private final long remindNanos;
    /**
     * One thread of the broker's scheduler: the report's tasks run one after another, so a reminder never overtakes the
     * end of its episode (the release would otherwise be published before a reminder that was under way).
     */
    private final java.util.concurrent.ScheduledExecutorService executor;
    // guarded by this
    private boolean episode;
    /** Counts episodes: a reminder scheduled in one never speaks for the next. */
    private long episodeId;
    private long startNanos;
    private long lastPauseNanos;
    private long lastReleaseNanos;
    private int pauses;
    private long pausedNanos;
    private boolean checkScheduled;

    MemoryLimitReport(BrokerCore core) {
        this(core, QUIET_NANOS, REMIND_NANOS);
    }

    MemoryLimitReport(BrokerCore core, long quietNanos, long remindNanos) {
        this.core = core;
        this.quietNanos = quietNanos;
        this.remindNanos = remindNanos;
        this.executor = core.scheduler instanceof io.netty.util.concurrent.EventExecutorGroup g ? g.next() : core.scheduler;
    }

    // Both callbacks run on I/O threads, possibly under a queue's lock: what looks at the queues runs on the scheduler.

    @Override
    public void reached(long used, long limit) {
        long now = System.nanoTime();
        long id;
        synchronized (this) {
            pauses++;
            lastPauseNanos = now;
            if (episode) {
                return;
            }
            episode = true;
            id = ++episodeId;
            startNanos = now;
            pausedNanos = 0;
            pauses = 1;
        }
        run(() -> warn(used, limit, 1, 0), 0);
        run(() -> remind(id), remindNanos);
    }

    /** While the episode lasts (producers paused all along, or again and again), says so again every remindNanos. */
    private void remind(long id) {
        int n;
        long millis;
        synchronized (this) {
            if (!episode || id != episodeId) {
                return;
            }
            n = pauses;
            millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
        }
        warn(core.memory.used(), core.memory.limit(), n, millis);
        run(() -> remind(id), remindNanos);
    }

    @Override
    public void released(long used, int producers, long paused) {
        boolean schedule;
        synchronized (this) {
            pausedNanos += paused;
            lastReleaseNanos = System.nanoTime();
            schedule = episode && !checkScheduled;
            checkScheduled |= schedule;
        }
        if (schedule) {
            run(this::checkQuiet, quietNanos);
        }
    }

    /** Ends the episode once no producer has been paused for QUIET_NANOS; else looks again when that may be so. */
    private void checkQuiet() {
        long now = System.nanoTime();
        int n;
        long millis;
        long waited;
        synchronized (this) {
            checkScheduled = false;
            if (!episode || core.memory.waitingConnections() > 0) {
                return; // paused now: the next release looks again
            }
            long quietFor = now - lastPauseNanos;
            if (quietFor < quietNanos) {
                checkScheduled = true;
                run(this::checkQuiet, quietNanos - quietFor);
                return;
            }
            episode = false;
            n = pauses;
            millis = TimeUnit.NANOSECONDS.toMillis(lastReleaseNanos - startNanos);
            waited = TimeUnit.NANOSECONDS.toMillis(pausedNanos);
        }
        long used = core.memory.used();
        LOG.info("broker {}: memory below {} again ({} held): producers were paused {} {} over {} ms, {} ms of it waiting",
                core.config.name(), Sizes.of(core.memory.resumeBelow()), Sizes.of(used), n, n == 1 ? "time" : "times", millis, waited);
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("used", used);
        data.put("limit", core.memory.limit());
        data.put("pauses", n);
        data.put("millis", millis);
        data.put("pausedMillis", waited);
        core.hook.memoryLimit(false, data);
    }

    private void warn(long used, long limit, int n, long millis) {
        StringBuilder who = new StringBuilder();
        List<Map<String, Object>> holders = new ArrayList<>();
        for (DestinationStats d : core.largestHolders(3)) {
            int messages = d.pending() + d.inflight();
            who.append(who.length() == 0 ? "" : "; ").append(d.name()).append(' ').append(Sizes.of(d.bytes())).append(" in ")
                    .append(messages).append(messages == 1 ? " message, " : " messages, ").append(d.consumers())
                    .append(d.consumers() == 1 ? " consumer" : " consumers");
            Map<String, Object> h = new LinkedHashMap<>();
            h.put("destination", d.name());
            h.put("bytes", d.bytes());
            h.put("messages", messages);
            h.put("consumers", d.consumers());
            holders.add(h);
        }
        String largest = who.length() == 0 ? "none" : who.toString();
        if (millis == 0) {
            LOG.warn("broker {}: memoryLimit={} reached ({} held): producers are paused until it falls below {}; largest holders: "
                            + "{}. Consumers, or bridges to brokers with consumers, release it; a larger memoryLimit lets a deeper "
                            + "backlog build", core.config.name(), Sizes.of(limit), Sizes.of(used), Sizes.of(core.memory.resumeBelow()), largest);
        } else {
            LOG.warn("broker {}: memoryLimit={} still reached ({} held, {} producer connections paused now): producers paused {} "
                            + "{} in {} s; largest holders: {}", core.config.name(), Sizes.of(limit), Sizes.of(used),
                    core.memory.waitingConnections(), n, n == 1 ? "time" : "times", millis / 1000, largest);
        }
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("used", used);
        data.put("limit", limit);
        data.put("resumeBelow", core.memory.resumeBelow());
        data.put("pauses", n);
        data.put("millis", millis);
        data.put("largest", holders);
        core.hook.memoryLimit(true, data);
    }

    private void run(Runnable r, long delayNanos) {
        try {
            if (delayNanos <= 0) {
                executor.execute(r);
            } else {
                executor.schedule(r, delayNanos, TimeUnit.NANOSECONDS);
            }
        } catch (RejectedExecutionException e) {
            LOG.debug("broker {}: stopping; memory report dropped", core.config.name());
        }
    }
}
