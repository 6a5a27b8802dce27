package io.fedbridge.core.bridge;

import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Turns network-connector URI options into filters that apply to every destination (e.g.
 * {@code replayWhenNoConsumers=true&replayDelay=500}). Found through {@link java.util.ServiceLoader}:
 * register implementations in {@code META-INF/services/io.fedbridge.core.bridge.BridgeFilterProvider}.
 */
public interface BridgeFilterProvider {

    /** The URI options this provider understands. */
    Set<String> optionNames();

    /**
     * Filters for these options (only this provider's own are passed; may be empty). Called for every network
     * connector, also when its URI has none of these options, so the filters a provider turns on by default apply.
     * Invalid values throw IllegalArgumentException naming the option.
     */
    List<BridgeFilter> create(Map<String, String> options, String context);
}
