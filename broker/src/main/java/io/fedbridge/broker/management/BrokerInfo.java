package io.fedbridge.broker.management;

import java.util.List;

/**
 * The broker. Properties: name to securityMode; statistics: connections to diskSpaceLow.
 *
 * @param version          the fedbridge version
 * @param durability       {@code SYNC}, {@code ASYNC}, or {@code MEMORY} without a data directory
 * @param securityMode     {@code open}, {@code authenticated}, {@code authorized} or {@code authenticated+authorized}
 * @param dataDirectory    null without one
 * @param startedAt        epoch millis
 * @param memoryUsed       bytes of message data held
 * @param memoryLimitReached times the memory reached memoryLimit and paused producers since the broker started
 * @param memoryPausedConnections producer connections paused now, waiting for memory
 * @param duplicatesDropped federation resends dropped as already accepted
 * @param timestamp        when these values were read, epoch millis
 */
public record BrokerInfo(String name, String brokerId, String version, String durability, String securityMode,
                         String dataDirectory, List<String> connectUris, List<String> networkConnectors, long startedAt,
                         int connections, int queues, int topics, long memoryUsed, long memoryLimit,
                         long memoryLimitReached, int memoryPausedConnections, long duplicatesDropped, boolean diskSpaceLow, long timestamp) {
    public BrokerInfo {
        connectUris = List.copyOf(connectUris);
        networkConnectors = List.copyOf(networkConnectors);
    }
}
