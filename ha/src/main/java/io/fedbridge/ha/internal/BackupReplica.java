package io.fedbridge.ha.internal;

import io.fedbridge.broker.HaConfig;
import io.fedbridge.broker.MessageStore.DurableSubscriptionInfo;
import io.fedbridge.broker.internal.HaGate;
import io.fedbridge.broker.store.JournalMessageStore;
import io.fedbridge.broker.store.StoreConfig;
import io.fedbridge.broker.store.internal.JournalRecord;
import io.fedbridge.core.AckMode;
import io.fedbridge.core.ClientConfig;
import io.fedbridge.core.ConnectionListener;
import io.fedbridge.core.FederationHeaders;
import io.fedbridge.core.ReceivedMessage;
import io.fedbridge.core.StompConnection;
import io.fedbridge.core.StompErrorException;
import io.fedbridge.core.StompHeaders;
import io.fedbridge.core.SubscriptionRequest;
import io.fedbridge.core.uri.CompositeUri;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A backup's side of replication: finds the primary among the group's members, and copies its store into this
 * member's journal. Joining a primary always starts from an empty journal (a backup that was itself primary, or
 * followed another, may hold what this primary never had: it resynchronises, never merges).
 *
 * <p>One connection at a time; everything runs on the replica's scheduler thread and the connection's I/O thread.
 */
public final class BackupReplica implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(BackupReplica.class);

    /** What the member hears from its replica. */
    public interface Listener {
        /** A primary took this backup: about to wipe the journal (the member leaves any election first). */
        void joining(String primaryUri, String primaryBrokerId, long epoch);

        /** The journal holds the primary's whole state and follows it. */
        void ready();

        /** The link to the primary is gone; {@code wasReady}: the journal holds every record the primary receipted. */
        void lost(String primaryUri, boolean wasReady, String why);
    }

    private final String member;
    private final HaConfig ha;
    private final DataDirectory data;
    private final StoreConfig storeConfig;
    private final String federationSecret;
    private final Listener listener;
    private final ScheduledExecutorService scheduler;
    private volatile boolean closed;
    private volatile StompConnection connection;
    private volatile JournalMessageStore store;
    private volatile String primaryUri;
    private volatile String lastError;
    private volatile boolean ready;
    // Per connection, on its I/O thread:
    private boolean catchingUp;
    private final Set<String> removedWhileCatchingUp = new HashSet<>();
    private CompletableFuture<Void> lastDurable = CompletableFuture.completedFuture(null);
    private final StoredAcks acks;
    private int attempt;
    /** A round is scheduled (scheduler thread only): rounds never overlap, so the journal is never wiped twice. */
    private boolean roundPending;

    public BackupReplica(String member, HaConfig ha, DataDirectory data, StoreConfig storeConfig, String federationSecret,
                         Listener listener, ScheduledExecutorService scheduler) {
        this.member = member;
        this.ha = ha;
        this.data = data;
        this.storeConfig = storeConfig;
        this.federationSecret = federationSecret;
        this.listener = listener;
        this.scheduler = scheduler;
        this.acks = new StoredAcks("HA backup " + member, scheduler, x -> x == connection);
    }

    public void start() {
        scheduler.execute(() -> scheduleRound(0));
    }

    /** Scheduler thread only. */
    private void scheduleRound(long delayMillis) {
        if (roundPending || closed) {
            return;
        }
        roundPending = true;
        scheduler.schedule(() -> {
            roundPending = false;
            connectRound();
        }, delayMillis, TimeUnit.MILLISECONDS);
    }

    public String primaryUri() {
        return primaryUri;
    }

    public String lastError() {
        return lastError;
    }

    /** True while the journal holds a complete copy (READY, and not dropped by the primary since). */
    public boolean isReady() {
        return ready;
    }

    public boolean isConnected() {
        StompConnection c = connection;
        return c != null && c.isConnected();
    }

    public long storedRecords() {
        return acks.count();
    }

    /** Tries each member in turn; the primary takes us, the others refuse. Then again, after a pause. */
    private void connectRound() {
        StompConnection current = connection;
        if (closed || current != null && current.isConnected()) {
            return;
        }
        for (String uri : ha.brokers()) {
            if (closed) {
                return;
            }
            StompConnection c;
            try {
                c = StompConnection.connect(clientConfig(uri), new ConnectionListener() {
                    @Override
                    public void onClosed(StompConnection connection, Throwable cause) {
                        scheduler.execute(() -> linkClosed(connection, cause));
                    }
                });
            } catch (RuntimeException e) {
                String why = e instanceof StompErrorException se ? se.errorMessage() : String.valueOf(e.getMessage());
                LOG.debug("HA backup {}: {} did not take it: {}", member, uri, why);
                if (why != null && why.contains("epoch")) {
                    lastError = uri + ": " + why;
                }
                continue;
            }
            if (join(uri, c)) {
                attempt = 0;
                return;
            }
        }
        attempt++;
        scheduleRound(Math.min(1000, 100L * attempt));
    }

    private ClientConfig clientConfig(String uri) {
        CompositeUri u = CompositeUri.parse(uri);
        ClientConfig.Builder b = ClientConfig.builder(u)
                .heartBeats(Duration.ofSeconds(2))
                .connectTimeout(Duration.ofSeconds(2))
                .connectHeader(FederationHeaders.FEDERATE,
                        io.fedbridge.core.internal.FederationProof.create(federationSecret, java.time.Clock.systemUTC()))
                .connectHeader(HaGate.BACKUP_HEADER, ha.group())
                .connectHeader(Replication.MEMBER, member)
                .connectHeader(Replication.MEMBER_EPOCH, Long.toString(data.epoch()));
        b.options(new java.util.LinkedHashMap<>(u.options()), "ha.brokers URI '" + uri + "'");
        return b.build();
    }

    /** The primary answered: check its epoch, wipe, subscribe. On the scheduler thread. */
    private boolean join(String uri, StompConnection c) {
        StompHeaders h = c.connectedHeaders();
        long epoch;
        try {
            epoch = Long.parseLong(h.get(Replication.EPOCH));
        } catch (NumberFormatException | NullPointerException e) {
            lastError = uri + " answered a backup's CONNECT without " + Replication.EPOCH;
            LOG.warn("HA backup {}: {}", member, lastError);
            c.close();
            return false;
        }
        if (epoch < data.epoch()) {
            lastError = uri + " claims to be primary with epoch " + epoch + ", from the past (this member has seen epoch "
                    + data.epoch() + "): ignored";
            LOG.warn("HA backup {}: {}", member, lastError);
            c.close();
            return false;
        }
        String brokerId = h.get(FederationHeaders.BROKER_ID);
        try {
            listener.joining(uri, brokerId, epoch);
            JournalMessageStore old = store;
            store = null;
            if (old != null) {
                old.close();
            }
            data.wipeForReplica(brokerId, epoch);
            store = JournalMessageStore.open(storeConfig);
        } catch (RuntimeException e) {
            lastError = "cannot prepare the journal for replication: " + e.getMessage();
            LOG.error("HA backup {}: {}", member, lastError, e);
            c.close();
            return false;
        }
        primaryUri = uri;
        connection = c;
        ready = false;
        catchingUp = true;
        removedWhileCatchingUp.clear();
        lastDurable = CompletableFuture.completedFuture(null);
        acks.reset();
        LOG.info("HA backup {}: following primary {} (epoch {}); catching up", member, uri, epoch);
        try {
            c.subscribeOnIoThread(SubscriptionRequest.builder(Replication.DESTINATION_PREFIX + ha.group())
                    .ackMode(AckMode.AUTO).build(), m -> onRecord(c, m));
        } catch (RuntimeException e) {
            lastError = "cannot subscribe to the replication stream of " + uri + ": " + e.getMessage();
            connection = null;
            c.abort();
            scheduleRound(100);
            return true; // this round is over: the next one starts from scratch
        }
        return true;
    }

    /** One record from the primary, on the connection's I/O thread. */
    private void onRecord(StompConnection c, ReceivedMessage m) {
        acks.onRecord(c, m, record -> applyRecord(c, record), this::fail);
    }

    private CompletableFuture<Void> applyRecord(StompConnection c, ReceivedMessage m) {
        long epoch = Long.parseLong(m.header(Replication.EPOCH));
        if (epoch < data.epoch()) {
            throw new IllegalArgumentException("record of epoch " + epoch + " after epoch " + data.epoch());
        }
        if (Replication.OP_CAUGHT_UP.equals(m.header(Replication.OP))) {
            catchingUp = false;
            removedWhileCatchingUp.clear();
            return lastDurable; // counted from now on; a complete copy once the primary says READY
        } else if (Replication.OP_READY.equals(m.header(Replication.OP))) {
            return lastDurable.thenRun(() -> becameReady(c));
        } else {
            return apply(Replication.decode(m.body()), "true".equals(m.header(Replication.CATCHUP)));
        }
    }

    private CompletableFuture<Void> apply(JournalRecord r, boolean catchup) {
        JournalMessageStore s = store;
        if (r instanceof JournalRecord.Group g) {
            // a transaction of the primary: one unit of this journal too, so a promotion finds all of it or none
            s.atomically(() -> g.records().forEach(grouped -> apply(grouped, catchup)));
            return lastDurable;
        } else if (r instanceof JournalRecord.Add a) {
            if (catchup && (removedWhileCatchingUp.contains(a.key() + '\u0000' + a.message().sequence())
                    || removedWhileCatchingUp.contains(a.key()))) {
                return lastDurable; // removed since the state was read
            }
            return lastDurable = s.add(a.key(), a.message());
        } else if (r instanceof JournalRecord.Remove rm) {
            if (catchingUp) {
                removedWhileCatchingUp.add(rm.key() + '\u0000' + rm.sequence());
            }
            return lastDurable = s.remove(rm.key(), rm.sequence(), rm.consumedHere());
        } else if (r instanceof JournalRecord.Redelivery rd) {
            s.updateRedeliveryCount(rd.key(), rd.sequence(), rd.count());
            return lastDurable;
        } else if (r instanceof JournalRecord.SubscriptionSave save) {
            DurableSubscriptionInfo info = save.info();
            if (catchup && removedWhileCatchingUp.contains(info.key())) {
                return lastDurable;
            }
            s.saveDurableSubscription(info);
            return lastDurable;
        } else if (r instanceof JournalRecord.SubscriptionRemove rm) {
            if (catchingUp) {
                removedWhileCatchingUp.add(rm.key());
            }
            s.removeDurableSubscription(rm.key());
            return lastDurable;
        }
        throw new IllegalArgumentException("unknown replication record " + r);
    }

    private void becameReady(StompConnection c) {
        if (c != connection) {
            return;
        }
        ready = true;
        LOG.info("HA backup {}: READY (a complete copy of primary {})", member, primaryUri);
        listener.ready();
    }

    private void fail(StompConnection c, String why) {
        lastError = why;
        LOG.warn("HA backup {}: {}; leaving primary {}", member, why, primaryUri);
        ready = false;
        c.closeAsync();
    }

    private void linkClosed(StompConnection c, Throwable cause) {
        if (c != connection) {
            return;
        }
        connection = null;
        String why = cause == null ? "closed" : cause instanceof StompErrorException se ? se.errorMessage() : cause.toString();
        if (!closed) {
            LOG.warn("HA backup {}: lost primary {}: {}", member, primaryUri, why);
            lastError = "lost primary " + primaryUri + ": " + why;
            // An ERROR is the primary dropping this backup (too slow, fenced): its copy is no longer complete. A
            // connection that just broke may be the primary's death: the copy holds everything it receipted.
            boolean stillComplete = ready && !(cause instanceof StompErrorException);
            ready = stillComplete;
            listener.lost(primaryUri, stillComplete, why);
            scheduleRound(100);
        }
    }

    /** Stops following (before a promotion): closes the connection, then the journal; waits for both. */
    @Override
    public void close() {
        closed = true;
        StompConnection c = connection;
        connection = null;
        if (c != null) {
            c.abort();
        }
        CompletableFuture<Void> last = lastDurable;
        try {
            last.get(5, TimeUnit.SECONDS);
        } catch (Exception e) {
            LOG.debug("HA backup {}: last write before close: {}", member, e.toString());
        }
        JournalMessageStore s = store;
        store = null;
        if (s != null) {
            s.close();
        }
    }

    /** Every member URI, for error messages. */
    public List<String> members() {
        return ha.brokers();
    }
}
