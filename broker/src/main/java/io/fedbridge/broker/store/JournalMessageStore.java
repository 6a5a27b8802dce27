package io.fedbridge.broker.store;

import io.fedbridge.broker.MessageStore;
import io.fedbridge.broker.StoredMessage;
import io.fedbridge.broker.store.internal.ChannelOpener;
import io.fedbridge.broker.store.internal.Journal;
import io.fedbridge.broker.store.internal.JournalIndex;
import io.fedbridge.broker.store.internal.JournalRecord;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiConsumer;

/**
 * The durable {@link MessageStore}: an append-only journal of our own, written with group commit.
 *
 * <pre>{@code
 * try (JournalMessageStore store = JournalMessageStore.open(StoreConfig.ofDefaults(Path.of("data")))) {
 *     store.recover((key, message) -> destinations.restore(key, message));
 *     store.add("/queue/orders", message).thenRun(() -> sendReceipt());
 * }
 * }</pre>
 *
 * <p><b>How it works.</b> Every change (add, remove, redelivery count, durable subscription saved or removed) is a
 * record appended to the head segment file ({@code journal-NNNNNNNNNN.log}, {@link StoreConfig#segmentSize()} bytes,
 * preallocated). One writer thread drains all queued changes, writes them with one write and one
 * {@code FileChannel.force}, then completes their futures: many concurrent {@code add}s share one disk sync, so
 * throughput grows with the number in flight. Segments whose records are all obsolete are deleted; a segment with
 * only a few live messages left is compacted (those are rewritten at the head). At start-up the segments are
 * replayed in order; a write torn by a crash at the end of the last segment is dropped, any other damage is a
 * {@link StoreException} naming the file and offset. The format is described in
 * {@link io.fedbridge.broker.store.internal.JournalFormat}.
 *
 * <p><b>Transactions.</b> What {@link #atomically} collects (a STOMP transaction's sends and acks, to any number
 * of queues) is one GROUP record with one CRC, written and forced once: after a crash the store holds all of it or
 * none, and the futures of its writes complete together once it is durable.
 *
 * <p><b>Durability.</b> With {@link Durability#SYNC} an {@code add}/{@code remove} future completes once the record
 * is forced to disk; with {@link Durability#ASYNC} once it is in the OS page cache, and it is forced within
 * {@link StoreConfig#asyncFlushInterval()}. A write that fails (disk full) fails the futures of its batch with a
 * {@link StoreException}; the store then refuses every further write until it is reopened.
 *
 * <p><b>Threads.</b> Thread-safe. Futures complete on the store's writer thread: keep callbacks short and never
 * block in them. {@link #saveDurableSubscription} and {@link #removeDurableSubscription} wait until the change is
 * durable, except when called from such a callback (they then return at once; the change is still written in order).
 *
 * <p>One directory is used by one store at a time ({@code fedbridge.lock} is locked while open); it must hold
 * nothing but the store's files and, optionally, {@link DedupeLog} files named {@code dedupe*.db}.
 */
public final class JournalMessageStore implements MessageStore {

    private final StoreConfig config;
    private final Journal journal;
    private final AtomicLong lastSequence;
    private final Object subscriptionLock = new Object();
    private final Map<String, DurableSubscriptionInfo> subscriptions = new LinkedHashMap<>();
    /** The {@link #atomically} unit open on a thread. */
    private final ThreadLocal<Unit> unit = new ThreadLocal<>();

    private JournalMessageStore(StoreConfig config, Journal journal) {
        this.config = config;
        this.journal = journal;
        this.lastSequence = new AtomicLong(journal.recoveredLastSequence());
        journal.recoveredSubscriptions().forEach(s -> subscriptions.put(s.key(), s));
    }

    /**
     * Opens the store in {@code config.directory()}, creating the directory if needed, and reads the whole journal
     * (the live messages are kept until {@link #recover} takes them).
     *
     * @throws StoreException when the directory cannot be created or written, is in use by another store, holds a
     *                        file that is not the store's, or holds a damaged segment; the message names the path
     */
    public static JournalMessageStore open(StoreConfig config) {
        return open(config, ChannelOpener.DEFAULT);
    }

    static JournalMessageStore open(StoreConfig config, ChannelOpener opener) {
        return new JournalMessageStore(config, Journal.open(config, opener));
    }

    public StoreConfig config() {
        return config;
    }

    /** The store's directory, absolute. */
    public Path directory() {
        return journal.directory();
    }

    /** Told of each force (fsync) of the journal: for metrics. */
    @FunctionalInterface
    public interface SyncListener {
        /**
         * Called on the journal's writer thread after each force: keep it quick and non-blocking.
         *
         * @param nanos   how long the force took
         * @param records journal records it made durable (0 when it sealed a segment already forced)
         */
        void synced(long nanos, int records);
    }

    /** Replaces the listener told of each force (fsync); null for none. Thread-safe. */
    public void onSync(SyncListener listener) {
        journal.onSync(listener == null ? (nanos, records) -> { } : listener);
    }

    /** Why the store accepts no more writes (a write failed; reopen it), or null while it does. */
    public StoreException failure() {
        return journal.failure();
    }

    /** Bytes of records written since the store opened (compaction's copies included). */
    public long bytesWritten() {
        return journal.bytesWritten();
    }

    /** Forces (fsyncs) of the journal since the store opened. */
    public long syncs() {
        return journal.forces();
    }

    /** The segment files in use, oldest first (diagnostics). */
    public List<Path> segmentFiles() {
        try {
            return journal.segmentFiles();
        } catch (java.io.IOException e) {
            throw new StoreException("cannot list store directory " + directory() + ": " + e.getMessage(), e);
        }
    }

    @Override
    public CompletableFuture<Void> add(String key, StoredMessage message) {
        requireNonNull(key, "key");
        requireNonNull(message, "message");
        lastSequence.accumulateAndGet(message.sequence(), Math::max);
        return submit(new JournalRecord.Add(key, message));
    }

    /** The writes of one {@link #atomically} call, collected on its thread. */
    private static final class Unit {
        final List<JournalRecord> records = new ArrayList<>();
        final CompletableFuture<Void> done = new CompletableFuture<>();
    }

    /**
     * Collects the adds, removals and redelivery counts {@code work} makes on this thread and writes them as one
     * journal record (a GROUP, see {@link io.fedbridge.broker.store.internal.JournalFormat}), forced once: replay
     * finds all of them or none. If {@code work} throws, what it wrote so far is still written (as a unit), then
     * the exception propagates.
     */
    @Override
    public void atomically(Runnable work) {
        if (unit.get() != null) {
            work.run();
            return;
        }
        Unit u = new Unit();
        unit.set(u);
        try {
            work.run();
        } finally {
            unit.remove();
            if (u.records.isEmpty()) {
                u.done.complete(null);
            } else {
                journal.submitGroup(u.records).whenComplete((v, e) -> {
                    if (e == null) {
                        u.done.complete(null);
                    } else {
                        u.done.completeExceptionally(e);
                    }
                });
            }
        }
    }

    private CompletableFuture<Void> submit(JournalRecord record) {
        Unit u = unit.get();
        if (u == null) {
            return journal.submit(record);
        }
        u.records.add(record);
        return u.done;
    }

    private void submitBestEffort(JournalRecord record) {
        Unit u = unit.get();
        if (u == null) {
            journal.submitBestEffort(record);
        } else {
            u.records.add(record);
        }
    }

    @Override
    public CompletableFuture<Void> remove(String key, long sequence) {
        return remove(key, sequence, false);
    }

    /**
     * Written with the next batch and forced with the next force, at the latest after
     * {@link StoreConfig#asyncFlushInterval()}: an acknowledgement nobody waits for costs no fsync of its own.
     */
    @Override
    public void removeEventually(String key, long sequence) {
        removeEventually(key, sequence, false);
    }

    @Override
    public CompletableFuture<Void> remove(String key, long sequence, boolean consumedHere) {
        requireNonNull(key, "key");
        return submit(new JournalRecord.Remove(key, sequence, consumedHere));
    }

    @Override
    public void removeEventually(String key, long sequence, boolean consumedHere) {
        requireNonNull(key, "key");
        submitBestEffort(new JournalRecord.Remove(key, sequence, consumedHere));
    }

    /**
     * The removed messages whose ADD and REMOVE records are in the segments found at start-up. A segment is deleted
     * only after the guard of {@link #beforeDiscardingHistory} ran.
     */
    @Override
    public void recoverHistory(BiConsumer<String, Boolean> sink) {
        for (JournalIndex.Removed r : journal.takeHistory()) {
            sink.accept(r.federationId(), r.consumedHere());
        }
    }

    @Override
    public void beforeDiscardingHistory(Runnable guard) {
        journal.beforeDeletingHistory(guard);
    }

    /** Written with the next batch and forced within {@link StoreConfig#asyncFlushInterval()}; nobody waits for it. */
    @Override
    public void updateRedeliveryCount(String key, long sequence, int redeliveryCount) {
        requireNonNull(key, "key");
        submitBestEffort(new JournalRecord.Redelivery(key, sequence, redeliveryCount));
    }

    /**
     * Hands every stored message to {@code sink}, in ascending sequence order (so per key in sequence order), with
     * its latest redelivery count; messages removed, and those of removed durable subscriptions, are not included.
     *
     * @throws IllegalStateException when called a second time
     */
    @Override
    public void recover(BiConsumer<String, StoredMessage> sink) {
        for (JournalIndex.Recovered r : journal.takeRecovered()) {
            sink.accept(r.key(), r.message());
        }
    }

    @Override
    public long lastSequence() {
        return lastSequence.get();
    }

    /** Returns once the definition is durable (see the class comment for callbacks). */
    @Override
    public void saveDurableSubscription(DurableSubscriptionInfo info) {
        requireNonNull(info, "info");
        requireNonNull(info.key(), "info.key");
        CompletableFuture<Void> f;
        synchronized (subscriptionLock) {
            if (info.equals(subscriptions.get(info.key()))) {
                return;
            }
            subscriptions.put(info.key(), info);
            f = journal.submit(new JournalRecord.SubscriptionSave(info));
        }
        await(f);
    }

    /** Returns once the removal, and that of every message stored under {@code key}, is durable. */
    @Override
    public void removeDurableSubscription(String key) {
        requireNonNull(key, "key");
        CompletableFuture<Void> f;
        synchronized (subscriptionLock) {
            subscriptions.remove(key);
            f = journal.submit(new JournalRecord.SubscriptionRemove(key));
        }
        await(f);
    }

    @Override
    public List<DurableSubscriptionInfo> durableSubscriptions() {
        synchronized (subscriptionLock) {
            return List.copyOf(subscriptions.values());
        }
    }

    @Override
    public boolean isPersistent() {
        return true;
    }

    /** Writes and forces what is queued, stops the writer thread and unlocks the directory. Idempotent. */
    @Override
    public void close() {
        journal.close();
    }

    @Override
    public String toString() {
        return "JournalMessageStore[" + directory() + ", " + config.durability() + "]";
    }

    private void await(CompletableFuture<Void> f) {
        if (journal.isWriterThread()) {
            return;
        }
        try {
            f.join();
        } catch (CompletionException e) {
            if (e.getCause() instanceof StoreException se) {
                throw new StoreException(se.getMessage(), se);
            }
            throw e;
        }
    }

    private static void requireNonNull(Object value, String name) {
        if (value == null) {
            throw new NullPointerException(name + " must not be null, but was null");
        }
    }
}
