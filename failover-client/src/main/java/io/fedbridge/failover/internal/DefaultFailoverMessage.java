package io.fedbridge.failover.internal;

import io.fedbridge.core.FederationHeaders;
import io.fedbridge.core.ReceivedMessage;
import io.fedbridge.failover.FailoverMessage;
import io.fedbridge.failover.FailoverSubscription;
import io.fedbridge.failover.FailoverTransaction;
import java.util.Map;

/** A message handed to the application; acknowledged over whichever connection last delivered it. */
final class DefaultFailoverMessage implements FailoverMessage {

    private final DefaultFailoverSubscription subscription;
    private final String identity;
    private final ReceivedMessage first;
    private volatile Delivery delivery;

    DefaultFailoverMessage(DefaultFailoverSubscription subscription, String identity, Delivery delivery) {
        this.subscription = subscription;
        this.identity = identity;
        this.first = delivery.message();
        this.delivery = delivery;
    }

    Delivery delivery() {
        return delivery;
    }

    /** The broker redelivered this message after the connection it came over failed: acknowledge that one instead. */
    void rebind(Delivery redelivery) {
        this.delivery = redelivery;
    }

    @Override
    public String destination() {
        return first.destination();
    }

    @Override
    public String messageId() {
        return first.messageId();
    }

    @Override
    public String federationId() {
        return first.header(FederationHeaders.FEDERATION_ID);
    }

    @Override
    public String identity() {
        return identity;
    }

    @Override
    public String header(String name) {
        return first.header(name);
    }

    @Override
    public Map<String, String> headers() {
        return first.headers();
    }

    @Override
    public byte[] body() {
        return first.body();
    }

    @Override
    public String bodyAsString() {
        return first.bodyAsString();
    }

    @Override
    public int redeliveryCount() {
        return first.redeliveryCount();
    }

    @Override
    public FailoverSubscription subscription() {
        return subscription;
    }

    @Override
    public void ack() {
        subscription.ack(this, null, false);
    }

    @Override
    public void ack(FailoverTransaction transaction) {
        if (!(transaction instanceof DefaultFailoverTransaction tx)) {
            throw new IllegalArgumentException("transaction must come from FailoverClient.begin(), but was " + transaction);
        }
        subscription.ack(this, tx, false);
    }

    @Override
    public void nack() {
        subscription.nack(this);
    }

    @Override
    public String toString() {
        return "FailoverMessage[" + destination() + " " + identity + "]";
    }
}
