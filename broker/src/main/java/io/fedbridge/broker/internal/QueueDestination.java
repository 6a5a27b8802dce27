package io.fedbridge.broker.internal;

import io.fedbridge.broker.DestinationPolicy;
import io.fedbridge.broker.DestinationStats;
import io.fedbridge.broker.LimitBehavior;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * A queue of messages with competing consumers. Also backs each topic subscription (a one-consumer queue),
 * so prefetch, acks, redelivery, selectors and policies work the same everywhere.
 *
 * <p>All state is guarded by the queue's monitor. Dispatch never blocks: it writes to consumer connections,
 * which buffer up to a high-water mark; a consumer whose connection is not writable, or whose prefetch
 * window is full, is skipped until it acks or drains. Its parts hold a reference to the queue (or nothing of it) and
 * no lock of their own; they are called with the queue's lock held: {@link PendingMessages} (the messages waiting,
 * by priority, and their reordering after a handover or a promotion) and {@link QueueConsumers} (the consumers, the
 * active set and ranks, message groups, and the pick of a consumer for a message). The queue keeps admission,
 * dispatch, acks and redelivery, loans for ack-through and the management views.
 */
final class QueueDestination {

    /**
     * How long a broker waits, when its own consumer takes over a ranked queue from a remote one, before delivering: the
     * time for messages still on their way from the old active consumer's broker to arrive (docs/cluster.md).
     */
    static final long HANDOVER_HOLD_MILLIS = 1_000;
    final String name;
    /** Key under which persistent messages are stored, or null if nothing here is ever stored. */
    final String storeKey;
    /** Changes when a federation-wide definition of this destination does (io.fedbridge.broker.cluster). */
    volatile DestinationPolicy policy;
    final boolean sharedQueue;
    private final BrokerCore core;
    private final PendingMessages pending = new PendingMessages();
    private final QueueConsumers consumers = new QueueConsumers(this);
    private final List<Runnable> pausedProducers = new ArrayList<>();
    /** A handover: nothing is delivered before this time (epoch ms); then the pending messages are put in origin order. */
    private long holdUntil;
    private boolean sortAfterHold;
    private long enqueued;
    private long dequeued;
    private long expired;
    private long deadLettered;
    private int inflight;
    /** Messages held (pending + inflight) and their bytes, for maxNumMsgs / maxTotalMsgBytes. */
    private long held;
    private long heldBytes;
    private boolean deleted;
    private boolean replayCheckScheduled;
    /** Guards {@link #lastArrival}: the enqueue of the latest accepted message (see BrokerCore.accept). */
    final Object arrivalLock = new Object();
    CompletableFuture<Void> lastArrival = BrokerCore.DONE;
    private volatile int pendingSnapshot;
    private ScheduledDelivery schedule;
    /**
     * Pending entries forwarded to a peer whose receipt never came ({@link QueueEntry#inDoubtWith}), by message id, until
     * delivered again or settled by a bridge ({@link #settleInDoubt}); null while there never were any. An entry whose
     * hold ended stays until it is delivered: the peer's answer may still save a duplicate.
     */
    private java.util.Map<String, QueueEntry> inDoubt;

    /**
     * @param sharedQueue a queue proper (one copy of a message for one of its consumers), not a topic subscriber's:
     *                    only there does a local consumer's ack mean every other copy of the message is a duplicate
     */
    QueueDestination(BrokerCore core, String name, String storeKey, DestinationPolicy policy, boolean sharedQueue) {
        this.sharedQueue = sharedQueue;
        this.core = core;
        this.name = name;
        this.storeKey = storeKey;
        this.policy = policy;
    }

    // ---------------------------------------------------------------- admission (policies)

    private boolean isFull(long extraBytes) {
        return policy.maxNumMsgs() != -1 && held >= policy.maxNumMsgs()
                || policy.maxTotalMsgBytes() != -1 && heldBytes + extraBytes > policy.maxTotalMsgBytes();
    }

    /**
     * Decides whether a new message may enter. Returns null if it may (evicting the oldest pending message
     * first under REMOVE_OLDEST), or the reason it is rejected.
     */
    synchronized String admit(BrokerMessage m) {
        if (policy.maxBytesPerMsg() != -1 && m.body.length > policy.maxBytesPerMsg()) {
            return "message of " + m.body.length + " bytes exceeds maxBytesPerMsg=" + policy.maxBytesPerMsg() + " of " + name;
        }
        if (!isFull(m.size)) {
            return null;
        }
        switch (policy.limitBehavior()) {
            case REJECT_NEWEST -> {
                return name + " is full (maxNumMsgs=" + policy.maxNumMsgs() + ", maxTotalMsgBytes="
                        + policy.maxTotalMsgBytes() + ", limitBehavior=REJECT_NEWEST)";
            }
            case REMOVE_OLDEST -> {
                while (isFull(m.size) && pending.count() > 0) {
                    QueueEntry oldest = pending.removeOldest();
                    core.deadLetter(this, oldest, "removed-by-policy");
                    forget(oldest);
                }
                return null;
            }
            default -> {
                return null; // FLOW_CONTROL: accepted; the producer is paused by pauseIfFull
            }
        }
    }

    /** Under FLOW_CONTROL, if the queue is full registers {@code resume} and returns true. */
    synchronized boolean pauseIfFull(Runnable resume) {
        if (policy.limitBehavior() != LimitBehavior.FLOW_CONTROL || !isFull(0)) {
            return false;
        }
        pausedProducers.add(resume);
        return true;
    }

    // ---------------------------------------------------------------- flow

    synchronized void enqueue(QueueEntry e) {
        if (deleted && !revive()) {
            core.release(e);
            if (e.loan != null) {
                e.loan.returned();
            }
            return;
        }
        // A lent message waits for the consumer it was lent for, even while that one is not active here yet (the lender may
        // have learned before us that the consumer ahead of it left). If it is gone (or the lender is), the lender keeps it.
        if (e.loan != null && (e.loan.isSettled() || !consumers.hasLocalConsumer(e.loan.consumerId))) {
            core.release(e);
            e.loan.returned();
            return;
        }
        pending.addLast(e);
        enqueued++;
        held++;
        heldBytes += e.message.size;
        dispatch();
        scheduleReplayCheck();
    }

    /**
     * With a replay-capable network consumer attached and messages waiting, look again once replayDelay has
     * passed: a message that arrived on a quiet queue must not wait for the next unrelated dispatch.
     */
    private void scheduleReplayCheck() {
        if (replayCheckScheduled || pending.count() == 0) {
            return;
        }
        long delay = -1;
        for (ServerConsumer c : consumers.all()) {
            if (c.network && c.replayDelayMillis >= 0) {
                delay = delay < 0 ? c.replayDelayMillis : Math.min(delay, c.replayDelayMillis);
            }
        }
        if (delay < 0) {
            return;
        }
        replayCheckScheduled = true;
        core.scheduler.schedule(() -> {
            synchronized (this) {
                replayCheckScheduled = false;
                dispatch();
                scheduleReplayCheck();
            }
        }, Math.max(10, delay), java.util.concurrent.TimeUnit.MILLISECONDS);
    }

    synchronized void addConsumer(ServerConsumer c) {
        if (deleted) {
            revive();
        }
        if (!sharedQueue) {
            core.slowConsumers.watch(c);
        }
        consumersChanged(consumers.add(c));
        dispatch();
        scheduleReplayCheck();
    }

    /** Removes a consumer and puts every message it had not acknowledged back at the head, for redelivery. */
    synchronized void removeConsumer(ServerConsumer c) {
        removeConsumer(c, false);
    }

    /**
     * @param unsubscribed the bridge ended the subscription itself (UNSUBSCRIBE on a live link): it does so only once every
     *                     forward it made was receipted and acknowledged, so what it left unacknowledged was never forwarded
     *                     and is not in doubt with its peer
     */
    synchronized void removeConsumer(ServerConsumer c, boolean unsubscribed) {
        core.slowConsumers.unwatch(c);
        consumersChanged(consumers.remove(c));
        List<QueueEntry> unacked = c.drainInflight();
        inflight -= unacked.size();
        if (!unsubscribed && c.network && c.peer != null && !c.ackThrough && sharedQueue && !unacked.isEmpty() && !core.config.inDoubtHold().isZero()) {
            // Forwarded, never acknowledged: the peer may hold a copy (its receipt was lost with the link). Handing
            // ours to anyone else now could deliver the message twice; sent back to that peer, its dedupe settles it.
            // Kept for that peer for BrokerConfig.inDoubtHold: if the peer comes back within it, the message goes back
            // there and its dedupe drops it if it had stored it already; after it, anyone may take it (should the peer
            // return later with its copy, that copy is a duplicate only a consumer-side audit catches).
            long hold = core.config.inDoubtHold().toMillis();
            long until = core.clock.millis() + hold;
            if (inDoubt == null) {
                inDoubt = new java.util.LinkedHashMap<>();
            }
            for (QueueEntry e : unacked) {
                e.inDoubtWith = c.peer;
                e.inDoubtUntil = until;
                inDoubt.put(e.message.messageId, e);
            }
            scheduleDispatch(hold + 1);
        }
        requeue(unacked);
        if (!c.network) {
            returnLoans(c.originId);
        }
        dispatch();
        scheduleReplayCheck(); // what waited for the consumer that left may go back where it came from
        if (consumers.isEmpty() && name.startsWith("/temp-queue/") && storeKey != null) {
            core.tempQueueIdle(this);
        }
    }

    synchronized boolean hasConsumers() {
        return !consumers.isEmpty();
    }

    synchronized boolean hasActiveConsumer() {
        return !consumers.isEmpty();
    }

    /**
     * Acknowledges {@code tag} (and, cumulatively, every earlier delivery of that consumer).
     *
     * @return a future that completes when the removals are durable, or null if {@code tag} is not inflight
     */
    synchronized CompletableFuture<Void> ack(ServerConsumer c, long tag, boolean cumulative) {
        return ack(c, tag, cumulative, true);
    }

    /** With {@code awaited} false nobody waits for the removals (an ACK without a receipt): they are batched. */
    synchronized CompletableFuture<Void> ack(ServerConsumer c, long tag, boolean cumulative, boolean awaited) {
        List<QueueEntry> acked = c.takeInflight(tag, cumulative);
        if (acked == null) {
            return null;
        }
        inflight -= acked.size();
        List<CompletableFuture<Void>> removals = new ArrayList<>(acked.size());
        for (QueueEntry e : acked) {
            dequeued++;
            consumed(c, e);
            CompletableFuture<Void> r = e.loan != null ? e.loan.acked(awaited) : core.release(e, awaited);
            if (e.loan != null) {
                core.release(e, false); // its memory; a lent message was never stored
            }
            if (r != null && r != BrokerCore.DONE) {
                removals.add(r);
            }
            forget(e);
        }
        dispatch();
        return removals.isEmpty() ? BrokerCore.DONE : CompletableFuture.allOf(removals.toArray(CompletableFuture[]::new));
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
            if (deleted || e.loan != null && e.loan.isSettled()) {
                core.release(e);
                if (e.loan != null) {
                    e.loan.returned(); // no-op if its lender is gone: the lender's source delivers it again
                    forget(e);
                }
                continue;
            }
            if (policy.maxRedeliveries() != -1 && e.redeliveryCount > policy.maxRedeliveries()) {
                settleLoan(e);
                core.deadLetter(this, e, "max-redeliveries");
                forget(e);
                continue;
            }
            pending.addFirst(e);
        }
    }

    /** A message left this queue for good: update the policy counters and wake paused producers. */
    private void forget(QueueEntry e) {
        held--;
        heldBytes -= e.message.size;
        if (!pausedProducers.isEmpty() && !isFull(0)) {
            List<Runnable> resume = new ArrayList<>(pausedProducers);
            pausedProducers.clear();
            resume.forEach(Runnable::run);
        }
    }

    /** Hands pending messages to consumers with room, highest message priority first. */
    synchronized void dispatch() {
        try {
            dispatchPending();
        } finally {
            pendingSnapshot = pending.count();
        }
    }

    private void dispatchPending() {
        if (pending.count() == 0 || consumers.isEmpty()) {
            return;
        }
        long now = core.clock.millis();
        if (holdUntil != 0) {
            if (now < holdUntil) {
                return; // a handover: the dispatch scheduled for its end comes
            }
            holdUntil = 0;
            if (sortAfterHold) {
                sortAfterHold = false;
                pending.sortByOrigin(core.brokerId);
            }
        }
        io.fedbridge.broker.DispatchListener dispatched = core.dispatchListener; // read once per pass, not per message
        for (int p = PendingMessages.PRIORITIES - 1; p >= 0 && pending.count() > 0; p--) {
            ArrayDeque<QueueEntry> d = pending.at(p);
            if (d == null) {
                continue;
            }
            Iterator<QueueEntry> it = d.iterator();
            while (it.hasNext()) {
                QueueEntry e = it.next();
                if (e.message.isExpired(now)) {
                    it.remove();
                    pending.removed();
                    noLongerInDoubt(e);
                    expired++;
                    settleLoan(e);
                    core.deadLetter(this, e, "expired");
                    forget(e);
                    continue;
                }
                if (e.message.deliverAt != 0 && schedule().skip(e.message, now)) {
                    continue; // scheduled for later; the schedule dispatches again then
                }
                ServerConsumer c = consumers.pick(e, now);
                if (c == null) {
                    if (!consumers.pickSawRoom) {
                        return; // nobody has room: keep order, wait for an ack or a writable connection
                    }
                    continue; // consumers with room exist but their selectors refuse this one; later ones may go
                }
                it.remove();
                pending.removed();
                noLongerInDoubt(e); // delivered: back to its peer (whose dedupe settles it) or, its hold over, to anyone
                if (!c.network && sharedQueue && e.message.federationId != null && e.loan == null
                        && core.dedupe.wasConsumedLocally(e.message)) {
                    // another copy of a message a local consumer already took (see FederationDedupe.recent: its marks)
                    core.dedupe.countDuplicate();
                    dequeued++;
                    core.release(e, false);
                    forget(e);
                    continue;
                }
                if (!c.autoAck() && !c.network && e.storeKey != null && e.message.persistent && core.store.isPersistent()) {
                    // Count the delivery before it happens: a crash before the ack then shows as a redelivery
                    // after restart (and counts toward maxRedeliveries), never as a first delivery. Not for a
                    // bridge: it strips the count when forwarding, and the peer's dedupe makes a resend harmless,
                    // so that record would be a journal write per forwarded message for nobody.
                    core.store.updateRedeliveryCount(e.storeKey, e.message.sequence, e.redeliveryCount + 1);
                }
                c.deliver(e);
                dispatched.dispatched(now - e.arrivalMillis, c.network);
                if (c.autoAck()) {
                    dequeued++;
                    settleLoan(e);
                    consumed(c, e);
                    core.release(e, false); // nobody waits for an auto-acknowledged delivery's removal
                    forget(e);
                } else {
                    inflight++;
                }
            }
        }
    }

    /** A local consumer of this queue took {@code e} for good: any other copy of it is a duplicate from now on. */
    private void consumed(ServerConsumer c, QueueEntry e) {
        if (!c.network && sharedQueue && e.message.federationId != null && e.loan == null) {
            e.consumedHere = true;
            core.dedupe.consumedLocally(e.message);
        }
    }

    /** The timer of scheduled messages, created when the first one waits. */
    private ScheduledDelivery schedule() {
        if (schedule == null) {
            schedule = new ScheduledDelivery(core.scheduler, this::dispatch);
        }
        return schedule;
    }

    /** Runs a dispatch after {@code millis} (a held message becomes free then). */
    private void scheduleDispatch(long millis) {
        core.scheduler.schedule(this::dispatch, millis, java.util.concurrent.TimeUnit.MILLISECONDS);
    }

    /**
     * The store write of {@code e} (see {@link QueueEntry#storing}) completed: local consumers may have it now. If the
     * write failed, the producer is told so; a copy not yet handed on is withdrawn (one already forwarded stays with
     * the peer, as an unacknowledged send may).
     */
    synchronized void stored(QueueEntry e, Throwable failure) {
        e.storing = null;
        if (failure != null && pending.remove(e)) {
            core.memory.release(e.message.size);
            forget(e);
        }
        dispatch();
    }

    /**
     * The consumers changed. On a ranked queue where one of ours takes over from a remote consumer ({@code handover}), hold
     * delivery for {@link #HANDOVER_HOLD_MILLIS}: messages the old consumer's broker still passes on arrive meanwhile, and
     * are put back in their origin's order before the new consumer gets any.
     */
    private void consumersChanged(boolean handover) {
        if (handover) {
            holdUntil = core.clock.millis() + HANDOVER_HOLD_MILLIS;
            sortAfterHold = true;
            scheduleDispatch(HANDOVER_HOLD_MILLIS + 1);
        }
    }

    /**
     * Lent messages (Loans) wait here only for the consumer they were lent for: when it leaves, those still here leave the
     * queue and go back to their lenders, whose sources deliver them to the next active consumer, wherever it is, in their
     * order (the lender's subscription for the consumer that left ends, which puts them back at the head of its queue).
     */
    private void returnLoans(String originId) {
        if (pending.count() == 0) {
            return;
        }
        for (int p = 0; p < PendingMessages.PRIORITIES; p++) {
            ArrayDeque<QueueEntry> d = pending.at(p);
            if (d == null) {
                continue;
            }
            for (Iterator<QueueEntry> it = d.iterator(); it.hasNext(); ) {
                QueueEntry e = it.next();
                if (e.loan != null && e.loan.consumerId.equals(originId)) {
                    it.remove();
                    pending.removed();
                    forget(e);
                    core.release(e);
                    e.loan.returned();
                }
            }
        }
        pendingSnapshot = pending.count();
    }

    /** A lent message leaves here for good other than by a consumer's ACK (expired, dead-lettered, purged): the lender acknowledges it. */
    private static void settleLoan(QueueEntry e) {
        if (e.loan != null) {
            e.loan.acked(false);
        }
    }

    /** Its lender is gone: a lent message still waiting here leaves the queue (one a consumer holds is dropped when settled). */
    synchronized void dropLoan(QueueEntry e) {
        if (pending.remove(e)) {
            forget(e);
            core.release(e);
            pendingSnapshot = pending.count();
        }
    }

    /** Consumers a ranked queue counts against maxNumBackupConsumers: local ones and ranked network ones, by origin. */
    synchronized int rankedConsumerCount() {
        return consumers.rankedCount();
    }

    synchronized long latestRankTime() {
        return consumers.latestRankTime();
    }

    BrokerCore core() {
        return core;
    }

    /** True if a non-network consumer is attached (that would accept {@code m}, if selectorAware); called with the lock held. */
    boolean hasLocalConsumerFor(BrokerMessage m, boolean selectorAware) {
        return consumers.hasLocalConsumerFor(m, selectorAware);
    }

    /**
     * A send or a subscription that found this queue just before it was removed (auto-deletion, a management or
     * definition delete) brings it back, as a send to a missing queue would create it: the message is not lost, the
     * consumer not left on a queue nobody routes to. Only a queue proper, and only if no new queue took its name.
     */
    private boolean revive() {
        if (!sharedQueue || storeKey == null || !storeKey.equals(name) || name.startsWith("/temp-queue/")
                || core.queues.putIfAbsent(name, this) != null) {
            return false;
        }
        deleted = false;
        return true;
    }

    private void noLongerInDoubt(QueueEntry e) {
        if (inDoubt != null && !inDoubt.isEmpty()) {
            inDoubt.remove(e.message.messageId);
        }
        e.inDoubtWith = null;
    }

    /** Adds the entries held in doubt for {@code peer} to {@code out} (see FederationHeaders#IN_DOUBT_TOPIC). */
    synchronized void inDoubtFor(String peer, List<QueueEntry> out) {
        if (inDoubt == null) {
            return;
        }
        for (QueueEntry e : inDoubt.values()) {
            if (peer.equals(e.inDoubtWith)) {
                out.add(e);
            }
        }
    }

    /**
     * A bridge asked {@code peer} about the forward {@code messageId} held here in doubt for it: with {@code stored} the
     * peer has it, so the copy here is removed (the peer owns the message now); else the peer never had it, and it
     * goes to any consumer at once.
     *
     * @return false if no entry of that id waits here in doubt for that peer (delivered again, expired, purged)
     */
    synchronized boolean settleInDoubt(String messageId, String peer, boolean stored) {
        QueueEntry e = inDoubt == null ? null : inDoubt.get(messageId);
        if (e == null || !peer.equals(e.inDoubtWith)) {
            return false;
        }
        inDoubt.remove(messageId);
        e.inDoubtWith = null; // absent: free for anyone now, where it waits
        if (stored) {
            if (!pending.remove(e)) {
                return false; // no longer waiting here (a limit removed it)
            }
            dequeued++;
            core.release(e); // the peer has it: forced soon, so a restart here does not bring the copy back
            forget(e);
        }
        dispatch();
        return true;
    }

    /** Drops everything (a subscription that ended, a durable subscription removed). */
    synchronized void delete() {
        deleted = true;
        if (inDoubt != null) {
            inDoubt.clear();
        }
        pending.clear(e -> {
            core.release(e);
            if (e.loan != null) {
                e.loan.returned();
            }
        });
    }

    void countDeadLettered() {
        deadLettered++;
    }

    /** Messages waiting for a consumer, read without locking (may be a moment old). */
    int pendingApprox() {
        return pendingSnapshot;
    }

    /** Takes up to {@code max} pending messages out of the queue, in dispatch order (management's purge and move). */
    synchronized List<QueueEntry> takePending(int max) {
        List<QueueEntry> taken = pending.take(max, e -> {
            forget(e);
            noLongerInDoubt(e);
            settleLoan(e); // purged or moved here: the lender's copy goes too, this one is now this broker's
            e.loan = null;
        });
        pendingSnapshot = pending.count();
        return taken;
    }

    /** The first {@code max} pending messages in dispatch order, left in place (management's browse). */
    synchronized List<QueueEntry> peekPending(int max) {
        return pending.peek(max);
    }

    /** No consumer and no message held (pending or delivered): what auto-deletion waits for. */
    synchronized boolean isIdle() {
        return consumers.isEmpty() && held == 0 && !deleted;
    }

    /** Every message the queue holds: pending, then delivered and not yet acknowledged (queue replication's catch-up). */
    synchronized List<QueueEntry> content() {
        List<QueueEntry> all = new ArrayList<>(pending.count() + inflight);
        pending.addTo(all);
        for (ServerConsumer c : consumers.all()) {
            all.addAll(c.inflightEntries());
        }
        return all;
    }

    /** Takes {@code e} out of the pending messages (a replica's copy its source removed); false if it is not pending. */
    synchronized boolean removePending(QueueEntry e) {
        if (!pending.remove(e)) {
            return false;
        }
        dequeued++;
        forget(e);
        pendingSnapshot = pending.count();
        return true;
    }

    /** Orders the pending messages of each priority by sequence (a promoted replica's copies arrived out of order). */
    synchronized void sortPendingBySequence() {
        pending.sortBySequence();
    }

    /** Whether a bridge's network subscription is attached (management events never go to one). */
    synchronized boolean hasNetworkConsumer() {
        return consumers.hasNetworkConsumer();
    }

    synchronized DestinationStats snapshot() {
        return new DestinationStats(name, pending.count(), inflight, consumers.size(), enqueued, dequeued, expired, deadLettered,
                heldBytes, consumers.groups.size(), consumers.groups.assignments());
    }
}
