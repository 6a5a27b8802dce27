package io.fedbridge.broker.management;

/**
 * A durable topic subscription.
 *
 * @param clientId as stored (on a broker with logins, prefixed with the user: {@code alice/app-1})
 * @param active   whether a consumer is attached now
 */
public record DurableSubscriptionInfo(String clientId, String name, String destination, String selector, boolean active,
                                      int pending, long enqueued, long dequeued, long timestamp) {
}
