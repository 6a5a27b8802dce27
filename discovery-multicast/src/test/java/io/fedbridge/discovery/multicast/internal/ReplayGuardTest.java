package io.fedbridge.discovery.multicast.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.fedbridge.discovery.multicast.internal.ReplayGuard.Verdict;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class ReplayGuardTest {

    private static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");
    private final ReplayGuard guard = new ReplayGuard(Duration.ofSeconds(30), 3);

    private static AnnouncementCodec.Seal seal(Instant at, long session, long sequence) {
        return new AnnouncementCodec.Seal(at.toEpochMilli(), session, sequence);
    }

    @Test
    void shouldTakeEachSequenceNumberOfASessionOnceAndInOrder() {
        assertThat(guard.check("b", seal(NOW, 1, 5), NOW)).isEqualTo(Verdict.FRESH);
        assertThat(guard.check("b", seal(NOW, 1, 5), NOW)).isEqualTo(Verdict.REPLAYED);
        assertThat(guard.check("b", seal(NOW, 1, 4), NOW)).isEqualTo(Verdict.REPLAYED);
        assertThat(guard.check("b", seal(NOW, 1, 6), NOW)).isEqualTo(Verdict.FRESH);
        assertThat(guard.check("c", seal(NOW, 1, 5), NOW)).as("per sender").isEqualTo(Verdict.FRESH);
    }

    @Test
    void shouldRejectTimestampsBeyondTheSkewEitherWayAndAcceptTheEdge() {
        assertThat(guard.check("b", seal(NOW.minusMillis(30_001), 1, 1), NOW)).isEqualTo(Verdict.STALE);
        assertThat(guard.check("b", seal(NOW.plusMillis(30_001), 1, 1), NOW)).isEqualTo(Verdict.STALE);
        assertThat(guard.check("b", seal(NOW.minusMillis(30_000), 1, 1), NOW)).isEqualTo(Verdict.FRESH);
        assertThat(guard.check("b", seal(NOW.plusMillis(30_000), 1, 2), NOW)).isEqualTo(Verdict.FRESH);
    }

    @Test
    void shouldNotMistakeASenderWhoseClockStepsBackForAReplayer() {
        assertThat(guard.check("b", seal(NOW, 1, 1), NOW)).isEqualTo(Verdict.FRESH);
        assertThat(guard.check("b", seal(NOW.minusSeconds(10), 1, 2), NOW)).isEqualTo(Verdict.FRESH);
    }

    @Test
    void shouldTakeANewerSessionAsARestartAndAnOlderOneAsAReplay() {
        assertThat(guard.check("b", seal(NOW, 1, 100), NOW)).isEqualTo(Verdict.FRESH);
        assertThat(guard.check("b", seal(NOW.plusMillis(1), 2, 1), NOW)).isEqualTo(Verdict.FRESH);
        assertThat(guard.check("b", seal(NOW, 1, 101), NOW)).as("the earlier session").isEqualTo(Verdict.REPLAYED);
        assertThat(guard.check("b", seal(NOW.minusSeconds(1), 3, 1), NOW)).isEqualTo(Verdict.REPLAYED);
        assertThat(guard.check("b", seal(NOW.plusMillis(1), 2, 2), NOW)).isEqualTo(Verdict.FRESH);
    }

    @Test
    void shouldRememberAtMostCapacitySendersForgettingOnlyThoseWhoseDatagramsAreAllStale() {
        guard.check("a", seal(NOW, 1, 1), NOW);
        guard.check("b", seal(NOW, 1, 1), NOW);
        guard.check("c", seal(NOW.plusSeconds(20), 1, 1), NOW);
        assertThat(guard.check("d", seal(NOW, 1, 1), NOW)).isEqualTo(Verdict.FULL);

        Instant later = NOW.plusSeconds(31);
        assertThat(guard.check("d", seal(later, 1, 1), later)).as("a and b can go now").isEqualTo(Verdict.FRESH);
        assertThat(guard.size()).isEqualTo(2);
        assertThat(guard.check("c", seal(NOW.plusSeconds(20), 1, 1), later)).as("c is still known")
                .isEqualTo(Verdict.REPLAYED);
    }
}
