package io.fedbridge.failover;

import io.github.resilience4j.core.IntervalFunction;
import java.time.Duration;

/**
 * How the failover client retries after a broker is lost: ActiveMQ's failover options, with their names, meanings and
 * defaults.
 *
 * <p>A <em>round</em> tries every known broker once, in the client's order. The first round after a connection is lost
 * starts at once; after failed round {@code n} the client waits {@code intervalFunction().apply(n)} milliseconds:
 * {@code initialReconnectDelay * reconnectDelayExponent^(n-1)}, capped at {@code maxReconnectDelay} (10, 20, 40, ...
 * ms up to 30 s by default), or always {@code initialReconnectDelay} without exponential back-off. A connection lost
 * within a second of being established counts as a failed round too, so a broker that accepts clients and drops them
 * at once is backed off, not hammered.
 *
 * <pre>{@code
 * FailoverReconnectConfig r = FailoverReconnectConfig.builder()
 *         .initialReconnectDelay(Duration.ofMillis(100)).maxReconnectAttempts(20).build();
 * }</pre>
 *
 * @param initialReconnectDelay       wait after the first failed round, default 10 ms
 * @param maxReconnectDelay           longest wait between rounds, default 30 s
 * @param useExponentialBackOff       grow the wait by {@code reconnectDelayExponent} per failed round, default true
 * @param reconnectDelayExponent      growth factor, at least 1, default 2
 * @param maxReconnectAttempts        failed rounds after which a lost connection is given up: -1 (default) never
 *                                    gives up; 0 tries one round without retrying (as 1 does)
 * @param startupMaxReconnectAttempts the same for the very first connection; -1 (default) means "as
 *                                    {@code maxReconnectAttempts}", as in ActiveMQ
 */
public record FailoverReconnectConfig(Duration initialReconnectDelay, Duration maxReconnectDelay,
                                      boolean useExponentialBackOff, double reconnectDelayExponent,
                                      int maxReconnectAttempts, int startupMaxReconnectAttempts) {

    /** The value of {@code maxReconnectAttempts} and {@code startupMaxReconnectAttempts} that means "no limit". */
    public static final int UNLIMITED = -1;

    public FailoverReconnectConfig {
        if (initialReconnectDelay == null || initialReconnectDelay.isNegative() || initialReconnectDelay.isZero()) {
            throw new IllegalArgumentException("initialReconnectDelay must be > 0, but was " + initialReconnectDelay);
        }
        if (maxReconnectDelay == null || maxReconnectDelay.compareTo(initialReconnectDelay) < 0) {
            throw new IllegalArgumentException("maxReconnectDelay must be >= initialReconnectDelay ("
                    + initialReconnectDelay + "), but was " + maxReconnectDelay);
        }
        if (!(reconnectDelayExponent >= 1.0) || Double.isInfinite(reconnectDelayExponent)) {
            throw new IllegalArgumentException("reconnectDelayExponent must be >= 1, but was " + reconnectDelayExponent);
        }
        if (maxReconnectAttempts < UNLIMITED) {
            throw new IllegalArgumentException("maxReconnectAttempts must be >= -1 (-1 = unlimited), but was "
                    + maxReconnectAttempts);
        }
        if (startupMaxReconnectAttempts < UNLIMITED) {
            throw new IllegalArgumentException("startupMaxReconnectAttempts must be >= -1 (-1 = as maxReconnectAttempts), "
                    + "but was " + startupMaxReconnectAttempts);
        }
    }

    public static FailoverReconnectConfig ofDefaults() {
        return builder().build();
    }

    public static Builder builder() {
        return new Builder();
    }

    public Builder toBuilder() {
        return new Builder().initialReconnectDelay(initialReconnectDelay).maxReconnectDelay(maxReconnectDelay)
                .useExponentialBackOff(useExponentialBackOff).reconnectDelayExponent(reconnectDelayExponent)
                .maxReconnectAttempts(maxReconnectAttempts).startupMaxReconnectAttempts(startupMaxReconnectAttempts);
    }

    /** The wait in milliseconds after failed round {@code n} (1-based), as a Resilience4j interval function. */
    public IntervalFunction intervalFunction() {
        if (!useExponentialBackOff || reconnectDelayExponent == 1.0) {
            return IntervalFunction.of(initialReconnectDelay);
        }
        return IntervalFunction.ofExponentialBackoff(initialReconnectDelay, reconnectDelayExponent, maxReconnectDelay);
    }

    /**
     * Whether the client gives up after {@code failedRounds} failed rounds in a row.
     *
     * @param startup true while the client has never been connected
     */
    public boolean isExhausted(int failedRounds, boolean startup) {
        int limit = startup && startupMaxReconnectAttempts != UNLIMITED ? startupMaxReconnectAttempts : maxReconnectAttempts;
        return limit != UNLIMITED && failedRounds >= Math.max(1, limit);
    }

    public static final class Builder {
        private Duration initialReconnectDelay = Duration.ofMillis(10);
        private Duration maxReconnectDelay = Duration.ofSeconds(30);
        private boolean useExponentialBackOff = true;
        private double reconnectDelayExponent = 2.0;
        private int maxReconnectAttempts = UNLIMITED;
        private int startupMaxReconnectAttempts = UNLIMITED;

        private Builder() {
        }

        public Builder initialReconnectDelay(Duration d) {
            initialReconnectDelay = d;
            return this;
        }

        public Builder maxReconnectDelay(Duration d) {
            maxReconnectDelay = d;
            return this;
        }

        public Builder useExponentialBackOff(boolean b) {
            useExponentialBackOff = b;
            return this;
        }

        public Builder reconnectDelayExponent(double e) {
            reconnectDelayExponent = e;
            return this;
        }

        public Builder maxReconnectAttempts(int n) {
            maxReconnectAttempts = n;
            return this;
        }

        public Builder startupMaxReconnectAttempts(int n) {
            startupMaxReconnectAttempts = n;
            return this;
        }

        public FailoverReconnectConfig build() {
            return new FailoverReconnectConfig(initialReconnectDelay, maxReconnectDelay, useExponentialBackOff,
                    reconnectDelayExponent, maxReconnectAttempts, startupMaxReconnectAttempts);
        }
    }
}
