package io.fedbridge.broker.management;

/**
 * A bridge (link) of a network connector to one peer. Properties: name, connector, peer; statistics: the rest.
 *
 * @param peer      the peer's URI as the discovery agent found it
 * @param state     {@code CONNECTING}, {@code UP}, {@code STALLED} or {@code DOWN}
 * @param since     when the link entered this state, epoch millis (as first seen, for a state entered before
 *                  management noticed it)
 * @param lastError why the link last failed, or null
 */
public record BridgeInfo(String name, String connector, String peer, String state, long since, long forwarded,
                         long pending, long acked, long duplicates, int networkSubscriptions, int remoteConsumers,
                         long filtered, long replayed, String lastError, long timestamp) {
}
