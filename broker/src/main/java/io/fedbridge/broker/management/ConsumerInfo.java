package io.fedbridge.broker.management;

/**
 * A subscription of a connection. Properties: connection to durable; statistics: inflight.
 *
 * @param connection   the connection's id
 * @param subscription the SUBSCRIBE id
 * @param selector     null without one
 * @param network      a bridge's network subscription
 * @param inflight     delivered, not yet acknowledged
 */
public record ConsumerInfo(String connection, String subscription, String destination, String ackMode, String selector,
                           int prefetch, int priority, boolean network, boolean durable, int inflight, long timestamp) {
}
