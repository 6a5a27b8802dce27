package io.fedbridge.broker.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DedupeWindowTest {

    @TempDir
    Path dir;

    private Path file() {
        return dir.resolve("dedupe.db");
    }

    /** A clock the test moves by hand. */
    private static final class ManualClock extends Clock {
        private final AtomicLong millis = new AtomicLong(1_000_000);

        void advance(Duration d) {
            millis.addAndGet(d.toMillis());
        }

        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }

        @Override
        public long millis() {
            return millis.get();
        }

        @Override
        public Instant instant() {
            return Instant.ofEpochMilli(millis());
        }
    }

    @Test
    void shouldSayFirstSeenOnlyTheFirstTime() {
        try (DedupeWindow window = DedupeWindow.open(DedupeWindowConfig.ofDefaults(file()))) {
            assertThat(window.firstSeen("broker-a:1")).isTrue();
            assertThat(window.firstSeen("broker-a:1")).isFalse();
            assertThat(window.contains("broker-a:1")).isTrue();
            assertThat(window.contains("broker-a:2")).isFalse();
            assertThat(window.size()).isEqualTo(1);
            window.forget("broker-a:1");
            assertThat(window.contains("broker-a:1")).isFalse();
            assertThat(window.firstSeen("broker-a:1")).isTrue();
        }
    }

    @Test
    void shouldRememberIdsAcrossARestart() {
        try (DedupeWindow window = DedupeWindow.open(DedupeWindowConfig.ofDefaults(file()))) {
            IntStream.range(0, 100).forEach(i -> assertThat(window.firstSeen("id-" + i)).isTrue());
        }
        try (DedupeWindow window = DedupeWindow.open(DedupeWindowConfig.ofDefaults(file()))) {
            assertThat(window.size()).isEqualTo(100);
            IntStream.range(0, 100).forEach(i -> assertThat(window.firstSeen("id-" + i)).as("id-%s", i).isFalse());
            assertThat(window.firstSeen("id-100")).isTrue();
        }
    }

    @Test
    void shouldRememberIdsCommittedInAsyncModeAcrossARestart() {
        DedupeWindowConfig async = DedupeWindowConfig.ofDefaults(file()).toBuilder()
                .durability(Durability.ASYNC).asyncCommitInterval(Duration.ofMillis(10)).build();
        try (DedupeWindow window = DedupeWindow.open(async)) {
            IntStream.range(0, 100).forEach(i -> window.firstSeen("id-" + i));
            window.commit();
        }
        try (DedupeWindow window = DedupeWindow.open(async)) {
            assertThat(window.contains("id-0")).isTrue();
            assertThat(window.contains("id-99")).isTrue();
        }
    }

    @Test
    void shouldBoundItselfToItsMaximumSizeForgettingTheOldest() {
        DedupeWindowConfig config = DedupeWindowConfig.ofDefaults(file()).toBuilder().maxSize(100)
                .durability(Durability.ASYNC).build(); // closing commits
        try (DedupeWindow window = DedupeWindow.open(config)) {
            for (int i = 0; i < 1000; i++) {
                window.firstSeen("id-" + i);
                assertThat(window.size()).isLessThanOrEqualTo(100);
            }
            assertThat(window.contains("id-0")).isFalse();
            assertThat(window.contains("id-999")).isTrue();
        }
        try (DedupeWindow window = DedupeWindow.open(config)) {
            assertThat(window.size()).isLessThanOrEqualTo(100).isGreaterThan(50);
            assertThat(window.contains("id-999")).isTrue();
            assertThat(window.firstSeen("id-0")).isTrue();
            assertThat(window.size()).isLessThanOrEqualTo(100);
        }
        assertThat(file()).exists();
    }

    @Test
    void shouldForgetIdsOlderThanExpireAfterCreate() {
        ManualClock clock = new ManualClock();
        DedupeWindowConfig config = DedupeWindowConfig.ofDefaults(file()).toBuilder()
                .expireAfterCreate(Duration.ofMinutes(10)).clock(clock).build();
        try (DedupeWindow window = DedupeWindow.open(config)) {
            assertThat(window.firstSeen("old")).isTrue();
            clock.advance(Duration.ofMinutes(9));
            assertThat(window.firstSeen("newer")).isTrue();
            assertThat(window.contains("old")).isTrue();
            clock.advance(Duration.ofMinutes(1));
            assertThat(window.contains("old")).isFalse();
            assertThat(window.contains("newer")).isTrue();
            assertThat(window.firstSeen("old")).as("an expired id is new again").isTrue();
            assertThat(window.firstSeen("old")).isFalse();
        }
    }

    @Test
    void shouldLetExactlyOneOfConcurrentCallersSeeAnIdFirst() throws Exception {
        int threads = 8;
        int ids = 500;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try (DedupeWindow window = DedupeWindow.open(DedupeWindowConfig.ofDefaults(file()))) {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<Integer>> wins = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                wins.add(pool.submit(() -> {
                    start.await();
                    int won = 0;
                    for (int i = 0; i < ids; i++) {
                        if (window.firstSeen("id-" + i)) {
                            won++;
                        }
                    }
                    return won;
                }));
            }
            start.countDown();
            int total = 0;
            for (Future<Integer> w : wins) {
                total += w.get(60, TimeUnit.SECONDS);
            }
            assertThat(total).isEqualTo(ids);
            assertThat(window.size()).isEqualTo(ids);
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void shouldRefuseAFileInUse() {
        try (DedupeWindow window = DedupeWindow.open(DedupeWindowConfig.ofDefaults(file()))) {
            assertThatThrownBy(() -> DedupeWindow.open(DedupeWindowConfig.ofDefaults(file())))
                    .isInstanceOf(StoreException.class)
                    .hasMessageContaining(file().toString())
                    .hasMessageContaining("in use");
            assertThat(window.firstSeen("x")).isTrue();
        }
    }

    @Test
    void shouldRefuseAFileThatIsNotMapDb() throws Exception {
        Files.writeString(file(), "not a MapDB file at all; ".repeat(100));
        assertThatThrownBy(() -> DedupeWindow.open(DedupeWindowConfig.ofDefaults(file())))
                .isInstanceOf(StoreException.class)
                .hasMessageContaining(file().toString())
                .hasMessageContaining("not a MapDB file");
    }

    @Test
    void shouldRefuseUseAfterClose() {
        DedupeWindow window = DedupeWindow.open(DedupeWindowConfig.ofDefaults(file()));
        window.close();
        window.close();
        assertThatThrownBy(() -> window.firstSeen("x")).isInstanceOf(StoreException.class).hasMessageContaining("closed");
    }

    @Test
    void shouldValidateTheConfiguration() {
        DedupeWindowConfig defaults = DedupeWindowConfig.ofDefaults(file());
        assertThat(defaults.toBuilder().build()).isEqualTo(defaults);
        assertThat(defaults.maxSize()).isEqualTo(20_000);
        assertThatThrownBy(() -> DedupeWindowConfig.builder().build()).hasMessage("file must be set, but was null");
        assertThatThrownBy(() -> defaults.toBuilder().maxSize(0).build())
                .hasMessage("maxSize must be between 1 and 100000000, but was 0");
        assertThatThrownBy(() -> defaults.toBuilder().expireAfterCreate(Duration.ofSeconds(-1)).build())
                .hasMessage("expireAfterCreate must be positive, but was PT-1S");
    }
}
