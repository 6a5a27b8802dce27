package io.fedbridge.failover;

import io.fedbridge.core.SubscriptionRequest;
import java.time.Duration;
import java.util.Map;

/**
 * A subscription that survives failovers: the client re-subscribes on every new connection (a durable subscription by
 * its name, with the client's {@code clientId}). With a listener, messages go to it; without, {@link #receive} pulls
 * them. Thread-safe.
 */
public interface FailoverSubscription extends AutoCloseable {

    /** The subscription id, the same on every connection. */
    String id();

    String destination();

    SubscriptionRequest request();

    /**
     * Waits up to {@code timeout} for the next message, across failovers; null on timeout.
     *
     * @throws IllegalStateException if this subscription has a listener
     * @throws FailoverException     if the subscription or its client is closed, or the client gave up
     */
    FailoverMessage receive(Duration timeout) throws InterruptedException;

    /** True until unsubscribed or the client closes. */
    boolean isActive();

    /** Ends the subscription; unacknowledged messages go back to the broker. */
    void unsubscribe();

    /**
     * Ends the subscription with extra UNSUBSCRIBE headers, e.g. {@code durable-subscription-name} to remove a durable
     * subscription from the broker.
     *
     * @throws FailoverException if there is no connection to send them on
     */
    void unsubscribe(Map<String, String> headers);

    @Override
    void close();
}
