package io.fedbridge.broker.store.internal;

import io.fedbridge.broker.MessageStore.DurableSubscriptionInfo;
import io.fedbridge.broker.StoredMessage;
import io.fedbridge.broker.store.Durability;
import io.fedbridge.broker.store.StoreConfig;
import io.fedbridge.broker.store.StoreException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
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
 * After a force it deletes segments that hold nothing live and compacts sparse ones (see {@link JournalIndex}).
 * Futures complete on the writer thread.
 */
public final class Journal {

    private static final Logger LOG = LoggerFactory.getLogger(Journal.class);

    public static final String LOCK_FILE = "fedbridge.lock";
    /** MapDB files a {@code DedupeLog} may keep in the store directory. */
    public static final Pattern DEDUPE_FILE = Pattern.compile("dedupe[A-Za-z0-9_.-]*\\.db(\\.wal\\.\\d+)?");
    private static final int WRITE_BUFFER = 1 << 20;
    private static final long COMPACTION_BYTES_PER_PASS = 4L << 20;
    private static final long IDLE_WAIT_NANOS = TimeUnit.SECONDS.toNanos(1);
    /** How long a failed history guard waits before it is tried again. */
    private static final long GUARD_RETRY_NANOS = TimeUnit.SECONDS.toNanos(1);

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
    private final JournalFormat.PayloadBuffer payload = new JournalFormat.PayloadBuffer();
    private final ByteBuffer out = ByteBuffer.allocateDirect(WRITE_BUFFER);

    private volatile StoreException failure;
    private volatile boolean closed;
    private volatile boolean terminated;
    private List<JournalIndex.Recovered> recovered;
    private List<JournalIndex.Removed> history;
    private volatile Runnable historyGuard;
    /** When the guard last failed (never 0 then), or 0. */
    private long guardFailedAt;
    /** The guard ran in this maintenance pass (it covers every deletion of the pass). */
    private boolean historyGuarded;
    private List<DurableSubscriptionInfo> recoveredSubscriptions;
    private long recoveredLastSequence;

    // owned by the writer thread (and by open() before the thread starts)
    private JournalIndex.Segment head;
    private FileChannel headChannel;
    private long headPos;
    private CompletableFuture<Path> nextSegment;
    private boolean unforced;
    private long forceDeadline;
    private boolean maintenanceDue = true;
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

    private static void prepareDirectory(Path dir) {
        if (Files.exists(dir) && !Files.isDirectory(dir)) {
            throw new StoreException("store directory " + dir + " is not a directory");
        }
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new StoreException("cannot create store directory " + dir + ": " + describe(e), e);
        }
        if (!Files.isWritable(dir)) {
            throw new StoreException("store directory " + dir + " is not writable");
        }
    }

    private static FileChannel openLockFile(Path dir) {
        Path lockFile = dir.resolve(LOCK_FILE);
        try {
            return FileChannel.open(lockFile, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        } catch (IOException e) {
            throw new StoreException("store directory " + dir + " is not writable: cannot create " + lockFile + " ("
                    + describe(e) + ")", e);
        }
    }

    private static FileLock acquireLock(Path dir, FileChannel ch) {
        FileLock lock;
        try {
            lock = ch.tryLock();
        } catch (OverlappingFileLockException e) {
            lock = null;
        } catch (IOException e) {
            release(ch);
            throw new StoreException("cannot lock store directory " + dir + ": " + describe(e), e);
        }
        if (lock == null) {
            release(ch);
            throw new StoreException("store directory " + dir + " is in use by another broker (" + dir.resolve(LOCK_FILE)
                    + " is locked); a directory can be opened by one store at a time");
        }
        return lock;
    }

    private static void release(FileChannel lockChannel) {
        try {
            lockChannel.close(); // releases the lock
        } catch (IOException e) {
            LOG.debug("Closing lock file failed", e);
        }
    }

    /** Segment files by id; deletes leftover temporary segments; rejects anything that is not ours. */
    private static TreeMap<Long, Path> listSegments(Path dir) {
        TreeMap<Long, Path> segments = new TreeMap<>();
        List<Path> tmp = new ArrayList<>();
        List<String> foreign = new ArrayList<>();
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir)) {
            for (Path p : ds) {
                String name = p.getFileName().toString();
                long id = JournalFormat.segmentId(name);
                if (name.equals(LOCK_FILE) || DEDUPE_FILE.matcher(name).matches() && Files.isRegularFile(p)) {
                    continue;
                }
                if (id > 0 && Files.isRegularFile(p)) {
                    segments.put(id, p);
                } else if (JournalFormat.isTmpSegmentName(name) && Files.isRegularFile(p)) {
                    tmp.add(p);
                } else {
                    foreign.add(name);
                }
            }
        } catch (IOException e) {
            throw new StoreException("cannot list store directory " + dir + ": " + describe(e), e);
        }
        if (!foreign.isEmpty()) {
            foreign.sort(null);
            throw new StoreException("store directory " + dir + " contains " + dir.resolve(foreign.get(0))
                    + (foreign.size() > 1 ? " (and " + (foreign.size() - 1) + " more)" : "")
                    + ", which is not a fedbridge store file (expected " + LOCK_FILE
                    + ", journal-NNNNNNNNNN.log or dedupe*.db); refusing to use a directory shared with other data");
        }
        for (Path p : tmp) {
            try {
                Files.delete(p);
            } catch (IOException e) {
                throw new StoreException("cannot delete leftover temporary segment " + p + ": " + describe(e), e);
            }
        }
        return segments;
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
                createHead(1, prepareSegmentFile(1));
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
        this.historyGuard = guard;
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
                } else if (maintenanceDue) {
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
            if (!unforced && maintenanceDue) {
                maintain();
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
                if (index.changesState(op.record)) {
                    append(op.record);
                    if (op.record instanceof JournalRecord.Remove || op.record instanceof JournalRecord.SubscriptionRemove) {
                        maintenanceDue = true;
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
        if (!close && !unforced && maintenanceDue) {
            try {
                maintain();
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

    private void append(JournalRecord r) throws IOException {
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
        index.apply(r, head.id(), offset, size);
        recordsUnforced++;
    }

    private void flushBuffer() throws IOException {
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

    private void force() throws IOException {
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
        maintenanceDue = true;
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
                return prepareSegmentFile(id);
            } catch (IOException e) {
                throw new CompletionException(e);
            }
        }, preparer);
    }

    /** Creates {@code journal-<id>.log.tmp}, zero-filled to the segment size when preallocating. */
    private Path prepareSegmentFile(long id) throws IOException {
        Path tmp = dir.resolve(JournalFormat.tmpSegmentName(id));
        Files.deleteIfExists(tmp);
        try (FileChannel ch = opener.open(tmp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            if (config.preallocate()) {
                zeroFillPaced(ch, config.segmentSize());
            }
        }
        return tmp;
    }

    /** Bytes the preparer writes before it forces them: what a journal sync may have to wait behind. */
    private static final int PACED_CHUNK = 256 * 1024;

    /**
     * Zero-fills a new segment in the background, forcing every {@link #PACED_CHUNK} bytes. Written in one go and
     * forced at the end, 32 MiB of zeros went to the disk as one burst that the journals' own syncs (this broker's
     * and any other on the disk) had to wait behind: a 20-40 ms stall of persistent deliveries every few seconds at
     * 1,000 msg/s. In chunks, a sync waits behind at most one.
     */
    private static void zeroFillPaced(FileChannel ch, long size) throws IOException {
        for (long pos = 0; pos < size; pos += PACED_CHUNK) {
            zeroFill(ch, pos, Math.min(size, pos + PACED_CHUNK));
            ch.force(false);
        }
    }

    private static void zeroFill(FileChannel ch, long from, long to) throws IOException {
        ByteBuffer zeros = ByteBuffer.allocateDirect((int) Math.min(1 << 20, to - from));
        long pos = from;
        while (pos < to) {
            zeros.clear();
            zeros.limit((int) Math.min(zeros.capacity(), to - pos));
            pos += writeFully(ch, zeros, pos);
        }
    }

    private static int writeFully(FileChannel ch, ByteBuffer b, long position) throws IOException {
        int total = 0;
        while (b.hasRemaining()) {
            total += ch.write(b, position + total);
        }
        return total;
    }

    static void fsyncDirectory(Path dir) throws IOException {
        try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
            ch.force(true);
        }
    }

    // ------------------------------------------------------------------- maintenance

    /**
     * Runs after a force, so every record written is durable: deletes segments that hold nothing live (oldest
     * first, so refs to them are released in order), then compacts a little:
     * <ol>
     *   <li>the oldest sparse segment (live bytes at most {@code compactionThreshold} of its data) whose refs are
     *       all satisfied; else</li>
     *   <li>when the sealed segments together are that sparse, the oldest segment, however live: it is what the
     *       others' removals refer to, directly or along a chain (a backlog nobody consumes would otherwise keep
     *       every later segment on disk). Moving it forward lets them go, so the journal stays within about
     *       {@code live bytes / compactionThreshold}.</li>
     * </ol>
     */
    private void maintain() throws IOException {
        maintenanceDue = false;
        historyGuarded = false;
        for (JournalIndex.Segment s : index.segments()) {
            if (s != head && index.isDeletable(s)) {
                if (!guardHistory()) {
                    return;
                }
                delete(s);
            }
        }
        JournalIndex.Segment oldest = null;
        long data = 0;
        long live = 0;
        for (JournalIndex.Segment s : index.segments()) {
            if (s == head) {
                break;
            }
            long segmentData = s.end() - JournalFormat.HEADER_SIZE;
            if (s.liveRecords() > 0 && s.liveBytes() <= config.compactionThreshold() * segmentData
                    && index.refsSatisfied(s)) {
                compact(s);
                return;
            }
            if (oldest == null) {
                oldest = s;
            }
            data += segmentData;
            live += s.liveBytes();
        }
        if (oldest != null && oldest.liveRecords() > 0 && live <= config.compactionThreshold() * data
                && index.refsSatisfied(oldest)) {
            compact(oldest);
        }
    }

    /**
     * Runs the history guard once per maintenance pass; false if it failed (or failed less than a second ago): delete
     * nothing now, and try again in a later pass.
     */
    private boolean guardHistory() {
        Runnable guard = historyGuard;
        if (guard == null || historyGuarded) {
            return true;
        }
        if (guardFailedAt != 0 && System.nanoTime() - guardFailedAt < GUARD_RETRY_NANOS) {
            maintenanceDue = true;
            return false;
        }
        try {
            guard.run();
            if (guardFailedAt != 0) {
                LOG.info("Journal {}: the history guard succeeded again; deleting segments as usual", dir);
            }
            guardFailedAt = 0;
            historyGuarded = true;
            return true;
        } catch (RuntimeException e) {
            if (guardFailedAt == 0) {
                LOG.warn("Journal {}: keeping segments that are due for deletion, because what must outlive their"
                        + " records could not be made durable ({}); retrying every second", dir, e.toString());
            }
            guardFailedAt = System.nanoTime() | 1;
            maintenanceDue = true;
            return false;
        }
    }

    private void delete(JournalIndex.Segment s) throws IOException {
        Files.deleteIfExists(s.path());
        // a later segment's deletion may depend on this one being gone for good
        fsyncDirectory(dir);
        index.removeSegment(s.id());
        LOG.debug("Deleted journal segment {}", s.path());
    }

    /**
     * Rewrites up to {@link #COMPACTION_BYTES_PER_PASS} of {@code s}'s live records at the head; when none is left,
     * deletes it. The rewritten records supersede the old ones, so a crash at any point replays correctly.
     */
    private void compact(JournalIndex.Segment s) throws IOException {
        if (!guardHistory()) {
            return;
        }
        JournalIndex.LiveState live = index.liveState(s.id());
        long moved = 0;
        boolean done = true;
        try (FileChannel ch = FileChannel.open(s.path(), StandardOpenOption.READ)) {
            for (JournalIndex.Location l : live.adds()) {
                if (moved >= COMPACTION_BYTES_PER_PASS) {
                    done = false;
                    break;
                }
                JournalRecord r;
                try {
                    r = SegmentScanner.read(ch, l.offset(), l.size());
                } catch (JournalFormat.FormatException e) {
                    throw new IOException("compaction found a corrupt record in " + s.path() + " at offset " + l.offset()
                            + ": " + e.getMessage());
                }
                if (!(r instanceof JournalRecord.Add a) || !a.key().equals(l.key()) || a.message().sequence() != l.sequence()) {
                    throw new IOException("compaction expected the ADD of " + l.sequence() + " under " + l.key() + " in "
                            + s.path() + " at offset " + l.offset() + ", but found " + r.getClass().getSimpleName());
                }
                StoredMessage m = a.message();
                if (m.redeliveryCount() != l.redeliveryCount()) {
                    m = m.withRedeliveryCount(l.redeliveryCount());
                }
                append(new JournalRecord.Add(l.key(), m));
                moved += l.size();
            }
        }
        if (done) {
            for (JournalRecord.Redelivery r : live.redeliveries()) {
                append(r);
            }
            for (DurableSubscriptionInfo info : live.subscriptions()) {
                append(new JournalRecord.SubscriptionSave(info));
            }
        }
        flushBuffer();
        force();
        LOG.debug("Compacted {} bytes of live records out of {}", moved, s.path());
        if (index.isDeletable(s)) {
            delete(s);
        }
        maintenanceDue = true;
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
