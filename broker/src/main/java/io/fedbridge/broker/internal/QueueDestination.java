package io.fedbridge.broker.internal;

import io.fedbridge.broker.DestinationStats;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * A queue of messages with competing consumers. Also backs each topic subscription (a one-consumer queue),
 * so prefetch, acks, redelivery and selectors work the same everywhere.
 *
 * <p>All state is guarded by the queue's monitor. Dispatch never blocks: it writes to consumer channels,
 * which buffer up to their high-water mark; a consumer whose channel is not writable, or whose prefetch
 * window is full, is skipped until it acks or drains.
 */
final class QueueDestination {

    private static final int PRIORITIES = 10;

    final String name;
    /** Key under which persistent messages are stored, or null if nothing here is ever stored. */
    final String storeKey;
    private final BrokerCore core;
    @SuppressWarnings("unchecked")
    private final ArrayDeque<QueueEntry>[] pending = new ArrayDeque[PRIORITIES];
    private final List<ServerConsumer> consumers = new ArrayList<>();
    private int pendingCount;
    private int roundRobin;
    private long enqueued;
    private long dequeued;
    private long expired;
    private int inflight;
    private boolean deleted;

    QueueDestination(BrokerCore core, String name, String storeKey) {
        this.core = core;
        this.name = name;
        this.storeKey = storeKey;
        for (int i = 0; i < PRIORITIES; i++) {
            pending[i] = new ArrayDeque<>();
        }
    }

    synchronized void enqueue(QueueEntry e) {
        if (deleted) {
            discard(e);
            return;
        }
        pending[e.message.priority].addLast(e);
        pendingCount++;
        enqueued++;
        dispatch();
    }

    synchronized void addConsumer(ServerConsumer c) {
        consumers.add(c);
        // Stable sort: higher priority first, equal priorities keep subscription order.
        consumers.sort(Comparator.comparingInt((ServerConsumer x) -> x.priority).reversed());
        dispatch();
    }

    /** Removes a consumer and puts every message it had not acknowledged back at the head, for redelivery. */
    synchronized void removeConsumer(ServerConsumer c) {
        consumers.remove(c);
        List<QueueEntry> unacked = c.drainInflight();
        inflight -= unacked.size();
        requeue(unacked);
        dispatch();
    }

    synchronized boolean hasConsumers() {
        return !consumers.isEmpty();
    }

    /**
     * Acknowledges {@code tag} (and, cumulatively, every earlier delivery of that consumer).
     *
     * @return a future that completes when the removals are durable
     */
    synchronized CompletableFuture<Void> ack(ServerConsumer c, long tag, boolean cumulative) {
        List<QueueEntry> acked = c.takeInflight(tag, cumulative);
        if (acked == null) {
            return null;
        }
        inflight -= acked.size();
        CompletableFuture<?>[] removals = new CompletableFuture<?>[acked.size()];
        int n = 0;
        for (QueueEntry e : acked) {
            dequeued++;
            core.memory.release(e.message.size);
            if (e.storeKey != null && e.message.persistent) {
                removals[n++] = core.store.remove(e.storeKey, e.message.sequence);
            }
        }
        dispatch();
        return n == 0 ? BrokerCore.DONE : CompletableFuture.allOf(java.util.Arrays.copyOf(removals, n));
    }

    /** Rejects deliveries; they return to the head of the queue with their redelivery count raised. */
    synchronized boolean nack(ServerConsumer c, long tag, boolean cumulative) {
        List<QueueEntry> rejected = c.takeInflight(tag, cumulative);
        if (rejected == null) {
            return false;
        }
        inflight -= rejected.size();
        requeue(rejected);
        dispatch();
        return true;
    }

    private void requeue(List<QueueEntry> entries) {
        for (int i = entries.size() - 1; i >= 0; i--) {
            QueueEntry e = entries.get(i);
            e.redeliveryCount++;
            if (e.storeKey != null && e.message.persistent) {
                core.store.updateRedeliveryCount(e.storeKey, e.message.sequence, e.redeliveryCount);
            }
            if (deleted) {
                discard(e);
                continue;
            }
            pending[e.message.priority].addFirst(e);
            pendingCount++;
        }
    }

    /** Hands pending messages to consumers with room, highest message priority first. */
    synchronized void dispatch() {
        if (pendingCount == 0 || consumers.isEmpty()) {
            return;
        }
        long now = core.clock.millis();
        for (int p = PRIORITIES - 1; p >= 0 && pendingCount > 0; p--) {
            Iterator<QueueEntry> it = pending[p].iterator();
            while (it.hasNext()) {
                QueueEntry e = it.next();
                if (e.message.isExpired(now)) {
                    it.remove();
                    pendingCount--;
                    expired++;
                    discard(e);
                    continue;
                }
                ServerConsumer c = pick(e);
                if (c == null) {
                    if (!anyCapacity()) {
                        return;
                    }
                    continue; // no consumer with room wants this one; later messages may still go
                }
                it.remove();
                pendingCount--;
                c.deliver(e);
                if (c.autoAck()) {
                    dequeued++;
                    core.memory.release(e.message.size);
                    if (e.storeKey != null && e.message.persistent) {
                        core.store.remove(e.storeKey, e.message.sequence);
                    }
                } else {
                    inflight++;
                }
            }
        }
    }

    private void discard(QueueEntry e) {
        core.memory.release(e.message.size);
        if (e.storeKey != null && e.message.persistent) {
            core.store.remove(e.storeKey, e.message.sequence);
        }
    }

    /** Round-robin among the highest-priority consumers that have room and whose selector matches. */
    private ServerConsumer pick(QueueEntry e) {
        int n = consumers.size();
        ServerConsumer best = null;
        int bestIndex = -1;
        for (int i = 0; i < n; i++) {
            int idx = (roundRobin + i) % n;
            ServerConsumer c = consumers.get(idx);
            if (best != null && c.priority <= best.priority) {
                continue;
            }
            if (c.hasCapacity() && c.accepts(e.message)) {
                best = c;
                bestIndex = idx;
            }
        }
        if (best != null) {
            roundRobin = bestIndex + 1;
        }
        return best;
    }

    private boolean anyCapacity() {
        for (ServerConsumer c : consumers) {
            if (c.hasCapacity()) {
                return true;
            }
        }
        return false;
    }

    /** Drops everything (a non-durable topic subscription that ended). */
    synchronized void delete() {
        deleted = true;
        for (ArrayDeque<QueueEntry> d : pending) {
            for (QueueEntry e : d) {
                discard(e);
            }
            d.clear();
        }
        pendingCount = 0;
    }

    synchronized DestinationStats snapshot() {
        return new DestinationStats(name, pendingCount, inflight, consumers.size(), enqueued, dequeued, expired);
    }
}
