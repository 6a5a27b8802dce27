package io.fedbridge.broker.internal;

import io.fedbridge.broker.MessageStore;
import io.fedbridge.broker.StoredMessage;
import io.fedbridge.core.StompHeaders;
import io.netty.channel.ChannelHandler;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The broker's side of replicating one queue between brokers that are not in an HA group (module
 * {@code fedbridge-ha} does the replication; not for applications).
 *
 * <p>On the <em>source</em>, an {@link Observer} registered for a queue hears every store operation on that key (the
 * store is wrapped once; without observers the wrapper only reads an empty map), and {@link #observe} hands it the
 * queue's stored content at the same moment. On the <em>replica</em>, a queue marked with {@link #startReplica}
 * refuses sends and consumers; {@link #replicaAdd} and {@link #replicaRemove} change it as the source's stream says,
 * in its journal, until {@link #promote} makes it an ordinary queue.
 *
 * <p>Thread-safe. Observers are called under the queue's locks: they must be quick and never block.
 */
public final class QueueReplicas implements AutoCloseable {

    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(QueueReplicas.class);
    /** Which queues are replicas (and which were promoted), in the data directory. */
    public static final String REGISTRY = "queue-replicas.properties";
    private static final String REPLICA = "replica";
    private static final String PROMOTED = "promoted";
    private static final String SOURCE_ID = "#source-broker-id";

    /** CONNECT header with which a replica asks for a queue's stream; its value is the queue. Needs the federation right. */
    public static final String SOURCE_HEADER = "fedbridge-queue-replica";

    /** Hears one key's store operations on the source. */
    public interface Observer {
        /** A message stored under the key: the add's future (the sender's receipt) also waits for the returned one. */
        CompletableFuture<Void> added(StoredMessage message);

        /** A message removed; {@code awaited}: someone waits for the removal (a receipted ACK), then so does the returned future. */
        CompletableFuture<Void> removed(long sequence, boolean consumedHere, boolean awaited);

        void redelivered(long sequence, int count);
    }

    /** What module {@code fedbridge-ha} plugs in: management's methods and the source's link handler. */
    public interface Plugin extends AutoCloseable {
        /** The handler that serves a replica's link once CONNECTED is written (it replaces the session). */
        ChannelHandler newSourceHandler(String queue, StompHeaders connect);

        /** Starts replicating {@code queue} from {@code from} on this broker; what it did, JSON-ready. */
        Map<String, Object> replicate(String queue, String from);

        /** Makes replica {@code queue} an ordinary queue; {@code force} even while its source still serves it. */
        Map<String, Object> promote(String queue, boolean force);

        /** Every replica of this broker, JSON-ready. */
        List<Map<String, Object>> status();

        @Override
        void close();
    }

    /** A replica queue: its source and its messages by the source's sequence. */
    private record Replica(String source, QueueDestination queue, Map<Long, QueueEntry> entries) {
    }

    private final BrokerCore core;
    private final Object observerLock = new Object();
    private volatile Map<String, Observer> observers = Map.of();
    private final Map<String, Replica> replicas = new ConcurrentHashMap<>();
    private volatile Plugin plugin;

    QueueReplicas(BrokerCore core) {
        this.core = core;
    }

    /** Installs module fedbridge-ha's side (once, as the broker starts). */
    public void plugin(Plugin p) {
        this.plugin = p;
    }

    /** Module fedbridge-ha's side, or null when the module is not on the class path. */
    public Plugin plugin() {
        return plugin;
    }

    public String brokerName() {
        return core.config.name();
    }

    // ---------------------------------------------------------------- source

    /** The store the broker core writes to: {@code store}, telling observers of the keys they watch. */
    MessageStore tap(MessageStore store) {
        return new ObservedStore(store, this);
    }

    /** The observer of {@code key}, or null: one read of an empty map while nobody observes. */
    Observer observer(String key) {
        Map<String, Observer> m = observers;
        return m.isEmpty() ? null : m.get(key);
    }

    /**
     * Registers {@code o} for {@code queue} (replacing any) and returns the queue's stored messages in sequence order,
     * read after {@code o} hears every later operation: whatever the list misses, {@code o} hears, and what it holds
     * may be removed later only in {@code o}'s hearing.
     */
    public List<StoredMessage> observe(String queue, Observer o) {
        QueueDestination q = core.queues.get(queue);
        if (q == null) {
            register(queue, o);
            q = core.queues.get(queue);
            if (q == null) {
                return List.of();
            }
        }
        // An add is stored and enqueued under arrivalLock, a removal of a queued message under the queue's monitor.
        synchronized (q.arrivalLock) {
            register(queue, o);
            List<StoredMessage> l = new ArrayList<>();
            for (QueueEntry e : q.content()) {
                if (e.storeKey != null && e.message.persistent) {
                    l.add(e.message.toStored(e.redeliveryCount));
                }
            }
            l.sort(Comparator.comparingLong(StoredMessage::sequence));
            return l;
        }
    }

    private void register(String queue, Observer o) {
        synchronized (observerLock) { // a lock of its own: taken under a queue's arrivalLock
            Map<String, Observer> m = new HashMap<>(observers);
            m.put(queue, o);
            observers = Map.copyOf(m);
        }
    }

    // ---------------------------------------------------------------- replica

    /**
     * At start-up, before any listener: marks the queues that were replicas when the broker stopped (kept in
     * {@code DATA/queue-replicas.properties}: {@code /queue/x = replica URI} or {@code promoted URI}) and those a
     * {@code replicateFrom} policy names, unless promoted since. The plugin then connects them to their sources.
     *
     * @throws io.fedbridge.broker.BrokerException naming the queue when a policy asks for a replica that cannot be one
     */
    void recover() {
        if (core.config.ha() != null) {
            // A group's members share one store; a replica's record of what it is lives beside one member's journal only.
            if (core.config.policies().stream().anyMatch(p -> p.replicateFrom() != null)) {
                LOG.warn("broker {} is a member of HA group {}: replicateFrom is ignored (replicate single queues on "
                        + "brokers outside groups)", brokerName(), core.config.ha().group());
            }
            return;
        }
        Properties known = registry();
        for (String queue : known.stringPropertyNames()) {
            String[] v = known.getProperty(queue).split(" ", 2);
            if (v[0].equals(REPLICA) && v.length == 2) {
                startReplica(queue, v[1], true);
            }
        }
        for (io.fedbridge.broker.DestinationPolicy p : core.config.policies()) {
            String was = known.getProperty(p.pattern(), "");
            if (p.replicateFrom() == null || was.equals(REPLICA + " " + p.replicateFrom())) {
                continue;
            }
            if (was.startsWith(PROMOTED + " ")) {
                LOG.warn("broker {}: queue {} was promoted from a replica of {}; it stays an ordinary queue (remove "
                        + "replicateFrom from its policy)", brokerName(), p.pattern(), masked(was.substring(PROMOTED.length() + 1)));
                continue;
            }
            try {
                if (core.config.dataDirectory() == null) {
                    throw new IllegalStateException("it needs a data directory (data = ...): a replica keeps what it copies "
                            + "in its journal");
                }
                boolean wasReplica = replicas.remove(p.pattern()) != null;
                if (wasReplica) {
                    LOG.warn("broker {}: replica {} follows {} now (its policy's replicateFrom), no longer {}; it keeps what "
                            + "the new source holds too", brokerName(), p.pattern(), masked(p.replicateFrom()),
                            masked(was.substring(REPLICA.length() + 1)));
                }
                startReplica(p.pattern(), p.replicateFrom(), wasReplica);
                record(p.pattern(), true, p.replicateFrom());
            } catch (IllegalStateException e) {
                throw new io.fedbridge.broker.BrokerException("broker " + brokerName() + ": replicateFrom on " + p.pattern()
                        + ": " + e.getMessage(), e);
            }
        }
    }

    /** Every replica queue with its source's URI. */
    public Map<String, String> replicaSources() {
        Map<String, String> m = new java.util.TreeMap<>();
        replicas.forEach((q, r) -> m.put(q, r.source()));
        return m;
    }

    private Properties registry() {
        Properties p = new Properties();
        Path f = registryFile();
        if (f != null && Files.exists(f)) {
            try (java.io.Reader in = Files.newBufferedReader(f, StandardCharsets.UTF_8)) {
                p.load(in);
            } catch (IOException e) {
                throw new io.fedbridge.broker.BrokerException("broker " + brokerName() + " cannot read " + f + ": " + e, e);
            }
        }
        return p;
    }

    private Path registryFile() {
        Path data = core.config.dataDirectory();
        return data == null ? null : data.resolve(REGISTRY);
    }

    /**
     * Records in the data directory that {@code queue} is a replica of {@code source} (or was promoted from one), so that
     * a restart resumes it (or leaves it promoted). Atomic: a crash leaves the old file or the new.
     */
    public void record(String queue, boolean replica, String source) {
        store(queue, queue, (replica ? REPLICA : PROMOTED) + " " + source);
    }

    /** The broker id of the source replica {@code queue} last followed (from its CONNECTED), or null. */
    public String sourceId(String queue) {
        return registry().getProperty(queue + SOURCE_ID);
    }

    public void recordSourceId(String queue, String brokerId) {
        store(queue, queue + SOURCE_ID, brokerId);
    }

    private synchronized void store(String queue, String key, String value) {
        Path f = registryFile();
        if (f == null) {
            throw new IllegalStateException("broker " + brokerName() + " has no data directory to record replica " + queue + " in");
        }
        Properties p = registry();
        p.setProperty(key, value);
        Path tmp = f.resolveSibling(REGISTRY + ".tmp");
        try {
            try (java.io.Writer out = Files.newBufferedWriter(tmp, StandardCharsets.UTF_8)) {
                p.store(out, "queues this broker replicates (fedbridge ha replicate); written by the broker");
            }
            Files.move(tmp, f, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            throw new IllegalStateException("broker " + brokerName() + " cannot record replica " + queue + " in " + f + ": " + e, e);
        }
    }

    /**
     * Makes {@code queue} a replica of {@code source} (creating it): it refuses sends and consumers from now on. The
     * messages it holds (recovered from the journal after a restart) are the replica's so far.
     *
     * @throws IllegalStateException naming the queue when it holds messages but was no replica, or replicates another source
     */
    public synchronized void startReplica(String queue, String source, boolean resume) {
        Replica r = replicas.get(queue);
        if (r != null) {
            if (!r.source().equals(source)) {
                throw new IllegalStateException("queue " + queue + " on broker " + brokerName() + " is already a replica of "
                        + masked(r.source()) + "; promote it before replicating it from " + masked(source));
            }
            return;
        }
        QueueDestination q = core.queue(queue);
        List<QueueEntry> held = q.content();
        if (!resume && !held.isEmpty()) {
            throw new IllegalStateException("queue " + queue + " on broker " + brokerName() + " already holds " + held.size()
                    + " message(s); a replica starts empty (move or purge them first)");
        }
        if (q.hasConsumers()) {
            throw new IllegalStateException("queue " + queue + " on broker " + brokerName() + " has consumers; a replica "
                    + "refuses them (close them first)");
        }
        Map<Long, QueueEntry> entries = new ConcurrentHashMap<>();
        for (QueueEntry e : held) {
            entries.put(e.message.sequence, e);
        }
        replicas.put(queue, new Replica(source, q, entries));
    }

    public boolean isReplica(String queue) {
        return replicas.containsKey(queue);
    }

    /** The source's sequences of the messages replica {@code queue} holds. */
    public Set<Long> replicaSequences(String queue) {
        return Set.copyOf(replica(queue).entries().keySet());
    }

    /** How many messages replica {@code queue} holds. */
    public int replicaSize(String queue) {
        return replica(queue).entries().size();
    }

    /** Stores and enqueues a message of the source (nothing if it holds it already); completes once it is durable. */
    public CompletableFuture<Void> replicaAdd(String queue, StoredMessage m) {
        Replica r = replica(queue);
        if (r.entries().containsKey(m.sequence())) {
            return BrokerCore.DONE;
        }
        BrokerMessage bm = BrokerMessage.fromStored(m);
        QueueEntry e = new QueueEntry(bm, queue, m.redeliveryCount());
        r.entries().put(m.sequence(), e);
        core.sequenceAtLeast(m.sequence()); // messages sent here after a promotion come after these
        if (bm.federationId != null) {
            core.dedupe.recovered(bm.federationId, bm.headers.get(io.fedbridge.core.FederationHeaders.REPLAYS) != null);
        }
        core.memory.reserve(bm.size);
        CompletableFuture<Void> stored = core.store.add(queue, m);
        r.queue().enqueue(e); // no consumer may take it while the queue is a replica
        return stored;
    }

    /** Removes a message the source removed; completes once the removal is durable. */
    public CompletableFuture<Void> replicaRemove(String queue, long sequence) {
        Replica r = replica(queue);
        QueueEntry e = r.entries().remove(sequence);
        if (e == null || !r.queue().removePending(e)) {
            return BrokerCore.DONE;
        }
        CompletableFuture<Void> f = core.release(e);
        return f == null ? BrokerCore.DONE : f;
    }

    public void replicaRedelivery(String queue, long sequence, int count) {
        Replica r = replica(queue);
        QueueEntry e = r.entries().get(sequence);
        if (e != null) {
            synchronized (r.queue()) {
                e.redeliveryCount = count;
            }
            core.store.updateRedeliveryCount(queue, sequence, count);
        }
    }

    /** Makes replica {@code queue} an ordinary queue, in the source's order; returns how many messages it holds. */
    public synchronized int promote(String queue) {
        Replica r = replicas.remove(queue);
        if (r == null) {
            throw new IllegalStateException("queue " + queue + " on broker " + brokerName() + " is not a replica");
        }
        r.queue().sortPendingBySequence();
        r.queue().dispatch();
        return r.entries().size();
    }

    private Replica replica(String queue) {
        Replica r = replicas.get(queue);
        if (r == null) {
            throw new IllegalStateException("queue " + queue + " on broker " + brokerName() + " is not a replica");
        }
        return r;
    }

    /** {@code uri} with its secrets (passcode, …) masked: what clients and logs are shown. */
    private static String masked(String uri) {
        return io.fedbridge.core.uri.CompositeUri.parse(uri).toString();
    }

    /** Null if a client may send to {@code destination}; else why not (it is a replica). */
    String refuseSend(String destination) {
        Replica r = replicas.isEmpty() ? null : replicas.get(destination);
        return r == null ? null : destination + " on broker " + brokerName() + " is a read-only replica of the queue on "
                + masked(r.source()) + " (fedbridge ha replicate); send to the source, or promote the replica first";
    }

    /** Null if a client may consume from {@code destination}; else why not (it is a replica). */
    String refuseConsumer(String destination) {
        Replica r = replicas.isEmpty() ? null : replicas.get(destination);
        return r == null ? null : destination + " on broker " + brokerName() + " is a read-only replica of the queue on "
                + masked(r.source()) + " (fedbridge ha replicate); consume from the source, or promote the replica first";
    }

    /** Refuses management's changes (purge, move, delete) of a replica queue, naming it. */
    void requireNotReplica(String queue, String method) {
        Replica r = replicas.isEmpty() ? null : replicas.get(queue);
        if (r != null) {
            throw io.fedbridge.broker.management.ManagementException.badRequest("cannot " + method + " " + queue + " on broker "
                    + brokerName() + ": it is a read-only replica of the queue on " + masked(r.source()) + "; promote it first");
        }
    }

    @Override
    public void close() {
        Plugin p = plugin;
        if (p != null) {
            p.close();
        }
    }

    /**
     * Null if a CONNECT asking for a queue's stream ({@link #SOURCE_HEADER}) may have it: a federation link holding
     * {@code federate} on the queue, on a broker with module fedbridge-ha; else why not, for the ERROR frame.
     */
    String refuseSource(StompHeaders connect, io.fedbridge.broker.security.Identity identity, boolean federationLink,
                        io.fedbridge.broker.security.internal.SecurityGuard guard) {
        String queue = connect.get(SOURCE_HEADER);
        if (!queue.startsWith(Destinations.QUEUE) || Destinations.validate(queue) != null || Destinations.isWildcard(queue)) {
            return SOURCE_HEADER + " must name a queue such as /queue/orders, but was '" + queue + "'";
        }
        if (!federationLink) {
            return SOURCE_HEADER + " needs a link that holds the federation right (" + io.fedbridge.core.FederationHeaders.FEDERATE + ")";
        }
        if (!guard.mayFederate(identity, true, queue)) {
            return "user '" + identity.name() + "' has no federate permission on " + queue + " (a queue replica needs it)";
        }
        String denied = guard.denySubscribe(identity, true, queue);
        if (denied != null) {
            return denied;
        }
        if (connect.get("client-id") != null) {
            return "a queue replica's link must not claim a client-id";
        }
        return plugin == null ? "broker " + brokerName() + " cannot serve queue replicas: module fedbridge-ha "
                + "(io.fedbridge:fedbridge-ha) is not on its class path" : null;
    }

    ChannelHandler newSourceHandler(StompHeaders connect) {
        return plugin.newSourceHandler(connect.get(SOURCE_HEADER), connect);
    }
}
