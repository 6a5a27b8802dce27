package io.fedbridge.failover;

/**
 * Counters of a {@link FailoverClient} since it was created.
 *
 * @param connects             connections established (the first one included)
 * @param connectionsLost      connections lost (not closed by the client)
 * @param sendsResent          sends written again after a failover
 * @param duplicateReceipts    receipts saying the broker had already accepted the send
 * @param redeliveriesDropped  deliveries not handed to the application because it already had the message
 * @param learnedUrisIgnored   brokers announced by the federation that the client did not adopt (a weaker transport
 *                             than the announcing connection's, or outside {@code updateURIsAllowed}), counted per
 *                             announcement; each is logged at WARN the first time
 * @param pendingSends         sends awaiting their receipt now
 */
public record FailoverStats(long connects, long connectionsLost, long sendsResent, long duplicateReceipts,
                           long redeliveriesDropped, long learnedUrisIgnored, int pendingSends) {
}
