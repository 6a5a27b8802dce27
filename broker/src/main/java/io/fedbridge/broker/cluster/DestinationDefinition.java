package io.fedbridge.broker.cluster;

import io.fedbridge.broker.DestinationPolicy;

/**
 * A destination defined federation-wide: its name ({@code /queue/...} or {@code /topic/...}, no wildcard), its policy
 * (whose pattern is the name), its version, and whether it was deleted (a tombstone, kept so that an older definition
 * arriving later cannot bring it back). Every broker of the federation stores the definitions and applies the
 * policy; a queue's definition also creates the queue on every broker.
 */
public record DestinationDefinition(String destination, DestinationPolicy policy, DefinitionVersion version, boolean deleted) {

    public DestinationDefinition {
        requireName(destination);
        if (version == null) {
            throw new IllegalArgumentException("version must not be null, for " + destination);
        }
        if (!deleted && (policy == null || !policy.pattern().equals(destination))) {
            throw new IllegalArgumentException("policy must be the policy of " + destination + ", but was " + policy);
        }
        if (deleted) {
            policy = null;
        }
    }

    /** Checks that {@code destination} can be defined: a queue or topic name without wildcards. */
    public static void requireName(String destination) {
        if (destination == null || !(destination.startsWith("/queue/") || destination.startsWith("/topic/"))
                || destination.length() <= 7 || destination.indexOf('*') >= 0 || destination.indexOf('>') >= 0
                || destination.startsWith("/topic/fedbridge.") || destination.startsWith("/queue/fedbridge.")
                || destination.chars().anyMatch(c -> c < 0x20 || c == ',')) {
            throw new IllegalArgumentException("destination must be a queue or topic name without wildcards, such as "
                    + "/queue/orders (not /queue/fedbridge.* nor /topic/fedbridge.*), but was '" + destination + "'");
        }
    }

    /** Whether this definition is live (not deleted). */
    public boolean isDefined() {
        return !deleted;
    }

    public boolean isQueue() {
        return destination.startsWith("/queue/");
    }
}
