package io.fedbridge.broker.store;

import java.nio.file.Path;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReadWriteLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import org.mapdb.DB;
import org.mapdb.DBException;
import org.mapdb.HTreeMap;
import org.mapdb.Serializer;

/**
 * A bounded, expiring, persistent set of federation message ids: the receiving side's memory of what it already
 * took, so a resent or replayed message is recognised. Kept in a MapDB {@code HTreeMap} (file-backed, with
 * transactions, memory-mapped where supported) that forgets the oldest ids beyond
 * {@link DedupeWindowConfig#maxSize()} and ids older than {@link DedupeWindowConfig#expireAfterCreate()}.
 *
 * <pre>{@code
 * try (DedupeWindow seen = DedupeWindow.open(DedupeWindowConfig.ofDefaults(Path.of("data/dedupe.db")))) {
 *     if (seen.firstSeen(federationId)) {
 *         deliver(message);
 *     }
 * }
 * }</pre>
 *
 * <p><b>Durability.</b> In {@link Durability#SYNC} mode {@link #firstSeen} returns once the id is committed;
 * concurrent callers share one MapDB commit (a commit costs ~2-4 ms on the machine measured, so one caller alone
 * manages a few hundred ids/s). In {@link Durability#ASYNC} mode ids are committed every
 * {@link DedupeWindowConfig#asyncCommitInterval()}; after a crash the ids of the last interval are forgotten.
 * Note the order this implies for a receiver that must neither lose nor duplicate: an id committed before its
 * message is durably stored means a crash in between loses the message (the resend is taken for a duplicate);
 * an id committed after means a crash in between duplicates it. Claim with {@code firstSeen} (ASYNC), store the
 * message, {@link #commit()}, then acknowledge; call {@link #forget} when storing fails.
 *
 * <p>Thread-safe. Expiry is checked against the configured clock on every call, so an expired id counts as unseen
 * even before it is evicted; eviction runs when the window is over its size and periodically in the background.
 */
public final class DedupeWindow implements AutoCloseable {

    private static final String MAP_NAME = "federation-ids";

    private final DedupeWindowConfig config;
    private final DB db;
    private final HTreeMap<String, Long> ids;
    private final long ttlMillis;
    private final boolean sync;
    /** Readers of the lock change the map; the writer commits, so a commit never catches an insert halfway. */
    private final ReadWriteLock commitGuard = new ReentrantReadWriteLock();
    private final Object commitLock = new Object();
    private final AtomicLong changes = new AtomicLong();
    private final ScheduledExecutorService background;
    private volatile long committed;
    private volatile boolean closed;

    private DedupeWindow(DedupeWindowConfig config, DB db, HTreeMap<String, Long> ids) {
        this.config = config;
        this.db = db;
        this.ids = ids;
        this.ttlMillis = config.expireAfterCreate().toMillis();
        this.sync = config.durability() == Durability.SYNC;
        this.background = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "fedbridge-dedupe[" + config.file().getFileName() + "]");
            t.setDaemon(true);
            return t;
        });
        long evictEvery = Math.max(100, Math.min(60_000, ttlMillis / 10));
        background.scheduleWithFixedDelay(this::evictExpired, evictEvery, evictEvery, TimeUnit.MILLISECONDS);
        if (!sync) {
            long every = config.asyncCommitInterval().toMillis();
            background.scheduleWithFixedDelay(this::commitQuietly, every, every, TimeUnit.MILLISECONDS);
        }
    }

    /**
     * Opens (or creates) the window in {@code config.file()}.
     *
     * @throws StoreException when the file is in use, is not a MapDB file, or cannot be created
     */
    public static DedupeWindow open(DedupeWindowConfig config) {
        Path file = config.file().toAbsolutePath().normalize();
        DB db = MapDbFiles.open(file, "dedupe window");
        try {
            // one segment (concurrency 1): MapDB evicts for size per segment, so only then is the bound exact and
            // the oldest id the one forgotten; firstSeen is serialised by the commit anyway
            HTreeMap<String, Long> ids = db.hashMap(MAP_NAME, Serializer.STRING, Serializer.LONG)
                    .layout(1, 128, 4)
                    .expireMaxSize(config.maxSize())
                    .expireAfterCreate(config.expireAfterCreate().toMillis())
                    .createOrOpen();
            db.commit();
            return new DedupeWindow(config, db, ids);
        } catch (RuntimeException e) {
            db.close();
            throw new StoreException("cannot open dedupe window " + file + ": " + e.getMessage(), e);
        }
    }

    public DedupeWindowConfig config() {
        return config;
    }

    /**
     * Remembers {@code id}, atomically: true when it was not in the window (or had expired), false when it was.
     * Of concurrent callers with the same id exactly one gets true.
     */
    public boolean firstSeen(String id) {
        requireId(id);
        long change;
        commitGuard.readLock().lock();
        try {
            checkOpen();
            long now = config.clock().millis();
            boolean fresh;
            Long previous = ids.putIfAbsent(id, now);
            if (previous == null) {
                fresh = true;
            } else if (now - previous >= ttlMillis && ids.remove(id, previous)) {
                fresh = ids.putIfAbsent(id, now) == null;
            } else {
                fresh = false;
            }
            if (!fresh) {
                return false;
            }
            if (ids.sizeLong() > config.maxSize()) {
                ids.expireEvict();
            }
            change = changes.incrementAndGet();
        } finally {
            commitGuard.readLock().unlock();
        }
        if (sync) {
            commitUpTo(change);
        }
        return true;
    }

    /** True when {@code id} is in the window and not expired. */
    public boolean contains(String id) {
        requireId(id);
        checkOpen();
        Long t = ids.get(id);
        return t != null && config.clock().millis() - t < ttlMillis;
    }

    /**
     * The ids held and not expired, oldest first (for a receiver that keeps its own copy in memory, so that
     * deciding never has to wait for the file).
     */
    public java.util.List<String> ids() {
        checkOpen();
        long now = config.clock().millis();
        java.util.List<java.util.Map.Entry<String, Long>> live = new java.util.ArrayList<>();
        try {
            for (java.util.Map.Entry<String, Long> e : ids.entrySet()) {
                if (now - e.getValue() < ttlMillis) {
                    live.add(java.util.Map.entry(e.getKey(), e.getValue()));
                }
            }
        } catch (RuntimeException | java.io.IOError e) {
            // seen after a kill -9 with the file memory-mapped: MapDB reads past a chunk it never wrote
            throw new StoreException("dedupe window " + config.file() + " is damaged: " + e, e);
        }
        live.sort(java.util.Map.Entry.comparingByValue());
        java.util.List<String> out = new java.util.ArrayList<>(live.size());
        for (java.util.Map.Entry<String, Long> e : live) {
            out.add(e.getKey());
        }
        return out;
    }

    /** Forgets {@code id} (for a message that could not be stored after all, so its resend is taken). */
    public void forget(String id) {
        requireId(id);
        long change;
        commitGuard.readLock().lock();
        try {
            checkOpen();
            if (ids.remove(id) == null) {
                return;
            }
            change = changes.incrementAndGet();
        } finally {
            commitGuard.readLock().unlock();
        }
        if (sync) {
            commitUpTo(change);
        }
    }

    /** The number of ids held (at most {@code maxSize}; expired ids count until they are evicted). */
    public int size() {
        checkOpen();
        return (int) Math.min(Integer.MAX_VALUE, ids.sizeLong());
    }

    /** Commits every change made so far (needed only in ASYNC mode). */
    public void commit() {
        commitUpTo(changes.get());
    }

    /** Commits and closes the file. Idempotent. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        background.shutdown();
        try {
            background.awaitTermination(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        commitGuard.writeLock().lock();
        try {
            if (!closed) {
                closed = true;
                db.commit();
                db.close();
            }
        } finally {
            commitGuard.writeLock().unlock();
        }
    }

    /** Group commit: whoever gets the lock commits for everyone whose change came before. */
    private void commitUpTo(long change) {
        if (committed >= change) {
            return;
        }
        synchronized (commitLock) {
            if (committed >= change) {
                return;
            }
            commitGuard.writeLock().lock();
            try {
                checkOpen();
                long covered = changes.get();
                db.commit();
                committed = covered;
            } catch (DBException e) {
                throw new StoreException("commit of dedupe window " + config.file() + " failed: " + e.getMessage(), e);
            } finally {
                commitGuard.writeLock().unlock();
            }
        }
    }

    private void commitQuietly() {
        try {
            commit();
        } catch (RuntimeException e) {
            // closed meanwhile, or a failing disk: the next caller's commit reports it
        }
    }

    private void evictExpired() {
        commitGuard.readLock().lock();
        try {
            if (closed) {
                return;
            }
            long before = ids.sizeLong();
            ids.expireEvict();
            if (ids.sizeLong() != before) {
                changes.incrementAndGet();
            }
        } catch (RuntimeException e) {
            return;
        } finally {
            commitGuard.readLock().unlock();
        }
        if (sync) {
            commitQuietly();
        }
    }

    private void checkOpen() {
        if (closed) {
            throw new StoreException("dedupe window " + config.file() + " is closed");
        }
    }

    private static void requireId(String id) {
        if (id == null) {
            throw new NullPointerException("id must not be null, but was null");
        }
    }

    @Override
    public String toString() {
        return "DedupeWindow[" + config.file() + ", maxSize " + config.maxSize() + ", " + config.expireAfterCreate() + "]";
    }
}
