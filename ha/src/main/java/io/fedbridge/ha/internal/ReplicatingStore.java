package io.fedbridge.ha.internal;

import io.fedbridge.broker.HaConfig;
import io.fedbridge.broker.MessageStore;
import io.fedbridge.broker.StoredMessage;
import io.fedbridge.broker.store.internal.JournalRecord;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiConsumer;

/**
 * The primary's store: its own journal, with every operation also handed to the {@link ReplicationHub}. A stored
 * message's future completes when the journal has it and every READY backup has stored it (the receipt rule); a
 * removal the broker waits for likewise. It keeps the live messages' index (the bodies are the broker's own, shared)
 * so that a backup that joins can be sent the state.
 */
public final class ReplicatingStore implements MessageStore {

    /** The state a joining backup is sent: durable subscriptions first, then every live message. */
    public record Snapshot(Iterator<JournalRecord> records, int size) {
    }

    private final MessageStore local;
    private final ReplicationHub hub;
    private final HaConfig.Replicate replicate;
    private final Map<String, ConcurrentSkipListMap<Long, StoredMessage>> live = new ConcurrentHashMap<>();
    private final AtomicInteger liveCount = new AtomicInteger();

    public ReplicatingStore(MessageStore local, ReplicationHub hub, HaConfig.Replicate replicate) {
        this.local = local;
        this.hub = hub;
        this.replicate = replicate;
    }

    public MessageStore local() {
        return local;
    }

    private boolean messages() {
        return replicate == HaConfig.Replicate.ALL;
    }

    /** The records of one {@link #atomically} call, published together as one GROUP at its end. */
    private static final class Unit {
        final List<JournalRecord> records = new ArrayList<>();
        final CompletableFuture<Void> published = new CompletableFuture<>();
        boolean awaited;
    }

    private final ThreadLocal<Unit> unit = new ThreadLocal<>();

    /**
     * The local store's unit, and one replication record for all of it (a {@link JournalRecord.Group}): a backup
     * applies it as one unit of its own journal, so a backup promoted after a crash of the primary holds all of a
     * transaction or none of it.
     */
    @Override
    public void atomically(Runnable work) {
        if (!messages() || unit.get() != null) {
            local.atomically(work);
            return;
        }
        Unit u = new Unit();
        unit.set(u);
        try {
            local.atomically(work);
        } finally {
            unit.remove();
            if (u.records.isEmpty()) {
                u.published.complete(null);
            } else {
                JournalRecord r = u.records.size() == 1 ? u.records.get(0) : new JournalRecord.Group(u.records);
                hub.publish(r, u.awaited).whenComplete((v, e) -> {
                    if (e == null) {
                        u.published.complete(null);
                    } else {
                        u.published.completeExceptionally(e);
                    }
                });
            }
        }
    }

    private CompletableFuture<Void> publish(JournalRecord record, boolean wait) {
        Unit u = unit.get();
        if (u == null) {
            return hub.publish(record, wait);
        }
        u.records.add(record);
        u.awaited |= wait;
        return u.published;
    }

    @Override
    public CompletableFuture<Void> add(String key, StoredMessage message) {
        if (!messages()) {
            return local.add(key, message);
        }
        if (live.computeIfAbsent(key, k -> new ConcurrentSkipListMap<>()).put(message.sequence(), message) == null) {
            liveCount.incrementAndGet();
        }
        CompletableFuture<Void> replicated = publish(new JournalRecord.Add(key, message), true);
        CompletableFuture<Void> stored = local.add(key, message);
        return replicated.isDone() && !replicated.isCompletedExceptionally() ? stored : CompletableFuture.allOf(stored, replicated);
    }

    private void forget(String key, long sequence) {
        ConcurrentSkipListMap<Long, StoredMessage> m = live.get(key);
        if (m != null && m.remove(sequence) != null) {
            liveCount.decrementAndGet();
        }
    }

    @Override
    public CompletableFuture<Void> remove(String key, long sequence) {
        return remove(key, sequence, false);
    }

    @Override
    public CompletableFuture<Void> remove(String key, long sequence, boolean consumedHere) {
        if (!messages()) {
            return local.remove(key, sequence, consumedHere);
        }
        forget(key, sequence);
        CompletableFuture<Void> replicated = publish(new JournalRecord.Remove(key, sequence, consumedHere), true);
        CompletableFuture<Void> stored = local.remove(key, sequence, consumedHere);
        return replicated.isDone() && !replicated.isCompletedExceptionally() ? stored : CompletableFuture.allOf(stored, replicated);
    }

    @Override
    public void removeEventually(String key, long sequence) {
        removeEventually(key, sequence, false);
    }

    @Override
    public void removeEventually(String key, long sequence, boolean consumedHere) {
        if (messages()) {
            forget(key, sequence);
            publish(new JournalRecord.Remove(key, sequence, consumedHere), false);
        }
        local.removeEventually(key, sequence, consumedHere);
    }

    @Override
    public void updateRedeliveryCount(String key, long sequence, int redeliveryCount) {
        if (messages()) {
            ConcurrentSkipListMap<Long, StoredMessage> m = live.get(key);
            if (m != null) {
                m.computeIfPresent(sequence, (s, old) -> old.withRedeliveryCount(redeliveryCount));
            }
            publish(new JournalRecord.Redelivery(key, sequence, redeliveryCount), false);
        }
        local.updateRedeliveryCount(key, sequence, redeliveryCount);
    }

    @Override
    public void recoverHistory(BiConsumer<String, Boolean> sink) {
        local.recoverHistory(sink);
    }

    @Override
    public void beforeDiscardingHistory(Runnable guard) {
        local.beforeDiscardingHistory(guard);
    }

    @Override
    public void recover(BiConsumer<String, StoredMessage> sink) {
        local.recover((key, m) -> {
            if (messages()) {
                if (live.computeIfAbsent(key, k -> new ConcurrentSkipListMap<>()).put(m.sequence(), m) == null) {
                    liveCount.incrementAndGet();
                }
            }
            sink.accept(key, m);
        });
    }

    @Override
    public long lastSequence() {
        return local.lastSequence();
    }

    @Override
    public void saveDurableSubscription(DurableSubscriptionInfo info) {
        local.saveDurableSubscription(info);
        if (replicate != HaConfig.Replicate.NONE) {
            hub.publish(new JournalRecord.SubscriptionSave(info), false);
        }
    }

    @Override
    public void removeDurableSubscription(String key) {
        local.removeDurableSubscription(key);
        ConcurrentSkipListMap<Long, StoredMessage> m = live.remove(key);
        if (m != null) {
            liveCount.addAndGet(-m.size());
        }
        if (replicate != HaConfig.Replicate.NONE) {
            hub.publish(new JournalRecord.SubscriptionRemove(key), false);
        }
    }

    @Override
    public List<DurableSubscriptionInfo> durableSubscriptions() {
        return local.durableSubscriptions();
    }

    @Override
    public boolean isPersistent() {
        return local.isPersistent();
    }

    /** Live messages this store knows. */
    public int size() {
        return liveCount.get();
    }

    /** The state to send a joining backup, read as it is now (weakly consistent: see {@link ReplicationLink}). */
    public Snapshot snapshot() {
        List<JournalRecord> subscriptions = new ArrayList<>();
        if (replicate != HaConfig.Replicate.NONE) {
            for (DurableSubscriptionInfo info : local.durableSubscriptions()) {
                subscriptions.add(new JournalRecord.SubscriptionSave(info));
            }
        }
        Iterator<Map.Entry<String, ConcurrentSkipListMap<Long, StoredMessage>>> keys =
                messages() ? live.entrySet().iterator() : java.util.Collections.emptyIterator();
        Iterator<JournalRecord> records = new Iterator<>() {
            private final Iterator<JournalRecord> first = subscriptions.iterator();
            private String key;
            private Iterator<StoredMessage> current = java.util.Collections.emptyIterator();

            @Override
            public boolean hasNext() {
                if (first.hasNext()) {
                    return true;
                }
                while (!current.hasNext() && keys.hasNext()) {
                    Map.Entry<String, ConcurrentSkipListMap<Long, StoredMessage>> e = keys.next();
                    key = e.getKey();
                    current = e.getValue().values().iterator();
                }
                return current.hasNext();
            }

            @Override
            public JournalRecord next() {
                if (!hasNext()) {
                    throw new NoSuchElementException();
                }
                return first.hasNext() ? first.next() : new JournalRecord.Add(key, current.next());
            }
        };
        return new Snapshot(records, subscriptions.size() + liveCount.get());
    }

    @Override
    public void close() {
        local.close();
    }

    @Override
    public String toString() {
        return "ReplicatingStore[" + local + ", epoch " + hub.epoch() + "]";
    }
}
