package io.fedbridge.core.bridge.internal;

import io.fedbridge.core.AckMode;
import io.fedbridge.core.FederationHeaders;
import io.fedbridge.core.ReceivedMessage;
import io.fedbridge.core.StompCommand;
import io.fedbridge.core.StompFrame;
import io.fedbridge.core.StompConnection;
import io.fedbridge.core.StompHeaders;
import io.fedbridge.core.Subscription;
import io.fedbridge.core.SubscriptionRequest;
import io.fedbridge.core.bridge.BridgeConfig;
import io.fedbridge.core.bridge.FederationBridge;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One direction of a bridge: demand from the target's consumers becomes network subscriptions on the
 * source, and what those receive is forwarded to the target and acknowledged at the source only once the
 * target's RECEIPT says it has the message.
 */
public final class Direction implements DemandRegistry.Route {

    private static final Logger LOG = LoggerFactory.getLogger(Direction.class);
    private static final Set<String> NOT_FORWARDED = Set.of(StompHeaders.SUBSCRIPTION, StompHeaders.MESSAGE_ID,
            StompHeaders.ACK, StompHeaders.REDELIVERED, StompHeaders.REDELIVERY_COUNT, StompHeaders.CONTENT_LENGTH,
            StompHeaders.RECEIPT, StompHeaders.DESTINATION, FederationHeaders.BROKER_PATH, FederationHeaders.HOPS);

    /** A remote consumer, as the target's advisory describes it. */
    record Demand(String originId, String destination, String selector, List<String> path) {
    }

    /** One network subscription on the source, carrying the demand of one or more identical remote consumers. */
    private final class NetworkSub {
        final String key;
        final String destination;
        final String selector;
        final List<String> path;
        final String origin;
        final io.fedbridge.core.bridge.RemoteConsumer consumer;
        final List<io.fedbridge.core.bridge.BridgeFilter> filters;
        final Set<String> members = new LinkedHashSet<>();
        Subscription subscription;
        int inflight;
        boolean draining;
        boolean unsubscribed;

        NetworkSub(String key, String destination, String selector, List<String> path, String origin) {
            this.key = key;
            this.destination = destination;
            this.selector = selector;
            this.path = path;
            this.origin = origin;
            this.consumer = new io.fedbridge.core.bridge.RemoteConsumer(origin, destination, selector, path);
            this.filters = config.filtersFor(destination);
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
    private final Map<String, Demand> demands = new HashMap<>();
    private final Map<String, NetworkSub> subs = new HashMap<>();
    private final Map<String, NetworkSub> subByOrigin = new HashMap<>();
    private volatile boolean stopped;

    public Direction(FederationBridge bridge, BridgeConfig config, StompConnection source, String sourceId,
                     StompConnection target, String targetId, String label) {
        this.bridge = bridge;
        this.config = config;
        this.source = source;
        this.target = target;
        this.sourceId = sourceId;
        this.targetId = targetId;
        this.registryKey = sourceId != null ? sourceId : "uri:" + source.config().uri();
        this.targetKey = targetId != null ? targetId : "uri:" + target.config().uri();
        this.label = config.name() + " (" + label + ")";
    }

    public void start() {
        for (String d : config.staticallyIncludedDestinations()) {
            synchronized (this) {
                String origin = "static:" + d;
                // The demand "comes from" the target: no bridge may carry it back there.
                NetworkSub ns = new NetworkSub("static\u0000" + d, d, null, List.of(targetKey), origin);
                ns.members.add(origin);
                subs.put(ns.key, ns);
                subscribe(ns);
            }
        }
        if (targetId != null) {
            target.subscribe(SubscriptionRequest.of(FederationHeaders.CONSUMER_ADVISORY_TOPIC), this::onAdvisory);
        }
    }

    public void stop() {
        stopped = true;
        List<String> origins;
        synchronized (this) {
            origins = List.copyOf(demands.keySet());
            demands.clear();
        }
        for (String o : origins) {
            DemandRegistry.GLOBAL.withdraw(registryKey, o, this);
        }
    }

    @Override
    public String targetId() {
        return targetId;
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

    private void onAdvisory(ReceivedMessage m) {
        if (stopped) {
            return;
        }
        String origin = m.header(FederationHeaders.ORIGIN_CONSUMER);
        String type = m.header(FederationHeaders.ADVISORY);
        if (origin == null || type == null) {
            return;
        }
        if (FederationHeaders.CONSUMER_REMOVED.equals(type)) {
            boolean known;
            synchronized (this) {
                known = demands.remove(origin) != null;
            }
            if (known) {
                DemandRegistry.GLOBAL.withdraw(registryKey, origin, this);
            }
            return;
        }
        String destination = m.header(FederationHeaders.ADVISORY_DESTINATION);
        List<String> path = FederationHeaders.parsePath(m.header(FederationHeaders.CONSUMER_PATH));
        if (destination == null || !isWanted(destination, path)) {
            return;
        }
        Demand d = new Demand(origin, destination, m.header(FederationHeaders.ADVISORY_SELECTOR), path);
        io.fedbridge.core.bridge.RemoteConsumer rc = new io.fedbridge.core.bridge.RemoteConsumer(origin, destination, d.selector(), path);
        for (io.fedbridge.core.bridge.BridgeFilter f : config.filtersFor(destination)) {
            if (!f.admitsDemand(rc)) {
                return;
            }
        }
        synchronized (this) {
            demands.put(origin, d);
        }
        DemandRegistry.GLOBAL.offer(registryKey, origin, this, path.size());
    }

    /** Loop, TTL and include/exclude checks on a remote consumer's demand. */
    private boolean isWanted(String destination, List<String> path) {
        if (path.contains(registryKey)) {
            return false; // the demand already passed the source: forwarding there would loop
        }
        if (path.size() > config.consumerTTL()) {
            return false;
        }
        if (destination.startsWith("/topic/fedbridge.advisory.")) {
            return false;
        }
        for (String ex : config.excludedDestinations()) {
            if (Wildcards.matches(ex, destination)) {
                return false;
            }
        }
        if (config.dynamicallyIncludedDestinations().isEmpty()) {
            return true;
        }
        for (String in : config.dynamicallyIncludedDestinations()) {
            if (Wildcards.matches(in, destination)) {
                return true;
            }
        }
        return false;
    }

    @Override
    public void activate(String originId) {
        if (stopped) {
            return;
        }
        synchronized (this) {
            Demand d = demands.get(originId);
            if (d == null || subByOrigin.containsKey(originId)) {
                return;
            }
            String key = d.destination() + "\u0000" + d.selector() + "\u0000"
                    + (config.conduitSubscriptions() ? String.join(",", d.path()) : originId);
            NetworkSub ns = subs.get(key);
            if (ns != null && (ns.draining || ns.unsubscribed)) {
                ns = null; // a new subscription replaces one that is going away
            }
            boolean fresh = ns == null;
            if (fresh) {
                ns = new NetworkSub(key, d.destination(), d.selector(), d.path(), originId);
                subs.put(key, ns);
            }
            ns.members.add(originId);
            subByOrigin.put(originId, ns);
            if (fresh) {
                subscribe(ns);
            }
        }
    }

    @Override
    public void deactivate(String originId) {
        synchronized (this) {
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
    }

    private void subscribe(NetworkSub ns) {
        if (stopped) {
            return;
        }
        SubscriptionRequest.Builder r = SubscriptionRequest.builder(ns.destination)
                .ackMode(AckMode.CLIENT_INDIVIDUAL).selector(ns.selector).prefetch(config.prefetchSize())
                .header(FederationHeaders.NETWORK_CONSUMER, "true")
                .header(FederationHeaders.ORIGIN_CONSUMER, ns.origin)
                .header(FederationHeaders.CONSUMER_PATH, String.join(",", ns.path))
                .header(FederationHeaders.MAX_HOPS, Integer.toString(config.messageTTL()));
        if (targetId != null) {
            r.header(FederationHeaders.EXCLUDE_BROKER, targetId);
        }
        // ActiveMQ's names too, so foreign brokers honour the window and priority.
        r.header("activemq.prefetchSize", Integer.toString(config.prefetchSize()));
        if (config.decreaseNetworkConsumerPriority()) {
            String priority = Integer.toString(-Math.max(1, ns.path.size()));
            r.header(StompHeaders.CONSUMER_PRIORITY, priority);
            r.header("activemq.priority", priority);
        }
        Map<String, String> extra = new java.util.LinkedHashMap<>();
        for (io.fedbridge.core.bridge.BridgeFilter f : ns.filters) {
            f.configureSubscription(ns.consumer, extra);
        }
        extra.forEach(r::header);
        try {
            ns.subscription = source.subscribe(r.build(), m -> forward(ns, m));
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
                ns.subscription.unsubscribe();
            } catch (RuntimeException e) {
                bridge.fail(e);
            }
        }
    }

    // ---------------------------------------------------------------- forwarding

    private void forward(NetworkSub ns, ReceivedMessage m) {
        synchronized (this) {
            if (stopped || ns.draining || ns.unsubscribed) {
                return; // not acknowledged: the source requeues it when the subscription ends
            }
            ns.inflight++;
        }
        StompFrame frame = forwardFrame(m);
        for (io.fedbridge.core.bridge.BridgeFilter f : ns.filters) {
            if (!f.beforeForward(ns.consumer, frame)) {
                try {
                    m.ack();
                } catch (RuntimeException e) {
                    bridge.fail(e);
                    return;
                }
                bridge.countFiltered();
                synchronized (this) {
                    ns.inflight--;
                    if (ns.draining && ns.inflight == 0 && !ns.unsubscribed) {
                        unsubscribe(ns);
                    }
                }
                return;
            }
        }
        if (frame.header(FederationHeaders.REPLAYS) != null && !frame.header(FederationHeaders.REPLAYS).equals(m.header(FederationHeaders.REPLAYS))) {
            bridge.countReplayed();
        }
        bridge.countForwarded();
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
                bridge.countReceipted("true".equals(receipt.header(FederationHeaders.DUPLICATE)));
                boolean keep = true;
                for (io.fedbridge.core.bridge.BridgeFilter f : ns.filters) {
                    keep &= f.afterReceipt(ns.consumer, receipt);
                }
                synchronized (this) {
                    ns.inflight--;
                    if (!keep && !ns.draining && !ns.unsubscribed) {
                        hold(ns);
                    }
                    if (ns.draining && ns.inflight == 0 && !ns.unsubscribed) {
                        unsubscribe(ns);
                    }
                }
            });
        } catch (RuntimeException e) {
            bridge.countAbandoned();
            bridge.fail(e);
        }
    }

    /**
     * A filter asked to hold this subscription back: end it (undelivered messages return to the source queue)
     * and offer its demand again after the filter's hold time.
     */
    private void hold(NetworkSub ns) {
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
                activate(o);
            }
        }, wait.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
    }

    private StompFrame forwardFrame(ReceivedMessage m) {
        StompHeaders in = m.frame().headers();
        StompHeaders h = new StompHeaders(in.size() + 4);
        h.add(StompHeaders.DESTINATION, m.destination());
        for (int i = 0; i < in.size(); i++) {
            String n = in.name(i);
            if (!NOT_FORWARDED.contains(n)) {
                h.add(n, in.value(i));
            }
        }
        String oldPath = in.get(FederationHeaders.BROKER_PATH);
        String hop = sourceId != null ? sourceId : registryKey;
        String path = oldPath == null || oldPath.isEmpty() ? hop : oldPath + "," + hop;
        h.set(FederationHeaders.BROKER_PATH, path);
        h.set(FederationHeaders.HOPS, Integer.toString(FederationHeaders.parsePath(path).size()));
        if (in.get(FederationHeaders.FEDERATION_ID) == null) {
            h.set(FederationHeaders.FEDERATION_ID, hop + ":" + m.messageId());
        }
        if (oldPath != null && FederationHeaders.parsePath(oldPath).contains(targetKey)) {
            // Going back toward a broker it came from: a replay (the source allowed it: no consumer here).
            String n = in.get(FederationHeaders.REPLAYS);
            h.set(FederationHeaders.REPLAYS, Integer.toString(n == null ? 1 : Integer.parseInt(n) + 1));
        }
        return new StompFrame(StompCommand.SEND, h, m.body());
    }
}
