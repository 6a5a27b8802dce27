package io.fedbridge.filter;

import io.fedbridge.core.StompFrame;
import io.fedbridge.core.bridge.BridgeFilter;
import io.fedbridge.core.bridge.RemoteConsumer;
import io.github.resilience4j.ratelimiter.RateLimiter;
import io.github.resilience4j.ratelimiter.RateLimiterConfig;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * At most {@code rateLimit} messages per {@code rateDuration} on each network subscription (a Resilience4j
 * rate limiter per subscription). A forward beyond the rate waits; meanwhile the source holds further
 * messages back through the subscription's prefetch window, so they stay available to local consumers.
 */
public final class RateLimit implements BridgeFilter {

    private final int rateLimit;
    private final Duration rateDuration;
    private final Map<String, RateLimiter> limiters = new ConcurrentHashMap<>();

    /**
     * @param rateLimit    messages per period, &gt; 0
     * @param rateDuration the period (ActiveMQ's default 1 s)
     */
    public RateLimit(int rateLimit, Duration rateDuration) {
        if (rateLimit < 1) {
            throw new IllegalArgumentException("rateLimit must be > 0, but was " + rateLimit);
        }
        if (rateDuration == null || rateDuration.isNegative() || rateDuration.isZero()) {
            throw new IllegalArgumentException("rateDuration must be > 0, but was " + rateDuration);
        }
        this.rateLimit = rateLimit;
        this.rateDuration = rateDuration;
    }

    public int rateLimit() {
        return rateLimit;
    }

    public Duration rateDuration() {
        return rateDuration;
    }

    @Override
    public String toString() {
        return "RateLimit[" + rateLimit + " per " + rateDuration + "]";
    }

    @Override
    public boolean beforeForward(RemoteConsumer consumer, StompFrame message) {
        RateLimiter limiter = limiters.computeIfAbsent(consumer.originId(), id -> RateLimiter.of("fedbridge-" + id,
                RateLimiterConfig.custom().limitForPeriod(rateLimit).limitRefreshPeriod(rateDuration)
                        .timeoutDuration(Duration.ofDays(365)).build()));
        limiter.acquirePermission();
        return true;
    }
}
