package io.fedbridge.core.bridge.internal;

import io.fedbridge.core.AckMode;
import io.fedbridge.core.FederationHeaders;
import io.fedbridge.core.ReceivedMessage;
import io.fedbridge.core.StompFrame;
import io.fedbridge.core.StompConnection;
import io.fedbridge.core.StompHeaders;
import io.fedbridge.core.Subscription;
import io.fedbridge.core.SubscriptionRequest;
import io.fedbridge.core.bridge.BridgeConfig;
import io.fedbridge.core.bridge.FederationBridge;
import io.fedbridge.core.internal.TurnBudget;
import io.fedbridge.core.internal.TurnQueue;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One direction of a bridge: demand from the target's consumers becomes network subscriptions on the
 * source, and what those receive is forwarded to the target and acknowledged at the source only once the
 * target's RECEIPT says it has the message.
 *
 * <p>Parts with names of their own: {@link DemandPolicy} (which demand this direction takes on), {@link DemandRegistry}
 * (which of the broker's routes carries an origin's demand), {@link ForwardFrames} (the SEND written for a MESSAGE),
 * {@link Lending} (a ranked subscription's messages are lent, and acknowledged at the source once the remote consumer
 * acknowledged them), {@link BatchedReceipts} (one receipt per burst of forwards, when the target orders its receipts).
 *
 * <p>Concurrency: advisories and receipts arrive on the target connection's I/O thread; forwards run on the source
 * connection's I/O thread (on its dispatch thread when a filter may block); {@link #reconcile} runs on whichever thread
 * changed the registry. The demand maps, the network subscriptions and their windows, and the batched receipts' list
 * of unreceipted forwards are guarded by this object's lock, which is never held while waiting for the network. With
 * batched receipts the burst state is confined to the source's I/O thread (see {@link BatchedReceipts}).
 */
public final class Direction implements DemandRegistry.Route {

    private static final Logger LOG = LoggerFactory.getLogger(Direction.class);

    /** A remote consumer, as the target's advisory describes it. */
    record Demand(String originId, String destination, String selector, List<String> path, String rank) {
    }

    /** One network subscription on the source, carrying the demand of one or more identical remote consumers. */
    final class NetworkSub {
        final String key;
        final String destination;
        final String selector;
        final List<String> path;
        final String origin;
        /** The remote consumer's federation-wide rank (a subscription of its own), or null. */
        final String rank;
        /** Its messages are lent to the target, acknowledged here only when the remote consumer acks them ({@link Lending}). */
        final boolean ackThrough;
        final io.fedbridge.core.bridge.RemoteConsumer consumer;
        final List<io.fedbridge.core.bridge.BridgeFilter> filters;
        // Sized for the usual one member and an empty window: ten thousand of these wait for a first message.
        final Set<String> members = new LinkedHashSet<>(2);
        /** With batched receipts: this subscription's messages in delivery order, until acknowledged. */
        final ArrayDeque<Forward> window = new ArrayDeque<>(1);
        Subscription subscription;
        /** Completes once the source confirmed the SUBSCRIBE: from then on it routes this demand's messages here. */
        CompletableFuture<Void> confirmed = CompletableFuture.completedFuture(null);
        int inflight;
        boolean draining;
        boolean unsubscribed;

        NetworkSub(String key, String destination, String selector, List<String> path, String origin, String rank) {
            this.key = key;
            this.rank = rank;
            // only to the consumer's own broker: a broker in between passes messages on, so it must own them
            this.ackThrough = rank != null && lending != null && path.size() == 1;
            this.destination = destination;
            this.selector = selector;
            this.path = path;
            this.origin = origin;
            this.consumer = new io.fedbridge.core.bridge.RemoteConsumer(origin, destination, selector, path);
            this.filters = config.filtersFor(destination);
        }
    }

    /** A message taken from a network subscription, until the source is told it may forget it. */
    static final class Forward {
        final NetworkSub ns;
        final ReceivedMessage message;
        StompFrame frame;
        /** Receipted by the target, or filtered out: the source may forget it. Guarded by the Direction. */
        boolean done;

        Forward(NetworkSub ns, ReceivedMessage message, StompFrame frame) {
            this.ns = ns;
            this.message = message;
            this.frame = frame;
        }
    }

    private final FederationBridge bridge;
    private final BridgeConfig config;
    private final StompConnection source;
    private final StompConnection target;
    private final String sourceId;
    private final String targetId;
    private final String registryKey;
    private final String targetKey;
    private final String label;
    private final PeerNames sourceNames;
    private final ForwardFrames forwardFrames;
    private final DemandPolicy demandPolicy;
    /** Lends ranked subscriptions' messages to the target, if it takes lent messages; else null. */
    private final Lending lending;
    private final Map<String, Demand> demands = new HashMap<>();
    /**
     * Per origin, how many of the target's consumers carry its demand, by path. The target can hold two for a moment:
     * when it moves an origin's demand to a better route, its SUBSCRIBE on the new route and its UNSUBSCRIBE on the
     * old one travel on different connections, so the old consumer's "removed" may follow the new one's "added".
     * Withdrawing on that "removed" lost the demand for good (a consumer unreachable from part of a federation).
     */
    private final Map<String, Map<List<String>, Integer>> advertised = new HashMap<>();
    private final Map<String, NetworkSub> subs = new HashMap<>();
    private final Map<String, NetworkSub> subByOrigin = new HashMap<>();
    private volatile boolean stopped;
    /**
     * The target promises ordered receipts ({@link FederationHeaders#ORDERED_RECEIPTS}) and no filter blocks: then a
     * receipt is asked for only on the last forward of each burst, each receipt settles every forward before it, and
     * the source gets one cumulative ACK per subscription for them ({@link #batched}, null otherwise).
     */
    private final boolean batchedReceipts;
    private final BatchedReceipts batched;
    /** SUBSCRIBE header values every network subscription carries: one string each, not one per subscription. */
    private final String prefetchValue;
    private final String maxHopsValue;
    /** Advisories waiting for their turn (see onAdvisory); confined to the target's I/O thread. */
    private TurnQueue<ReceivedMessage> advisories;

    public Direction(FederationBridge bridge, BridgeConfig config, StompConnection source, String sourceId,
                     StompConnection target, String targetId, String label) {
        this(bridge, config, source, sourceId, PeerNames.AS_IS, target, targetId, PeerNames.AS_IS, label);
    }

    /** A direction whose source and target name destinations as {@code sourceNames} and {@code targetNames} say. */
    public Direction(FederationBridge bridge, BridgeConfig config, StompConnection source, String sourceId, PeerNames sourceNames,
                     StompConnection target, String targetId, PeerNames targetNames, String label) {
        this.bridge = bridge;
        this.sourceNames = sourceNames;
        this.config = config;
        this.source = source;
        this.target = target;
        this.sourceId = sourceId;
        this.targetId = targetId;
        this.registryKey = sourceId != null ? sourceId : "uri:" + source.config().uri();
        this.targetKey = targetId != null ? targetId : "uri:" + target.config().uri();
        this.label = config.name() + " (" + label + ")";
        this.forwardFrames = new ForwardFrames(this.label, sourceId != null ? sourceId : registryKey, targetKey, sourceNames, targetNames);
        this.demandPolicy = new DemandPolicy(config, registryKey);
        this.lending = Lending.lendsTo(target) ? new Lending(source, target) : null;
        StompHeaders connected = target.connectedHeaders();
        boolean ordered = connected != null && "true".equals(connected.get(FederationHeaders.ORDERED_RECEIPTS));
        // Not from RabbitMQ: with two network subscriptions on one connection (static and demand), its cumulative
        // ack:client is not confined to one subscription, and messages went missing in RabbitMqInteropIT.
        this.batchedReceipts = ordered && !config.filtersMayBlock() && sourceNames.dialect() != io.fedbridge.core.bridge.Dialect.RABBITMQ;
        this.batched = batchedReceipts ? new BatchedReceipts(this, target, bridge, config.prefetchSize()) : null;
        this.prefetchValue = Integer.toString(config.prefetchSize());
        this.maxHopsValue = Integer.toString(config.messageTTL());
    }

    public void start() {
        for (String d : config.staticallyIncludedDestinations()) {
            synchronized (this) {
                String origin = "static:" + d;
                // The demand "comes from" the target: no bridge may carry it back there.
                NetworkSub ns = new NetworkSub("static\u0000" + d, d, null, List.of(targetKey), origin, null);
                ns.members.add(origin);
                subs.put(ns.key, ns);
                subscribe(ns);
            }
        }
        if (targetId != null) {
            // On the target's I/O thread: a SUBSCRIBE or UNSUBSCRIBE to the source written from an event loop never waits
            // for the source to drain. From a dispatch thread it did, under this Direction's lock, and a burst of
            // advisories (a new bridge learning 10,000 consumers) filled the source's buffer while an event loop
            // wanted the lock (forward(), bridge stats): forwarding stopped for good.
            target.subscribeOnIoThread(SubscriptionRequest.of(FederationHeaders.CONSUMER_ADVISORY_TOPIC), this::onAdvisory);
            DefinitionRelay.startIfGranted(source, target, label);
            InDoubtSettler.startIfSupported(source, target, targetId, forwardFrames, label);
        }
    }

    public void stop() {
        stopped = true;
        List<String> origins;
        synchronized (this) {
            origins = List.copyOf(demands.keySet());
            demands.clear();
            advertised.clear();
        }
        for (String o : origins) {
            DemandRegistry.GLOBAL.withdraw(registryKey, o, this);
        }
    }

    @Override
    public String targetId() {
        return targetId;
    }

    boolean isStopped() {
        return stopped;
    }

    public synchronized int networkSubscriptionCount() {
        int n = 0;
        for (NetworkSub ns : subs.values()) {
            if (!ns.unsubscribed) {
                n++;
            }
        }
        return n;
    }

    public synchronized int remoteConsumerCount() {
        return demands.size();
    }

    // ---------------------------------------------------------------- demand

    /**
     * Target I/O thread: takes advisories in at most {@link TurnBudget#FRAMES_PER_TURN} per event-loop turn, the rest of
     * a burst (10,000 consumers arriving at once) waiting here, in order, for the next turns; so the forwards, receipts
     * and SUBSCRIBEs on this loop keep moving between slices instead of waiting for the whole burst.
     */
    private void onAdvisory(ReceivedMessage m) {
        if (stopped) {
            return;
        }
        if (advisories == null) {
            io.netty.util.concurrent.EventExecutor loop = io.netty.util.internal.ThreadExecutorMap.currentExecutor();
            if (loop == null) {
                takeAdvisory(m);
                return;
            }
            advisories = TurnQueue.of(loop, TurnBudget.FRAMES_PER_TURN, this::takeAdvisory);
        }
        advisories.offer(m);
    }

    private void takeAdvisory(ReceivedMessage m) {
        if (stopped) {
            return;
        }
        String origin = m.header(FederationHeaders.ORIGIN_CONSUMER);
        String type = m.header(FederationHeaders.ADVISORY);
        if (origin == null || type == null) {
            return;
        }
        List<String> path = FederationHeaders.parsePath(m.header(FederationHeaders.CONSUMER_PATH));
        if (FederationHeaders.CONSUMER_REMOVED.equals(type)) {
            onConsumerRemoved(origin, path);
            return;
        }
        String destination = m.header(FederationHeaders.ADVISORY_DESTINATION);
        if (destination == null || !demandPolicy.isWanted(destination, path)) {
            return;
        }
        Demand d = new Demand(origin, destination, m.header(FederationHeaders.ADVISORY_SELECTOR), path,
                m.header(FederationHeaders.CONSUMER_RANK));
        io.fedbridge.core.bridge.RemoteConsumer rc = new io.fedbridge.core.bridge.RemoteConsumer(origin, destination, d.selector(), path);
        for (io.fedbridge.core.bridge.BridgeFilter f : config.filtersFor(destination)) {
            if (!f.admitsDemand(rc)) {
                return;
            }
        }
        boolean moved;
        synchronized (this) {
            advertised.computeIfAbsent(origin, k -> new HashMap<>(2)).merge(path, 1, Integer::sum);
            Demand known = demands.get(origin);
            if (known != null && known.path().size() < path.size()) {
                return; // a shorter route to the same consumer is advertised already
            }
            demands.put(origin, d);
            moved = known != null && !known.path().equals(path);
        }
        DemandRegistry.GLOBAL.offer(registryKey, origin, this, path.size());
        if (moved) {
            resubscribe(origin);
        }
    }

    /**
     * {@code originId}'s demand now comes by another path: if this direction carries it, subscribe with the new path
     * before leaving the subscription with the old one. The path travels on in the source's advisories, so a stale,
     * longer one would make brokers a TTL away drop the demand; and subscribing first means the source never
     * advertises the origin as gone in between.
     */
    private synchronized void resubscribe(String originId) {
        NetworkSub old = subByOrigin.get(originId);
        Demand d = demands.get(originId);
        if (stopped || old == null || d == null || old.path.equals(d.path())) {
            return;
        }
        subByOrigin.remove(originId);
        old.members.remove(originId);
        if (old.members.isEmpty()) {
            old.draining = true;
        }
        activate(originId);
        if (old.draining && old.inflight == 0 && !old.unsubscribed) {
            unsubscribe(old);
        }
    }

    /** The target lost one consumer carrying {@code origin}'s demand: withdraw it only if that was the last one. */
    private void onConsumerRemoved(String origin, List<String> path) {
        Demand next = null;
        synchronized (this) {
            Map<List<String>, Integer> byPath = advertised.get(origin);
            if (byPath != null) {
                byPath.computeIfPresent(path, (k, n) -> n > 1 ? n - 1 : null);
                if (byPath.isEmpty()) {
                    advertised.remove(origin);
                    byPath = null;
                }
            }
            Demand known = demands.get(origin);
            if (known == null) {
                return;
            }
            if (byPath != null) {
                if (byPath.containsKey(known.path())) {
                    return;
                }
                List<String> shortest = byPath.keySet().stream().min(java.util.Comparator.comparingInt(List::size)).orElseThrow();
                next = new Demand(origin, known.destination(), known.selector(), shortest, known.rank());
                demands.put(origin, next);
            } else {
                demands.remove(origin);
            }
        }
        if (next != null) {
            DemandRegistry.GLOBAL.offer(registryKey, origin, this, next.path().size());
            resubscribe(origin);
        } else {
            DemandRegistry.GLOBAL.withdraw(registryKey, origin, this);
        }
    }

    @Override
    public synchronized CompletableFuture<Void> subscribed(String originId) {
        NetworkSub ns = subByOrigin.get(originId);
        return ns == null ? CompletableFuture.completedFuture(null) : ns.confirmed;
    }

    @Override
    public synchronized void reconcile(String originId) {
        if (!stopped && DemandRegistry.GLOBAL.isBest(registryKey, originId, this)) {
            activate(originId);
        } else {
            deactivate(originId);
        }
    }

    /** Subscribes for {@code originId}'s demand, joining a conduit subscription for it if there is one (under this lock). */
    private void activate(String originId) {
        Demand d = demands.get(originId);
        if (d == null || subByOrigin.containsKey(originId) || demandPolicy.coveredByStatic(d.destination(), d.selector())) {
            return;
        }
        // A ranked consumer (limited active consumers: docs/cluster.md) keeps a subscription of its own, with its rank.
        String key = d.destination() + "\u0000" + d.selector() + "\u0000"
                + (config.conduitSubscriptions() && d.rank() == null ? String.join(",", d.path()) : originId);
        NetworkSub ns = subs.get(key);
        if (ns != null && (ns.draining || ns.unsubscribed)) {
            ns = null; // a new subscription replaces one that is going away
        }
        boolean fresh = ns == null;
        if (fresh) {
            ns = new NetworkSub(key, d.destination(), d.selector(), d.path(), originId, d.rank());
            subs.put(key, ns);
        }
        ns.members.add(originId);
        subByOrigin.put(originId, ns);
        if (fresh) {
            subscribe(ns);
        }
    }

    /** Leaves {@code originId}'s subscription; the last member out unsubscribes once nothing is in flight (under this lock). */
    private void deactivate(String originId) {
        NetworkSub ns = subByOrigin.remove(originId);
        if (ns == null) {
            return;
        }
        ns.members.remove(originId);
        if (ns.members.isEmpty()) {
            ns.draining = true;
            if (ns.inflight == 0) {
                unsubscribe(ns);
            }
        }
    }

    private void subscribe(NetworkSub ns) {
        if (stopped) {
            return;
        }
        SubscriptionRequest.Builder r = sourceNames.subscription(ns.destination, ns.origin.startsWith("static:"))
                .ackMode(batchedReceipts && !ns.ackThrough ? AckMode.CLIENT : AckMode.CLIENT_INDIVIDUAL).selector(ns.selector)
                .prefetch(config.prefetchSize())
                .header(FederationHeaders.NETWORK_CONSUMER, "true")
                .header(FederationHeaders.ORIGIN_CONSUMER, ns.origin)
                .header(FederationHeaders.CONSUMER_PATH, String.join(",", ns.path))
                .header(FederationHeaders.MAX_HOPS, maxHopsValue);
        if (targetId != null) {
            r.header(FederationHeaders.EXCLUDE_BROKER, targetId);
        }
        if (ns.rank != null) {
            r.header(FederationHeaders.CONSUMER_RANK, ns.rank);
        }
        if (ns.ackThrough) {
            r.header(FederationHeaders.ACK_THROUGH, "true");
        }
        // ActiveMQ's and RabbitMQ's names too, so foreign brokers honour the window and priority.
        r.header("activemq.prefetchSize", prefetchValue);
        r.header("prefetch-count", prefetchValue);
        if (config.decreaseNetworkConsumerPriority()) {
            String priority = ns.path.size() <= 1 ? "-1" : Integer.toString(-ns.path.size());
            r.header(StompHeaders.CONSUMER_PRIORITY, priority);
            r.header("activemq.priority", priority);
        }
        Map<String, String> extra = new java.util.LinkedHashMap<>();
        for (io.fedbridge.core.bridge.BridgeFilter f : ns.filters) {
            f.configureSubscription(ns.consumer, extra);
        }
        extra.forEach(r::header);
        try {
            // forward() itself never blocks (the prefetch window bounds what it sends): unless a filter may, it runs
            // on the source's I/O thread
            boolean blocking = false;
            for (io.fedbridge.core.bridge.BridgeFilter f : ns.filters) {
                blocking |= f.mayBlock();
            }
            if (blocking) {
                ns.subscription = source.subscribe(r.build(), m -> forward(ns, m));
            } else {
                CompletableFuture<Void> confirmed = new CompletableFuture<>();
                ns.confirmed = confirmed;
                ns.subscription = source.subscribeOnIoThread(r.build(), m -> forward(ns, m), confirmed);
            }
            LOG.debug("{}: network subscription {} {} for {}", label, ns.destination, ns.selector == null ? "" : ns.selector, ns.origin);
        } catch (RuntimeException e) {
            bridge.fail(e);
        }
    }

    private void unsubscribe(NetworkSub ns) {
        ns.unsubscribed = true;
        subs.remove(ns.key, ns);
        if (ns.subscription != null && !stopped) {
            try {
                ns.subscription.unsubscribeAfterReceipt(); // a topic message in transit is forwarded, not lost
            } catch (RuntimeException e) {
                bridge.fail(e);
            }
        }
    }

    // ---------------------------------------------------------------- forwarding

    private void forward(NetworkSub ns, ReceivedMessage m) {
        // A topic message that arrives after its subscription ended (UNSUBSCRIBE sent, receipt not yet back): the
        // source discards the subscription's queue, so nothing requeues it. It is forwarded and never acknowledged;
        // the target drops or dedupes what it cannot use.
        boolean orphan;
        synchronized (this) {
            if (stopped) {
                return;
            }
            if ((ns.draining || ns.unsubscribed) && !ns.destination.startsWith("/topic/")) {
                return; // not acknowledged: the source requeues it when the subscription ends
            }
            orphan = ns.unsubscribed;
            if (!orphan) {
                ns.inflight++;
            }
        }
        StompFrame frame;
        boolean replay;
        boolean dropped = false;
        try {
            ForwardFrames.Outgoing out = forwardFrames.of(m, ns.destination);
            frame = out.frame();
            replay = out.replay();
            if (ns.rank != null && m.redeliveryCount() > 0) {
                // an exclusive queue's message its consumer may have had: the next one is told (docs/cluster.md)
                frame.headers().set(FederationHeaders.REDELIVERIES, Integer.toString(m.redeliveryCount()));
            }
            for (io.fedbridge.core.bridge.BridgeFilter f : ns.filters) {
                if (!f.beforeForward(ns.consumer, frame)) {
                    dropped = true;
                    break;
                }
            }
        } catch (RuntimeException e) {
            if (orphan) {
                LOG.debug("{}: could not forward message {} of an ended subscription to {}: {}", label, m.messageId(), ns.destination, e.toString());
                return; // nothing awaits its acknowledgement
            }
            // Neither forwarded nor acknowledged: a later cumulative ACK must not cover it, so the link goes down (and
            // says why); the source redelivers everything unacknowledged when it comes back.
            LOG.warn("{}: could not forward message {} from {}: {}", label, m.messageId(), ns.destination, e.toString());
            bridge.fail(e);
            return;
        }
        if (dropped) {
            bridge.countFiltered();
            if (orphan) {
                return;
            }
            if (batchedReceipts && !ns.ackThrough) {
                Forward fw = new Forward(ns, m, null);
                synchronized (this) {
                    fw.done = true;
                    ns.window.addLast(fw);
                    batched.acknowledgeDone(ns);
                }
                return;
            }
            try {
                m.ack();
            } catch (RuntimeException e) {
                bridge.fail(e);
                return;
            }
            synchronized (this) {
                ns.inflight--;
                unsubscribeIfDrained(ns);
            }
            return;
        }
        if (replay) {
            bridge.countReplayed();
        }
        bridge.countForwarded();
        if (orphan) {
            forwardOrphan(frame);
            return;
        }
        if (ns.ackThrough) {
            lend(ns, m, frame);
            return;
        }
        if (batchedReceipts) {
            batched.forward(new Forward(ns, m, frame));
            return;
        }
        try {
            target.sendForReceipt(frame).whenComplete((receipt, e) -> {
                if (e != null) {
                    bridge.countAbandoned();
                    bridge.fail(e instanceof java.util.concurrent.CompletionException && e.getCause() != null ? e.getCause() : e);
                    return;
                }
                try {
                    m.ack();
                } catch (RuntimeException ackFailed) {
                    // The source connection is gone; the message returns to its queue and is deduplicated on resend.
                    bridge.countAbandoned();
                    bridge.fail(ackFailed);
                    return;
                }
                bridge.countReceipted(1, "true".equals(receipt.header(FederationHeaders.DUPLICATE)) ? 1 : 0);
                boolean keep = keepsForwarding(ns, receipt);
                synchronized (this) {
                    ns.inflight--;
                    if (!keep) {
                        hold(ns);
                    }
                    unsubscribeIfDrained(ns);
                }
            });
        } catch (RuntimeException e) {
            bridge.countAbandoned();
            bridge.fail(e);
        }
    }

    /** Sends an orphan's forward (see {@link #forward}); nothing to acknowledge, and nothing redelivers it if it fails. */
    private void forwardOrphan(StompFrame frame) {
        try {
            target.sendForReceipt(frame).whenComplete((receipt, e) -> {
                if (e != null) {
                    bridge.countAbandoned();
                } else {
                    bridge.countReceipted(1, "true".equals(receipt.header(FederationHeaders.DUPLICATE)) ? 1 : 0);
                }
            });
        } catch (RuntimeException e) {
            bridge.countAbandoned();
        }
    }

    /** Ack-through: the subscription's window slot stays taken until the consumer settled the message ({@link Lending}). */
    private void lend(NetworkSub ns, ReceivedMessage m, StompFrame frame) {
        CompletableFuture<Boolean> settled;
        try {
            settled = lending.lend(m, frame, ns.origin);
        } catch (RuntimeException e) {
            bridge.countAbandoned();
            bridge.fail(e);
            return;
        }
        settled.whenComplete((acked, e) -> {
            if (e != null) {
                // Unacknowledged at the source: it goes back to the head of its queue when this link's subscription ends.
                bridge.countAbandoned();
                bridge.fail(e instanceof java.util.concurrent.CompletionException && e.getCause() != null ? e.getCause() : e);
                return;
            }
            bridge.countReceipted(1, 0);
            synchronized (this) {
                ns.inflight--;
                unsubscribeIfDrained(ns); // a returned message waits at the source for this subscription to end
            }
        });
    }

    /** Whether every filter of {@code ns} lets it go on forwarding after this receipt. */
    static boolean keepsForwarding(NetworkSub ns, StompFrame receipt) {
        boolean keep = true;
        for (io.fedbridge.core.bridge.BridgeFilter f : ns.filters) {
            keep &= f.afterReceipt(ns.consumer, receipt);
        }
        return keep;
    }

    /** A subscription whose demand went away ends once nothing it forwarded is left unsettled. Holds the lock. */
    void unsubscribeIfDrained(NetworkSub ns) {
        if (ns.draining && ns.inflight == 0 && !ns.unsubscribed) {
            unsubscribe(ns);
        }
    }

    /**
     * A filter asked to hold this subscription back: end it (undelivered messages return to the source queue)
     * and offer its demand again after the filter's hold time.
     */
    void hold(NetworkSub ns) {
        if (ns.draining || ns.unsubscribed) {
            return; // going away already
        }
        ns.draining = true;
        java.time.Duration wait = java.time.Duration.ZERO;
        for (io.fedbridge.core.bridge.BridgeFilter f : ns.filters) {
            wait = f.holdTime().compareTo(wait) > 0 ? f.holdTime() : wait;
        }
        List<String> members = List.copyOf(ns.members);
        for (String o : members) {
            subByOrigin.remove(o, ns);
        }
        FederationBridge.timers().schedule(() -> {
            for (String o : members) {
                reconcile(o); // still this route's, and the bridge still running?
            }
        }, wait.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
    }
}
