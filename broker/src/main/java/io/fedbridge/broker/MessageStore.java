package io.fedbridge.broker;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiConsumer;

/**
 * Where a broker keeps persistent messages. A <em>key</em> is a queue ({@code /queue/orders}) or a durable
 * topic subscription ({@code durable:<clientId>:<name>}); a message stored under several keys (a topic
 * message with several durable subscribers) is added once per key and removed per key.
 *
 * <p>Implementations are thread-safe: any broker thread may call any method, and many calls may be in
 * flight at once — a store is expected to batch them (group commit).
 */
public interface MessageStore extends AutoCloseable {

    /**
     * Stores a message under {@code key}. The future completes when the message is as durable as the
     * store's durability mode promises ({@code sync}: on disk), and fails if it cannot be stored (disk full,
     * store closed) — the broker then answers the send with an ERROR, never with a receipt.
     */
    CompletableFuture<Void> add(String key, StoredMessage message);

    /** Removes an acknowledged message; the future completes when the removal is durable. */
    CompletableFuture<Void> remove(String key, long sequence);

    /**
     * Removes an acknowledged message that nobody waits for (an ACK without a receipt, an auto-acknowledged
     * delivery): it may be batched with later writes and made durable with them, within the store's flush
     * interval. A crash of the process loses nothing already written; a power loss in that interval may bring the
     * message back, redelivered (at least once, never lost).
     */
    default void removeEventually(String key, long sequence) {
        remove(key, sequence);
    }

    /**
     * {@link #remove}, saying whether a local consumer took the message ({@code consumedHere}) rather than a bridge,
     * which handed it on. A store that keeps a history (see {@link #recoverHistory}) records it.
     */
    default CompletableFuture<Void> remove(String key, long sequence, boolean consumedHere) {
        return remove(key, sequence);
    }

    /** {@link #removeEventually}, saying whether a local consumer took the message. */
    default void removeEventually(String key, long sequence, boolean consumedHere) {
        removeEventually(key, sequence);
    }

    /**
     * Hands {@code sink} the federation id of every removed message whose record the store still holds at start-up,
     * with whether a local consumer took it, in order of removal: the broker's dedupe learns from it what its own log
     * lost in a crash. Called once, at start-up, after {@link #recover}. Stores without such records give nothing.
     */
    default void recoverHistory(BiConsumer<String, Boolean> sink) {
    }

    /**
     * {@code guard} runs, on the store's own thread, before the store discards records that
     * {@link #recoverHistory} would report: whatever must outlive them (the dedupe log) is made durable first. If
     * it throws, the store keeps the records and tries again later.
     */
    default void beforeDiscardingHistory(Runnable guard) {
    }

    /**
     * Runs {@code work} on the calling thread as one atomic unit of this store: the adds, removals and redelivery
     * counts it makes on this store from this thread become durable all together or not at all — after a crash
     * (kill -9, power loss) the store holds every one of them or none. Their futures complete once the whole unit is
     * durable. The broker commits a STOMP transaction this way (its sends and its acks). Durable subscription changes
     * are not part of the unit (they are written at once), and {@code work} must not wait for the futures of its own
     * writes. A call inside {@code work} joins the unit that is open. The default, for stores that cannot, runs
     * {@code work} as it is (each write on its own).
     */
    default void atomically(Runnable work) {
        work.run();
    }

    /** Records a new redelivery count for a stored message (best effort: may be batched with later writes). */
    void updateRedeliveryCount(String key, long sequence, int redeliveryCount);

    /**
     * Replays every stored message, per key in sequence order. Called once, at broker start-up, before any
     * other method.
     */
    void recover(BiConsumer<String, StoredMessage> sink);

    /** The highest sequence ever stored, so the broker continues after it; 0 for an empty store. */
    long lastSequence();

    /** Persists a durable topic subscription's definition (idempotent). */
    void saveDurableSubscription(DurableSubscriptionInfo info);

    /** Forgets a durable subscription and every message stored under its key. */
    void removeDurableSubscription(String key);

    /** Every durable subscription that was saved and not removed. */
    List<DurableSubscriptionInfo> durableSubscriptions();

    /** True when the store keeps data across restarts. */
    boolean isPersistent();

    @Override
    void close();

    /**
     * A durable subscription's definition.
     *
     * @param key         the store key, {@code durable:<clientId>:<name>}
     * @param clientId    the owning client id
     * @param name        the subscription name
     * @param destination the topic (may be a wildcard)
     * @param selector    the selector, or null
     */
    record DurableSubscriptionInfo(String key, String clientId, String name, String destination, String selector) {
    }
}
