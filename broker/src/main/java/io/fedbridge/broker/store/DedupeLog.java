package io.fedbridge.broker.store;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.mapdb.BTreeMap;
import org.mapdb.DB;
import org.mapdb.DBException;
import org.mapdb.Serializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The persisted half of a broker's federation-id dedupe: 128-bit fingerprints of the ids it accepted, and of those its
 * local consumers took, written in batches (one MapDB record per batch) to a MapDB file, so that a resend or a replay
 * of such a message is still recognised after a restart. The broker decides in memory; this only has to be cheap to
 * write and complete enough to read back at start.
 *
 * <pre>{@code
 * try (DedupeLog log = DedupeLog.open(dir.resolve("dedupe.db"), 100_000, Duration.ofHours(1), Clock.systemUTC())) {
 *     List<DedupeLog.Fingerprint> known = log.load();   // oldest first
 *     log.append(new long[] {hi}, new long[] {lo}, new boolean[] {false}, 1);
 *     log.commit();
 * }
 * }</pre>
 *
 * <p>Why batches, not one entry per id: a MapDB {@code HTreeMap} insert with
 * expiry costs tens of microseconds of CPU, and at 1,000 persistent msg/s the window's writer and commits were most of
 * the receiving broker's p99 at a fixed rate (bursts every commit). One record per batch makes MapDB's work per
 * message a few bytes of copying.
 *
 * <p>Bounds: at most {@code capacity} fingerprints plus one batch are kept (whole batches are dropped, oldest first);
 * batches older than {@code ttl} are skipped at load and dropped on the next append. The file is bounded too: MapDB
 * keeps the space of the batches it drops (a 40-minute soak grew the file to 25 MB for 1.7 MB of fingerprints), so a
 * {@link #commit()} that finds the file past {@value #COMPACT_RATIO} times what it holds (past 8 MiB, and twice its
 * size after the last rewrite) writes the
 * held batches to a fresh file beside it and moves that over the old one; a crash before the move leaves the old file
 * whole and the copy is deleted at the next open. Durability is the caller's
 * {@link #commit()} cadence: what was appended since the last commit is lost in a crash, of the process too (MapDB
 * replays only committed transactions). The broker learns those ids again from its message journal.
 *
 * <p>Thread-safe (every method is synchronized; one writer thread is the expected use).
 */
public final class DedupeLog implements AutoCloseable {

    /** A fingerprint of a federation id, and whether a local consumer took that message. */
    public record Fingerprint(long high, long low, boolean consumed) {
    }

    private static final Logger LOG = LoggerFactory.getLogger(DedupeLog.class);
    private static final String MAP_NAME = "id-batches";
    /** Per batch: its creation time; per fingerprint: high, low, consumed flag. */
    private static final int HEADER_BYTES = 8;
    private static final int ENTRY_BYTES = 17;

    /** The file is rewritten when it is this many times the bytes of the batches it holds. */
    static final int COMPACT_RATIO = 8;
    static final long DEFAULT_MIN_COMPACT_BYTES = 8L << 20;

    private final Path file;
    private DB db;
    private BTreeMap<Long, byte[]> batches;
    private final int capacity;
    private final long minCompactBytes;
    private int compactions;
    /** The file's size after the last rewrite: the next one waits until it has doubled (MapDB allocates in steps). */
    private long rewrittenSize;
    private final long ttlMillis;
    private final Clock clock;
    /** Batches held, oldest first: {key, fingerprints, created millis}. Filled by {@link #load}. */
    private final ArrayDeque<long[]> held = new ArrayDeque<>();
    private long total;
    private long nextKey;
    private boolean dirty;
    private boolean closed;

    private DedupeLog(Path file, DB db, BTreeMap<Long, byte[]> batches, int capacity, long ttlMillis, Clock clock,
                      long minCompactBytes) {
        this.file = file;
        this.minCompactBytes = minCompactBytes;
        this.db = db;
        this.batches = batches;
        this.capacity = capacity;
        this.ttlMillis = ttlMillis;
        this.clock = clock;
    }

    /**
     * Opens (or creates) the log in {@code file}.
     *
     * @throws StoreException when the file is in use (its cause is MapDB's {@code DBException.FileLocked}), is not a
     *                        MapDB file, or cannot be created
     */
    public static DedupeLog open(Path file, int capacity, Duration ttl, Clock clock) {
        return open(file, capacity, ttl, clock, DEFAULT_MIN_COMPACT_BYTES);
    }

    /** As {@link #open(Path, int, Duration, Clock)}, rewriting the file only once it is past {@code minCompactBytes}. */
    static DedupeLog open(Path file, int capacity, Duration ttl, Clock clock, long minCompactBytes) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity must be at least 1, but was " + capacity);
        }
        if (ttl == null || ttl.isNegative() || ttl.isZero()) {
            throw new IllegalArgumentException("ttl must be positive, but was " + ttl);
        }
        Path f = file.toAbsolutePath().normalize();
        deleteCopy(compactCopy(f));
        DB db = MapDbFiles.open(f, "dedupe log");
        try {
            BTreeMap<Long, byte[]> batches = db.treeMap(MAP_NAME, Serializer.LONG, Serializer.BYTE_ARRAY).createOrOpen();
            db.commit();
            return new DedupeLog(f, db, batches, capacity, ttl.toMillis(), clock, minCompactBytes);
        } catch (RuntimeException | java.io.IOError e) {
            try {
                db.close();
            } catch (RuntimeException | java.io.IOError ignored) {
                // damaged: the caller moves the file aside
            }
            throw new StoreException("cannot open dedupe log " + f + ": " + e.getMessage(), e);
        }
    }

    /**
     * Reads every fingerprint held and not expired, oldest first. Call once, before the first {@link #append}.
     *
     * @throws StoreException when the file is damaged (seen after a kill -9 with the file memory-mapped)
     */
    public synchronized List<Fingerprint> load() {
        checkOpen();
        long now = clock.millis();
        List<Fingerprint> out = new ArrayList<>();
        try {
            for (Map.Entry<Long, byte[]> e : batches.entrySet()) {
                byte[] b = e.getValue();
                if (b.length < HEADER_BYTES || (b.length - HEADER_BYTES) % ENTRY_BYTES != 0) {
                    throw new StoreException("dedupe log " + file + " is damaged: batch " + e.getKey() + " has " + b.length + " bytes");
                }
                ByteBuffer buf = ByteBuffer.wrap(b);
                long created = buf.getLong();
                int n = (b.length - HEADER_BYTES) / ENTRY_BYTES;
                held.addLast(new long[] {e.getKey(), n, created});
                total += n;
                nextKey = Math.max(nextKey, e.getKey() + 1);
                if (now - created >= ttlMillis) {
                    continue;
                }
                for (int i = 0; i < n; i++) {
                    out.add(new Fingerprint(buf.getLong(), buf.getLong(), buf.get() != 0));
                }
            }
        } catch (RuntimeException | java.io.IOError e) {
            if (e instanceof StoreException s) {
                throw s;
            }
            throw new StoreException("dedupe log " + file + " is damaged: " + e, e);
        }
        return out;
    }

    /** Appends one batch of {@code n} fingerprints, dropping the oldest batches beyond the bounds. */
    public synchronized void append(long[] high, long[] low, boolean[] consumed, int n) {
        checkOpen();
        if (n == 0) {
            return;
        }
        long now = clock.millis();
        ByteBuffer buf = ByteBuffer.allocate(HEADER_BYTES + n * ENTRY_BYTES);
        buf.putLong(now);
        for (int i = 0; i < n; i++) {
            buf.putLong(high[i]).putLong(low[i]).put((byte) (consumed[i] ? 1 : 0));
        }
        try {
            long key = nextKey++;
            batches.put(key, buf.array());
            held.addLast(new long[] {key, n, now});
            total += n;
            while (held.size() > 1 && (total - held.peekFirst()[1] >= capacity || now - held.peekFirst()[2] >= ttlMillis)) {
                long[] oldest = held.pollFirst();
                batches.remove(oldest[0]);
                total -= oldest[1];
            }
        } catch (DBException | java.io.IOError e) {
            throw new StoreException("write to dedupe log " + file + " failed: " + e.getMessage(), e);
        }
        dirty = true;
    }

    /** Makes every batch appended so far durable (a MapDB commit); nothing to do if none was. */
    public synchronized void commit() {
        checkOpen();
        if (!dirty) {
            return;
        }
        try {
            db.commit();
            dirty = false;
        } catch (DBException | java.io.IOError e) {
            throw new StoreException("commit of dedupe log " + file + " failed: " + e.getMessage(), e);
        }
        compactIfSparse();
    }

    /** Times the file was rewritten since it was opened. */
    synchronized int compactions() {
        return compactions;
    }

    private void compactIfSparse() {
        long size;
        try {
            size = Files.size(file);
        } catch (IOException e) {
            return;
        }
        long live = total * ENTRY_BYTES + (long) held.size() * HEADER_BYTES;
        if (size < Math.max(Math.max(minCompactBytes, COMPACT_RATIO * live), 2 * rewrittenSize)) {
            return;
        }
        Path copy = compactCopy(file);
        try {
            deleteCopy(copy);
            DB fresh = MapDbFiles.open(copy, "dedupe log copy");
            try {
                BTreeMap<Long, byte[]> into = fresh.treeMap(MAP_NAME, Serializer.LONG, Serializer.BYTE_ARRAY).create();
                for (long[] h : held) {
                    byte[] b = batches.get(h[0]);
                    if (b != null) {
                        into.put(h[0], b);
                    }
                }
                fresh.commit();
            } finally {
                fresh.close();
            }
            db.close();
            Files.move(copy, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            compactions++;
            rewrittenSize = Files.size(file);
            LOG.debug("dedupe log {}: rewritten with its {} batches, {} bytes before", file, held.size(), size);
        } catch (IOException | RuntimeException | java.io.IOError e) {
            LOG.warn("dedupe log {}: could not rewrite it without the space of dropped batches ({}); kept as it is", file,
                    e.toString());
            deleteCopy(copy);
        } finally {
            if (db.isClosed()) {
                db = MapDbFiles.open(file, "dedupe log");
                batches = db.treeMap(MAP_NAME, Serializer.LONG, Serializer.BYTE_ARRAY).createOrOpen();
            }
        }
    }

    private static Path compactCopy(Path file) {
        return file.resolveSibling(file.getFileName() + ".compact");
    }

    /** Deletes a rewrite's copy left by a crash, with any MapDB write-ahead files of it. */
    private static void deleteCopy(Path copy) {
        try (var siblings = Files.list(copy.getParent())) {
            String name = copy.getFileName().toString();
            for (Path p : (Iterable<Path>) siblings::iterator) {
                String n = p.getFileName().toString();
                if (n.equals(name) || n.startsWith(name + ".wal")) {
                    Files.deleteIfExists(p);
                }
            }
        } catch (IOException | java.io.UncheckedIOException e) {
            LOG.warn("dedupe log: cannot delete {}: {}", copy, e.toString());
        }
    }

    /** Fingerprints held (those of expired batches count until the next append drops them). */
    public synchronized long size() {
        return total;
    }

    public Path file() {
        return file;
    }

    /** Commits and closes the file. Idempotent. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            if (dirty) {
                db.commit();
            }
        } finally {
            db.close();
        }
    }

    private void checkOpen() {
        if (closed) {
            throw new StoreException("dedupe log " + file + " is closed");
        }
    }

    @Override
    public String toString() {
        return "DedupeLog[" + file + ", capacity " + capacity + ", ttl " + Duration.ofMillis(ttlMillis) + "]";
    }
}
