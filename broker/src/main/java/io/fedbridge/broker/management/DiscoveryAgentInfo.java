package io.fedbridge.broker.management;

/**
 * A network connector's discovery agent.
 *
 * @param uri     the connector's URI, secrets masked: what {@code removeNetworkConnector} takes
 * @param scheme  {@code static} or {@code multicast}
 * @param bridges links to the peers found so far
 * @param up      those of them that are UP
 */
public record DiscoveryAgentInfo(String uri, String scheme, int bridges, int up, long timestamp) {
}
