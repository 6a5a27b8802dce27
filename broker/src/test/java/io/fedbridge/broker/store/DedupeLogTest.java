package io.fedbridge.broker.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DedupeLogTest {

    @TempDir
    Path dir;

    private static final Instant T0 = Instant.parse("2026-12-01T00:00:00Z");
    private final Clock clock = Clock.fixed(T0, ZoneOffset.UTC);

    private DedupeLog open(int capacity) {
        return open(capacity, clock);
    }

    private DedupeLog open(int capacity, Clock at) {
        return DedupeLog.open(dir.resolve("dedupe.db"), capacity, Duration.ofHours(1), at);
    }

    private static Clock after(Duration d) {
        return Clock.fixed(T0.plus(d), ZoneOffset.UTC);
    }

    private static void append(DedupeLog log, long from, int n, boolean consumed) {
        long[] hi = new long[n];
        long[] lo = new long[n];
        boolean[] c = new boolean[n];
        for (int i = 0; i < n; i++) {
            hi[i] = from + i;
            lo[i] = -(from + i);
            c[i] = consumed;
        }
        log.append(hi, lo, c, n);
    }

    @Test
    void shouldReadBackWhatWasCommittedInOrderWithTheConsumedMarks() {
        try (DedupeLog log = open(100)) {
            assertThat(log.load()).isEmpty();
            append(log, 1, 3, false);
            append(log, 4, 2, true);
            log.commit();
        }
        try (DedupeLog log = open(100)) {
            List<DedupeLog.Fingerprint> got = log.load();
            assertThat(got).extracting(DedupeLog.Fingerprint::high).containsExactly(1L, 2L, 3L, 4L, 5L);
            assertThat(got).extracting(DedupeLog.Fingerprint::low).containsExactly(-1L, -2L, -3L, -4L, -5L);
            assertThat(got).extracting(DedupeLog.Fingerprint::consumed).containsExactly(false, false, false, true, true);
            // appends after a restart come after what was there
            append(log, 6, 1, false);
        }
        try (DedupeLog log = open(100)) {
            assertThat(log.load()).extracting(DedupeLog.Fingerprint::high).containsExactly(1L, 2L, 3L, 4L, 5L, 6L);
        }
    }

    @Test
    void shouldDropWholeOldestBatchesBeyondItsCapacity() {
        try (DedupeLog log = open(10)) {
            log.load();
            for (int b = 0; b < 10; b++) {
                append(log, b * 4L, 4, false);
            }
            // 40 written in batches of 4: the newest batches covering the capacity (10) stay, i.e. 3 batches
            assertThat(log.size()).isEqualTo(12);
        }
        try (DedupeLog log = open(10)) {
            assertThat(log.load()).extracting(DedupeLog.Fingerprint::high).containsExactly(28L, 29L, 30L, 31L, 32L, 33L, 34L,
                    35L, 36L, 37L, 38L, 39L);
        }
    }

    /**
     * Appends {@code batches} batches of 1..64 fingerprints, a commit every 8, and returns the file's largest size (MapDB
     * grows it in steps of 1 MiB).
     */
    private long churn(DedupeLog log, int batches) throws Exception {
        long largest = 0;
        for (int b = 0; b < batches; b++) {
            append(log, b * 64L, 1 + b % 64, b % 3 == 0);
            if (b % 8 == 7) {
                log.commit();
                largest = Math.max(largest, Files.size(dir.resolve("dedupe.db")));
            }
        }
        return largest;
    }

    @Test
    void shouldKeepItsFileBoundedWhileOldBatchesAreDropped() throws Exception {
        long largest;
        try (DedupeLog log = DedupeLog.open(dir.resolve("dedupe.db"), 1_000, Duration.ofHours(1), clock, 1L << 20)) {
            log.load();
            largest = churn(log, 6_000);
            System.out.printf("dedupe log: %d rewrites, largest %d bytes%n", log.compactions(), largest);
            assertThat(log.compactions()).as("rewrites of the file, each worth it").isBetween(1, 100);
            assertThat(log.size()).isBetween(1_000L, 1_064L);
        }
        // 6,000 batches (about 200,000 fingerprints, 3.3 MB) went through a log that holds 1,000 (17 KB)
        assertThat(largest).as("largest size of the file").isLessThanOrEqualTo(3L << 20);
        try (DedupeLog log = open(1_000)) {
            List<DedupeLog.Fingerprint> got = log.load();
            assertThat(got).as("the newest batches, whole, after the rewrites and a reopen").hasSizeBetween(1_000, 1_064);
            assertThat(got.get(got.size() - 1).high()).isEqualTo(5_999L * 64 + 1 + 5_999 % 64 - 1);
        }
        assertThat(dir.resolve("dedupe.db.compact")).doesNotExist();
    }

    @Test
    void shouldGrowWithoutRewritesWhichIsWhyItRewrites() throws Exception {
        try (DedupeLog log = DedupeLog.open(dir.resolve("dedupe.db"), 1_000, Duration.ofHours(1), clock, Long.MAX_VALUE)) {
            log.load();
            long largest = churn(log, 6_000);
            System.out.printf("dedupe log without rewrites: largest %d bytes%n", largest);
            assertThat(largest).as("MapDB keeps the space of dropped batches").isGreaterThan(3L << 20);
        }
    }

    @Test
    void shouldDeleteACopyLeftByACrashDuringARewrite() throws Exception {
        Files.write(dir.resolve("dedupe.db.compact"), new byte[] {1, 2, 3});
        try (DedupeLog log = open(100)) {
            assertThat(log.load()).isEmpty();
        }
        assertThat(dir.resolve("dedupe.db.compact")).doesNotExist();
    }

    @Test
    void shouldSkipExpiredBatchesAtLoad() {
        try (DedupeLog log = open(100)) {
            log.load();
            append(log, 1, 2, false);
        }
        try (DedupeLog log = open(100, after(Duration.ofMinutes(59)))) {
            log.load();
            append(log, 3, 1, false);
        }
        try (DedupeLog log = open(100, after(Duration.ofMinutes(61)))) {
            assertThat(log.load()).extracting(DedupeLog.Fingerprint::high).containsExactly(3L);
        }
    }

    @Test
    void shouldRefuseAFileThatIsNotMapDb() throws Exception {
        Files.writeString(dir.resolve("dedupe.db"), "not a database at all");
        assertThatThrownBy(() -> open(10)).isInstanceOf(StoreException.class).hasMessageContaining("dedupe.db");
    }

    @Test
    void shouldTellAFileInUseByItsCause() {
        try (DedupeLog first = open(10)) {
            assertThatThrownBy(() -> open(10)).isInstanceOf(StoreException.class)
                    .hasMessageContaining("is in use").hasCauseInstanceOf(org.mapdb.DBException.FileLocked.class);
        }
    }

    @Test
    void shouldRejectBadBounds() {
        assertThatThrownBy(() -> DedupeLog.open(dir.resolve("x.db"), 0, Duration.ofHours(1), clock))
                .hasMessageContaining("capacity must be at least 1, but was 0");
        assertThatThrownBy(() -> DedupeLog.open(dir.resolve("x.db"), 10, Duration.ZERO, clock))
                .hasMessageContaining("ttl must be positive, but was PT0S");
    }
}
