package io.fedbridge.core.bridge;

/**
 * A bridge's counters at one moment.
 *
 * @param name                 the bridge's name
 * @param state                link state
 * @param lastError            why the link last failed, or null
 * @param forwarded            messages sent to the target (both directions for duplex)
 * @param pending              forwards awaiting the target's receipt
 * @param acked                forwards receipted by the target and acknowledged at the source
 * @param duplicates           forwards the target dropped as already seen (resends after failures)
 * @param networkSubscriptions network subscriptions currently held on the sources
 * @param remoteConsumers      the peer's consumers that create demand here (after loop, TTL, include/exclude and filters)
 * @param filtered             messages a filter dropped instead of forwarding
 * @param replayed             forwards that carried a message back toward a broker it came from (replay)
 */
public record BridgeStats(String name, BridgeState state, String lastError, long forwarded, long pending, long acked,
                          long duplicates, int networkSubscriptions, int remoteConsumers, long filtered, long replayed) {
}
