package io.fedbridge.ha.internal;

import io.fedbridge.broker.Broker;
import io.fedbridge.broker.BrokerException;
import io.fedbridge.broker.DestinationPolicy;
import io.fedbridge.broker.internal.QueueReplicas;
import io.fedbridge.core.StompHeaders;
import io.fedbridge.core.uri.CompositeUri;
import io.netty.channel.ChannelHandler;
import java.io.IOException;
import java.io.Reader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A broker's single-queue replication, both ways: the queues other brokers replicate from it ({@link QueueSource}),
 * and the queues it replicates from others ({@link QueueReplica}). Which queues are replicas survives a restart in
 * {@code DATA/queue-replicas.properties} ({@code /queue/x = replica tcp://…} or {@code promoted tcp://…}); a
 * {@code replicateFrom} policy key starts one at start-up, unless that queue was promoted since.
 *
 * <p>Thread-safe: management calls are serialised on this object; replicas run on one scheduler thread of their own,
 * started when the first replica or source needs it.
 */
public final class QueueReplicator implements QueueReplicas.Plugin {

    private static final Logger LOG = LoggerFactory.getLogger(QueueReplicator.class);
    /** How long {@code replicate} waits for the source to take the link. */
    static final long FIRST_JOIN_SECONDS = 10;
    private static final String REPLICA = "replica";
    private static final String PROMOTED = "promoted";

    private final Broker broker;
    private final QueueReplicas replicas;
    private final Path registry;
    private final Map<String, QueueSource> sources = new ConcurrentHashMap<>();
    private final Map<String, QueueReplica> links = new ConcurrentHashMap<>();
    private final Object schedulerLock = new Object();
    private ScheduledExecutorService scheduler;
    private boolean closed;

    private QueueReplicator(Broker broker) {
        this.broker = broker;
        this.replicas = broker.queueReplicas();
        Path data = broker.config().dataDirectory();
        this.registry = data == null ? null : data.resolve("queue-replicas.properties");
    }

    /** Plugs replication into {@code broker} and resumes its replicas (from its data directory and its policies). */
    public static QueueReplicator install(Broker broker) {
        QueueReplicator r = new QueueReplicator(broker);
        broker.queueReplicas().plugin(r);
        r.resume();
        return r;
    }

    private synchronized void resume() {
        Properties known = load();
        Map<String, String> wanted = new LinkedHashMap<>();
        for (String queue : known.stringPropertyNames()) {
            String[] v = known.getProperty(queue).split(" ", 2);
            if (v[0].equals(REPLICA) && v.length == 2) {
                wanted.put(queue, v[1]);
            }
        }
        for (DestinationPolicy p : broker.config().policies()) {
            if (p.replicateFrom() == null) {
                continue;
            }
            String was = known.getProperty(p.pattern(), "");
            if (was.startsWith(PROMOTED + " ")) {
                LOG.warn("broker {}: queue {} was promoted from a replica of {}; it stays an ordinary queue (remove "
                        + "replicateFrom from its policy)", broker.name(), p.pattern(), was.substring(PROMOTED.length() + 1));
                continue;
            }
            if (registry == null) {
                throw new BrokerException("broker " + broker.name() + ": replicateFrom on " + p.pattern() + " needs a data "
                        + "directory (data = ...): a replica keeps what it copies in its journal");
            }
            wanted.put(p.pattern(), p.replicateFrom());
        }
        for (Map.Entry<String, String> e : wanted.entrySet()) {
            String queue = e.getKey();
            boolean resumed = known.getProperty(queue, "").equals(REPLICA + " " + e.getValue());
            try {
                replicas.startReplica(queue, e.getValue(), resumed);
            } catch (IllegalStateException ex) {
                throw new BrokerException("broker " + broker.name() + " cannot replicate " + queue + " from " + e.getValue()
                        + ": " + ex.getMessage(), ex);
            }
            record(queue, REPLICA + " " + e.getValue());
            startLink(queue, e.getValue());
        }
    }

    private QueueReplica startLink(String queue, String from) {
        QueueReplica r = new QueueReplica(queue, from, broker.name(), broker.config().security().federationSecret(), replicas,
                scheduler());
        links.put(queue, r);
        r.start();
        return r;
    }

    @Override
    public ChannelHandler newSourceHandler(String queue, StompHeaders connect) {
        QueueSource s = sources.computeIfAbsent(queue, q -> {
            QueueSource created = new QueueSource(broker.name(), q, replicas, scheduler());
            scheduler().scheduleWithFixedDelay(created::checkTimeouts, 100, 100, TimeUnit.MILLISECONDS);
            return created;
        });
        String member = connect.get(Replication.MEMBER);
        return s.newLink(member == null ? "?" : member);
    }

    @Override
    public synchronized Map<String, Object> replicate(String queue, String from) {
        if (queue == null || !queue.startsWith("/queue/") || queue.indexOf('*') >= 0 || queue.indexOf('>') >= 0) {
            throw new IllegalArgumentException("queue must be a queue such as /queue/orders, but was "
                    + (queue == null ? "missing" : "'" + queue + "'"));
        }
        if (from == null || CompositeUri.parse(from).isComposite()) {
            throw new IllegalArgumentException("from must be the source broker's URI such as tcp://host:61613, but was "
                    + (from == null ? "missing" : "'" + from + "'"));
        }
        if (registry == null) {
            throw new IllegalStateException("broker " + broker.name() + " cannot keep a replica of " + queue + ": it has no "
                    + "data directory (data = ...), and a replica keeps what it copies in its journal");
        }
        QueueReplica existing = links.get(queue);
        if (existing != null && existing.source().equals(from)) {
            return existing.status();
        }
        replicas.startReplica(queue, from, false); // names the queue when it holds messages or has another source
        QueueReplica r = startLink(queue, from);
        try {
            r.firstJoin().get(FIRST_JOIN_SECONDS, TimeUnit.SECONDS);
        } catch (ExecutionException | TimeoutException | InterruptedException e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            links.remove(queue);
            r.close();
            replicas.promote(queue); // empty: just no replica any more
            String why = e instanceof ExecutionException ? e.getCause().getMessage() : "no answer within " + FIRST_JOIN_SECONDS + " s";
            throw new IllegalStateException("cannot replicate " + queue + " from " + CompositeUri.parse(from) + " on broker "
                    + broker.name() + ": " + why);
        }
        record(queue, REPLICA + " " + from);
        LOG.info("broker {}: replicating {} from {}", broker.name(), queue, CompositeUri.parse(from));
        return r.status();
    }

    @Override
    public synchronized Map<String, Object> promote(String queue, boolean force) {
        QueueReplica r = links.get(queue);
        if (r == null) {
            throw new IllegalStateException("queue " + queue + " on broker " + broker.name() + " is not a replica");
        }
        QueueReplica.State was = r.stop(force);
        links.remove(queue);
        int messages = replicas.promote(queue);
        r.promoted();
        record(queue, PROMOTED + " " + r.source());
        LOG.info("broker {}: promoted replica {} (was {}) to an ordinary queue with {} message(s)", broker.name(), queue,
                was.label(), messages);
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("destination", queue);
        m.put("promoted", true);
        m.put("messages", messages);
        m.put("was", was.label());
        m.put("from", CompositeUri.parse(r.source()).toString());
        if (was != QueueReplica.State.READY) {
            m.put("warning", "the replica was in state " + was.label() + ": messages its source removed while it was away "
                    + "may be back, and messages the source took after its last copy are missing");
        }
        return m;
    }

    @Override
    public List<Map<String, Object>> status() {
        List<Map<String, Object>> l = new ArrayList<>();
        for (QueueReplica r : links.values()) {
            l.add(r.status());
        }
        l.sort(java.util.Comparator.comparing(m -> (String) m.get("destination")));
        return l;
    }

    private ScheduledExecutorService scheduler() {
        synchronized (schedulerLock) {
            if (scheduler == null) {
                scheduler = Executors.newSingleThreadScheduledExecutor(r -> {
                    Thread t = new Thread(r, "fedbridge-" + broker.name() + "-replication");
                    t.setDaemon(true);
                    return t;
                });
            }
            return scheduler;
        }
    }

    private Properties load() {
        Properties p = new Properties();
        if (registry != null && Files.exists(registry)) {
            try (Reader in = Files.newBufferedReader(registry, StandardCharsets.UTF_8)) {
                p.load(in);
            } catch (IOException e) {
                throw new BrokerException("broker " + broker.name() + " cannot read " + registry + ": " + e, e);
            }
        }
        return p;
    }

    /** Records a queue's replication state in the data directory (atomically: a crash leaves the old file or the new). */
    private void record(String queue, String value) {
        Properties p = load();
        p.setProperty(queue, value);
        Path tmp = registry.resolveSibling(registry.getFileName() + ".tmp");
        try {
            try (Writer out = Files.newBufferedWriter(tmp, StandardCharsets.UTF_8)) {
                p.store(out, "queues this broker replicates (fedbridge ha replicate); written by the broker");
            }
            Files.move(tmp, registry, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            throw new IllegalStateException("broker " + broker.name() + " cannot record replica " + queue + " in " + registry
                    + ": " + e, e);
        }
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        for (QueueReplica r : links.values()) {
            r.close();
        }
        synchronized (schedulerLock) {
            if (scheduler != null) {
                scheduler.shutdownNow();
            }
        }
    }
}
