package io.fedbridge.discovery.multicast.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class WarnLimiterTest {

    private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
    private final WarnLimiter limiter = new WarnLimiter(Duration.ofMinutes(1), 2);

    @Test
    void shouldWarnOncePerPeriodPerKey() {
        assertThat(limiter.shouldWarn("unsigned 10.0.0.9", T0)).isTrue();
        assertThat(limiter.shouldWarn("unsigned 10.0.0.9", T0.plusSeconds(59))).isFalse();
        assertThat(limiter.shouldWarn("stale 10.0.0.9", T0.plusSeconds(59))).as("another kind").isTrue();
        assertThat(limiter.shouldWarn("unsigned 10.0.0.9", T0.plusSeconds(60))).isTrue();
    }

    @Test
    void shouldKeepAtMostMaxKeysMakingRoomAsTheyAgeOut() {
        assertThat(limiter.shouldWarn("a", T0)).isTrue();
        assertThat(limiter.shouldWarn("b", T0.plusSeconds(30))).isTrue();
        assertThat(limiter.shouldWarn("c", T0.plusSeconds(30))).as("full: a flood of sources is reported already")
                .isFalse();
        assertThat(limiter.shouldWarn("c", T0.plusSeconds(60))).as("a has aged out").isTrue();
    }
}
