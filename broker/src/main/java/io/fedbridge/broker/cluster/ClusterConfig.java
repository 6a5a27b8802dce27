package io.fedbridge.broker.cluster;

import io.fedbridge.broker.DestinationPolicy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Federation-wide destinations of a broker (see docs/cluster.md).
 *
 * @param destinations   destinations this broker defines for the whole federation at start ({@code [destination NAME]}
 *                       sections of the configuration file), each as its policy with the exact name as pattern. A
 *                       definition from a configuration has the lowest version (0): a change made through the
 *                       management API, on any broker, beats it; the broker says so (WARN) when they disagree
 * @param autoDeleteIdle auto-created queues (those no definition names) are removed once they had no consumer and no
 *                       message for this long, and at start when empty. {@link Duration#ZERO} (default) = never
 */
public record ClusterConfig(List<DestinationPolicy> destinations, Duration autoDeleteIdle) {

    public ClusterConfig {
        destinations = List.copyOf(destinations == null ? List.of() : destinations);
        Set<String> seen = new HashSet<>();
        for (DestinationPolicy p : destinations) {
            try {
                DestinationDefinition.requireName(p.pattern());
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("destinations: " + e.getMessage(), e);
            }
            if (!seen.add(p.pattern())) {
                throw new IllegalArgumentException("destinations must have distinct names, but '" + p.pattern() + "' appears twice");
            }
        }
        autoDeleteIdle = autoDeleteIdle == null ? Duration.ZERO : autoDeleteIdle;
        if (autoDeleteIdle.isNegative()) {
            throw new IllegalArgumentException("autoDeleteIdle must be >= 0 (0 = never), but was " + autoDeleteIdle);
        }
    }

    public static ClusterConfig ofDefaults() {
        return new ClusterConfig(List.of(), Duration.ZERO);
    }

    public static Builder builder() {
        return new Builder();
    }

    public Builder toBuilder() {
        Builder b = new Builder();
        b.destinations.addAll(destinations);
        b.autoDeleteIdle = autoDeleteIdle;
        return b;
    }

    public static final class Builder {
        private final List<DestinationPolicy> destinations = new ArrayList<>();
        private Duration autoDeleteIdle;

        private Builder() {
        }

        /** Defines a destination federation-wide: {@code policy}'s pattern is its exact name. */
        public Builder destination(DestinationPolicy policy) {
            destinations.add(policy);
            return this;
        }

        /** See {@link ClusterConfig#autoDeleteIdle()}. */
        public Builder autoDeleteIdle(Duration idle) {
            this.autoDeleteIdle = idle;
            return this;
        }

        public ClusterConfig build() {
            return new ClusterConfig(destinations, autoDeleteIdle);
        }
    }
}
