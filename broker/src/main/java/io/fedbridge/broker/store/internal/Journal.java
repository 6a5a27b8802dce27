package io.fedbridge.broker.store.internal;

import static io.fedbridge.broker.store.internal.StoreFiles.acquireLock;
import static io.fedbridge.broker.store.internal.StoreFiles.fsyncDirectory;
import static io.fedbridge.broker.store.internal.StoreFiles.listSegments;
import static io.fedbridge.broker.store.internal.StoreFiles.openLockFile;
import static io.fedbridge.broker.store.internal.StoreFiles.prepareDirectory;
import static io.fedbridge.broker.store.internal.StoreFiles.release;
import static io.fedbridge.broker.store.internal.StoreFiles.writeFully;
import static io.fedbridge.broker.store.internal.StoreFiles.zeroFill;

import io.fedbridge.broker.MessageStore.DurableSubscriptionInfo;
import io.fedbridge.broker.store.Durability;
import io.fedbridge.broker.store.StoreConfig;
import io.fedbridge.broker.store.StoreException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The append-only journal behind {@code JournalMessageStore}: segment files written by one writer thread with
 * group commit.
 *
 * <p>Callers {@linkplain #submit submit} records; the writer thread drains everything queued (up to
 * {@code maxBatch}), appends it to the head segment with one write, forces once, then completes all the futures.
 * Records that must hold together (a transaction's) are {@linkplain #submitGroup submitted as a group}: one record
 * with one CRC, never split across segments, so a crash leaves all of it or none (see {@link JournalFormat}).
 * After a force it deletes segments that hold nothing live and compacts sparse ones ({@link JournalMaintenance}, see
 * also {@link JournalIndex}); the directory's files (lock, listing, preallocated segments) are {@link StoreFiles}'.
 *
 * <p>Concurrency: the public methods may be called from any thread; they only enqueue, or read volatile monitoring
 * fields. The index, the head segment and the write buffer are owned by the writer thread (and by {@code open()}
 * before it starts); new segment files are zero-filled on a separate preallocation thread. Futures complete on the
 * writer thread.
 */
public final class Journal {

    private static final Logger LOG = LoggerFactory.getLogger(Journal.class);

    public static final String LOCK_FILE = "fedbridge.lock";
    /** MapDB files a {@code DedupeLog} may keep in the store directory. */
    public static final Pattern DEDUPE_FILE = Pattern.compile("dedupe[A-Za-z0-9_.-]*\\.db(\\.wal\\.\\d+)?");
    private static final int WRITE_BUFFER = 1 << 20;
    private static final long IDLE_WAIT_NANOS = TimeUnit.SECONDS.toNanos(1);

    /** A queued operation. */
    private static final class Op {
        final JournalRecord record;
        /** Null for best-effort writes (redelivery counts) that nobody waits for. */
        final CompletableFuture<Void> future;

        Op(JournalRecord record, CompletableFuture<Void> future) {
            this.record = record;
            this.future = future;
        }
    }

    private static final Op CLOSE = new Op(null, null);

    private final StoreConfig config;
    private final Path dir;
    private final ChannelOpener opener;
    private final FileChannel lockChannel;
    private final FileLock lock;
    private final JournalIndex index;
    private final boolean sync;
    private final long flushIntervalNanos;
    private final LinkedBlockingQueue<Op> queue = new LinkedBlockingQueue<>();
    private final ExecutorService preparer;
    private final Thread writer;
    private final JournalMaintenance maintenance;
    private final JournalFormat.PayloadBuffer payload = new JournalFormat.PayloadBuffer();
    private final ByteBuffer out = ByteBuffer.allocateDirect(WRITE_BUFFER);

    private volatile StoreException failure;
    private volatile boolean closed;
    private volatile boolean terminated;
    private List<JournalIndex.Recovered> recovered;
    private List<JournalIndex.Removed> history;
    private List<DurableSubscriptionInfo> recoveredSubscriptions;
    private long recoveredLastSequence;

    // owned by the writer thread (and by open() before the thread starts)
    private JournalIndex.Segment head;
    private FileChannel headChannel;
    private long headPos;
    private CompletableFuture<Path> nextSegment;
    private boolean unforced;
    private long forceDeadline;
    /** Records appended since the last force. */
    private int recordsUnforced;
    // monitoring: written by the writer thread once per write or force (never per record), read by anyone
    private volatile long bytesWritten;
    private volatile long forces;
    private volatile io.fedbridge.broker.store.JournalMessageStore.SyncListener syncListener = (nanos, records) -> { };

    private Journal(StoreConfig config, Path dir, ChannelOpener opener, FileChannel lockChannel, FileLock lock,
                    JournalIndex index) {
        this.config = config;
        this.dir = dir;
        this.opener = opener;
        this.lockChannel = lockChannel;
        this.lock = lock;
        this.index = index;
        this.sync = config.durability() == Durability.SYNC;
        this.flushIntervalNanos = config.asyncFlushInterval().toNanos();
        this.maintenance = new JournalMaintenance(this, index, config, dir);
        this.preparer = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "fedbridge-journal-prealloc[" + dir.getFileName() + "]");
            t.setDaemon(true);
            return t;
        });
        this.writer = new Thread(this::run, "fedbridge-journal-writer[" + dir.getFileName() + "]");
        this.writer.setDaemon(true);
    }

    // =================================================================== opening

    /**
     * Opens (or creates) the journal in {@code config.directory()}: locks the directory, replays every segment and
     * starts the writer thread.
     *
     * @throws StoreException naming the path and the problem
     */
    public static Journal open(StoreConfig config, ChannelOpener opener) {
        long started = System.nanoTime();
        Path dir = config.directory().toAbsolutePath().normalize();
        prepareDirectory(dir);
        FileChannel lockChannel = openLockFile(dir);
        FileLock lock = acquireLock(dir, lockChannel);
        Journal journal = null;
        try {
            TreeMap<Long, Path> files = listSegments(dir);
            JournalIndex index = new JournalIndex();
            journal = new Journal(config, dir, opener, lockChannel, lock, index);
            journal.replay(files);
            journal.recovered = index.drainRecovered();
            journal.history = index.endReplay();
            journal.recoveredSubscriptions = List.copyOf(index.subscriptions());
            journal.recoveredLastSequence = index.lastSequence();
            LOG.info("Opened journal store {}: {} segment(s), {} message(s) and {} durable subscription(s) recovered,"
                            + " last sequence {}, in {} ms", dir, files.size(), journal.recovered.size(),
                    journal.recoveredSubscriptions.size(), journal.recoveredLastSequence,
                    (System.nanoTime() - started) / 1_000_000);
            journal.writer.start();
            return journal;
        } catch (RuntimeException | Error e) {
            if (journal != null) {
                journal.closeFiles();
            }
            release(lockChannel);
            throw e;
        }
    }

    /** Replays every segment into the index and makes the last one the head. */
    private void replay(TreeMap<Long, Path> files) {
        Long lastId = files.isEmpty() ? null : files.lastKey();
        SegmentScanner.Result lastResult = null;
        for (var f : files.entrySet()) {
            long id = f.getKey();
            Path path = f.getValue();
            boolean last = id == lastId;
            index.addSegment(id, path);
            SegmentScanner.Result r;
            try (FileChannel ch = FileChannel.open(path, StandardOpenOption.READ)) {
                r = SegmentScanner.scan(ch, id, (record, offset, size) -> index.apply(record, id, offset, size));
            } catch (JournalFormat.FormatException e) {
                throw new StoreException("journal file " + path + " is not a valid fedbridge journal segment at offset 0: "
                        + e.getMessage());
            } catch (IOException e) {
                throw new StoreException("cannot read journal segment " + path + ": " + describe(e), e);
            }
            index.observeSequence(r.header().lastSequence());
            if (r.problem() != null && (!last || r.fatal())) {
                throw new StoreException("journal segment " + path + " is corrupt at offset " + r.end() + ": " + r.problem()
                        + (last ? "" : "; it is not the last segment, so this is not a write torn by a crash")
                        + ". Restore the directory from a backup, or move the damaged file away to start without it");
            }
            if (last) {
                lastResult = r;
            }
        }
        try {
            if (lastId == null) {
                createHead(1, StoreFiles.prepareSegmentFile(dir, opener, 1, config.preallocate(), config.segmentSize()));
            } else {
                openHead(files.get(lastId), lastId, lastResult);
            }
            prepareNext();
        } catch (IOException e) {
            throw new StoreException("cannot open journal head segment in " + dir + ": " + describe(e), e);
        }
    }

    private void openHead(Path path, long id, SegmentScanner.Result r) throws IOException {
        head = index.segment(id);
        headChannel = opener.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE);
        headPos = r.end();
        if (r.problem() != null || r.dirtyTail()) {
            LOG.warn("Journal segment {}: discarding what follows offset {} ({}), left by a write the previous process"
                            + " did not finish", path, r.end(),
                    r.problem() == null ? "stray bytes after the last record" : r.problem());
            headChannel.truncate(r.end());
            if (config.preallocate() && r.end() < config.segmentSize()) {
                zeroFill(headChannel, r.end(), config.segmentSize());
            }
        }
        // what the previous process wrote may still be only in the page cache: make it durable before deleting
        // segments on the strength of it
        headChannel.force(false);
    }

    // =================================================================== API (any thread)

    /** Every message live at start-up, ordered by sequence; the second call throws. */
    public synchronized List<JournalIndex.Recovered> takeRecovered() {
        if (recovered == null) {
            throw new IllegalStateException("recover() may be called once, at start-up, but was called again");
        }
        List<JournalIndex.Recovered> r = recovered;
        recovered = null;
        return r;
    }

    /**
     * Messages with a federation id that were removed in the files found at start-up, in order of removal; the second
     * call returns an empty list.
     */
    public synchronized List<JournalIndex.Removed> takeHistory() {
        List<JournalIndex.Removed> h = history;
        history = List.of();
        return h;
    }

    /**
     * Runs {@code guard} on the writer thread before any segment is deleted (after compaction, too): the records of
     * removed messages in it are then gone, so whatever must outlive them (the broker's dedupe log) is made durable
     * first. If it throws, nothing is deleted until a later pass succeeds.
     */
    public void beforeDeletingHistory(Runnable guard) {
        maintenance.beforeDeletingHistory(guard);
    }

    /** Subscriptions live at start-up. */
    public List<DurableSubscriptionInfo> recoveredSubscriptions() {
        return recoveredSubscriptions;
    }

    /** The highest sequence seen at start-up. */
    public long recoveredLastSequence() {
        return recoveredLastSequence;
    }

    /**
     * Queues {@code record}; the future completes when it is as durable as the durability mode promises, or fails
     * with a {@link StoreException}.
     */
    public CompletableFuture<Void> submit(JournalRecord record) {
        CompletableFuture<Void> f = new CompletableFuture<>();
        enqueue(new Op(record, f));
        return f;
    }

    /**
     * Queues {@code records} as one {@link JournalRecord.Group}: written with one write as one record, so that after a
     * crash all of them are found or none. The future completes when the group is as durable as the durability mode
     * promises. Records that would change nothing (the removal of a message not stored) are left out of it.
     */
    public CompletableFuture<Void> submitGroup(List<JournalRecord> records) {
        return submit(records.size() == 1 ? records.get(0) : new JournalRecord.Group(records));
    }

    /** Queues a best-effort record nobody waits for; dropped silently when the store is closed or failed. */
    public void submitBestEffort(JournalRecord record) {
        enqueue(new Op(record, null));
    }

    private void enqueue(Op op) {
        StoreException f = failure;
        if (f != null) {
            fail(op, refusal(f));
            return;
        }
        if (closed) {
            fail(op, closedError());
            return;
        }
        queue.add(op);
        if (terminated) {
            drainAndFail();
        }
    }

    /** True when the caller runs on the writer thread (in a future's callback) and must not block on a future. */
    public boolean isWriterThread() {
        return Thread.currentThread() == writer;
    }

    public Path directory() {
        return dir;
    }

    /** Names of the segment files in use, oldest first (for tests and diagnostics). */
    public List<Path> segmentFiles() throws IOException {
        List<Path> out = new ArrayList<>();
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir, "journal-*.log")) {
            ds.forEach(out::add);
        }
        out.sort(null);
        return out;
    }

    /** Stops accepting writes, writes and forces what is queued, then releases the directory. */
    public void close() {
        if (!closed) {
            closed = true;
            queue.add(CLOSE);
        }
        if (!isWriterThread()) {
            boolean interrupted = false;
            while (writer.isAlive()) {
                try {
                    writer.join();
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private StoreException closedError() {
        return new StoreException("store " + dir + " is closed");
    }

    private StoreException refusal(StoreException cause) {
        return new StoreException("store " + dir + " accepts no more writes after an earlier write failure ("
                + cause.getMessage() + "); reopen it", cause);
    }

    private static void fail(Op op, StoreException e) {
        if (op.future != null) {
            op.future.completeExceptionally(e);
        }
    }

    private void drainAndFail() {
        List<Op> left = new ArrayList<>();
        queue.drainTo(left);
        StoreException f = failure;
        for (Op op : left) {
            fail(op, f != null ? refusal(f) : closedError());
        }
    }

    // =================================================================== writer thread

    private void run() {
        List<Op> batch = new ArrayList<>();
        try {
            while (true) {
                long timeout;
                if (failure != null) {
                    timeout = IDLE_WAIT_NANOS;
                } else if (unforced) {
                    timeout = forceDeadline - System.nanoTime();
                } else if (maintenance.isDue()) {
                    timeout = 0;
                } else {
                    timeout = IDLE_WAIT_NANOS;
                }
                Op first = timeout <= 0 ? queue.poll() : queue.poll(timeout, TimeUnit.NANOSECONDS);
                if (first == null) {
                    idle();
                    continue;
                }
                batch.clear();
                batch.add(first);
                queue.drainTo(batch, config.maxBatch() - 1);
                if (process(batch)) {
                    return;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            terminated = true;
            closeFiles();
            release(lockChannel);
            drainAndFail();
        }
    }

    /** No operation arrived in time: force what is due, then tidy up. */
    private void idle() {
        if (failure != null) {
            return;
        }
        try {
            if (unforced && System.nanoTime() - forceDeadline >= 0) {
                force();
            }
            if (!unforced && maintenance.isDue()) {
                maintenance.maintain();
            }
        } catch (IOException | RuntimeException e) {
            failed(e);
        }
    }

    /** Writes one batch; true when the batch closed the journal. */
    private boolean process(List<Op> batch) {
        int end = batch.indexOf(CLOSE);
        boolean close = end >= 0;
        if (!close) {
            end = batch.size();
        }
        for (int i = end + 1; i < batch.size(); i++) {
            fail(batch.get(i), closedError());
        }
        if (failure != null) {
            StoreException refusal = refusal(failure);
            for (int i = 0; i < end; i++) {
                fail(batch.get(i), refusal);
            }
            return close;
        }
        boolean waited = false;
        try {
            for (int i = 0; i < end; i++) {
                Op op = batch.get(i);
                JournalRecord r = op.record instanceof JournalRecord.Group g ? changing(g) : op.record;
                if (r != null && (r instanceof JournalRecord.Group || index.changesState(r))) {
                    append(r);
                    if (r instanceof JournalRecord.Remove || r instanceof JournalRecord.SubscriptionRemove
                            || r instanceof JournalRecord.Group) {
                        maintenance.markDue();
                    }
                }
                waited |= op.future != null;
            }
            flushBuffer();
            // SYNC: force before completing; ASYNC (and best-effort writes): force once the interval is up, even
            // under a load that never leaves the writer idle
            if (unforced && (close || sync && waited || System.nanoTime() - forceDeadline >= 0)) {
                force();
            }
        } catch (IOException | RuntimeException | Error e) {
            // whatever went wrong, no future of this batch may be left pending or completed as if written
            StoreException f = failed(e);
            for (int i = 0; i < end; i++) {
                fail(batch.get(i), f);
            }
            return close;
        }
        for (int i = 0; i < end; i++) {
            CompletableFuture<Void> f = batch.get(i).future;
            if (f != null) {
                f.complete(null);
            }
        }
        if (!close && !unforced && maintenance.isDue()) {
            try {
                maintenance.maintain();
            } catch (IOException | RuntimeException e) {
                failed(e);
            }
        }
        return close;
    }

    private StoreException failed(Throwable e) {
        Path file = head == null ? dir : head.path();
        StoreException f = new StoreException("journal write to " + file + " failed (" + describe(e) + "); the store at "
                + dir + " accepts no more writes until it is reopened", e);
        failure = f;
        return f;
    }

    // ------------------------------------------------------------------- appending

    /**
     * The records of {@code g} that change anything (one alone is not grouped), or null for none. A removal or
     * redelivery count of a message the same group adds changes it, though the index does not have it yet.
     */
    private JournalRecord changing(JournalRecord.Group g) {
        List<JournalRecord> kept = new ArrayList<>(g.records().size());
        java.util.Set<String> added = new java.util.HashSet<>();
        for (JournalRecord r : g.records()) {
            if (r instanceof JournalRecord.Add a) {
                added.add(a.key() + '\u0000' + a.message().sequence());
                kept.add(r);
            } else if (index.changesState(r)
                    || r instanceof JournalRecord.Remove rm && added.contains(rm.key() + '\u0000' + rm.sequence())
                    || r instanceof JournalRecord.Redelivery rd && added.contains(rd.key() + '\u0000' + rd.sequence())) {
                kept.add(r);
            }
        }
        if (kept.isEmpty()) {
            return null;
        }
        return kept.size() == 1 ? kept.get(0) : new JournalRecord.Group(kept);
    }

    void append(JournalRecord r) throws IOException {
        JournalFormat.encodePayload(r, payload);
        int length = payload.size();
        int size = JournalFormat.RECORD_HEADER_SIZE + length;
        long offset = headPos + out.position();
        if (offset + size > config.segmentSize() && offset > JournalFormat.HEADER_SIZE) {
            roll();
            offset = headPos + out.position();
        }
        int crc = JournalFormat.recordCrc(length, r.type(), payload.array(), 0, length);
        if (size > out.remaining()) {
            flushBuffer();
        }
        if (size > out.remaining()) {
            // larger than the write buffer: written on its own
            ByteBuffer big = ByteBuffer.allocate(size);
            big.putInt(length).putInt(crc).put(r.type()).put(payload.array(), 0, length).flip();
            writeFully(headChannel, big, headPos);
            headPos += size;
            bytesWritten += size; // only the writer thread writes it
            markUnforced();
        } else {
            out.putInt(length).putInt(crc).put(r.type()).put(payload.array(), 0, length);
        }
        if (r instanceof JournalRecord.Group g) {
            int[] sizes = JournalFormat.groupedSizes(ByteBuffer.wrap(payload.array(), 0, length));
            long at = offset + JournalFormat.RECORD_HEADER_SIZE + JournalFormat.GROUP_HEADER_SIZE;
            for (int i = 0; i < sizes.length; i++) {
                index.apply(g.records().get(i), head.id(), at, sizes[i]);
                at += sizes[i];
            }
            recordsUnforced += sizes.length;
        } else {
            index.apply(r, head.id(), offset, size);
            recordsUnforced++;
        }
    }

    void flushBuffer() throws IOException {
        if (out.position() == 0) {
            return;
        }
        out.flip();
        int n = out.remaining();
        writeFully(headChannel, out, headPos);
        headPos += n;
        bytesWritten += n; // only the writer thread writes it
        out.clear();
        markUnforced();
    }

    private void markUnforced() {
        if (!unforced) {
            unforced = true;
            forceDeadline = System.nanoTime() + flushIntervalNanos;
        }
    }

    void force() throws IOException {
        long start = System.nanoTime();
        headChannel.force(false);
        long took = System.nanoTime() - start;
        unforced = false;
        forces++; // only the writer thread writes it
        int records = recordsUnforced;
        recordsUnforced = 0;
        syncListener.synced(took, records);
    }

    /** Told of every force of the head segment, on the writer thread. */
    public void onSync(io.fedbridge.broker.store.JournalMessageStore.SyncListener listener) {
        this.syncListener = listener;
    }

    /** Why the journal accepts no more writes, or null while it does. */
    public StoreException failure() {
        return failure;
    }

    /** Bytes of records written since the journal opened. */
    public long bytesWritten() {
        return bytesWritten;
    }

    /** Forces (fsyncs) of the head segment since the journal opened. */
    public long forces() {
        return forces;
    }

    /** The segment being written (writer thread). */
    JournalIndex.Segment head() {
        return head;
    }

    /** Seals the head (forced, so only the last segment can ever hold a torn write) and starts the next one. */
    private void roll() throws IOException {
        flushBuffer();
        force();
        long id = head.id() + 1;
        Path tmp;
        try {
            tmp = nextSegment.join();
        } catch (CompletionException e) {
            throw e.getCause() instanceof IOException io ? io : new IOException(e.getCause());
        }
        headChannel.close();
        createHead(id, tmp);
        prepareNext();
        maintenance.markDue();
    }

    /** Writes the header into a prepared file, forces it, and renames it into place: a segment appears whole. */
    private void createHead(long id, Path tmp) throws IOException {
        Path path = dir.resolve(JournalFormat.segmentName(id));
        FileChannel ch = opener.open(tmp, StandardOpenOption.READ, StandardOpenOption.WRITE);
        try {
            writeFully(ch, JournalFormat.header(id, index.lastSequence(), System.currentTimeMillis()), 0);
            ch.force(false);
            Files.move(tmp, path, StandardCopyOption.ATOMIC_MOVE);
            fsyncDirectory(dir);
        } catch (IOException | RuntimeException e) {
            ch.close();
            throw e;
        }
        headChannel = ch;
        head = index.addSegment(id, path);
        headPos = JournalFormat.HEADER_SIZE;
    }

    private void prepareNext() {
        long id = head.id() + 1;
        nextSegment = CompletableFuture.supplyAsync(() -> {
            try {
                return StoreFiles.prepareSegmentFile(dir, opener, id, config.preallocate(), config.segmentSize());
            } catch (IOException e) {
                throw new CompletionException(e);
            }
        }, preparer);
    }

    // ------------------------------------------------------------------- shutdown

    private void closeFiles() {
        try {
            if (headChannel != null && headChannel.isOpen()) {
                if (failure == null) {
                    flushBuffer();
                    headChannel.force(false);
                }
                headChannel.close();
            }
        } catch (IOException e) {
            if (failure == null) {
                failed(e);
            }
        }
        preparer.shutdown();
        try {
            if (!preparer.awaitTermination(30, TimeUnit.SECONDS)) {
                LOG.warn("Journal segment preallocation in {} did not stop within 30 s", dir);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    static String describe(Throwable e) {
        String m = e.getMessage();
        return e.getClass().getSimpleName() + (m == null ? "" : ": " + m);
    }
}
