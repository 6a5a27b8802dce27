package io.fedbridge.ha.internal;

import io.fedbridge.broker.store.StoreException;
import io.fedbridge.broker.store.internal.JournalRecord;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The primary's side of replication: numbers every store operation, hands it to every backup's link, and completes
 * an operation that waits (a receipted send, a receipted ACK) once every backup in state READY has stored it.
 *
 * <p>Thread-safe. {@link #publish} holds one lock just long enough to number an operation and queue it on each link,
 * so every link sees the operations in the order of their numbers; the links write them on their own I/O threads.
 */
public final class ReplicationHub {

    private static final Logger LOG = LoggerFactory.getLogger(ReplicationHub.class);
    private static final CompletableFuture<Void> DONE = CompletableFuture.completedFuture(null);

    /** Decides whether a READY backup that stopped answering may be dropped (with ZooKeeper: recorded there first). */
    public interface ReadySet {
        /** The READY set is now {@code members}: true once that is recorded where promotion looks. */
        boolean update(List<String> members);
    }

    private record Waiter(CompletableFuture<Void> future, long sinceNanos) {
    }

    private final String broker;
    private final long epoch;
    private final Duration backupTimeout;
    private final ReadySet readySet;
    private final Object lock = new Object();
    private long nextIndex = 1;
    private final List<ReplicationLink> links = new CopyOnWriteArrayList<>();
    private final ConcurrentSkipListMap<Long, Waiter> waiting = new ConcurrentSkipListMap<>();
    /**
     * READY backups whose link closed, while the READY set without them is not yet recorded: their last
     * acknowledgement still bounds what completes (they may be promoted until the record says otherwise).
     */
    private final java.util.Set<ReplicationLink> leaving = java.util.concurrent.ConcurrentHashMap.newKeySet();
    private final java.util.concurrent.Executor recorder;
    private volatile String fenced;
    private volatile String lastError;

    /**
     * @param readySet where the READY set is recorded before a READY backup stops counting (null: nowhere, promotion
     *                 is by hand)
     * @param recorder the thread that records it (it may block on ZooKeeper)
     */
    public ReplicationHub(String broker, long epoch, Duration backupTimeout, ReadySet readySet, java.util.concurrent.Executor recorder) {
        this.broker = broker;
        this.epoch = epoch;
        this.backupTimeout = backupTimeout;
        this.readySet = readySet;
        this.recorder = recorder;
    }

    public long epoch() {
        return epoch;
    }

    /**
     * Queues {@code record} on every link. With {@code wait}, the future completes once every READY backup stored it
     * (at once without READY backups); it fails once the hub is fenced.
     */
    public CompletableFuture<Void> publish(JournalRecord record, boolean wait) {
        String why = fenced;
        if (why != null) {
            return CompletableFuture.failedFuture(new StoreException(why));
        }
        if (links.isEmpty() && leaving.isEmpty()) {
            return DONE; // no backup, none that may still be promoted: the journal alone
        }
        byte[] body = Replication.encode(record);
        CompletableFuture<Void> f = null;
        synchronized (lock) {
            long index = nextIndex++;
            boolean anyReady = !leaving.isEmpty();
            for (ReplicationLink l : links) {
                anyReady |= l.isReady();
            }
            if (wait && anyReady) {
                // Registered before the record can reach a backup: an acknowledgement that comes back at once must
                // find it (else it waits for the next acknowledgement, which a lone producer never causes).
                f = new CompletableFuture<>();
                waiting.put(index, new Waiter(f, System.nanoTime()));
            }
            for (ReplicationLink l : links) {
                l.enqueue(index, body);
            }
        }
        if (f != null) {
            settle(); // a link that turned READY meanwhile may already be past it
        }
        return f == null ? DONE : f;
    }

    /** Numbers the caught-up marker of one link, in sequence with every other record. */
    long markCaughtUp(ReplicationLink link) {
        synchronized (lock) {
            long index = nextIndex++;
            link.enqueueMarker(index);
            return index;
        }
    }

    /** The last number given to a record. */
    long head() {
        synchronized (lock) {
            return nextIndex - 1;
        }
    }

    void register(ReplicationLink link) {
        synchronized (lock) {
            links.add(link);
        }
        LOG.info("broker {}: HA backup {} joined (epoch {}): catching up", broker, link.member(), epoch);
    }

    void unregister(ReplicationLink link, String why) {
        boolean wasReady = link.isReady();
        if (wasReady) {
            LOG.warn("broker {}: HA backup {} left the READY set: {}", broker, link.member(), why);
            lastError = "backup " + link.member() + ": " + why;
            if (readySet != null && fenced == null) {
                leaving.add(link);
                links.remove(link);
                recordReadySet();
                return;
            }
        } else {
            LOG.info("broker {}: HA backup {} left: {}", broker, link.member(), why);
        }
        links.remove(link);
        settle();
    }

    /** {@code link} holds a complete copy: tell the backup (in sequence with the records), then record it. */
    void becameReady(ReplicationLink link) {
        LOG.info("broker {}: HA backup {} is READY", broker, link.member());
        synchronized (lock) {
            link.enqueueReady(nextIndex++);
        }
        settle();
        if (readySet != null) {
            recordReadySet();
        }
    }

    /** Records the READY set (without the leaving backups), then stops counting the leaving ones. */
    private final java.util.concurrent.atomic.AtomicBoolean recording = new java.util.concurrent.atomic.AtomicBoolean();

    private void recordReadySet() {
        if (!recording.compareAndSet(false, true)) {
            return; // the recording under way reads the READY set as it is when it runs; checkTimeouts tries again
        }
        recorder.execute(() -> {
            recording.set(false);
            if (fenced != null) {
                return;
            }
            List<ReplicationLink> gone = List.copyOf(leaving);
            if (readySet.update(readyMembers())) {
                gone.forEach(leaving::remove);
                settle();
            } else {
                LOG.warn("broker {}: could not record the READY set {}; receipts wait for {}", broker, readyMembers(),
                        gone.stream().map(ReplicationLink::member).toList());
            }
        });
    }

    /** The backups holding a complete copy: those that may be promoted. */
    public List<String> readyMembers() {
        List<String> names = new ArrayList<>();
        for (ReplicationLink l : links) {
            if (l.isElectable()) {
                names.add(l.member());
            }
        }
        return names;
    }

    /** Completes every waiting operation that each READY backup has stored. */
    void settle() {
        long min = Long.MAX_VALUE;
        for (ReplicationLink l : links) {
            if (l.isReady()) {
                min = Math.min(min, l.ackedIndex());
            }
        }
        for (ReplicationLink l : leaving) {
            min = Math.min(min, l.ackedIndex());
        }
        if (waiting.isEmpty()) {
            return;
        }
        Map<Long, Waiter> done = min == Long.MAX_VALUE ? waiting : waiting.headMap(min, true);
        while (!done.isEmpty()) {
            Map.Entry<Long, Waiter> e = ((java.util.NavigableMap<Long, Waiter>) done).pollFirstEntry();
            if (e == null) {
                break;
            }
            e.getValue().future().complete(null);
        }
    }

    /**
     * Drops the READY backups that have not stored the oldest waiting operation within the backup timeout — once the
     * new READY set is recorded; until then, the operations keep waiting. Called periodically.
     */
    public void checkTimeouts() {
        settle(); // never leave an operation waiting for an acknowledgement that already came
        if (!leaving.isEmpty()) {
            recordReadySet(); // a failed record is tried again
        }
        Map.Entry<Long, Waiter> oldest = waiting.firstEntry();
        if (oldest == null || System.nanoTime() - oldest.getValue().sinceNanos() < backupTimeout.toNanos()) {
            return;
        }
        long index = oldest.getKey();
        Predicate<ReplicationLink> late = l -> l.isReady() && l.ackedIndex() < index;
        List<String> remaining = new ArrayList<>();
        List<ReplicationLink> dropped = new ArrayList<>();
        for (ReplicationLink l : links) {
            if (late.test(l)) {
                dropped.add(l);
            } else if (l.isElectable()) {
                remaining.add(l.member());
            }
        }
        if (dropped.isEmpty()) {
            return;
        }
        if (readySet != null && !readySet.update(remaining)) {
            LOG.warn("broker {}: HA backups {} have not answered for {} but the new READY set cannot be recorded; "
                    + "receipts wait", broker, dropped.stream().map(ReplicationLink::member).toList(), backupTimeout);
            return;
        }
        for (ReplicationLink l : dropped) {
            l.drop("it stored nothing for " + backupTimeout.toMillis() + " ms (ha.backupTimeout)");
        }
    }

    /** Fails every waiting and later operation: this broker is no longer the primary. */
    public void fence(String why) {
        fenced = why;
        lastError = why;
        for (Map.Entry<Long, Waiter> e; (e = waiting.pollFirstEntry()) != null; ) {
            e.getValue().future().completeExceptionally(new StoreException(why));
        }
        leaving.clear();
        for (ReplicationLink l : links) {
            l.drop(why);
        }
    }

    public boolean isFenced() {
        return fenced != null;
    }

    public String lastError() {
        return lastError;
    }

    /** Every backup's link: member, state, lag in records and bytes. */
    public List<Map<String, Object>> backups() {
        long head;
        synchronized (lock) {
            head = nextIndex - 1;
        }
        List<Map<String, Object>> out = new ArrayList<>();
        for (ReplicationLink l : links) {
            Map<String, Object> m = new java.util.LinkedHashMap<>();
            m.put("member", l.member());
            m.put("state", l.isElectable() ? "ready" : "catchup");
            m.put("lagMessages", Math.max(0, head - l.ackedIndex()) + l.catchupPending());
            m.put("lagBytes", l.queuedBytes());
            m.put("address", l.address());
            out.add(m);
        }
        return out;
    }
}
