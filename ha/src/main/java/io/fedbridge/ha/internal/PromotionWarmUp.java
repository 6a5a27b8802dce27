package io.fedbridge.ha.internal;

import io.fedbridge.broker.store.DedupeLog;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Comparator;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Loads, while a member is a backup, the code its promotion would otherwise load on the failover's critical path. The
 * new primary's broker opens its dedupe window ({@link DedupeLog}, MapDB): the first open in a JVM initialises MapDB
 * and the Kotlin runtime under it, 0.7-5.6 s on a busy 2-core machine against 24-61 ms for the next one, and a backup
 * never opened one. So a backup opens and closes one on a throwaway file, on a daemon thread of its own.
 */
public final class PromotionWarmUp {

    private static final Logger LOG = LoggerFactory.getLogger(PromotionWarmUp.class);

    private PromotionWarmUp() {
    }

    /** Starts the warm-up in the background; failures are logged at DEBUG and change nothing. */
    public static void start(String member) {
        Thread t = new Thread(PromotionWarmUp::run, "fedbridge-" + member + "-ha-warmup");
        t.setDaemon(true);
        t.setPriority(Thread.MIN_PRIORITY);
        t.start();
    }

    private static void run() {
        Path dir = null;
        try {
            dir = Files.createTempDirectory("fedbridge-ha-warmup-");
            try (DedupeLog log = DedupeLog.open(dir.resolve("dedupe.db"), 16, Duration.ofMinutes(1), Clock.systemUTC())) {
                log.load();
            }
        } catch (IOException | RuntimeException e) {
            LOG.debug("HA promotion warm-up: {}", e.toString());
        } finally {
            delete(dir);
        }
    }

    private static void delete(Path dir) {
        if (dir == null) {
            return;
        }
        try (Stream<Path> s = Files.walk(dir)) {
            s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            LOG.debug("HA promotion warm-up: cannot delete {}: {}", dir, e.toString());
        }
    }
}
