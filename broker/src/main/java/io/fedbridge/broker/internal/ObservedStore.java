package io.fedbridge.broker.internal;

import io.fedbridge.broker.MessageStore;
import io.fedbridge.broker.StoredMessage;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiConsumer;

/**
 * The broker core's store: the store proper, telling the {@link QueueReplicas.Observer} of a key (a replicated queue
 * on its source) of each add, removal and redelivery count there, within the call. While nobody observes, each call
 * costs one read of an empty map. Thread-safe as the store is.
 */
final class ObservedStore implements MessageStore {

    private final MessageStore store;
    private final QueueReplicas replicas;

    ObservedStore(MessageStore store, QueueReplicas replicas) {
        this.store = store;
        this.replicas = replicas;
    }

    @Override
    public CompletableFuture<Void> add(String key, StoredMessage message) {
        QueueReplicas.Observer o = replicas.observer(key);
        CompletableFuture<Void> stored = store.add(key, message);
        if (o == null) {
            return stored;
        }
        CompletableFuture<Void> copied = o.added(message);
        return copied == null || copied.isDone() && !copied.isCompletedExceptionally() ? stored
                : CompletableFuture.allOf(stored, copied);
    }

    @Override
    public CompletableFuture<Void> remove(String key, long sequence) {
        return remove(key, sequence, false);
    }

    @Override
    public CompletableFuture<Void> remove(String key, long sequence, boolean consumedHere) {
        QueueReplicas.Observer o = replicas.observer(key);
        CompletableFuture<Void> stored = store.remove(key, sequence, consumedHere);
        if (o == null) {
            return stored;
        }
        CompletableFuture<Void> copied = o.removed(sequence, consumedHere, true);
        return copied == null || copied.isDone() && !copied.isCompletedExceptionally() ? stored
                : CompletableFuture.allOf(stored, copied);
    }

    @Override
    public void removeEventually(String key, long sequence) {
        removeEventually(key, sequence, false);
    }

    @Override
    public void removeEventually(String key, long sequence, boolean consumedHere) {
        QueueReplicas.Observer o = replicas.observer(key);
        if (o != null) {
            o.removed(sequence, consumedHere, false);
        }
        store.removeEventually(key, sequence, consumedHere);
    }

    @Override
    public void updateRedeliveryCount(String key, long sequence, int redeliveryCount) {
        QueueReplicas.Observer o = replicas.observer(key);
        if (o != null) {
            o.redelivered(sequence, redeliveryCount);
        }
        store.updateRedeliveryCount(key, sequence, redeliveryCount);
    }

    /** The store's unit; observers still hear each operation on its own (a queue replica is not part of the unit). */
    @Override
    public void atomically(Runnable work) {
        store.atomically(work);
    }

    @Override
    public void recoverHistory(BiConsumer<String, Boolean> sink) {
        store.recoverHistory(sink);
    }

    @Override
    public void beforeDiscardingHistory(Runnable guard) {
        store.beforeDiscardingHistory(guard);
    }

    @Override
    public void recover(BiConsumer<String, StoredMessage> sink) {
        store.recover(sink);
    }

    @Override
    public long lastSequence() {
        return store.lastSequence();
    }

    @Override
    public void saveDurableSubscription(DurableSubscriptionInfo info) {
        store.saveDurableSubscription(info);
    }

    @Override
    public void removeDurableSubscription(String key) {
        store.removeDurableSubscription(key);
    }

    @Override
    public List<DurableSubscriptionInfo> durableSubscriptions() {
        return store.durableSubscriptions();
    }

    @Override
    public boolean isPersistent() {
        return store.isPersistent();
    }

    @Override
    public void close() {
        store.close();
    }

    @Override
    public String toString() {
        return store.toString();
    }
}
