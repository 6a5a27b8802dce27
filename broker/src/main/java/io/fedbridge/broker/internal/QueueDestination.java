package io.fedbridge.broker.internal;

import io.fedbridge.broker.DestinationPolicy;
import io.fedbridge.broker.DestinationStats;
import io.fedbridge.broker.LimitBehavior;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * A queue of messages with competing consumers. Also backs each topic subscription (a one-consumer queue),
 * so prefetch, acks, redelivery, selectors and policies work the same everywhere.
 *
 * <p>All state is guarded by the queue's monitor. Dispatch never blocks: it writes to consumer connections,
 * which buffer up to a high-water mark; a consumer whose connection is not writable, or whose prefetch
 * window is full, is skipped until it acks or drains.
 */
final class QueueDestination {

    private static final int PRIORITIES = 10;
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
    /**
     * Pending messages by message priority. Null until a message arrives, and each priority's deque null until a
     * message of that priority does: most of ten thousand queues hold nothing, most others one priority.
     */
    private ArrayDeque<QueueEntry>[] pending;
    private final List<ServerConsumer> consumers = new ArrayList<>();
    private final List<Runnable> pausedProducers = new ArrayList<>();
    private final MessageGroups groups = new MessageGroups();
    /** The consumers that may receive ({@link #active()}), for {@link #activeFor}'s policy; recomputed on every change. */
    private List<ServerConsumer> active = List.of();
    private DestinationPolicy activeFor;
    /** The latest TIME of a consumer's rank this queue saw (ConsumerRanks). */
    private long latestRankTime;
    /** A handover: nothing is delivered before this time (epoch ms); then the pending messages are put in origin order. */
    private long holdUntil;
    private boolean sortAfterHold;
    private int pendingCount;
    private int roundRobin;
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
    /** Set by pick: whether any consumer had room (so a null pick meant "selectors refuse", not "full"). */
    private boolean pickSawRoom;
    private volatile int pendingSnapshot;

    /**
     * @param sharedQueue a queue proper (one copy of a message for one of its consumers), not a topic subscriber's:
     *                    only there does a local consumer's ack mean every other copy of the message is a duplicate
     */
    private ScheduledDelivery schedule;

    QueueDestination(BrokerCore core, String name, String storeKey, DestinationPolicy policy, boolean sharedQueue) {
        this.sharedQueue = sharedQueue;
        this.core = core;
        this.name = name;
        this.storeKey = storeKey;
        this.policy = policy;
    }

    /** The pending messages of {@code priority}, or null if none ever came. */
    private ArrayDeque<QueueEntry> pendingAt(int priority) {
        return pending == null ? null : pending[priority];
    }

    /** The pending messages of {@code priority}, created on first use. */
    @SuppressWarnings("unchecked")
    private ArrayDeque<QueueEntry> pendingFor(int priority) {
        if (pending == null) {
            pending = new ArrayDeque[PRIORITIES];
        }
        ArrayDeque<QueueEntry> d = pending[priority];
        if (d == null) {
            d = new ArrayDeque<>();
            pending[priority] = d;
        }
        return d;
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
                while (isFull(m.size) && pendingCount > 0) {
                    QueueEntry oldest = removeOldestPending();
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

    private QueueEntry removeOldestPending() {
        QueueEntry oldest = null;
        int from = -1;
        for (int p = 0; p < PRIORITIES; p++) {
            ArrayDeque<QueueEntry> d = pendingAt(p);
            QueueEntry head = d == null ? null : d.peekFirst();
            if (head != null && (oldest == null || head.message.sequence < oldest.message.sequence)) {
                oldest = head;
                from = p;
            }
        }
        pending[from].pollFirst();
        pendingCount--;
        return oldest;
    }

    // ---------------------------------------------------------------- flow

    synchronized void enqueue(QueueEntry e) {
        if (deleted && !revive()) {
            core.release(e);
            return;
        }
        pendingFor(e.message.priority).addLast(e);
        pendingCount++;
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
        if (replayCheckScheduled || pendingCount == 0) {
            return;
        }
        long delay = -1;
        for (ServerConsumer c : consumers) {
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
        consumers.add(c);
        if (!sharedQueue) {
            core.slowConsumers.watch(c);
        }
        latestRankTime = Math.max(latestRankTime, ConsumerRanks.time(c.rank));
        // Stable sort: higher priority first, equal priorities keep subscription order.
        consumers.sort(Comparator.comparingInt((ServerConsumer x) -> x.priority).reversed());
        consumersChanged();
        dispatch();
        scheduleReplayCheck();
    }

    /** Removes a consumer and puts every message it had not acknowledged back at the head, for redelivery. */
    synchronized void removeConsumer(ServerConsumer c) {
        consumers.remove(c);
        core.slowConsumers.unwatch(c);
        groups.removed(c);
        consumersChanged();
        List<QueueEntry> unacked = c.drainInflight();
        inflight -= unacked.size();
        if (c.network && c.peer != null && sharedQueue && !unacked.isEmpty() && !core.config.inDoubtHold().isZero()) {
            // Forwarded, never acknowledged: the peer may hold a copy (its receipt was lost with the link). Handing
            // ours to anyone else now could deliver the message twice; sent back to that peer, its dedupe settles it.
            // Kept for that peer for BrokerConfig.inDoubtHold: if the peer comes back within it, the message goes back
            // there and its dedupe drops it if it had stored it already; after it, anyone may take it (should the peer
            // return later with its copy, that copy is a duplicate only a consumer-side audit catches).
            long hold = core.config.inDoubtHold().toMillis();
            long until = core.clock.millis() + hold;
            for (QueueEntry e : unacked) {
                e.inDoubtWith = c.peer;
                e.inDoubtUntil = until;
            }
            scheduleDispatch(hold + 1);
        }
        requeue(unacked);
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
            CompletableFuture<Void> r = core.release(e, awaited);
            if (r != null) {
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
            if (deleted) {
                core.release(e);
                continue;
            }
            if (policy.maxRedeliveries() != -1 && e.redeliveryCount > policy.maxRedeliveries()) {
                core.deadLetter(this, e, "max-redeliveries");
                forget(e);
                continue;
            }
            pendingFor(e.message.priority).addFirst(e);
            pendingCount++;
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
            pendingSnapshot = pendingCount;
        }
    }

    private void dispatchPending() {
        if (pendingCount == 0 || consumers.isEmpty()) {
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
                sortPendingByOrigin();
            }
        }
        io.fedbridge.broker.DispatchListener dispatched = core.dispatchListener; // read once per pass, not per message
        for (int p = PRIORITIES - 1; p >= 0 && pendingCount > 0; p--) {
            ArrayDeque<QueueEntry> d = pending[p]; // the array exists: pendingCount > 0
            if (d == null) {
                continue;
            }
            Iterator<QueueEntry> it = d.iterator();
            while (it.hasNext()) {
                QueueEntry e = it.next();
                if (e.message.isExpired(now)) {
                    it.remove();
                    pendingCount--;
                    expired++;
                    core.deadLetter(this, e, "expired");
                    forget(e);
                    continue;
                }
                if (e.message.deliverAt != 0 && schedule().skip(e.message, now)) {
                    continue; // scheduled for later; the schedule dispatches again then
                }
                ServerConsumer c = pick(e, now);
                if (c == null) {
                    if (!pickSawRoom) {
                        return; // nobody has room: keep order, wait for an ack or a writable connection
                    }
                    continue; // consumers with room exist but their selectors refuse this one; later ones may go
                }
                it.remove();
                pendingCount--;
                if (!c.network && sharedQueue && e.message.federationId != null
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
        if (!c.network && sharedQueue && e.message.federationId != null) {
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
        ArrayDeque<QueueEntry> d = pendingAt(e.message.priority);
        if (failure != null && d != null && d.remove(e)) {
            pendingCount--;
            core.memory.release(e.message.size);
            forget(e);
        }
        dispatch();
    }

    /**
     * Round-robin among the highest-priority active consumers that have room and whose selector matches (on a ranked
     * queue the active ones regardless of priority); a message of an open group goes to its group's consumer only.
     */
    private ServerConsumer pick(QueueEntry e, long now) {
        List<ServerConsumer> act = active();
        int n = act.size();
        ServerConsumer best = null;
        int bestIndex = -1;
        pickSawRoom = false;
        if (e.storing != null && !e.storing.isDone() && !onlyFederationPeers()) {
            return null; // not stored yet and a local consumer (or a foreign bridge) may want it: wait, keeping order
        }
        if (e.inDoubtWith != null && now >= e.inDoubtUntil) {
            e.inDoubtWith = null;
        }
        String group = sharedQueue ? e.message.groupId : null;
        if (group != null && e.inDoubtWith == null) {
            ServerConsumer owner = groups.owner(group);
            if (owner != null && act.contains(owner)) {
                if (owner.hasCapacity() && mayForward(owner) && owner.accepts(e.message)) {
                    groups.took(group, owner, e.message);
                    return owner;
                }
                for (ServerConsumer c : act) {
                    pickSawRoom |= c.hasCapacity(); // others may take other messages; this group's wait for its owner
                }
                return null;
            }
        }
        boolean byPriority = !ConsumerRanks.isRanked(this);
        for (int i = 0; i < n; i++) {
            int idx = (roundRobin + i) % n;
            ServerConsumer c = act.get(idx);
            if (best != null && (!byPriority || c.priority <= best.priority)) {
                continue;
            }
            if (e.inDoubtWith != null && !(c.network && e.inDoubtWith.equals(c.peer))) {
                pickSawRoom |= c.hasCapacity();
                continue; // in doubt: only its peer may have it for now
            }
            if (!mayForward(c)) {
                continue;
            }
            boolean room = c.hasCapacity();
            pickSawRoom |= room;
            if (room && (c.accepts(e.message) || c.network && (byPriority ? c.acceptsAsReplay(e, this, now)
                    : c.acceptsAsRankedReplay(e.message)))) {
                best = c;
                bestIndex = idx;
            }
        }
        if (best != null) {
            roundRobin = bestIndex + 1;
            if (group != null) {
                groups.took(group, best, e.message);
            }
        }
        return best;
    }

    /** False for a network consumer the policy keeps messages from (local only, or local delivery preferred). */
    private boolean mayForward(ServerConsumer c) {
        return !(c.network && (policy.isLocalOnly() || policy.localDeliveryPreferred() && hasLocalConsumer()));
    }

    /**
     * The consumers that may receive, in round-robin order: the first maxNumActiveConsumers of the priority order, or,
     * on a ranked queue, of the federation-wide rank order (ConsumerRanks), so that every broker has the same ones.
     */
    private List<ServerConsumer> active() {
        if (activeFor != policy) {
            active = computeActive();
            activeFor = policy;
        }
        return active;
    }

    private List<ServerConsumer> computeActive() {
        int max = policy.maxNumActiveConsumers();
        if (!ConsumerRanks.isRanked(this)) {
            return max == -1 || max >= consumers.size() ? consumers : List.copyOf(consumers.subList(0, max));
        }
        List<ServerConsumer> ranked = new ArrayList<>(consumers);
        ranked.sort(ConsumerRanks.ORDER);
        return List.copyOf(ranked.subList(0, Math.min(max, ranked.size())));
    }

    /**
     * The consumers changed. On a ranked queue where one of ours takes over from a remote consumer, hold delivery for
     * {@link #HANDOVER_HOLD_MILLIS}: messages the old consumer's broker still passes on arrive meanwhile, and are put back
     * in their origin's order before the new consumer gets any.
     */
    private void consumersChanged() {
        List<ServerConsumer> before = activeFor == policy ? active : null;
        activeFor = null;
        List<ServerConsumer> after = active();
        if (before == null || !ConsumerRanks.isRanked(this)) {
            return;
        }
        boolean remoteLeft = false;
        for (ServerConsumer c : before) {
            remoteLeft |= c.network && !after.contains(c);
        }
        boolean localCame = false;
        for (ServerConsumer c : after) {
            localCame |= !c.network && !before.contains(c);
        }
        if (remoteLeft && localCame) {
            holdUntil = core.clock.millis() + HANDOVER_HOLD_MILLIS;
            sortAfterHold = true;
            scheduleDispatch(HANDOVER_HOLD_MILLIS + 1);
        }
    }

    /** Consumers a ranked queue counts against maxNumBackupConsumers: local ones and ranked network ones, by origin. */
    synchronized int rankedConsumerCount() {
        java.util.Set<String> origins = new java.util.HashSet<>();
        for (ServerConsumer c : consumers) {
            if (!c.network || c.rank != null) {
                origins.add(c.originId);
            }
        }
        return origins.size();
    }

    synchronized long latestRankTime() {
        return latestRankTime;
    }

    BrokerCore core() {
        return core;
    }

    /**
     * Puts the pending messages of each origin in their origin's order, each in the places that origin's messages take
     * now (others keep theirs): after a handover, messages passed on by the old consumer's broker may have arrived after
     * newer ones sent here directly. An origin is the federation id without its trailing digits, which count up (a
     * message sent here has the id a bridge gives it: this broker's id and its message id).
     */
    private void sortPendingByOrigin() {
        for (int p = 0; p < PRIORITIES; p++) {
            ArrayDeque<QueueEntry> d = pendingAt(p);
            if (d == null || d.size() < 2) {
                continue;
            }
            List<QueueEntry> l = new ArrayList<>(d);
            java.util.Map<String, List<Integer>> places = new java.util.HashMap<>();
            for (int i = 0; i < l.size(); i++) {
                String id = originId(l.get(i).message);
                int digits = id == null ? 0 : trailingDigits(id);
                if (digits > 0 && digits < 19) {
                    places.computeIfAbsent(id.substring(0, id.length() - digits), k -> new ArrayList<>()).add(i);
                }
            }
            for (List<Integer> at : places.values()) {
                List<QueueEntry> mine = new ArrayList<>(at.size());
                for (int i : at) {
                    mine.add(l.get(i));
                }
                mine.sort(Comparator.comparingLong(x -> {
                    String id = originId(x.message);
                    return Long.parseLong(id.substring(id.length() - trailingDigits(id)));
                }));
                for (int k = 0; k < at.size(); k++) {
                    l.set(at.get(k), mine.get(k));
                }
            }
            d.clear();
            d.addAll(l);
        }
    }

    /** The federation id, or for a message sent here the one a bridge gives it when it forwards it (Direction). */
    private String originId(BrokerMessage m) {
        return m.federationId != null ? m.federationId : core.brokerId + ":" + m.messageId;
    }

    private static int trailingDigits(String s) {
        int i = s.length();
        while (i > 0 && s.charAt(i - 1) >= '0' && s.charAt(i - 1) <= '9') {
            i--;
        }
        return s.length() - i;
    }

    /** True if a non-network consumer is attached (that would accept {@code m}, if selectorAware). */
    boolean hasLocalConsumerFor(BrokerMessage m, boolean selectorAware) {
        for (ServerConsumer c : consumers) {
            if (!c.network && (!selectorAware || c.accepts(m))) {
                return true;
            }
        }
        return false;
    }

    /** True if every consumer is a bridge to a fedbridge broker (whose dedupe makes a resend harmless). */
    private boolean onlyFederationPeers() {
        for (ServerConsumer c : consumers) {
            if (!c.network || c.peer == null) {
                return false;
            }
        }
        return true;
    }

    private boolean hasLocalConsumer() {
        for (ServerConsumer c : consumers) {
            if (!c.network) {
                return true;
            }
        }
        return false;
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

    /** Drops everything (a subscription that ended, a durable subscription removed). */
    synchronized void delete() {
        deleted = true;
        if (pending != null) {
            for (ArrayDeque<QueueEntry> d : pending) {
                if (d != null) {
                    d.forEach(core::release);
                }
            }
            pending = null;
        }
        pendingCount = 0;
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
        List<QueueEntry> taken = new ArrayList<>(Math.min(max, pendingCount));
        for (int p = PRIORITIES - 1; p >= 0 && taken.size() < max; p--) {
            ArrayDeque<QueueEntry> d = pendingAt(p);
            while (d != null && taken.size() < max && !d.isEmpty()) {
                QueueEntry e = d.pollFirst();
                pendingCount--;
                forget(e);
                taken.add(e);
            }
        }
        pendingSnapshot = pendingCount;
        return taken;
    }

    /** The first {@code max} pending messages in dispatch order, left in place (management's browse). */
    synchronized List<QueueEntry> peekPending(int max) {
        List<QueueEntry> seen = new ArrayList<>(Math.min(max, pendingCount));
        for (int p = PRIORITIES - 1; p >= 0 && seen.size() < max; p--) {
            ArrayDeque<QueueEntry> d = pendingAt(p);
            if (d == null) {
                continue;
            }
            for (QueueEntry e : d) {
                if (seen.size() == max) {
                    break;
                }
                seen.add(e);
            }
        }
        return seen;
    }

    /** No consumer and no message held (pending or delivered): what auto-deletion waits for. */
    synchronized boolean isIdle() {
        return consumers.isEmpty() && held == 0 && !deleted;
    }

    /** Every message the queue holds: pending, then delivered and not yet acknowledged (queue replication's catch-up). */
    synchronized List<QueueEntry> content() {
        List<QueueEntry> all = new ArrayList<>(pendingCount + inflight);
        for (int p = 0; p < PRIORITIES; p++) {
            ArrayDeque<QueueEntry> d = pendingAt(p);
            if (d != null) {
                all.addAll(d);
            }
        }
        for (ServerConsumer c : consumers) {
            all.addAll(c.inflightEntries());
        }
        return all;
    }

    /** Takes {@code e} out of the pending messages (a replica's copy its source removed); false if it is not pending. */
    synchronized boolean removePending(QueueEntry e) {
        ArrayDeque<QueueEntry> d = pendingAt(e.message.priority);
        if (d == null || !d.remove(e)) {
            return false;
        }
        pendingCount--;
        dequeued++;
        forget(e);
        pendingSnapshot = pendingCount;
        return true;
    }

    /** Orders the pending messages of each priority by sequence (a promoted replica's copies arrived out of order). */
    synchronized void sortPendingBySequence() {
        for (int p = 0; p < PRIORITIES; p++) {
            ArrayDeque<QueueEntry> d = pendingAt(p);
            if (d == null) {
                continue;
            }
            List<QueueEntry> l = new ArrayList<>(d);
            l.sort(Comparator.comparingLong(x -> x.message.sequence));
            d.clear();
            d.addAll(l);
        }
    }

    /** Whether a bridge's network subscription is attached (management events never go to one). */
    synchronized boolean hasNetworkConsumer() {
        for (ServerConsumer c : consumers) {
            if (c.network) {
                return true;
            }
        }
        return false;
    }

    synchronized DestinationStats snapshot() {
        return new DestinationStats(name, pendingCount, inflight, consumers.size(), enqueued, dequeued, expired, deadLettered,
                heldBytes, groups.size(), groups.assignments());
    }
}
