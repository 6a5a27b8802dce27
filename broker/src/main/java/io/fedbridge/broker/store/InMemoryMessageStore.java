package io.fedbridge.broker.store;

import io.fedbridge.broker.MessageStore;
import io.fedbridge.broker.StoredMessage;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiConsumer;

/**
 * A store that keeps nothing across restarts: the default for a broker without a data directory. Messages
 * already live in the broker's destinations, so this store only tracks durable subscription definitions.
 */
public final class InMemoryMessageStore implements MessageStore {

    private static final CompletableFuture<Void> DONE = CompletableFuture.completedFuture(null);

    private final Map<String, DurableSubscriptionInfo> durables = new ConcurrentHashMap<>();

    @Override
    public CompletableFuture<Void> add(String key, StoredMessage message) {
        return DONE;
    }

    @Override
    public CompletableFuture<Void> remove(String key, long sequence) {
        return DONE;
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
        durables.put(info.key(), info);
    }

    @Override
    public void removeDurableSubscription(String key) {
        durables.remove(key);
    }

    @Override
    public List<DurableSubscriptionInfo> durableSubscriptions() {
        return new ArrayList<>(durables.values());
    }

    @Override
    public boolean isPersistent() {
        return false;
    }

    @Override
    public void close() {
    }
}
