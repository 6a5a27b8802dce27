package io.fedbridge.ha.internal;

import io.fedbridge.broker.Broker;
import io.fedbridge.broker.internal.QueueReplicas;
import io.fedbridge.core.StompHeaders;
import io.fedbridge.core.uri.CompositeUri;
import io.netty.channel.ChannelHandler;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
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
 * and the queues it replicates from others ({@link QueueReplica}). The broker marks its replicas at start-up (those it
 * had, and those a {@code replicateFrom} policy asks for) and records changes in its data directory; this connects
 * them to their sources.
 *
 * <p>Thread-safe: management calls are serialised on this object; replicas run on one scheduler thread of their own,
 * started when the first replica or source needs it.
 */
public final class QueueReplicator implements QueueReplicas.Plugin {

    private static final Logger LOG = LoggerFactory.getLogger(QueueReplicator.class);
    /** How long {@code replicate} waits for the source to take the link. */
    static final long FIRST_JOIN_SECONDS = 10;

    private final Broker broker;
    private final QueueReplicas replicas;
    private final Map<String, QueueSource> sources = new ConcurrentHashMap<>();
    private final Map<String, QueueReplica> links = new ConcurrentHashMap<>();
    private final Object schedulerLock = new Object();
    private ScheduledExecutorService scheduler;
    private boolean closed;

    private QueueReplicator(Broker broker) {
        this.broker = broker;
        this.replicas = broker.queueReplicas();
    }

    /** Plugs replication into {@code broker} and resumes its replicas (from its data directory and its policies). */
    public static QueueReplicator install(Broker broker) {
        QueueReplicator r = new QueueReplicator(broker);
        broker.queueReplicas().plugin(r);
        r.resume();
        return r;
    }

    /** Connects the replicas the broker marked at start-up (see QueueReplicas#recover) to their sources. */
    private synchronized void resume() {
        replicas.replicaSources().forEach(this::startLink);
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
        if (broker.config().ha() != null) {
            throw new IllegalStateException("broker " + broker.name() + " is a member of HA group " + broker.config().ha().group()
                    + ": replicate single queues on brokers outside groups");
        }
        if (broker.config().dataDirectory() == null) {
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
        replicas.record(queue, true, from);
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
        replicas.record(queue, false, r.source());
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
