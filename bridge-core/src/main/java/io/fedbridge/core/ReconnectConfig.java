package io.fedbridge.core;

import io.fedbridge.core.uri.UriOptions;
import io.github.resilience4j.core.IntervalFunction;
import java.time.Duration;

/**
 * How a link is retried: ActiveMQ's static-discovery options, names and defaults.
 *
 * @param initialReconnectDelay delay before the first retry (default 1 s)
 * @param maxReconnectDelay     longest delay between retries (default 30 s)
 * @param useExponentialBackOff grow the delay by {@code backOffMultiplier} per failure (default true)
 * @param backOffMultiplier     growth factor (default 2)
 * @param maxReconnectAttempts  failures in a row before giving up; 0 = never give up (default, as ActiveMQ)
 * @param minConnectTime        a link that dies sooner than this counts as a failed connect (default 5 s),
 *                              so a peer that accepts and drops at once is still backed off
 */
public record ReconnectConfig(Duration initialReconnectDelay, Duration maxReconnectDelay, boolean useExponentialBackOff,
                              double backOffMultiplier, int maxReconnectAttempts, Duration minConnectTime) {

    /** The option names, as they appear on a URI. */
    public static final java.util.Set<String> OPTION_NAMES = java.util.Set.of("initialReconnectDelay", "maxReconnectDelay",
            "useExponentialBackOff", "backOffMultiplier", "maxReconnectAttempts", "minConnectTime");

    public ReconnectConfig {
        if (initialReconnectDelay == null || initialReconnectDelay.isNegative() || initialReconnectDelay.isZero()) {
            throw new IllegalArgumentException("initialReconnectDelay must be > 0, but was " + initialReconnectDelay);
        }
        if (maxReconnectDelay == null || maxReconnectDelay.compareTo(initialReconnectDelay) < 0) {
            throw new IllegalArgumentException("maxReconnectDelay must be >= initialReconnectDelay (" + initialReconnectDelay
                    + "), but was " + maxReconnectDelay);
        }
        if (!(backOffMultiplier >= 1.0)) {
            throw new IllegalArgumentException("backOffMultiplier must be >= 1, but was " + backOffMultiplier);
        }
        if (maxReconnectAttempts < 0) {
            throw new IllegalArgumentException("maxReconnectAttempts must be >= 0 (0 = unlimited), but was " + maxReconnectAttempts);
        }
        if (minConnectTime == null || minConnectTime.isNegative()) {
            throw new IllegalArgumentException("minConnectTime must be >= 0, but was " + minConnectTime);
        }
    }

    public static ReconnectConfig ofDefaults() {
        return builder().build();
    }

    public static Builder builder() {
        return new Builder();
    }

    public Builder toBuilder() {
        return new Builder().initialReconnectDelay(initialReconnectDelay).maxReconnectDelay(maxReconnectDelay)
                .useExponentialBackOff(useExponentialBackOff).backOffMultiplier(backOffMultiplier)
                .maxReconnectAttempts(maxReconnectAttempts).minConnectTime(minConnectTime);
    }

    /**
     * The delay before retry number {@code attempt} (1-based), as a Resilience4j interval function capped
     * at {@link #maxReconnectDelay()}.
     */
    public IntervalFunction intervalFunction() {
        if (!useExponentialBackOff || backOffMultiplier == 1.0) {
            return IntervalFunction.of(initialReconnectDelay);
        }
        return IntervalFunction.ofExponentialBackoff(initialReconnectDelay, backOffMultiplier, maxReconnectDelay);
    }

    /** True if {@code failures} in a row mean giving up. */
    public boolean isExhausted(int failures) {
        return maxReconnectAttempts > 0 && failures >= maxReconnectAttempts;
    }

    public static final class Builder {
        private Duration initialReconnectDelay = Duration.ofSeconds(1);
        private Duration maxReconnectDelay = Duration.ofSeconds(30);
        private boolean useExponentialBackOff = true;
        private double backOffMultiplier = 2.0;
        private int maxReconnectAttempts;
        private Duration minConnectTime = Duration.ofSeconds(5);

        /** Binds the reconnect options of a URI to this builder. */
        public Builder bind(UriOptions options) {
            options.durationMillis("initialReconnectDelay", this::initialReconnectDelay)
                    .durationMillis("maxReconnectDelay", this::maxReconnectDelay)
                    .bool("useExponentialBackOff", this::useExponentialBackOff)
                    .doubleValue("backOffMultiplier", this::backOffMultiplier)
                    .integer("maxReconnectAttempts", this::maxReconnectAttempts)
                    .durationMillis("minConnectTime", this::minConnectTime);
            return this;
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

        public Builder backOffMultiplier(double m) {
            backOffMultiplier = m;
            return this;
        }

        public Builder maxReconnectAttempts(int n) {
            maxReconnectAttempts = n;
            return this;
        }

        public Builder minConnectTime(Duration d) {
            minConnectTime = d;
            return this;
        }

        public ReconnectConfig build() {
            return new ReconnectConfig(initialReconnectDelay, maxReconnectDelay, useExponentialBackOff, backOffMultiplier,
                    maxReconnectAttempts, minConnectTime);
        }
    }
}
