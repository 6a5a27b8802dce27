package io.fedbridge.broker.store.internal;

import static io.fedbridge.broker.store.internal.Journal.DEDUPE_FILE;
import static io.fedbridge.broker.store.internal.Journal.LOCK_FILE;
import static io.fedbridge.broker.store.internal.Journal.describe;

import io.fedbridge.broker.store.StoreException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The files of a journal's store directory: preparing and locking the directory, listing its segments, creating
 * new (preallocated) segment files, positional writes and directory fsyncs.
 *
 * <p>Stateless static helpers, safe from any thread; {@link Journal} calls them from {@code open()}, from its writer
 * thread and from its preallocation thread.
 */
final class StoreFiles {

    private static final Logger LOG = LoggerFactory.getLogger(Journal.class);

    /** Bytes the preparer writes before it forces them: what a journal sync may have to wait behind. */
    private static final int PACED_CHUNK = 256 * 1024;

    private StoreFiles() {
    }

    static void prepareDirectory(Path dir) {
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

    static FileChannel openLockFile(Path dir) {
        Path lockFile = dir.resolve(LOCK_FILE);
        try {
            return FileChannel.open(lockFile, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        } catch (IOException e) {
            throw new StoreException("store directory " + dir + " is not writable: cannot create " + lockFile + " ("
                    + describe(e) + ")", e);
        }
    }

    static FileLock acquireLock(Path dir, FileChannel ch) {
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

    static void release(FileChannel lockChannel) {
        try {
            lockChannel.close(); // releases the lock
        } catch (IOException e) {
            LOG.debug("Closing lock file failed", e);
        }
    }

    /** Segment files by id; deletes leftover temporary segments; rejects anything that is not ours. */
    static TreeMap<Long, Path> listSegments(Path dir) {
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


    /** Creates {@code journal-<id>.log.tmp}, zero-filled to the segment size when preallocating. */
    static Path prepareSegmentFile(Path dir, ChannelOpener opener, long id, boolean preallocate, long segmentSize)
            throws IOException {
        Path tmp = dir.resolve(JournalFormat.tmpSegmentName(id));
        Files.deleteIfExists(tmp);
        try (FileChannel ch = opener.open(tmp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            if (preallocate) {
                zeroFillPaced(ch, segmentSize);
            }
        }
        return tmp;
    }

    /**
     * Zero-fills a new segment in the background, forcing every {@link #PACED_CHUNK} bytes. Written in one go and
     * forced at the end, 32 MiB of zeros went to the disk as one burst that the journals' own syncs (this broker's
     * and any other on the disk) had to wait behind: a 20-40 ms stall of persistent deliveries every few seconds at
     * 1,000 msg/s. In chunks, a sync waits behind at most one.
     */
    static void zeroFillPaced(FileChannel ch, long size) throws IOException {
        for (long pos = 0; pos < size; pos += PACED_CHUNK) {
            zeroFill(ch, pos, Math.min(size, pos + PACED_CHUNK));
            ch.force(false);
        }
    }

    static void zeroFill(FileChannel ch, long from, long to) throws IOException {
        ByteBuffer zeros = ByteBuffer.allocateDirect((int) Math.min(1 << 20, to - from));
        long pos = from;
        while (pos < to) {
            zeros.clear();
            zeros.limit((int) Math.min(zeros.capacity(), to - pos));
            pos += writeFully(ch, zeros, pos);
        }
    }

    static int writeFully(FileChannel ch, ByteBuffer b, long position) throws IOException {
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

}
