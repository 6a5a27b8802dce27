package io.fedbridge.broker.security.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

class LoginThrottleTest {

    private Instant now = Instant.parse("2030-01-01T00:00:00Z");
    private final Clock clock = new Clock() {
        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return now;
        }
    };

    private final LoginThrottle throttle = new LoginThrottle(3, Duration.ofSeconds(10), Duration.ofMinutes(1), clock);
    private final InetAddress attacker = InetAddress.getLoopbackAddress();

    private void fail(int times) {
        for (int i = 0; i < times; i++) {
            assertThat(throttle.tryBegin(attacker)).isNull();
            throttle.finished(attacker, false);
        }
    }

    @Test
    void shouldLockOutAfterMaxFailuresAndDoubleEachTime() {
        fail(3);
        assertThat(throttle.tryBegin(attacker)).endsWith("try again in 10 s");
        now = now.plusSeconds(10);
        fail(3);
        assertThat(throttle.tryBegin(attacker)).endsWith("try again in 20 s");
        now = now.plusSeconds(20);
        fail(3);
        now = now.plusSeconds(1);
        assertThat(throttle.tryBegin(attacker)).endsWith("try again in 39 s");
    }

    @Test
    void shouldForgetFailuresAfterASuccess() {
        fail(2);
        assertThat(throttle.tryBegin(attacker)).isNull();
        throttle.finished(attacker, true);
        fail(2);
        assertThat(throttle.isLockedOut(attacker)).isFalse();
    }

    @Test
    void shouldLimitLoginsInProgressPerAddress() {
        for (int i = 0; i < LoginThrottle.MAX_IN_FLIGHT; i++) {
            assertThat(throttle.tryBegin(attacker)).isNull();
        }
        assertThat(throttle.tryBegin(attacker)).startsWith("too many logins in progress");
        throttle.abandoned(attacker);
        assertThat(throttle.tryBegin(attacker)).isNull();
    }
}
