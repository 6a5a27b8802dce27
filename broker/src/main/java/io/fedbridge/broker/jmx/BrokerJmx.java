package io.fedbridge.broker.jmx;

import io.fedbridge.broker.Broker;
import io.fedbridge.broker.DestinationStats;
import io.fedbridge.core.bridge.BridgeStats;
import io.fedbridge.core.bridge.NetworkConnector;
import java.lang.management.ManagementFactory;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.Supplier;
import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Registers a broker, its queues (each once it has held a message) and its bridges as MXBeans in the platform MBean
 * server, and keeps the set of queue and bridge beans in step with the broker ({@link #refresh()}, called once a second
 * on the broker's housekeeping thread).
 */
public final class BrokerJmx implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(BrokerJmx.class);

    private final Broker broker;
    private final MBeanServer server = ManagementFactory.getPlatformMBeanServer();
    private final Map<ObjectName, Object> registered = new ConcurrentHashMap<>();
    /** The beans of queues and of bridges, by queue or bridge name; guarded by {@link #refresh}. */
    private final Map<String, ObjectName> queueBeans = new HashMap<>();
    private final Map<String, ObjectName> bridgeBeans = new HashMap<>();

    public BrokerJmx(Broker broker) {
        this.broker = broker;
        register(brokerName(), new BrokerMXBean() {
            @Override
            public String getName() {
                return broker.name();
            }

            @Override
            public String getBrokerId() {
                return broker.id();
            }

            @Override
            public String[] getConnectUris() {
                return broker.connectUris().toArray(String[]::new);
            }

            @Override
            public int getConnectionCount() {
                return broker.connectionCount();
            }

            @Override
            public long getMemoryUsed() {
                return broker.memoryUsed();
            }

            @Override
            public long getMemoryLimit() {
                return broker.config().memoryLimit();
            }

            @Override
            public long getMemoryLimitReached() {
                return broker.memoryLimitReached();
            }

            @Override
            public int getMemoryPausedConnections() {
                return broker.memoryPausedConnections();
            }

            @Override
            public long getDuplicatesDropped() {
                return broker.duplicatesDropped();
            }

            @Override
            public String[] getNetworkConnectors() {
                return broker.networkConnectors().stream().map(nc -> nc.uri().toString()).toArray(String[]::new);
            }

            @Override
            public void addNetworkConnector(String discoveryUri) {
                broker.addNetworkConnector(discoveryUri);
            }

            @Override
            public boolean removeNetworkConnector(String discoveryUri) {
                return broker.removeNetworkConnector(discoveryUri);
            }

            @Override
            public String[] getTopics() {
                return broker.management().topics().stream().map(t -> t.destination()).toArray(String[]::new);
            }

            @Override
            public String[] getConnections() {
                return broker.management().connections().stream().map(c -> c.id()).toArray(String[]::new);
            }

            @Override
            public int purgeQueue(String destination) {
                return jmxSafe(() -> broker.management().purgeQueue(destination));
            }

            @Override
            public int deleteQueue(String destination) {
                return jmxSafe(() -> broker.management().deleteQueue(destination));
            }

            @Override
            public void closeConnection(String id) {
                jmxSafe(() -> {
                    broker.management().closeConnection(id, "jmx");
                    return 0;
                });
            }
        });
    }

    /** A management failure as an exception every JMX client can load (its message names the object). */
    private static int jmxSafe(Supplier<Integer> op) {
        try {
            return op.get();
        } catch (io.fedbridge.broker.management.ManagementException e) {
            throw new IllegalArgumentException(e.getMessage());
        }
    }

    public ObjectName brokerName() {
        return name("type=Broker,name=" + ObjectName.quote(broker.name()));
    }

    public ObjectName destinationName(String destination) {
        return name("type=Destination,broker=" + ObjectName.quote(broker.name()) + ",destination=" + ObjectName.quote(destination));
    }

    public ObjectName bridgeName(String bridge) {
        return name("type=Bridge,broker=" + ObjectName.quote(broker.name()) + ",bridge=" + ObjectName.quote(bridge));
    }

    private static ObjectName name(String props) {
        try {
            return new ObjectName("io.fedbridge:" + props);
        } catch (JMException e) {
            throw new IllegalArgumentException("invalid MBean name " + props, e);
        }
    }

    /**
     * Registers beans for new queues and bridges, unregisters those that are gone. Only a queue or bridge that came or
     * went costs a bean operation: with thousands of queues, a pass that names every one of them takes seconds.
     *
     * <p>A queue's bean appears with its first message: a queue only subscribed to so far (ten thousand remote consumers'
     * demand, each a network subscription on its own queue) costs no bean, which weighs about 600 bytes.
     */
    public synchronized void refresh() {
        Set<String> queues = new HashSet<>();
        for (DestinationStats d : broker.queues()) {
            if (d.enqueued() > 0 || d.pending() > 0) {
                queues.add(d.name());
            }
        }
        Set<String> bridges = new HashSet<>();
        for (NetworkConnector nc : broker.networkConnectors()) {
            for (BridgeStats s : nc.stats()) {
                bridges.add(s.name());
            }
        }
        sync(queueBeans, queues, this::destinationName, this::destination);
        sync(bridgeBeans, bridges, this::bridgeName, b -> bridge(() -> findBridge(b)));
    }

    private void sync(Map<String, ObjectName> beans, Set<String> present, Function<String, ObjectName> naming,
                      Function<String, Object> bean) {
        for (String p : present) {
            if (!beans.containsKey(p)) {
                ObjectName n = naming.apply(p);
                if (register(n, bean.apply(p))) {
                    beans.put(p, n);
                }
            }
        }
        beans.entrySet().removeIf(e -> {
            boolean gone = !present.contains(e.getKey());
            if (gone) {
                unregister(e.getValue());
            }
            return gone;
        });
    }

    private BridgeStats findBridge(String name) {
        for (BridgeStats s : broker.bridges()) {
            if (s.name().equals(name)) {
                return s;
            }
        }
        return null;
    }

    private Object destination(String name) {
        Supplier<DestinationStats> s = () -> {
            DestinationStats d = broker.queue(name);
            return d != null ? d : new DestinationStats(name, 0, 0, 0, 0, 0, 0, 0);
        };
        return new DestinationMXBean() {
            @Override
            public String getName() {
                return name;
            }

            @Override
            public int getPending() {
                return s.get().pending();
            }

            @Override
            public int getInflight() {
                return s.get().inflight();
            }

            @Override
            public int getConsumers() {
                return s.get().consumers();
            }

            @Override
            public long getEnqueued() {
                return s.get().enqueued();
            }

            @Override
            public long getDequeued() {
                return s.get().dequeued();
            }

            @Override
            public long getExpired() {
                return s.get().expired();
            }

            @Override
            public long getDeadLettered() {
                return s.get().deadLettered();
            }

            @Override
            public int getGroups() {
                return s.get().groups();
            }

            @Override
            public long getGroupAssignments() {
                return s.get().groupAssignments();
            }
        };
    }

    private static BridgeMXBean bridge(Supplier<BridgeStats> live) {
        return new BridgeMXBean() {
            private BridgeStats s() {
                BridgeStats s = live.get();
                return s != null ? s : new BridgeStats("?", io.fedbridge.core.bridge.BridgeState.DOWN, "gone", 0, 0, 0, 0, 0, 0, 0, 0);
            }

            @Override
            public String getName() {
                return s().name();
            }

            @Override
            public String getState() {
                return s().state().name();
            }

            @Override
            public String getLastError() {
                return s().lastError();
            }

            @Override
            public long getForwarded() {
                return s().forwarded();
            }

            @Override
            public long getPending() {
                return s().pending();
            }

            @Override
            public long getAcked() {
                return s().acked();
            }

            @Override
            public long getDuplicates() {
                return s().duplicates();
            }

            @Override
            public int getNetworkSubscriptions() {
                return s().networkSubscriptions();
            }

            @Override
            public int getRemoteConsumers() {
                return s().remoteConsumers();
            }
        };
    }

    private boolean register(ObjectName n, Object bean) {
        try {
            if (server.isRegistered(n)) {
                server.unregisterMBean(n);
            }
            server.registerMBean(bean, n);
            registered.put(n, bean);
            return true;
        } catch (JMException e) {
            LOG.warn("could not register MBean {}: {}", n, e.toString());
            return false;
        }
    }

    private void unregister(ObjectName n) {
        registered.remove(n);
        try {
            if (server.isRegistered(n)) {
                server.unregisterMBean(n);
            }
        } catch (JMException e) {
            LOG.debug("could not unregister MBean {}: {}", n, e.toString());
        }
    }

    @Override
    public synchronized void close() {
        for (ObjectName n : registered.keySet()) {
            unregister(n);
        }
        queueBeans.clear();
        bridgeBeans.clear();
    }
}
