package io.fedbridge.broker.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.fedbridge.broker.store.DedupeLog;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The background writer of the dedupe log: it writes and commits what is accepted, and sleeps while nothing is. */
class FederationDedupeWriterTest {

    @TempDir
    Path dir;

    @Test
    void shouldWriteAndCommitAnAcceptedIdAndOtherwiseNotWake() {
        DedupeLog log = DedupeLog.open(dir.resolve("dedupe.db"), 1_000, Duration.ofHours(1), Clock.systemUTC());
        FederationDedupe dedupe = new FederationDedupe(1_000, log, List.of());
        try {
            // An idle broker: its writer used to wake every 20 ms to find nothing to write.
            Awaitility.await("an idle writer").during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(2))
                    .until(() -> dedupe.writerRuns() == 0);

            dedupe.accepted(dedupe.claim("B:1"), true);
            dedupe.accepted(dedupe.claim("B:2"), true); // within the same 20 ms: one write for both
            Awaitility.await("both ids written").atMost(Duration.ofSeconds(5)).until(() -> log.size() == 2);
            Awaitility.await("one drain, then one commit a second later").atMost(Duration.ofSeconds(5))
                    .until(() -> dedupe.writerRuns() == 2);
            Awaitility.await("idle again").during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(2))
                    .until(() -> dedupe.writerRuns() == 2);

            dedupe.accepted(dedupe.claim("B:3"), false);
            Awaitility.await("a non-persistent id is not written").during(Duration.ofMillis(100)).atMost(Duration.ofSeconds(1))
                    .until(() -> dedupe.writerRuns() == 2 && log.size() == 2);

            dedupe.accepted(dedupe.claim("B:4"), true);
            Awaitility.await("the next id wakes it again").atMost(Duration.ofSeconds(5)).until(() -> log.size() == 3);
        } finally {
            dedupe.close();
        }
        DedupeLog reopened = DedupeLog.open(dir.resolve("dedupe.db"), 1_000, Duration.ofHours(1), Clock.systemUTC());
        try {
            assertThat(reopened.load()).hasSize(3);
        } finally {
            reopened.close();
        }
    }
}
