package io.fedbridge.broker.internal;

import io.fedbridge.broker.DestinationPolicy;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The consumers of one {@link QueueDestination} and the choice among them: the active set (maxNumActiveConsumers, or a
 * ranked queue's federation-wide rank order, {@link ConsumerRanks}), message groups, round-robin with priorities,
 * and the policy that keeps messages from network consumers ({@link #mayForward}).
 *
 * <p>Holds no lock of its own: every method is called with the queue's lock held, like the queue's own state.
 */
final class QueueConsumers {

    private final QueueDestination queue;
    /** Higher priority first, equal priorities in subscription order. */
    private final List<ServerConsumer> all = new ArrayList<>();
    final MessageGroups groups = new MessageGroups();
    /** The consumers that may receive ({@link #active()}), for {@link #activeFor}'s policy; recomputed on every change. */
    private List<ServerConsumer> active = List.of();
    private DestinationPolicy activeFor;
    /** The latest TIME of a consumer's rank this queue saw (ConsumerRanks). */
    private long latestRankTime;
    private int roundRobin;
    /** Set by pick: whether any consumer had room (so a null pick meant "selectors refuse", not "full"). */
    boolean pickSawRoom;

    QueueConsumers(QueueDestination queue) {
        this.queue = queue;
    }

    /** Every attached consumer, higher priority first. */
    List<ServerConsumer> all() {
        return all;
    }

    boolean isEmpty() {
        return all.isEmpty();
    }

    int size() {
        return all.size();
    }

    /**
     * Attaches {@code c}.
     *
     * @return whether one of ours takes over a ranked queue from a remote consumer (a handover: see {@link #changed})
     */
    boolean add(ServerConsumer c) {
        all.add(c);
        latestRankTime = Math.max(latestRankTime, ConsumerRanks.time(c.rank));
        // Stable sort: higher priority first, equal priorities keep subscription order.
        all.sort(Comparator.comparingInt((ServerConsumer x) -> x.priority).reversed());
        return changed();
    }

    /** Detaches {@code c}; returns whether that starts a handover (see {@link #changed}). */
    boolean remove(ServerConsumer c) {
        all.remove(c);
        groups.removed(c);
        return changed();
    }

    /**
     * Round-robin among the highest-priority active consumers that have room and whose selector matches (on a ranked
     * queue the active ones regardless of priority); a message of an open group goes to its group's consumer only.
     */
    ServerConsumer pick(QueueEntry e, long now) {
        List<ServerConsumer> act = active();
        int n = act.size();
        ServerConsumer best = null;
        int bestIndex = -1;
        pickSawRoom = false;
        if (e.storing != null && !e.storing.isDone() && !onlyFederationPeers()) {
            return null; // not stored yet and a local consumer (or a foreign bridge) may want it: wait, keeping order
        }
        // Held for its peer until the hold ends; inDoubtWith stays set until it is delivered or settled, so that a
        // bridge may still settle it after the hold (QueueDestination#settleInDoubt).
        String heldFor = e.inDoubtWith != null && now < e.inDoubtUntil ? e.inDoubtWith : null;
        String group = queue.sharedQueue ? e.message.groupId : null;
        if (group != null && heldFor == null) {
            ServerConsumer owner = groups.owner(group);
            if (owner != null && act.contains(owner)) {
                if (owner.hasCapacity() && mayForward(owner) && owner.accepts(e.message) && (e.loan == null || e.loan.isFor(owner))) {
                    groups.took(group, owner, e.message);
                    return owner;
                }
                for (ServerConsumer c : act) {
                    pickSawRoom |= c.hasCapacity(); // others may take other messages; this group's wait for its owner
                }
                return null;
            }
        }
        boolean byPriority = !ConsumerRanks.isRanked(queue);
        for (int i = 0; i < n; i++) {
            int idx = (roundRobin + i) % n;
            ServerConsumer c = act.get(idx);
            if (best != null && (!byPriority || c.priority <= best.priority)) {
                continue;
            }
            if (heldFor != null && !(c.network && heldFor.equals(c.peer))) {
                pickSawRoom |= c.hasCapacity();
                continue; // in doubt: only its peer may have it for now
            }
            if (!mayForward(c)) {
                continue;
            }
            if (e.loan != null && !e.loan.isFor(c)) {
                pickSawRoom |= c.hasCapacity();
                continue; // lent for another consumer here: never passed on (its lender has the message)
            }
            boolean room = c.hasCapacity();
            pickSawRoom |= room;
            if (room && (c.accepts(e.message) || c.network && (byPriority ? c.acceptsAsReplay(e, queue, now)
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
        DestinationPolicy policy = queue.policy;
        return !(c.network && (policy.isLocalOnly() || policy.localDeliveryPreferred() && hasLocalConsumer()));
    }

    /**
     * The consumers that may receive, in round-robin order: the first maxNumActiveConsumers of the priority order, or,
     * on a ranked queue, of the federation-wide rank order (ConsumerRanks), so that every broker has the same ones.
     */
    private List<ServerConsumer> active() {
        if (activeFor != queue.policy) {
            active = computeActive();
            activeFor = queue.policy;
        }
        return active;
    }

    private List<ServerConsumer> computeActive() {
        int max = queue.policy.maxNumActiveConsumers();
        if (!ConsumerRanks.isRanked(queue)) {
            return max == -1 || max >= all.size() ? all : List.copyOf(all.subList(0, max));
        }
        List<ServerConsumer> ranked = new ArrayList<>(all);
        ranked.sort(ConsumerRanks.ORDER);
        return List.copyOf(ranked.subList(0, Math.min(max, ranked.size())));
    }

    /**
     * The consumers changed: recomputes the active set. Returns true if, on a ranked queue, one of ours takes over from a
     * remote consumer: the queue then holds delivery for {@link QueueDestination#HANDOVER_HOLD_MILLIS}.
     */
    private boolean changed() {
        List<ServerConsumer> before = activeFor == queue.policy ? active : null;
        activeFor = null;
        List<ServerConsumer> after = active();
        if (before == null || !ConsumerRanks.isRanked(queue)) {
            return false;
        }
        boolean remoteLeft = false;
        for (ServerConsumer c : before) {
            remoteLeft |= c.network && !after.contains(c);
        }
        boolean localCame = false;
        for (ServerConsumer c : after) {
            localCame |= !c.network && !before.contains(c);
        }
        return remoteLeft && localCame;
    }

    /** Whether this broker's own consumer {@code originId} is attached. */
    boolean hasLocalConsumer(String originId) {
        for (ServerConsumer c : all) {
            if (!c.network && c.originId.equals(originId)) {
                return true;
            }
        }
        return false;
    }

    /** True if a non-network consumer is attached (that would accept {@code m}, if selectorAware). */
    boolean hasLocalConsumerFor(BrokerMessage m, boolean selectorAware) {
        for (ServerConsumer c : all) {
            if (!c.network && (!selectorAware || c.accepts(m))) {
                return true;
            }
        }
        return false;
    }

    private boolean hasLocalConsumer() {
        for (ServerConsumer c : all) {
            if (!c.network) {
                return true;
            }
        }
        return false;
    }

    /** Whether a bridge's network subscription is attached. */
    boolean hasNetworkConsumer() {
        for (ServerConsumer c : all) {
            if (c.network) {
                return true;
            }
        }
        return false;
    }

    /** True if every consumer is a bridge to a fedbridge broker (whose dedupe makes a resend harmless). */
    private boolean onlyFederationPeers() {
        for (ServerConsumer c : all) {
            if (!c.network || c.peer == null) {
                return false;
            }
        }
        return true;
    }

    /** Consumers a ranked queue counts against maxNumBackupConsumers: local ones and ranked network ones, by origin. */
    int rankedCount() {
        Set<String> origins = new HashSet<>();
        for (ServerConsumer c : all) {
            if (!c.network || c.rank != null) {
                origins.add(c.originId);
            }
        }
        return origins.size();
    }

    long latestRankTime() {
        return latestRankTime;
    }
}
