package io.fedbridge.filter;

import io.fedbridge.core.bridge.BridgeFilter;
import io.fedbridge.core.bridge.BridgeFilterProvider;
import io.fedbridge.core.uri.UriOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The URI options of the conditional filters, with ActiveMQ's names where they exist:
 * {@code replayWhenNoConsumers} (true; ActiveMQ: false), {@code replayDelay} (500 ms), {@code selectorAware} (false),
 * {@code rateLimit} (0 = off), {@code rateDuration} (1 s), {@code forwardOnlyWhenIdle} (false),
 * {@code idleMaxPending} (0), {@code idleHoldTime} (200 ms).
 */
public final class ConditionalFiltersProvider implements BridgeFilterProvider {

    private static final Set<String> OPTIONS = Set.of("replayWhenNoConsumers", "replayDelay", "selectorAware", "rateLimit",
            "rateDuration", "forwardOnlyWhenIdle", "idleMaxPending", "idleHoldTime");

    @Override
    public Set<String> optionNames() {
        return OPTIONS;
    }

    @Override
    public List<BridgeFilter> create(Map<String, String> options, String context) {
        // On by default, unlike ActiveMQ: with it off, queue messages that crossed to a broker whose consumers then
        // left (a failover client moving, say) are stranded there for good. Duplicate detection stays on with it.
        boolean[] replay = {true};
        boolean[] selectorAware = {false};
        boolean[] idle = {false};
        Duration[] replayDelay = {Duration.ofMillis(500)};
        Duration[] rateDuration = {Duration.ofSeconds(1)};
        Duration[] idleHold = {Duration.ofMillis(200)};
        int[] rateLimit = {0};
        int[] idleMaxPending = {0};
        UriOptions.bind(options, context)
                .bool("replayWhenNoConsumers", v -> replay[0] = v)
                .durationMillis("replayDelay", v -> replayDelay[0] = v)
                .bool("selectorAware", v -> selectorAware[0] = v)
                .integer("rateLimit", v -> rateLimit[0] = v)
                .durationMillis("rateDuration", v -> rateDuration[0] = v)
                .bool("forwardOnlyWhenIdle", v -> idle[0] = v)
                .integer("idleMaxPending", v -> idleMaxPending[0] = v)
                .durationMillis("idleHoldTime", v -> idleHold[0] = v)
                .finish();
        List<BridgeFilter> filters = new ArrayList<>();
        if (replay[0]) {
            filters.add(new ReplayWhenNoConsumers(replayDelay[0], selectorAware[0]));
        }
        if (rateLimit[0] < 0) {
            throw new IllegalArgumentException("option 'rateLimit' in " + context + " must be >= 0 (0 = off), but was " + rateLimit[0]);
        }
        if (rateLimit[0] > 0) {
            filters.add(new RateLimit(rateLimit[0], rateDuration[0]));
        }
        if (idle[0]) {
            filters.add(new ForwardOnlyWhenIdle(idleMaxPending[0], idleHold[0]));
        }
        return filters;
    }
}
