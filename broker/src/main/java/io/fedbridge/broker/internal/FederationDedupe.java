package io.fedbridge.broker.internal;

import io.fedbridge.broker.store.DedupeLog;
import java.util.List;

/**
 * Drops a SEND whose federation id this broker already accepted, so a bridge's or a client's resend after a
 * failure never reaches a consumer twice. Deciding is in memory only: recent ids live in a {@link BoundedIdSet}, which at
 * start-up is filled from the persisted {@link DedupeLog} (with a data directory) and from the journal: the ids of the
 * messages it recovers, and of those removed whose records are still in it (see {@link io.fedbridge.broker.MessageStore#recoverHistory}).
 * Fingerprints of accepted persistent messages are written to the log by a background thread (a batch 20 ms after its
 * first id, committed a second after the first write since the last commit; the thread sleeps while nothing is queued),
 * so the I/O thread never waits for MapDB. A crash loses the log's last second, but nothing
 * the journal acknowledged: the journal deletes no segment before {@link #makeDurable} has committed the log.
 */
final class FederationDedupe {

    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(FederationDedupe.class);
    /**
     * How long an accepted id waits before it is written: most messages are consumed within it, and then one write
     * stands for accepted and consumed.
     */
    private static final long WRITE_DELAY_MILLIS = 20;
    /**
     * Each MapDB commit creates, syncs and deletes a write-ahead file, and the file system's journal commit that
     * follows held up the message journal's own syncs for 1-3 ms: every 100 ms that was the persistent forward's
     * tail latency. What a crash loses of the log is in the message journal (see the class comment).
     */
    private static final long COMMIT_EVERY_MILLIS = 1000;
    /** Beyond this many queued ids the caller writes them itself: back-pressure, never an unbounded queue. */
    private static final int MAX_QUEUED = 65_536;

    private final DedupeLog persistent;
    /**
     * Writes queued ids to the log {@link #WRITE_DELAY_MILLIS} after the first of them was queued, and commits
     * {@link #COMMIT_EVERY_MILLIS} after the first write since the last commit; null without a log. It runs only when
     * there is something to do: an idle broker's writer does not wake.
     */
    private final java.util.concurrent.ScheduledThreadPoolExecutor writer;
    /** A drain is scheduled and has not started taking ids yet: ids queued meanwhile go with it. */
    private final java.util.concurrent.atomic.AtomicBoolean drainScheduled = new java.util.concurrent.atomic.AtomicBoolean();
    /** A commit is scheduled and has not started yet: writes made meanwhile are committed with it. */
    private final java.util.concurrent.atomic.AtomicBoolean commitScheduled = new java.util.concurrent.atomic.AtomicBoolean();
    /** Times the writer ran (a drain or a commit), for tests. */
    private final java.util.concurrent.atomic.AtomicLong writerRuns = new java.util.concurrent.atomic.AtomicLong();
    /** Fingerprints waiting for the writer, in order (taken once, at claim or from the message: never again here). */
    private final java.util.concurrent.ConcurrentLinkedQueue<BoundedIdSet.Fingerprint> toWrite = new java.util.concurrent.ConcurrentLinkedQueue<>();
    private final java.util.concurrent.atomic.AtomicInteger queued = new java.util.concurrent.atomic.AtomicInteger();
    /**
     * For each queued fingerprint, whether a local consumer took the message: then one write (consumed, which also
     * means accepted) stands for both, as it usually does while messages flow.
     */
    private final java.util.concurrent.ConcurrentHashMap<BoundedIdSet.Fingerprint, Boolean> unwritten = new java.util.concurrent.ConcurrentHashMap<>();
    /** The writer's batch, reused; {@link #batchHigh} is also the lock of {@link #drain}. */
    private final long[] batchHigh = new long[4096];
    private final long[] batchLow = new long[4096];
    private final boolean[] batchConsumed = new boolean[4096];
    /** Fingerprints of ids claimed and not yet accepted or failed (no allocation per message, unlike a HashSet). */
    private final FingerprintSet inFlight = new FingerprintSet(1024);
    /**
     * Ids accepted here. Those of queue messages a local consumer (not a bridge) acknowledged here are marked: a copy
     * of such a message that turns up later - a replay of a copy another broker holds (the sender's receipt was lost
     * in a crash, or a producer's resend after failover made a second one) - is a duplicate, though its replay count
     * makes its key new. One table for both: a consumed message costs a mark on the entry its acceptance made, not an
     * entry (and an eviction) in a second table, whose random probes were most of the dedupe's time.
     */
    private final BoundedIdSet recent;
    /** Ids ordinary clients chose (already scoped to them), each producer in a share of its own. */
    private final ProducerIdShares producerIds = new ProducerIdShares();
    private long duplicates;
    /**
     * Whether two copies of one message can ever have waited on a queue here: only replays make a second copy with a
     * new key (a resend keeps its key, and {@link #claim} drops it while {@link #recent} holds it), so until a replay
     * is claimed or recovered no delivery needs {@link #wasConsumedLocally}'s lookup. Never goes back to false.
     */
    private volatile boolean copiesPossible;
    /** Set once {@link #close} has written and committed everything. */
    private volatile boolean closed;

    /**
     * @param persistent the log fingerprints are written to, or null (no data directory)
     * @param known      what the log held at start, oldest first (as {@link DedupeLog#load()} gives it)
     */
    FederationDedupe(int capacity, DedupeLog persistent, List<DedupeLog.Fingerprint> known) {
        this.persistent = persistent;
        this.recent = new BoundedIdSet(capacity);
        if (persistent == null) {
            this.writer = null;
            return;
        }
        for (DedupeLog.Fingerprint f : known) {
            learn(f.high(), f.low(), f.consumed());
        }
        this.writer = new java.util.concurrent.ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "fedbridge-dedupe-writer");
            t.setDaemon(true);
            return t;
        });
        writer.setExecuteExistingDelayedTasksAfterShutdownPolicy(false); // close drains and commits itself
        writer.setRemoveOnCancelPolicy(true);
    }

    /** Runs {@code task} on the writer after {@code millis}; nothing if the writer is shut down (closing drains). */
    private void schedule(java.util.concurrent.atomic.AtomicBoolean scheduled, Runnable task, long millis) {
        if (scheduled.get() || !scheduled.compareAndSet(false, true)) {
            return; // a read first: under load one is nearly always scheduled, and a failed CAS still takes the line
        }
        try {
            writer.schedule(() -> {
                scheduled.set(false); // before the work: whatever is queued from now on schedules a run of its own
                writerRuns.incrementAndGet();
                task.run();
            }, millis, java.util.concurrent.TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.RejectedExecutionException e) {
            scheduled.set(false); // closing: close() writes what is queued
        }
    }

    /** Times the writer thread ran a drain or a commit. */
    long writerRuns() {
        return writerRuns.get();
    }

    /**
     * Claims {@code id} for a message about to be accepted: its fingerprint, to hand to {@link #accepted} or
     * {@link #failed} (and to the message, which then need not take it again); null if it is a duplicate.
     */
    synchronized BoundedIdSet.Fingerprint claim(String id) {
        BoundedIdSet.Fingerprint f = BoundedIdSet.fingerprint(id);
        if (inFlight.contains(f.high(), f.low()) || recent.contains(f) || producerIds.contains(f)) {
            duplicates++;
            return null;
        }
        inFlight.addAbsent(f.high(), f.low());
        return f;
    }

    /**
     * The message claimed as {@code f} is accepted (stored, if persistent); persistent ones are also remembered on disk
     * (a non-persistent message does not outlive a restart, so there is nothing to recognise after one).
     */
    void accepted(BoundedIdSet.Fingerprint f, boolean persistentMessage) {
        accepted(f, persistentMessage, null);
    }

    /**
     * The same, for an id an ordinary client chose, kept in {@code producer}'s share (see {@link ProducerIdShares}); null
     * for an id a federation link forwarded or a broker minted.
     */
    void accepted(BoundedIdSet.Fingerprint f, boolean persistentMessage, String producer) {
        synchronized (this) {
            inFlight.remove(f.high(), f.low());
            if (producer == null) {
                recent.add(f);
            } else {
                producerIds.add(producer, f);
            }
        }
        if (persistentMessage && writer != null) {
            enqueue(f, false);
        }
    }

    /**
     * Queues {@code f} for the writer, or, if it waits already (accepted and consumed, in either order), merges the
     * consumed flag into that one write.
     */
    private void enqueue(BoundedIdSet.Fingerprint f, boolean consumedHere) {
        boolean[] fresh = {false};
        unwritten.compute(f, (k, waiting) -> {
            fresh[0] = waiting == null;
            return waiting == null ? consumedHere : waiting || consumedHere;
        });
        if (!fresh[0]) {
            return;
        }
        toWrite.add(f);
        if (queued.incrementAndGet() > MAX_QUEUED) {
            drain();
        } else {
            schedule(drainScheduled, this::drain, WRITE_DELAY_MILLIS);
        }
    }

    /**
     * Writes every queued id, in batches (on the writer thread; on the caller's when the queue is over its bound).
     * Its own lock, never this object's: the I/O threads' claims must not wait for MapDB.
     */
    private void drain() {
        drain(false);
    }

    /** @param strict throw a failure to write instead of logging it (for {@link #makeDurable}) */
    private void drain(boolean strict) {
        synchronized (batchHigh) {
            int n;
            do {
                n = 0;
                BoundedIdSet.Fingerprint f;
                while (n < batchHigh.length && (f = toWrite.poll()) != null) {
                    queued.decrementAndGet();
                    batchHigh[n] = f.high();
                    batchLow[n] = f.low();
                    batchConsumed[n] = Boolean.TRUE.equals(unwritten.remove(f));
                    n++;
                }
                try {
                    persistent.append(batchHigh, batchLow, batchConsumed, n);
                    if (n > 0 && writer != null) {
                        schedule(commitScheduled, this::commit, COMMIT_EVERY_MILLIS);
                    }
                } catch (RuntimeException e) {
                    if (strict) {
                        throw e;
                    }
                    // closing, or a failing disk: the ids stay in memory, and in the journal until makeDurable succeeds
                    LOG.debug("could not write {} federation ids to {}: {}", n, persistent.file(), e.toString());
                }
            } while (n == batchHigh.length);
        }
    }

    private void commit() {
        try {
            synchronized (batchHigh) {
                persistent.commit();
            }
        } catch (RuntimeException e) {
            LOG.debug("could not commit {}: {}", persistent.file(), e.toString());
        }
    }

    /**
     * Writes and commits every id accepted or consumed so far: the journal calls it (on its own thread) before it
     * deletes segments, whose records were what a crash's lost ids are learned from again.
     *
     * @throws RuntimeException if the log cannot be written: the journal then keeps its segments
     */
    void makeDurable() {
        if (persistent == null || closed) {
            return; // closing committed everything, and nothing is accepted any more
        }
        synchronized (batchHigh) {
            drain(true);
            persistent.commit();
        }
    }

    /**
     * Claims a replay ({@code key} = id + replay count) of the message {@code id}, as {@link #claim} does: null if this
     * replay was taken already, or if a local consumer here already acknowledged a copy of the message.
     */
    synchronized BoundedIdSet.Fingerprint claimReplay(String key, String id) {
        if (recent.isMarked(id)) {
            duplicates++;
            return null;
        }
        BoundedIdSet.Fingerprint f = claim(key);
        if (f != null) {
            copiesPossible = true;
        }
        return f;
    }

    /**
     * A local consumer acknowledged the queue message {@code m} here; persistent ones are also remembered on disk,
     * so that a copy replayed to this broker after a restart is still recognised.
     */
    void consumedLocally(BrokerMessage m) {
        BoundedIdSet.Fingerprint f = m.fingerprint();
        synchronized (this) {
            recent.mark(f);
        }
        if (m.persistent && writer != null) {
            enqueue(f, true); // one write with the accepted id if that still waits, else a write of its own
        }
    }

    /** Whether a local consumer here acknowledged a copy of {@code m}: another copy must not be delivered. */
    boolean wasConsumedLocally(BrokerMessage m) {
        if (!copiesPossible) {
            return false;
        }
        BoundedIdSet.Fingerprint f = m.fingerprint();
        synchronized (this) {
            return recent.isMarked(f);
        }
    }

    /**
     * What this broker knows of the forward with federation id {@code id} ({@code replays}: its replay count, or null),
     * for a peer that holds it in doubt: {@code stored} if it was accepted here (a replay also if a local consumer
     * took a copy), {@code pending} while its acceptance is under way, else {@code absent}. Non-persistent messages are
     * forgotten at a restart, as they are themselves.
     */
    synchronized String probe(String id, String replays) {
        BoundedIdSet.Fingerprint f = BoundedIdSet.fingerprint(replays == null ? id : id + "#r" + replays);
        if (inFlight.contains(f.high(), f.low())) {
            return io.fedbridge.core.FederationHeaders.IN_DOUBT_PENDING;
        }
        if (recent.contains(f) || replays != null && recent.isMarked(id)) {
            return io.fedbridge.core.FederationHeaders.IN_DOUBT_STORED;
        }
        return io.fedbridge.core.FederationHeaders.IN_DOUBT_ABSENT;
    }

    /** A copy of a consumed message was dropped before delivery. */
    synchronized void countDuplicate() {
        duplicates++;
    }

    /** The message claimed as {@code f} was not accepted after all: a resend must get through. */
    synchronized void failed(BoundedIdSet.Fingerprint f) {
        inFlight.remove(f.high(), f.low());
    }

    /** Learned from a message recovered from the journal; {@code replay}: it is a replay, so copies may wait here. */
    synchronized void recovered(String id, boolean replay) {
        recent.add(id);
        copiesPossible |= replay;
    }

    /** Learned from the journal's record of a removed message: accepted here, and maybe taken by a local consumer. */
    synchronized void recoveredRemoved(String id, boolean consumedHere) {
        BoundedIdSet.Fingerprint f = BoundedIdSet.fingerprint(id);
        learn(f.high(), f.low(), consumedHere);
    }

    /** Accepted here, and taken by a local consumer if {@code consumedHere} (which also means accepted). */
    private void learn(long high, long low, boolean consumedHere) {
        recent.add(high, low);
        if (consumedHere) {
            recent.mark(high, low);
        }
    }

    /** Ids ordinary clients chose that are remembered now, and the producers they belong to. */
    synchronized int[] producerIdCounts() {
        return new int[] {producerIds.size(), producerIds.producers()};
    }

    /** Federation ids remembered now (at most the capacity). */
    synchronized int windowSize() {
        return recent.size();
    }

    synchronized long duplicates() {
        return duplicates;
    }

    void close() {
        if (writer != null) {
            writer.shutdown();
            try {
                writer.awaitTermination(10, java.util.concurrent.TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            drain(); // what the last period left
        }
        if (persistent != null) {
            persistent.close();
        }
        closed = true;
    }
}
