package io.fedbridge.ha.internal;

import io.fedbridge.broker.internal.QueueReplicas;
import io.fedbridge.broker.store.internal.JournalRecord;
import io.fedbridge.core.AckMode;
import io.fedbridge.core.ClientConfig;
import io.fedbridge.core.ConnectionListener;
import io.fedbridge.core.FederationHeaders;
import io.fedbridge.core.ReceivedMessage;
import io.fedbridge.core.StompConnection;
import io.fedbridge.core.StompErrorException;
import io.fedbridge.core.SubscriptionRequest;
import io.fedbridge.core.uri.CompositeUri;
import java.time.Duration;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One read-only replica of a queue of another broker (its <em>source</em>): connects to the source with the
 * federation right and {@code fedbridge-queue-replica: QUEUE}, and applies the source's stream — the queue's content,
 * then its live adds and removes — to the local queue of the same name, in this broker's journal. On every (re)join
 * the replica reconciles: what it held that the source's content no longer has is removed once the source says the
 * content was sent in full ({@code caught-up}); the replica is then READY, and the source receipts a send to the queue
 * only once the replica stored it.
 *
 * <p>One connection at a time; records are applied on its I/O thread, the rest on the replicator's scheduler thread.
 */
final class QueueReplica {

    private static final Logger LOG = LoggerFactory.getLogger(QueueReplica.class);
    private static final long MAX_RETRY_MILLIS = 2000;

    /** A replica's state, as status shows it. */
    enum State {
        CONNECTING, CATCHUP, READY, PROMOTED;

        String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    private final String queue;
    private final String source;
    /** The source's URI with its secrets masked, for logs and messages. */
    private final String shown;
    private final String broker;
    private final String federationSecret;
    private final QueueReplicas replicas;
    private final ScheduledExecutorService scheduler;
    private final CompletableFuture<Void> firstJoin = new CompletableFuture<>();
    private volatile boolean closed;
    private volatile State state = State.CONNECTING;
    private volatile StompConnection connection;
    private volatile String lastError;
    private volatile long stateSince = System.currentTimeMillis();
    private int attempt;
    // Per connection, on its I/O thread:
    private boolean catchingUp;
    private final Set<Long> unconfirmed = new HashSet<>();
    private final Set<Long> removedWhileCatchingUp = new HashSet<>();
    private CompletableFuture<Void> lastDurable = CompletableFuture.completedFuture(null);
    private final StoredAcks acks;

    QueueReplica(String queue, String source, String broker, String federationSecret, QueueReplicas replicas,
                 ScheduledExecutorService scheduler) {
        this.queue = queue;
        this.source = source;
        this.shown = CompositeUri.parse(source).toString();
        this.broker = broker;
        this.federationSecret = federationSecret;
        this.replicas = replicas;
        this.scheduler = scheduler;
        this.acks = new StoredAcks("replica " + queue + " on broker " + broker, scheduler, x -> x == connection);
    }

    String source() {
        return source;
    }

    State state() {
        return state;
    }

    /** Completes when the source first takes the link; fails with why it did not, if the first attempt failed. */
    CompletableFuture<Void> firstJoin() {
        return firstJoin;
    }

    void start() {
        scheduler.execute(this::connect);
    }

    private void state(State s) {
        state = s;
        stateSince = System.currentTimeMillis();
    }

    private void connect() {
        if (closed) {
            return;
        }
        StompConnection c;
        try {
            c = StompConnection.connect(clientConfig(), new ConnectionListener() {
                @Override
                public void onClosed(StompConnection connection, Throwable cause) {
                    scheduler.execute(() -> linkClosed(connection, cause));
                }
            });
            if (!join(c)) {
                retry();
                return;
            }
            attempt = 0;
            firstJoin.complete(null);
        } catch (RuntimeException e) {
            lastError = "source " + shown + ": " + (e instanceof StompErrorException se ? se.errorMessage() : String.valueOf(e.getMessage()));
            LOG.debug("replica {} on broker {}: {}", queue, broker, lastError);
            firstJoin.completeExceptionally(new IllegalStateException(lastError, e));
            retry();
        }
    }

    private void retry() {
        if (!closed) {
            attempt++;
            scheduler.schedule(this::connect, Math.min(MAX_RETRY_MILLIS, 100L * attempt), TimeUnit.MILLISECONDS);
        }
    }

    private ClientConfig clientConfig() {
        CompositeUri u = CompositeUri.parse(source);
        ClientConfig.Builder b = ClientConfig.builder(u)
                .heartBeats(Duration.ofSeconds(2))
                .connectTimeout(Duration.ofSeconds(2))
                .connectHeader(FederationHeaders.FEDERATE,
                        io.fedbridge.core.internal.FederationProof.create(federationSecret, java.time.Clock.systemUTC()))
                .connectHeader(QueueReplicas.SOURCE_HEADER, queue)
                .connectHeader(Replication.MEMBER, broker);
        b.options(new LinkedHashMap<>(u.options()), "replica source URI '" + shown + "'");
        return b.build();
    }

    /** The source took the link: note what the replica holds, subscribe; false if it is not to be followed. On the scheduler thread. */
    private boolean join(StompConnection c) {
        synchronized (this) {
            if (closed) {
                c.abort();
                return false;
            }
            connection = c;
        }
        Set<Long> held = replicas.replicaSequences(queue);
        String sourceId = c.connectedHeaders().get(FederationHeaders.BROKER_ID);
        String followed = replicas.sourceId(queue);
        if (sourceId != null && !sourceId.equals(followed)) {
            if (followed != null && !held.isEmpty()) {
                // Another broker answers at the source's address: its sequences say nothing of the copy, which may be
                // all that is left of the old source's queue. Never merge, never drop it: an operator decides.
                String why = shown + " is another broker now (id " + sourceId + ", was " + followed + "); this replica keeps "
                        + "its copy of the old one's queue and does not follow the new one: promote it";
                if (!why.equals(lastError)) {
                    LOG.warn("replica {} on broker {}: {}", queue, broker, why);
                }
                lastError = why;
                synchronized (this) {
                    connection = null;
                }
                c.closeAsync();
                return false;
            }
            replicas.recordSourceId(queue, sourceId);
        }
        // Read by the connection's I/O thread once it subscribes (the subscription hands them over).
        catchingUp = true;
        unconfirmed.clear();
        unconfirmed.addAll(held);
        removedWhileCatchingUp.clear();
        lastDurable = CompletableFuture.completedFuture(null);
        acks.reset();
        state(State.CATCHUP);
        LOG.info("replica {} on broker {}: following the queue on {}; catching up ({} message(s) held)", queue, broker, shown,
                held.size());
        c.subscribeOnIoThread(SubscriptionRequest.builder(QueueSource.destination(queue)).ackMode(AckMode.AUTO).build(),
                m -> onRecord(c, m));
        return true;
    }

    /** One record from the source, on the connection's I/O thread. */
    private void onRecord(StompConnection c, ReceivedMessage m) {
        acks.onRecord(c, m, record -> applyRecord(c, record), this::fail);
    }

    private CompletableFuture<Void> applyRecord(StompConnection c, ReceivedMessage m) {
        if (Replication.OP_CAUGHT_UP.equals(m.header(Replication.OP))) {
            catchingUp = false;
            removedWhileCatchingUp.clear();
            for (long gone : unconfirmed) { // removed at the source while this replica was away
                lastDurable = CompletableFuture.allOf(lastDurable, replicas.replicaRemove(queue, gone));
            }
            unconfirmed.clear();
            return lastDurable; // counted from now on; a complete copy once the primary says READY
        } else if (Replication.OP_READY.equals(m.header(Replication.OP))) {
            return lastDurable.thenRun(() -> becameReady(c));
        } else {
            return apply(Replication.decode(m.body()), "true".equals(m.header(Replication.CATCHUP)));
        }
    }

    private CompletableFuture<Void> apply(JournalRecord r, boolean catchup) {
        if (r instanceof JournalRecord.Add a) {
            requireQueue(a.key());
            long seq = a.message().sequence();
            if (catchup && removedWhileCatchingUp.contains(seq)) {
                return lastDurable; // removed since the source read its content
            }
            unconfirmed.remove(seq);
            return lastDurable = CompletableFuture.allOf(lastDurable, replicas.replicaAdd(queue, a.message()));
        } else if (r instanceof JournalRecord.Remove rm) {
            requireQueue(rm.key());
            if (catchingUp) {
                removedWhileCatchingUp.add(rm.sequence());
            }
            unconfirmed.remove(rm.sequence());
            return lastDurable = CompletableFuture.allOf(lastDurable, replicas.replicaRemove(queue, rm.sequence()));
        } else if (r instanceof JournalRecord.Redelivery rd) {
            requireQueue(rd.key());
            replicas.replicaRedelivery(queue, rd.sequence(), rd.count());
            return lastDurable;
        }
        throw new IllegalArgumentException("a queue's stream carries adds, removes and redelivery counts, not " + r);
    }

    private void requireQueue(String key) {
        if (!queue.equals(key)) {
            throw new IllegalArgumentException("record of " + key + " on the stream of " + queue);
        }
    }

    private void becameReady(StompConnection c) {
        if (c == connection && !closed) {
            state(State.READY);
            LOG.info("replica {} on broker {}: READY (a complete copy of the queue on {})", queue, broker, shown);
        }
    }

    private void fail(StompConnection c, String why) {
        lastError = why;
        LOG.warn("replica {} on broker {}: {}; joining again", queue, broker, why);
        c.closeAsync();
    }

    private void linkClosed(StompConnection c, Throwable cause) {
        synchronized (this) {
            if (c != connection) {
                return;
            }
            connection = null;
        }
        if (closed) {
            return;
        }
        String why = cause == null ? "closed" : cause instanceof StompErrorException se ? se.errorMessage() : cause.toString();
        lastError = "lost source " + shown + ": " + why;
        LOG.warn("replica {} on broker {}: {}; it keeps its copy and reconnects", queue, broker, lastError);
        if (state != State.READY) {
            state(State.CONNECTING); // a READY replica keeps a complete copy of what its source receipted: still READY
        }
        retry();
    }

    /**
     * Stops following the source before a promotion; refused (IllegalStateException naming why) while a READY replica
     * still follows a live source, unless {@code force}. Returns the state it was in.
     */
    synchronized State stop(boolean force) {
        State was = state;
        StompConnection c = connection;
        if (!force && c != null && c.isConnected()) {
            throw new IllegalStateException("replica " + queue + " on broker " + broker + " still follows the live queue on "
                    + shown + " (state " + was.label() + "); promoting it would put the queue's messages on both brokers. "
                    + "Stop the source first, or use --force");
        }
        close();
        return was;
    }

    synchronized void close() {
        closed = true;
        StompConnection c = connection;
        connection = null;
        if (c != null) {
            c.abort();
        }
        firstJoin.completeExceptionally(new IllegalStateException("replica " + queue + " closed"));
    }

    void promoted() {
        state(State.PROMOTED);
    }

    /** What {@code fedbridge ha replicate --status} and {@code get replica} show. */
    Map<String, Object> status() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("destination", queue);
        m.put("from", shown);
        m.put("state", state.label());
        m.put("since", stateSince);
        m.put("messages", state == State.PROMOTED ? 0 : replicas.replicaSize(queue));
        StompConnection c = connection;
        m.put("connected", c != null && c.isConnected());
        m.put("storedRecords", acks.count());
        m.put("lastError", lastError);
        return m;
    }
}
