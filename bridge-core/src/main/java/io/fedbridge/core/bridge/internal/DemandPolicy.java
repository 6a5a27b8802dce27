package io.fedbridge.core.bridge.internal;

import io.fedbridge.core.bridge.BridgeConfig;
import java.util.List;

/**
 * Which remote consumers' demand a {@link Direction} takes on: the loop and TTL checks on the demand's path, the
 * include/exclude patterns of the bridge, and topics a static subscription forwards already.
 *
 * <p>Immutable; called from the target's I/O thread (advisories) and under the Direction's lock.
 */
final class DemandPolicy {

    private final BridgeConfig config;
    private final String sourceKey;

    /** @param sourceKey the source's name on consumer paths: demand that passed it already would loop */
    DemandPolicy(BridgeConfig config, String sourceKey) {
        this.config = config;
        this.sourceKey = sourceKey;
    }

    /** Loop, TTL and include/exclude checks on a remote consumer's demand. */
    boolean isWanted(String destination, List<String> path) {
        if (path.contains(sourceKey)) {
            return false; // the demand already passed the source: forwarding there would loop
        }
        if (path.size() > config.consumerTTL()) {
            return false;
        }
        if (destination.startsWith("/topic/fedbridge.advisory.")) {
            return false;
        }
        for (String ex : config.excludedDestinations()) {
            if (Wildcards.matches(ex, destination)) {
                return false;
            }
        }
        if (config.dynamicallyIncludedDestinations().isEmpty()) {
            return true;
        }
        for (String in : config.dynamicallyIncludedDestinations()) {
            if (Wildcards.matches(in, destination)) {
                return true;
            }
        }
        return false;
    }

    /**
     * A topic that a static subscription forwards already: a second network subscription would forward each message
     * twice, and a foreign source gives the copies different ids (Artemis' multicast queues do), so nothing drops one.
     */
    boolean coveredByStatic(String destination, String selector) {
        if (!destination.startsWith("/topic/") || selector != null) {
            return false;
        }
        for (String s : config.staticallyIncludedDestinations()) {
            if (Wildcards.matches(s, destination)) {
                return true;
            }
        }
        return false;
    }
}
