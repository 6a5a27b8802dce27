package io.fedbridge.broker.internal;

import io.fedbridge.broker.DiskSpace;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The free-disk watermark ({@code minFreeDisk}) of a broker with a data directory. Once a second it asks the
 * {@link DiskSpace} how much room is left; below the watermark, persistent SENDs are flow-controlled as ActiveMQ's
 * storeUsage does: the producer's connection stops being read (the SEND waits, in order) until space returns, when
 * every paused producer resumes by itself. Non-persistent messages, acknowledgements and consumers carry on: acks
 * are what frees journal space. A journal that never fills its disk never fails a write on ENOSPC.
 *
 * <p>Thread-safe: {@link #pauseIfLow} runs on the producers' event loops, the probe on one of the broker's.
 */
final class DiskWatermark {

    private static final Logger LOG = LoggerFactory.getLogger(DiskWatermark.class);
    static final long PROBE_MILLIS = 1000;

    private final String broker;
    private final Path directory;
    private final long minFree;
    private final DiskSpace space;
    private final List<Runnable> waiting = new ArrayList<>();
    private volatile boolean low;
    private boolean probeFailed;

    /** {@code directory} null or {@code minFree} 0: never low. */
    DiskWatermark(String broker, Path directory, long minFree, DiskSpace space) {
        this.broker = broker;
        this.directory = directory;
        this.minFree = directory == null ? 0 : minFree;
        this.space = space;
    }

    /** Probes now, then every second on {@code scheduler}. */
    void start(java.util.concurrent.ScheduledExecutorService scheduler) {
        if (minFree == 0) {
            return;
        }
        probe();
        scheduler.scheduleWithFixedDelay(this::probe, PROBE_MILLIS, PROBE_MILLIS, TimeUnit.MILLISECONDS);
    }

    boolean isLow() {
        return low;
    }

    /** If the disk is below the watermark, registers {@code resume} to run once it is not and returns true. */
    boolean pauseIfLow(Runnable resume) {
        if (!low) {
            return false;
        }
        synchronized (waiting) {
            if (!low) {
                return false;
            }
            waiting.add(resume);
            return true;
        }
    }

    void probe() {
        long free;
        try {
            free = space.usableBytes(directory);
            probeFailed = false;
        } catch (IOException | RuntimeException e) {
            if (!probeFailed) {
                LOG.warn("broker {}: cannot tell the free space of {} ({}); keeping the last verdict (low={})", broker,
                        directory, e.toString(), low);
                probeFailed = true;
            }
            return;
        }
        if (free < minFree && !low) {
            low = true;
            LOG.warn("broker {}: only {} bytes free on the disk of {}, below minFreeDisk={}: persistent sends wait for "
                    + "space", broker, free, directory, minFree);
        } else if (free >= minFree && low) {
            List<Runnable> resume;
            synchronized (waiting) {
                low = false;
                resume = new ArrayList<>(waiting);
                waiting.clear();
            }
            LOG.info("broker {}: {} bytes free on the disk of {} (minFreeDisk={}): persistent sends resume ({} producers)",
                    broker, free, directory, minFree, resume.size());
            resume.forEach(Runnable::run);
        }
    }
}
