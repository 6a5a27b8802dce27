package io.fedbridge.broker.internal;

import io.fedbridge.broker.BrokerConfig;
import io.fedbridge.broker.DestinationPolicy;
import io.fedbridge.broker.DestinationStats;
import io.fedbridge.broker.MessageStore;
import io.fedbridge.broker.MessageStore.DurableSubscriptionInfo;
import io.fedbridge.broker.StoredMessage;
import io.fedbridge.core.StompHeaders;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The broker's routing core: destinations, policies, sequence numbers, the store and memory accounting. */
public final class BrokerCore {

    private static final Logger LOG = LoggerFactory.getLogger(BrokerCore.class);
    static final CompletableFuture<Void> DONE = CompletableFuture.completedFuture(null);
    static final String DURABLE_PREFIX = "durable:";

    /** Headers a dead-lettered message carries, saying why and from where. */
    public static final String DLQ_REASON = "dlq-reason";
    public static final String DLQ_ORIGINAL_DESTINATION = "dlq-original-destination";
    public static final String DLQ_BROKER = "dlq-broker";
    public static final String DLQ_TIME = "dlq-time";

    final BrokerConfig config;
    final String brokerId;
    final MessageStore store;
    final MemoryUsage memory;
    final Clock clock;
    final TopicRegistry topics;
    final ConsumerAdvisories advisories;
    final FederationDedupe dedupe;
    final java.util.concurrent.ScheduledExecutorService scheduler;
    final SlowConsumerPolicy slowConsumers;
    final DiskWatermark disk;
    private final List<DestinationPolicy> wildcardPolicies;
    private final Map<String, DestinationPolicy> exactPolicies = new ConcurrentHashMap<>();
    final Map<String, QueueDestination> queues = new ConcurrentHashMap<>();
    final Map<String, DurableSubscription> durables = new ConcurrentHashMap<>();
    private final Map<String, Set<ServerSession>> producers = new ConcurrentHashMap<>();
    final Set<ServerSession> sessions = ConcurrentHashMap.newKeySet();
    /** Management's requests and events (see ManagedCore); none until the broker wires it. */
    volatile ManagementHook hook = ManagementHook.NONE;
    /** The broker's HA group, when it is a member of one (module fedbridge-ha); null for a stand-alone broker. */
    public volatile HaGate haGate;
    /** Replication of single queues from and to brokers outside any group (module fedbridge-ha plugs in). */
    public final QueueReplicas replicas = new QueueReplicas(this);
    /** Temporary queues' owners and how long the queues outlive them. */
    final TempQueues temps;
    private final AtomicLong sequence;
    private final AtomicLong sessionIds = new AtomicLong();
    private final AtomicLong loopsDropped = new AtomicLong();
    private final String idPrefix;

    /** A durable topic subscription: its definition, its queue and its topic registration. */
    record DurableSubscription(DurableSubscriptionInfo info, QueueDestination queue, TopicRegistry.Registration registration) {
    }

    /** Federation ids remembered, in memory and in the data directory's dedupe log. */
    public static final int DEDUPE_CAPACITY = 100_000;
    /** Told of every dispatch (metrics); set by {@code Broker.onDispatch}. */
    public volatile io.fedbridge.broker.DispatchListener dispatchListener = io.fedbridge.broker.DispatchListener.NONE;

    public BrokerCore(BrokerConfig config, String brokerId, MessageStore store, Clock clock,
                      io.fedbridge.broker.store.DedupeLog dedupeLog, List<io.fedbridge.broker.store.DedupeLog.Fingerprint> knownIds,
                      java.util.concurrent.ScheduledExecutorService scheduler) {
        this.scheduler = scheduler;
        this.config = config;
        this.temps = new TempQueues(this, config.cluster().tempDestinationReconnectGrace());
        this.brokerId = brokerId;
        this.store = replicas.tap(store);
        this.clock = clock;
        this.memory = new MemoryUsage(config.memoryLimit());
        this.memory.listener(new MemoryLimitReport(this));
        this.topics = new TopicRegistry(config.resourceLimits().maxDestinations());
        this.slowConsumers = new SlowConsumerPolicy(this, config.resourceLimits().maxSlowDuration());
        this.disk = new DiskWatermark(config.name(), store.isPersistent() ? config.dataDirectory() : null,
                config.resourceLimits().minFreeDisk(), config.resourceLimits().diskSpace());
        this.advisories = new ConsumerAdvisories(this);
        this.dedupe = new FederationDedupe(DEDUPE_CAPACITY, dedupeLog, knownIds);
        List<DestinationPolicy> wild = new ArrayList<>();
        for (DestinationPolicy p : config.policies()) {
            if (Destinations.isWildcard(p.pattern())) {
                wild.add(p);
            } else {
                exactPolicies.put(p.pattern(), p);
            }
        }
        wild.sort(Comparator.comparingInt((DestinationPolicy p) -> p.pattern().length()).reversed());
        this.wildcardPolicies = List.copyOf(wild);
        // No ':' (or other escaped characters) in ids: they are written in every MESSAGE header.
        this.idPrefix = "ID-" + config.name() + "-" + Long.toString(clock.millis(), 36) + "-";
        recover();
        replicas.recover();
        this.sequence = new AtomicLong(Math.max(store.lastSequence(), 0));
        disk.start(scheduler);
    }

    private void recover() {
        for (DurableSubscriptionInfo info : store.durableSubscriptions()) {
            createDurable(info);
        }
        long[] count = {0};
        store.recover((key, stored) -> {
            QueueDestination q;
            if (key.startsWith(DURABLE_PREFIX)) {
                DurableSubscription d = durables.get(key);
                if (d == null) {
                    LOG.warn("broker {}: stored message {} belongs to unknown durable subscription {}; dropped",
                            config.name(), stored.messageId(), key);
                    store.remove(key, stored.sequence());
                    return;
                }
                q = d.queue();
            } else {
                q = queue(key);
            }
            BrokerMessage m = BrokerMessage.fromStored(stored);
            String fedId = m.headers.get(io.fedbridge.core.FederationHeaders.FEDERATION_ID);
            if (fedId != null) {
                dedupe.recovered(fedId, m.headers.get(io.fedbridge.core.FederationHeaders.REPLAYS) != null);
            }
            memory.reserve(m.size);
            q.enqueue(new QueueEntry(m, key, stored.redeliveryCount()));
            count[0]++;
        });
        long[] removed = {0};
        store.recoverHistory((fedId, consumedHere) -> {
            dedupe.recoveredRemoved(fedId, consumedHere);
            removed[0]++;
        });
        store.beforeDiscardingHistory(dedupe::makeDurable);
        if (removed[0] > 0) {
            LOG.info("broker {}: learned {} federation ids of removed messages from the journal", config.name(), removed[0]);
        }
        if (count[0] > 0 || !durables.isEmpty()) {
            LOG.info("broker {}: recovered {} persistent messages and {} durable subscriptions", config.name(), count[0], durables.size());
        }
    }

    // ---------------------------------------------------------------- policies

    /** Policies of federation-wide destination definitions (io.fedbridge.broker.cluster): they come first. */
    final Map<String, DestinationPolicy> definedPolicies = new ConcurrentHashMap<>();
    volatile ClusterHook cluster = ClusterHook.NONE;

    /** The policy for a destination: its definition's, else exact pattern, else the longest matching wildcard, else the defaults. */
    DestinationPolicy policyFor(String destination) {
        DestinationPolicy d = definedPolicies.get(destination);
        return d != null ? d : configuredPolicyFor(destination);
    }

    /** The policy this broker's own configuration gives a destination. */
    DestinationPolicy configuredPolicyFor(String destination) {
        DestinationPolicy p = exactPolicies.get(destination);
        if (p != null) {
            return p;
        }
        for (DestinationPolicy w : wildcardPolicies) {
            if (w.pattern().equals(">") || Destinations.matches(w.pattern(), destination)) {
                return w;
            }
        }
        return DestinationPolicy.defaults();
    }

    QueueDestination queue(String name) {
        QueueDestination q = queues.get(name);
        if (q == null) {
            boolean[] created = {false};
            q = queues.computeIfAbsent(name, n -> {
                created[0] = true;
                return new QueueDestination(this, n, n, policyFor(n), true);
            });
            if (created[0]) {
                hook.destinationCreated(name);
                temps.created(q);
            }
        }
        return q;
    }

    /** Registers {@code s} as a producer of {@code destination}; false if maxNumProducers is reached. */
    boolean registerProducer(String destination, ServerSession s) {
        int max = policyFor(destination).maxNumProducers();
        Set<ServerSession> set = producers.computeIfAbsent(destination, d -> ConcurrentHashMap.newKeySet());
        synchronized (set) {
            if (set.contains(s)) {
                return true;
            }
            if (max != -1 && set.size() >= max) {
                return false;
            }
            set.add(s);
            return true;
        }
    }

    void unregisterProducer(String destination, ServerSession s) {
        Set<ServerSession> set = producers.get(destination);
        if (set != null) {
            synchronized (set) {
                set.remove(s);
            }
        }
    }

    // ---------------------------------------------------------------- sessions

    long nextSessionNumber() {
        return sessionIds.incrementAndGet();
    }

    /** Prefix of the temporary destinations this broker's connections own: unique in the federation. */
    String tempOwnerPrefix() {
        return brokerId.substring(0, Math.min(8, brokerId.length())) + "-";
    }

    /** Deletes a temporary queue and its messages (its owner disconnected, or nobody consumes it anymore). */
    void deleteTemp(String name) {
        QueueDestination q = queues.remove(name);
        if (q != null) {
            q.delete();
        }
    }

    /** A temporary queue lost its last consumer here: see {@link TempQueues#lastConsumerGone}. */
    void tempQueueIdle(QueueDestination q) {
        temps.lastConsumerGone(q);
    }

    void register(ServerSession s) {
        sessions.add(s);
    }

    /** Live connections by their CONNECT client-id: one each, ActiveMQ's rule. */
    private final Map<String, ServerSession> clientIds = new ConcurrentHashMap<>();

    /** Registers {@code s} as the holder of {@code clientId}; false if another connection holds it. */
    boolean claimClientId(String clientId, ServerSession s) {
        ServerSession held = clientIds.putIfAbsent(clientId, s);
        return held == null || held == s;
    }

    void releaseClientId(String clientId, ServerSession s) {
        clientIds.remove(clientId, s);
    }

    /** Whether a live connection other than {@code s} connected with {@code clientId}. */
    boolean clientIdHeldByOther(String clientId, ServerSession s) {
        ServerSession held = clientIds.get(clientId);
        return held != null && held != s;
    }

    void unregister(ServerSession s) {
        sessions.remove(s);
    }

    // ---------------------------------------------------------------- routing

    /** Thrown into a send's future when a destination policy rejects the message. */
    static final class PolicyRejection extends RuntimeException {
        private static final long serialVersionUID = 1L;

        PolicyRejection(String message) {
            super(message, null, false, false);
        }
    }

    /**
     * Accepts a message for a destination: checks policies, stores it if persistent (queues and durable
     * subscriptions), then routes it. The future completes when the message is safely accepted (durable,
     * for persistent messages) and fails with the reason if it is rejected or cannot be stored.
     */
    CompletableFuture<Void> route(String destination, StompHeaders headers, byte[] body) {
        return route(destination, headers, body, null);
    }

    /** {@code fingerprint}: of the message's federation id, if the caller took it already; else null. */
    private CompletableFuture<Void> route(String destination, StompHeaders headers, byte[] body,
                                          BoundedIdSet.Fingerprint fingerprint) {
        BrokerMessage m = newMessage(destination, headers, body);
        if (fingerprint != null) {
            m.fingerprint(fingerprint);
        }
        if (Destinations.isTopic(destination)) {
            List<TopicRegistry.Registration> targets = topics.matching(destination, headers);
            for (TopicRegistry.Registration r : targets) {
                String rejected = r.queue().admit(m);
                if (rejected != null) {
                    return CompletableFuture.failedFuture(new PolicyRejection(rejected));
                }
            }
            if (targets.size() == 1) {
                return accept(targets.get(0).queue(), m);
            }
            List<CompletableFuture<Void>> all = new ArrayList<>(targets.size());
            for (TopicRegistry.Registration r : targets) {
                all.add(accept(r.queue(), m));
            }
            return CompletableFuture.allOf(all.toArray(CompletableFuture[]::new));
        }
        String refused = queues.containsKey(destination) ? replicas.refuseSend(destination) : refuseNewDestination(destination);
        if (refused != null) {
            return CompletableFuture.failedFuture(new PolicyRejection(refused));
        }
        QueueDestination q = queue(destination);
        String rejected = q.admit(m);
        if (rejected != null) {
            return CompletableFuture.failedFuture(new PolicyRejection(rejected));
        }
        return accept(q, m);
    }

    /** Sequences minted from now on are above {@code sequence} (a replica's copies keep their source's). */
    void sequenceAtLeast(long sequence) {
        this.sequence.accumulateAndGet(sequence, Math::max);
    }

    /** A new message with the next sequence number and a broker-unique message id. */
    BrokerMessage newMessage(String destination, StompHeaders headers) {
        return newMessage(destination, headers, new byte[0]);
    }

    BrokerMessage newMessage(String destination, StompHeaders headers, byte[] body) {
        long seq = sequence.incrementAndGet();
        return new BrokerMessage(seq, idPrefix + seq, destination, headers, body);
    }

    /**
     * Set on the thread that applies a COMMIT's actions (SessionTransactions): its sends enter their queues only once
     * the commit's store unit is durable, so no bridge forwards one of them before the commit is final.
     */
    static final ThreadLocal<Boolean> COMMITTING = ThreadLocal.withInitial(() -> Boolean.FALSE);

    /** Result of a send that carried a federation id this broker had already accepted. */
    static final CompletableFuture<Void> DUPLICATE = CompletableFuture.completedFuture(null);

    /**
     * Like {@link #route}, but drops a message whose federation id was already accepted (returning
     * {@link #DUPLICATE}), so resends after failures are harmless. {@code producer} non-null: the id is an ordinary
     * client's own, remembered in that producer's share of the dedupe window (see {@link ProducerIdShares}), so a flood
     * of ids evicts only the flooder's; null for ids of federation links and brokers.
     */
    CompletableFuture<Void> routeOnce(String destination, StompHeaders headers, byte[] body, String producer) {
        String path = headers.get(io.fedbridge.core.FederationHeaders.BROKER_PATH);
        if (path != null && path.contains(brokerId) && headers.get(io.fedbridge.core.FederationHeaders.REPLAYS) == null) {
            // It already passed this broker: a loop (bridges never do this; a misconfigured foreign hop might).
            loopsDropped.incrementAndGet();
            return DUPLICATE;
        }
        String fedId = headers.get(io.fedbridge.core.FederationHeaders.FEDERATION_ID);
        if (fedId == null) {
            return route(destination, headers, body);
        }
        String replays = headers.get(io.fedbridge.core.FederationHeaders.REPLAYS);
        boolean persistentMessage = "true".equals(headers.get(StompHeaders.PERSISTENT));
        BoundedIdSet.Fingerprint claimed;
        BoundedIdSet.Fingerprint ofMessage = null;
        if (replays != null) {
            // A replay is a new delivery of the same message (its resends are not): its key has the count. But if a
            // local consumer here took a copy already, this one is a duplicate of that copy.
            claimed = dedupe.claimReplay(fedId + "#r" + replays, fedId);
        } else {
            claimed = dedupe.claim(fedId);
            ofMessage = claimed; // the key is the message's own id: its fingerprint is taken once
        }
        if (claimed == null) {
            return DUPLICATE;
        }
        CompletableFuture<Void> f = route(destination, headers, body, ofMessage);
        if (f.isDone() && !f.isCompletedExceptionally()) {
            dedupe.accepted(claimed, persistentMessage, producer);
            return f;
        }
        return f.whenComplete((v, e) -> {
            if (e == null) {
                dedupe.accepted(claimed, persistentMessage, producer);
            } else {
                dedupe.failed(claimed);
            }
        });
    }

    /**
     * One event per forward held in doubt for {@code peer}, for {@link io.fedbridge.core.FederationHeaders#IN_DOUBT_TOPIC}:
     * the message's headers under its own message id (a bridge computes the forward's federation id from them as it
     * would for the forward itself), no body, and the queue it waits in.
     */
    List<BrokerMessage> inDoubtEvents(String peer) {
        List<BrokerMessage> events = new ArrayList<>();
        List<QueueEntry> held = new ArrayList<>();
        for (QueueDestination q : queues.values()) {
            held.clear();
            q.inDoubtFor(peer, held);
            for (QueueEntry e : held) {
                StompHeaders h = e.message.headers.copy();
                h.set(io.fedbridge.core.FederationHeaders.ADVISORY, io.fedbridge.core.FederationHeaders.IN_DOUBT_ADVISORY);
                h.set(io.fedbridge.core.FederationHeaders.ADVISORY_DESTINATION, q.name);
                events.add(new BrokerMessage(sequence.incrementAndGet(), e.message.messageId,
                        io.fedbridge.core.FederationHeaders.IN_DOUBT_TOPIC, h, new byte[0]));
            }
        }
        return events;
    }

    /** Whether the forward with federation id {@code fedId} (and {@code replays}) was accepted here: a peer asks. */
    String inDoubtState(String fedId, String replays) {
        return dedupe.probe(fedId, replays);
    }

    /** See {@link QueueDestination#settleInDoubt}; false if there is no such queue. */
    boolean settleInDoubt(String queue, String messageId, String peer, boolean stored) {
        QueueDestination q = queues.get(queue);
        return q != null && q.settleInDoubt(messageId, peer, stored);
    }

    public long duplicatesDropped() {
        return dedupe.duplicates();
    }

    public int dedupeWindowSize() {
        return dedupe.windowSize();
    }

    /** Messages dropped because their broker path already held this broker. */
    /** Messages waiting in queue {@code name} now (0 if there is no such queue). */
    int queuePending(String name) {
        QueueDestination q = queues.get(name);
        return q == null ? 0 : q.pendingApprox();
    }

    public long loopsDropped() {
        return loopsDropped.get();
    }

    public int advertisedConsumers() {
        return advisories.size();
    }

    /**
     * Stores (if persistent) and enqueues a message. Messages enter a queue in the order they were accepted,
     * whatever order their stores complete in: each waits for the one accepted before it.
     */
    private CompletableFuture<Void> accept(QueueDestination q, BrokerMessage m) {
        memory.reserve(m.size);
        QueueEntry entry = new QueueEntry(m, q.storeKey, SessionHeaders.priorDeliveries(m.headers));
        boolean durable = q.storeKey != null && m.persistent && store.isPersistent();
        synchronized (q.arrivalLock) {
            CompletableFuture<Void> before = q.lastArrival;
            if (!durable && before.isDone()) {
                q.enqueue(entry);
                return DONE;
            }
            CompletableFuture<Void> stored = durable ? store.add(q.storeKey, m.toStored(0)) : DONE;
            if (durable && before.isDone() && q.sharedQueue && !COMMITTING.get()) {
                // In the queue at once, so a bridge can forward it while it is being stored (local consumers wait
                // for the write: see QueueDestination.stored). The receipt still waits for the write. Not a send of
                // a COMMIT: should this broker die before the commit's unit is on disk, the commit is undone (its
                // acknowledgements with it), and a copy already forwarded would outlive it.
                entry.storing = stored;
                q.enqueue(entry);
                return stored.whenComplete((v, e) -> q.stored(entry, e));
            }
            // Completes once the message is in the queue (or failed to be stored): the receipt waits for it, so a
            // client that has its receipt finds the message there.
            CompletableFuture<Void> accepted = new CompletableFuture<>();
            q.lastArrival = before.handle((v, e) -> null).thenCombine(stored.handle((v, e) -> e), (ignored, failure) -> {
                if (failure == null) {
                    q.enqueue(entry);
                    accepted.complete(null);
                } else {
                    memory.release(m.size);
                    accepted.completeExceptionally(failure);
                }
                return null;
            });
            return accepted;
        }
    }

    /** Pauses a producer while any destination it sends to under FLOW_CONTROL is full. */
    boolean pauseIfFull(String destination, Runnable resume) {
        if (Destinations.isTopic(destination)) {
            for (TopicRegistry.Registration r : topics.matching(destination, null)) {
                if (r.queue().pauseIfFull(resume)) {
                    return true;
                }
            }
            return false;
        }
        QueueDestination q = queues.get(destination); // never created here: a refused SEND must leave nothing behind
        return q != null && q.pauseIfFull(resume);
    }

    /** A message left the broker for good: release its memory and remove it from the store. */
    CompletableFuture<Void> release(QueueEntry e) {
        return release(e, true);
    }

    /**
     * The same; unless {@code awaited}, nobody waits for the removal to be durable (an ACK without a receipt), so
     * it is batched with later writes instead of costing a force of its own. Returns null then.
     */
    CompletableFuture<Void> release(QueueEntry e, boolean awaited) {
        memory.release(e.message.size);
        if (e.storeKey != null && e.message.persistent && store.isPersistent()) {
            if (!awaited) {
                store.removeEventually(e.storeKey, e.message.sequence, e.consumedHere);
                return null;
            }
            return store.remove(e.storeKey, e.message.sequence, e.consumedHere);
        }
        return null;
    }

    /**
     * Moves a message that expired, was redelivered too often or was removed by policy to {@code /queue/DLQ}
     * (with headers saying why and from where), or drops it if the destination's policy has useDMQ off.
     * The original is released once the dead-letter copy is safely stored.
     */
    void deadLetter(QueueDestination from, QueueEntry e, String reason) {
        from.countDeadLettered();
        hook.deadLettered(from.name, e.message.messageId, reason);
        if (!from.policy.useDMQ() || from.name.equals(DestinationPolicy.DLQ)) {
            LOG.debug("broker {}: dropping {} from {} ({})", config.name(), e.message.messageId, from.name, reason);
            release(e);
            return;
        }
        StompHeaders h = e.message.headers.copy();
        h.remove(StompHeaders.EXPIRES);
        h.set(DLQ_REASON, reason);
        h.set(DLQ_ORIGINAL_DESTINATION, e.message.destination);
        h.set(DLQ_BROKER, config.name());
        h.set(DLQ_TIME, Long.toString(clock.millis()));
        h.set(StompHeaders.REDELIVERY_COUNT, Integer.toString(e.redeliveryCount));
        BrokerMessage copy = newMessage(DestinationPolicy.DLQ, h, e.message.body);
        accept(queue(DestinationPolicy.DLQ), copy).whenComplete((v, err) -> {
            if (err != null) {
                LOG.warn("broker {}: could not store dead-letter copy of {}: {}; the original stays stored",
                        config.name(), e.message.messageId, err.toString());
                memory.release(e.message.size);
            } else {
                release(e);
            }
        });
    }

    // ---------------------------------------------------------------- durable subscriptions

    static String durableKey(String clientId, String name) {
        return DURABLE_PREFIX + clientId + ":" + name;
    }

    /**
     * Returns the durable subscription {@code key}, creating it (and persisting its definition) if needed.
     * A definition with another destination or selector replaces the old one and its backlog, as JMS requires.
     */
    DurableSubscription durable(String clientId, String name, String destination, String selector) {
        String key = durableKey(clientId, name);
        synchronized (durables) {
            DurableSubscription d = durables.get(key);
            if (d != null) {
                DurableSubscriptionInfo i = d.info();
                if (i.destination().equals(destination) && java.util.Objects.equals(i.selector(), selector)) {
                    return d;
                }
                removeDurable(key);
            }
            DurableSubscriptionInfo info = new DurableSubscriptionInfo(key, clientId, name, destination, selector);
            store.saveDurableSubscription(info);
            return createDurable(info);
        }
    }

    private DurableSubscription createDurable(DurableSubscriptionInfo info) {
        QueueDestination q = new QueueDestination(this, info.key(), info.key(), policyFor(info.destination()), false);
        TopicRegistry.Registration r = topics.subscribe(info.destination(), q, DeliveryFilter.of(
                info.selector() == null ? null : io.fedbridge.core.selector.Selector.parse(info.selector()), null, 0));
        DurableSubscription d = new DurableSubscription(info, q, r);
        durables.put(info.key(), d);
        return d;
    }

    /** The topic of durable subscription {@code key}, or null if there is none. */
    String durableDestination(String key) {
        DurableSubscription d = durables.get(key);
        return d == null ? null : d.info().destination();
    }

    /** Removes a durable subscription and its backlog; false if there was none. */
    boolean removeDurable(String key) {
        DurableSubscription d = durables.remove(key);
        if (d == null) {
            return false;
        }
        topics.unsubscribe(d.registration());
        d.queue().delete();
        store.removeDurableSubscription(key);
        return true;
    }

    // ---------------------------------------------------------------- resource limits (see SessionLimits)

    /**
     * Null if a client may send or subscribe to {@code destination} now (it exists, or there is room for one more),
     * else why not, naming maxDestinations. Destinations are queues and topics with subscribers.
     */
    String refuseNewDestination(String destination) {
        int max = config.resourceLimits().maxDestinations();
        boolean exists = Destinations.isTopic(destination)
                ? Destinations.isWildcard(destination) || ConsumerAdvisories.isAdvisory(destination)
                        || topics.hasSubscriptions(destination)
                : queues.containsKey(destination);
        if (max == 0 || exists) {
            return null;
        }
        int count = queues.size() + topics.subscribedTopics();
        return count < max ? null : "cannot create " + destination + ": the broker already has " + count
                + " destinations (maxDestinations=" + max + ")";
    }

    boolean hasDurable(String clientId, String name) {
        return durables.containsKey(durableKey(clientId, name));
    }

    /** Durable subscriptions of one client-id. */
    int durableSubscriptions(String clientId) {
        int n = 0;
        for (DurableSubscription d : durables.values()) {
            if (d.info().clientId().equals(clientId)) {
                n++;
            }
        }
        return n;
    }

    /** True while the data directory's disk is below minFreeDisk (persistent sends wait). */
    public boolean isDiskSpaceLow() {
        return disk.isLow();
    }

    // ---------------------------------------------------------------- management

    /** Snapshot of every queue's counters (durable subscriptions included, as {@code durable:CLIENT:NAME}). */
    public List<DestinationStats> queueSnapshots() {
        List<DestinationStats> l = new ArrayList<>();
        for (QueueDestination q : queues.values()) {
            l.add(q.snapshot());
        }
        for (DurableSubscription d : durables.values()) {
            l.add(d.queue().snapshot());
        }
        return l;
    }

    public long memoryUsed() {
        return memory.used();
    }

    /** How many times producers had to wait for memory (memoryLimit reached) since the broker started. */
    public long memoryLimitReached() {
        return memory.timesReached();
    }

    /** Connections paused now because the broker's memory reached memoryLimit. */
    public int memoryPausedConnections() {
        return memory.waitingConnections();
    }

    /** The {@code n} queues and subscriptions holding the most message bytes (none that hold nothing). */
    List<DestinationStats> largestHolders(int n) {
        java.util.Set<QueueDestination> all = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
        all.addAll(queues.values());
        for (DurableSubscription d : durables.values()) {
            all.add(d.queue());
        }
        for (TopicRegistry.Registration r : topics.registrations()) {
            all.add(r.queue());
        }
        List<DestinationStats> l = new ArrayList<>();
        for (QueueDestination q : all) {
            DestinationStats d = q.snapshot();
            if (d.bytes() > 0) {
                l.add(d);
            }
        }
        l.sort(Comparator.comparingLong(DestinationStats::bytes).reversed());
        return l.size() > n ? List.copyOf(l.subList(0, n)) : l;
    }

    public int sessionCount() {
        return sessions.size();
    }

    public Set<String> topicNames() {
        return topics.topics();
    }

    /** Closes every client connection (broker shutdown). */
    public void closeSessions() {
        for (ServerSession s : new ArrayList<>(sessions)) {
            s.close();
        }
    }

    private volatile String clusterUris = "";

    /** The cluster list announced in CONNECTED and on the cluster topic. */
    String clusterUris() {
        return clusterUris;
    }

    /**
     * Updates the cluster list; if it changed (or a rebalance is asked for), publishes it to the subscribers of
     * {@link io.fedbridge.core.FederationHeaders#CLUSTER_TOPIC}.
     */
    public void updateCluster(String uris, boolean rebalance) {
        synchronized (advisories) {
            if (uris.equals(clusterUris) && !rebalance) {
                return;
            }
            clusterUris = uris;
            route(io.fedbridge.core.FederationHeaders.CLUSTER_TOPIC, clusterEvent(rebalance), new byte[0]);
        }
    }

    private StompHeaders clusterEvent(boolean rebalance) {
        StompHeaders h = StompHeaders.of(io.fedbridge.core.FederationHeaders.CLUSTER_URIS, clusterUris);
        if (rebalance) {
            h.add(io.fedbridge.core.FederationHeaders.CLUSTER_REBALANCE, "true");
        }
        return h;
    }

    /** Subscribes to the cluster topic and hands the subscriber the current list first. */
    TopicRegistry.Registration subscribeCluster(String pattern, QueueDestination queue, DeliveryFilter filter) {
        synchronized (advisories) {
            TopicRegistry.Registration r = topics.subscribe(pattern, queue, filter);
            BrokerMessage m = newMessage(io.fedbridge.core.FederationHeaders.CLUSTER_TOPIC, clusterEvent(false));
            memory.reserve(m.size);
            queue.enqueue(new QueueEntry(m, null, 0));
            return r;
        }
    }

    /** Closes what the core owns (the dedupe window); the broker closes the store. */
    public void close() {
        replicas.close();
        dedupe.close();
    }

    public String brokerId() {
        return brokerId;
    }

    public BrokerConfig config() {
        return config;
    }
}
