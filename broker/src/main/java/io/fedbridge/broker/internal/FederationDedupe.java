package io.fedbridge.broker.internal;

import io.fedbridge.broker.store.DedupeWindow;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Drops a SEND whose federation id this broker already accepted, so a bridge's or a client's resend after a
 * failure never reaches a consumer twice. Deciding is in memory only: recent ids live in a {@link BoundedIdSet}, which at
 * start-up is filled from the persisted {@link DedupeWindow} (with a data directory) and from the ids of messages
 * recovered from the journal. Ids of accepted persistent messages are written to the window by a background
 * thread (batched every 20 ms, committed every 100 ms), so the I/O thread never waits for MapDB: a MapDB commit holds its lock for
 * milliseconds, and every forwarded persistent message used to wait behind it.
 */
final class FederationDedupe {

    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(FederationDedupe.class);
    /** How a consumed id is kept in the persisted window, next to the accepted ones. */
    private static final String CONSUMED_SUFFIX = "#consumed";
    /**
     * How long an accepted id waits before it is written: most messages are consumed within it, and then one write
     * stands for accepted and consumed. The window commits every 100 ms anyway, so this widens what a crash forgets
     * from at most 100 ms to at most 120 ms of ids.
     */
    private static final long WRITE_DELAY_MILLIS = 20;
    /** Beyond this many queued ids the caller writes them itself: back-pressure, never an unbounded queue. */
    private static final int MAX_QUEUED = 65_536;

    private final DedupeWindow persistent;
    /** Writes queued ids to the window every {@link #WRITE_DELAY_MILLIS}; null without a window. */
    private final java.util.concurrent.ScheduledExecutorService writer;
    /** Ids waiting for the writer, in order. */
    private final java.util.concurrent.ConcurrentLinkedQueue<String> toWrite = new java.util.concurrent.ConcurrentLinkedQueue<>();
    private final java.util.concurrent.atomic.AtomicInteger queued = new java.util.concurrent.atomic.AtomicInteger();
    /**
     * For each queued id, whether a local consumer took the message while it waited: then one write
     * ({@code id#consumed}, which also means accepted) stands for both, as it usually does while messages flow.
     */
    private final java.util.concurrent.ConcurrentHashMap<String, Boolean> unwritten = new java.util.concurrent.ConcurrentHashMap<>();
    private final Set<String> inFlight = new HashSet<>();
    private final BoundedIdSet recent;
    /**
     * Federation ids of queue messages a local consumer (not a bridge) acknowledged here. A copy of such a message
     * that turns up later - a replay of a copy another broker holds (the sender's receipt was lost in a crash, or a
     * producer's resend after failover made a second one) - is a duplicate, though its replay count makes its key new.
     */
    private final BoundedIdSet consumed;
    private long duplicates;

    /**
     * @param persistent the window ids are written to, or null (no data directory)
     * @param windowIds  the ids the window held at start, oldest first (as {@link DedupeWindow#ids()})
     */
    FederationDedupe(int capacity, DedupeWindow persistent, List<String> windowIds) {
        this.persistent = persistent;
        this.recent = new BoundedIdSet(capacity);
        this.consumed = new BoundedIdSet(capacity);
        if (persistent == null) {
            this.writer = null;
            return;
        }
        for (String id : windowIds) {
            if (id.endsWith(CONSUMED_SUFFIX)) {
                String base = id.substring(0, id.length() - CONSUMED_SUFFIX.length());
                consumed.add(base);
                recent.add(base); // consumed here means accepted here
            } else {
                recent.add(id);
            }
        }
        this.writer = java.util.concurrent.Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "fedbridge-dedupe-writer");
            t.setDaemon(true);
            return t;
        });
        writer.scheduleWithFixedDelay(this::drain, WRITE_DELAY_MILLIS, WRITE_DELAY_MILLIS, java.util.concurrent.TimeUnit.MILLISECONDS);
    }

    /** Claims {@code id} for a message about to be accepted; false if it is a duplicate. */
    synchronized boolean claim(String id, boolean persistentMessage) {
        if (inFlight.contains(id) || recent.contains(id)) {
            duplicates++;
            return false;
        }
        inFlight.add(id);
        return true;
    }

    /**
     * The message with {@code id} is accepted (stored, if persistent); persistent ones are also remembered on disk
     * (a non-persistent message does not outlive a restart, so there is nothing to recognise after one).
     */
    void accepted(String id, boolean persistentMessage) {
        synchronized (this) {
            inFlight.remove(id);
            recent.add(id);
        }
        if (persistentMessage && writer != null) {
            enqueue(id);
        }
    }

    private void enqueue(String key) {
        unwritten.put(key, Boolean.FALSE);
        toWrite.add(key);
        if (queued.incrementAndGet() > MAX_QUEUED) {
            drain();
        }
    }

    /** Writes every queued id (on the writer thread; on the caller's when the queue is over its bound). */
    private void drain() {
        String key;
        while ((key = toWrite.poll()) != null) {
            queued.decrementAndGet();
            Boolean consumedMeanwhile = unwritten.remove(key);
            remember(Boolean.TRUE.equals(consumedMeanwhile) ? key + CONSUMED_SUFFIX : key);
        }
    }

    private void remember(String id) {
        try {
            persistent.firstSeen(id);
        } catch (RuntimeException e) {
            // closing, or a failing disk: the id stays in memory; after a restart a resend of it would get through
            LOG.debug("could not remember federation id {} on disk: {}", id, e.toString());
        }
    }

    /**
     * Claims a replay ({@code key} = id + replay count) of the message {@code id}: false if this replay was taken
     * already, or if a local consumer here already acknowledged a copy of the message.
     */
    synchronized boolean claimReplay(String key, String id) {
        if (consumed.contains(id)) {
            duplicates++;
            return false;
        }
        return claim(key, false);
    }

    /**
     * A local consumer acknowledged the queue message {@code id} here; persistent ones are also remembered on disk,
     * so that a copy replayed to this broker after a restart is still recognised.
     */
    void consumedLocally(String id, boolean persistentMessage) {
        synchronized (this) {
            consumed.add(id);
        }
        if (persistentMessage && writer != null && unwritten.replace(id, Boolean.TRUE) == null) {
            enqueue(id + CONSUMED_SUFFIX); // its accepted id was written already: the mark is a write of its own
        }
    }

    /** Whether a local consumer here acknowledged a copy of {@code id}: another copy must not be delivered. */
    synchronized boolean wasConsumedLocally(String id) {
        return consumed.contains(id);
    }

    /** A copy of a consumed message was dropped before delivery. */
    synchronized void countDuplicate() {
        duplicates++;
    }

    /** The message with {@code id} was not accepted after all: a resend must get through. */
    synchronized void failed(String id) {
        inFlight.remove(id);
    }

    /** Learned from a message recovered from the journal. */
    synchronized void recovered(String id) {
        recent.add(id);
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
    }
}
