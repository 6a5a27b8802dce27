package io.fedbridge.broker.integration;

import io.fedbridge.broker.MessageStore;
import io.fedbridge.broker.StoredMessage;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiConsumer;

/**
 * A persistent-looking store for tests that decide only what {@link #add} does: removals succeed, nothing is
 * recovered, durable subscriptions are not kept.
 */
abstract class StubMessageStore implements MessageStore {

    @Override
    public abstract CompletableFuture<Void> add(String key, StoredMessage message);

    @Override
    public CompletableFuture<Void> remove(String key, long sequence) {
        return CompletableFuture.completedFuture(null);
    }

    @Override
    public void updateRedeliveryCount(String key, long sequence, int redeliveryCount) {
    }

    @Override
    public void recover(BiConsumer<String, StoredMessage> sink) {
    }

    @Override
    public long lastSequence() {
        return 0;
    }

    @Override
    public void saveDurableSubscription(DurableSubscriptionInfo info) {
    }

    @Override
    public void removeDurableSubscription(String key) {
    }

    @Override
    public List<DurableSubscriptionInfo> durableSubscriptions() {
        return List.of();
    }

    @Override
    public boolean isPersistent() {
        return true;
    }

    @Override
    public void close() {
    }
}
