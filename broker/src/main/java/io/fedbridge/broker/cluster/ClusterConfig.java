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
 * @param tempDestinationReconnectGrace how long a temporary queue of a client that may reconnect (one that sends
 *                       {@code fedbridge-producer-secret} on CONNECT, as the failover client does) outlives its owner's
 *                       connection and its last consumer on each broker that holds it, with the replies sent to it; the
 *                       client gets the same name back on whichever broker it reconnects to within it. Default
 *                       {@link #DEFAULT_TEMP_DESTINATION_RECONNECT_GRACE} (30 s); {@link Duration#ZERO} = deleted at once,
 *                       as before (docs/cluster.md)
 * @param masterBroker   OpenMQ's master-broker mode: the name of the broker that must take part in every definition
 *                       change. It changes definitions at any time; another broker only while its own network
 *                       connector's link to it is up, and refuses otherwise (the same value on every broker). Null
 *                       (default) = no master: every broker may change definitions, conflicts settle by version
 */
public record ClusterConfig(List<DestinationPolicy> destinations, Duration autoDeleteIdle,
                            Duration tempDestinationReconnectGrace, String masterBroker) {

    /**
     * 30 s: a failover client notices a dead broker within two missed heart-beats (seconds) and reconnects with a
     * back-off of at most {@code maxReconnectDelay} (30 s by default), so it is back well within it; and a request
     * whose reply waits longer than this has usually timed out anyway (Camel's {@code requestTimeout} defaults to 20 s).
     */
    public static final Duration DEFAULT_TEMP_DESTINATION_RECONNECT_GRACE = Duration.ofSeconds(30);

    public ClusterConfig(List<DestinationPolicy> destinations, Duration autoDeleteIdle) {
        this(destinations, autoDeleteIdle, null, null);
    }

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
        tempDestinationReconnectGrace = tempDestinationReconnectGrace == null ? DEFAULT_TEMP_DESTINATION_RECONNECT_GRACE
                : tempDestinationReconnectGrace;
        if (tempDestinationReconnectGrace.isNegative()) {
            throw new IllegalArgumentException("tempDestinationReconnectGrace must be >= 0 (0 = none), but was "
                    + tempDestinationReconnectGrace);
        }
        if (masterBroker != null && (masterBroker.isBlank() || !masterBroker.equals(masterBroker.trim()))) {
            throw new IllegalArgumentException("masterBroker must be a broker's name (not blank, no surrounding spaces), but was '"
                    + masterBroker + "'");
        }
    }

    public static ClusterConfig ofDefaults() {
        return new ClusterConfig(List.of(), Duration.ZERO, null, null);
    }

    public static Builder builder() {
        return new Builder();
    }

    public Builder toBuilder() {
        Builder b = new Builder();
        b.destinations.addAll(destinations);
        b.autoDeleteIdle = autoDeleteIdle;
        b.tempDestinationReconnectGrace = tempDestinationReconnectGrace;
        b.masterBroker = masterBroker;
        return b;
    }

    public static final class Builder {
        private final List<DestinationPolicy> destinations = new ArrayList<>();
        private Duration autoDeleteIdle;
        private Duration tempDestinationReconnectGrace;
        private String masterBroker;

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

        /** See {@link ClusterConfig#tempDestinationReconnectGrace()}. */
        public Builder tempDestinationReconnectGrace(Duration grace) {
            this.tempDestinationReconnectGrace = grace;
            return this;
        }

        /** See {@link ClusterConfig#masterBroker()}. */
        public Builder masterBroker(String name) {
            this.masterBroker = name;
            return this;
        }

        public ClusterConfig build() {
            return new ClusterConfig(destinations, autoDeleteIdle, tempDestinationReconnectGrace, masterBroker);
        }
    }
}
