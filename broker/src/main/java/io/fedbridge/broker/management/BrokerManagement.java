package io.fedbridge.broker.management;

import io.fedbridge.broker.Broker;
import io.fedbridge.broker.DestinationStats;
import io.fedbridge.broker.internal.ManagedCore;
import io.fedbridge.broker.management.internal.BridgeWatch;
import io.fedbridge.broker.management.internal.EventPublisher;
import io.fedbridge.broker.management.internal.QueueRates;
import io.fedbridge.broker.management.internal.RequestHandler;
import io.fedbridge.core.bridge.BridgeListener;
import io.fedbridge.core.bridge.BridgeStats;
import io.fedbridge.core.bridge.NetworkConnector;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * A broker's management: the objects it shows (broker, listeners, connections, consumers, queues, topics, durable
 * subscriptions, bridges, discovery agents), the methods it runs on them, and its events. The same model answers the
 * JSON requests sent to {@link ManagementDestinations#REQUESTS} (see docs/management.md) and embedders in the JVM:
 *
 * <pre>{@code
 * BrokerManagement m = broker.management();
 * for (QueueInfo q : m.queues()) {
 *     System.out.println(q.destination() + " " + q.pending());
 * }
 * m.purgeQueue("/queue/orders");
 * }</pre>
 *
 * Thread-safe. Reads are snapshots taken when called (each object carries its {@code timestamp}); methods that fail
 * throw {@link ManagementException} naming the object. Requests and events are handled on one thread of its own,
 * {@code fedbridge-NAME-management}.
 */
public final class BrokerManagement implements AutoCloseable {

    /** Bodies shown by browse are cut at this many characters unless the request asks otherwise. */
    public static final int DEFAULT_MAX_BODY = 4096;
    private static final Duration READ_TIMEOUT = Duration.ofSeconds(5);

    private final Broker broker;
    private final ManagedCore core;
    private final ExecutorService executor;
    private final EventPublisher events;
    private final BridgeWatch bridgeWatch;
    private final QueueRates rates = new QueueRates();
    private final long startedAt = System.currentTimeMillis();

    private BrokerManagement(Broker broker, ManagedCore core) {
        this.broker = broker;
        this.core = core;
        this.executor = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "fedbridge-" + broker.name() + "-management");
            t.setDaemon(true);
            return t;
        });
        this.events = new EventPublisher(broker.name(), core, executor);
        this.bridgeWatch = new BridgeWatch(events);
        RequestHandler requests = new RequestHandler(this, core, broker.name());
        core.hook(events.hook((user, headers, body) -> requests.handle(user, headers, body)));
    }

    /** Called by the broker as it starts; use {@link Broker#management()}. */
    public static BrokerManagement start(Broker broker, ManagedCore core) {
        return new BrokerManagement(broker, core);
    }

    // ---------------------------------------------------------------- reading

    public BrokerInfo broker() {
        long now = System.currentTimeMillis();
        var c = broker.config();
        List<String> connectors = new ArrayList<>();
        for (NetworkConnector nc : broker.networkConnectors()) {
            connectors.add(nc.uri().toString());
        }
        return new BrokerInfo(broker.name(), broker.id(), Broker.version(), c.dataDirectory() == null ? "MEMORY" : c.durability().name(),
                securityMode(c.security()), c.dataDirectory() == null ? null : c.dataDirectory().toString(), broker.connectUris(),
                connectors, startedAt, broker.connectionCount(), core.queues().size(), core.topics(now).size(), broker.memoryUsed(),
                c.memoryLimit(), broker.memoryLimitReached(), broker.memoryPausedConnections(), broker.duplicatesDropped(), broker.isDiskSpaceLow(), now);
    }

    /** {@code open}, {@code authenticated}, {@code authorized} or {@code authenticated+authorized}. */
    public static String securityMode(io.fedbridge.broker.security.SecurityConfig s) {
        if (s.isOpen()) {
            return "open";
        }
        if (s.authenticator() != null && s.authorizer() != null) {
            return "authenticated+authorized";
        }
        return s.authenticator() != null ? "authenticated" : "authorized";
    }

    public List<ListenerInfo> listeners() {
        return broker.listeners();
    }

    public List<ConnectionInfo> connections() {
        List<ConnectionInfo> l = new ArrayList<>();
        for (ManagedCore.Described d : core.connections(READ_TIMEOUT)) {
            l.add(d.connection());
        }
        return l;
    }

    public List<ConsumerInfo> consumers() {
        List<ConsumerInfo> l = new ArrayList<>();
        for (ManagedCore.Described d : core.connections(READ_TIMEOUT)) {
            l.addAll(d.consumers());
        }
        return l;
    }

    /** Every queue, temporary ones included, by name. */
    public List<QueueInfo> queues() {
        long now = System.currentTimeMillis();
        List<QueueInfo> l = new ArrayList<>();
        for (Map.Entry<String, DestinationStats> e : core.queues().entrySet()) {
            l.add(queueInfo(e.getValue(), now));
        }
        return l;
    }

    /** One queue; null if there is none of that name. */
    public QueueInfo queue(String destination) {
        DestinationStats s = core.queues().get(destination);
        return s == null ? null : queueInfo(s, System.currentTimeMillis());
    }

    private QueueInfo queueInfo(DestinationStats s, long now) {
        double[] r = rates.of(s.name());
        return new QueueInfo(s.name(), s.name().startsWith("/temp-queue/"), s.pending(), s.inflight(), s.consumers(), s.enqueued(),
                s.dequeued(), s.expired(), s.deadLettered(), r[0], r[1], now, s.groups(), s.groupAssignments());
    }

    public List<TopicInfo> topics() {
        return core.topics(System.currentTimeMillis());
    }

    public List<DurableSubscriptionInfo> durableSubscriptions() {
        return core.durableSubscriptions(System.currentTimeMillis());
    }

    /** Every bridge of every network connector, a link that is down (and being retried) with its last error. */
    public List<BridgeInfo> bridges() {
        long now = System.currentTimeMillis();
        List<BridgeInfo> l = new ArrayList<>();
        for (NetworkConnector nc : broker.networkConnectors()) {
            for (Map.Entry<String, BridgeStats> e : nc.statsByPeer().entrySet()) {
                BridgeStats s = e.getValue();
                l.add(new BridgeInfo(s.name(), nc.uri().toString(), io.fedbridge.core.uri.CompositeUri.parse(e.getKey()).toString(), s.state().name(), bridgeWatch.since(s.name(), s.state(), now),
                        s.forwarded(), s.pending(), s.acked(), s.duplicates(), s.networkSubscriptions(), s.remoteConsumers(),
                        s.filtered(), s.replayed(), s.lastError(), now));
            }
        }
        return l;
    }

    public List<DiscoveryAgentInfo> discoveryAgents() {
        long now = System.currentTimeMillis();
        List<DiscoveryAgentInfo> l = new ArrayList<>();
        for (NetworkConnector nc : broker.networkConnectors()) {
            int up = 0;
            Map<String, BridgeStats> peers = nc.statsByPeer();
            for (BridgeStats s : peers.values()) {
                if (s.state() == io.fedbridge.core.bridge.BridgeState.UP) {
                    up++;
                }
            }
            l.add(new DiscoveryAgentInfo(nc.uri().toString(), nc.uri().scheme(), peers.size(), up, now));
        }
        return l;
    }

    /** Everything at once (what {@code fedbridge stat} shows). */
    public ManagementSnapshot snapshot() {
        List<ManagedCore.Described> all = core.connections(READ_TIMEOUT);
        List<ConnectionInfo> connections = new ArrayList<>();
        List<ConsumerInfo> consumers = new ArrayList<>();
        for (ManagedCore.Described d : all) {
            connections.add(d.connection());
            consumers.addAll(d.consumers());
        }
        return new ManagementSnapshot(broker(), listeners(), connections, consumers, queues(), topics(), durableSubscriptions(),
                bridges(), discoveryAgents(), System.currentTimeMillis());
    }

    // ---------------------------------------------------------------- methods

    /** Creates {@code /queue/NAME}; false if it existed. */
    public boolean createQueue(String destination) {
        return core.createQueue(destination);
    }

    /** Deletes a queue that has no consumers, with its messages; returns how many messages it held. */
    public int deleteQueue(String destination) {
        return core.deleteQueue(destination);
    }

    /** The destinations defined federation-wide (docs/cluster.md). */
    public List<io.fedbridge.broker.cluster.DestinationDefinition> definitions() {
        return broker.cluster().definitions();
    }

    /** Defines a destination for the whole federation; see {@link io.fedbridge.broker.cluster.ClusterDestinations#define}. */
    public io.fedbridge.broker.cluster.DestinationDefinition define(io.fedbridge.broker.DestinationPolicy policy) {
        try {
            return broker.cluster().define(policy);
        } catch (IllegalArgumentException | IllegalStateException e) {
            throw ManagementException.badRequest(e.getMessage());
        }
    }

    /** Deletes a definition federation-wide; false if it was not defined. */
    public boolean undefine(String destination) {
        try {
            return broker.cluster().delete(destination);
        } catch (IllegalStateException e) {
            throw ManagementException.badRequest(e.getMessage());
        }
    }

    /** Removes the messages waiting in a queue (delivered, unacknowledged ones stay); returns how many. */
    public int purgeQueue(String destination) {
        return core.purgeQueue(destination);
    }

    /** The first {@code count} waiting messages, with headers, left in place. */
    public List<BrowsedMessage> browseQueue(String destination, int count) {
        return browseQueue(destination, count, DEFAULT_MAX_BODY);
    }

    public List<BrowsedMessage> browseQueue(String destination, int count, int maxBody) {
        if (count < 0 || maxBody < 0) {
            throw ManagementException.badRequest("count and maxBody must be >= 0, but were " + count + " and " + maxBody);
        }
        return core.browse(destination, count, maxBody);
    }

    /** Moves up to {@code count} waiting messages of queue {@code from} to destination {@code to}; returns how many. */
    public int moveMessages(String from, String to, int count) {
        if (count < 0) {
            throw ManagementException.badRequest("count must be >= 0, but was " + count);
        }
        return core.move(from, to, count, READ_TIMEOUT);
    }

    /** Closes a connection (with an ERROR frame saying so); throws naming it if there is none. */
    public void closeConnection(String id, String requestedBy) {
        if (!core.closeConnection(id, "connection closed by management request of user '" + requestedBy + "'")) {
            throw ManagementException.notFound("no connection " + id + " on broker " + broker.name());
        }
        events.publish("connection-closed", Map.of("connection", id, "user", requestedBy));
    }

    /** Adds a network connector (its bridges start): the bridge start method. */
    public DiscoveryAgentInfo addNetworkConnector(String discoveryUri) {
        if (discoveryUri == null || discoveryUri.isBlank()) {
            throw ManagementException.badRequest("uri must be a discovery URI such as static:(tcp://b:61613), but was missing");
        }
        for (NetworkConnector nc : broker.networkConnectors()) {
            if (nc.uri().toString().equals(io.fedbridge.core.uri.CompositeUri.parse(discoveryUri).toString())) {
                throw new ManagementException(ManagementException.Kind.FAILED, "broker " + broker.name()
                        + " already has network connector " + nc.uri());
            }
        }
        try {
            NetworkConnector nc = broker.addNetworkConnector(discoveryUri);
            return new DiscoveryAgentInfo(nc.uri().toString(), nc.uri().scheme(), 0, 0, System.currentTimeMillis());
        } catch (IllegalArgumentException e) {
            throw ManagementException.badRequest(e.getMessage());
        }
    }

    /** Removes a network connector (its bridges stop): the bridge stop method. */
    public void removeNetworkConnector(String discoveryUri) {
        for (NetworkConnector nc : broker.networkConnectors()) {
            if (nc.uri().toString().equals(discoveryUri) || nc.uri().toUnmaskedString().equals(discoveryUri)) {
                broker.removeNetworkConnector(nc.uri().toUnmaskedString());
                return;
            }
        }
        throw ManagementException.notFound("no network connector " + discoveryUri + " on broker " + broker.name());
    }

    /**
     * Keeps a read-only replica of queue {@code destination} of the broker at {@code fromUri} on this broker (its
     * messages and their removal, stored in this broker's journal) until {@link #promoteReplica} makes it an ordinary
     * queue: {@code fedbridge ha replicate}, docs/ha.md. Needs module {@code fedbridge-ha} on both brokers and the
     * federation right on the source; returns once the source took the link (or throws naming why it did not).
     */
    public Map<String, Object> replicateQueue(String destination, String fromUri) {
        return replication(p -> p.replicate(destination, fromUri));
    }

    /**
     * Ends the replication of queue {@code destination} and makes it an ordinary queue with the messages its source
     * had not removed; refused while the source still serves it, unless {@code force}.
     */
    public Map<String, Object> promoteReplica(String destination, boolean force) {
        return replication(p -> p.promote(destination, force));
    }

    /** Every queue this broker replicates from another, with its source, state and messages. */
    public List<Map<String, Object>> replicas() {
        io.fedbridge.broker.internal.QueueReplicas.Plugin p = core.replicas().plugin();
        return p == null ? List.of() : p.status();
    }

    private Map<String, Object> replication(java.util.function.Function<io.fedbridge.broker.internal.QueueReplicas.Plugin,
            Map<String, Object>> call) {
        io.fedbridge.broker.internal.QueueReplicas.Plugin p = core.replicas().plugin();
        if (p == null) {
            throw new ManagementException(ManagementException.Kind.FAILED, "broker " + broker.name() + " cannot replicate "
                    + "queues: module fedbridge-ha (io.fedbridge:fedbridge-ha) is not on its class path");
        }
        try {
            return call.apply(p);
        } catch (IllegalArgumentException e) {
            throw ManagementException.badRequest(e.getMessage());
        } catch (IllegalStateException e) {
            throw new ManagementException(ManagementException.Kind.FAILED, e.getMessage(), e);
        }
    }

    // ---------------------------------------------------------------- events

    /** Tells {@code listener} of every event this broker publishes (on the management thread: do not block). */
    /**
     * Publishes an event on the events topic (for modules that add state of their own, e.g. {@code fedbridge-ha}'s
     * {@code ha-state}); null values are left out.
     */
    public void publishEvent(String type, Map<String, ?> data) {
        events.publish(type, data);
    }

    public void addEventListener(Consumer<ManagementEvent> listener) {
        events.addListener(listener);
    }

    /** What the broker's network connectors tell of their links. */
    public BridgeListener bridgeListener() {
        return bridgeWatch;
    }

    /** Once a second (the broker's housekeeping): queue rates. */
    public void tick() {
        rates.update(core.queues(), System.nanoTime());
    }

    @Override
    public void close() {
        core.hook(io.fedbridge.broker.internal.ManagementHook.NONE);
        executor.shutdown();
        try {
            executor.awaitTermination(2, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        executor.shutdownNow();
    }
}
