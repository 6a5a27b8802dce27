package io.fedbridge.broker.store.internal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;

/**
 * Reads a segment file record by record, checking lengths and CRCs, and says where its valid data ends and, if
 * it stopped early, why. A GROUP record is visited as the records it holds, each at its own offset, and only when
 * the whole group is valid.
 */
public final class SegmentScanner {

    /** Receives each valid record. */
    @FunctionalInterface
    public interface Visitor {
        void record(JournalRecord record, long offset, int size);
    }

    /**
     * The outcome of a scan.
     *
     * @param header     the segment header
     * @param end        offset just past the last valid record
     * @param fileSize   the file's size
     * @param problem    null when the data ended cleanly (end of file or zeros), else what stopped the scan at
     *                   {@code end}
     * @param fatal      true when the problem cannot come from a torn write (a record whose CRC is right but which
     *                   does not parse); false for a length or CRC mismatch, which a crash mid-write can leave
     * @param dirtyTail  true when non-zero bytes follow {@code end} (only checked when the data ended cleanly or
     *                   the problem is not fatal)
     */
    public record Result(JournalFormat.Header header, long end, long fileSize, String problem, boolean fatal,
                         boolean dirtyTail) {
    }

    private static final int CHUNK = 1 << 20;

    private SegmentScanner() {
    }

    /**
     * Scans {@code ch}, the segment {@code expectedId}.
     *
     * @throws JournalFormat.FormatException when the header is not a valid header of that segment
     */
    public static Result scan(FileChannel ch, long expectedId, Visitor visitor)
            throws IOException, JournalFormat.FormatException {
        long size = ch.size();
        ByteBuffer head = ByteBuffer.allocate((int) Math.min(size, JournalFormat.HEADER_SIZE));
        readFully(ch, head, 0);
        head.flip();
        JournalFormat.Header header = JournalFormat.readHeader(head);
        if (header.segmentId() != expectedId) {
            throw new JournalFormat.FormatException("the header names segment " + header.segmentId()
                    + " but the file name says " + expectedId + " (renamed, or copied from another store?)");
        }

        Reader in = new Reader(ch, size);
        long pos = JournalFormat.HEADER_SIZE;
        String problem = null;
        boolean fatal = false;
        while (true) {
            long left = size - pos;
            if (left == 0) {
                break;
            }
            if (left < JournalFormat.RECORD_HEADER_SIZE) {
                if (!isZero(ch, pos, size)) { // zeros: the unused end of a full preallocated segment
                    problem = "truncated record header (" + left + " bytes before end of file)";
                }
                break;
            }
            ByteBuffer rh = in.at(pos, JournalFormat.RECORD_HEADER_SIZE);
            int length = rh.getInt();
            int crc = rh.getInt();
            byte type = rh.get();
            if (length == 0 && crc == 0 && type == 0) {
                break; // zeros: the end of the data in a preallocated file
            }
            if (length < 0 || length > left - JournalFormat.RECORD_HEADER_SIZE) {
                problem = "record length " + length + " does not fit in the file (" + (left - JournalFormat.RECORD_HEADER_SIZE)
                        + " bytes left)";
                break;
            }
            ByteBuffer payload = in.at(pos + JournalFormat.RECORD_HEADER_SIZE, length);
            if (JournalFormat.recordCrc(length, type, payload.duplicate()) != crc) {
                problem = "record CRC mismatch (type " + type + ", length " + length + ")";
                break;
            }
            JournalRecord r;
            try {
                r = JournalFormat.decode(type, payload.duplicate());
            } catch (JournalFormat.FormatException e) {
                problem = "record with a valid CRC does not parse: " + e.getMessage();
                fatal = true;
                break;
            }
            int recordSize = JournalFormat.RECORD_HEADER_SIZE + length;
            if (r instanceof JournalRecord.Group g) {
                // whole (its CRC is right): each record it holds is applied at its own place in it
                int[] sizes = JournalFormat.groupedSizes(payload);
                long at = pos + JournalFormat.RECORD_HEADER_SIZE + JournalFormat.GROUP_HEADER_SIZE;
                for (int i = 0; i < sizes.length; i++) {
                    visitor.record(g.records().get(i), at, sizes[i]);
                    at += sizes[i];
                }
            } else {
                visitor.record(r, pos, recordSize);
            }
            pos += recordSize;
        }
        boolean dirtyTail = !fatal && pos < size && !isZero(ch, pos, size);
        return new Result(header, pos, size, problem, fatal, dirtyTail);
    }

    /** Reads one record's payload and decodes it (compaction reads records back this way). */
    public static JournalRecord read(FileChannel ch, long offset, int size) throws IOException, JournalFormat.FormatException {
        ByteBuffer b = ByteBuffer.allocate(size);
        readFully(ch, b, offset);
        b.flip();
        int length = b.getInt();
        int crc = b.getInt();
        byte type = b.get();
        if (length != size - JournalFormat.RECORD_HEADER_SIZE) {
            throw new JournalFormat.FormatException("record length " + length + " where " + (size - JournalFormat.RECORD_HEADER_SIZE)
                    + " was expected");
        }
        if (JournalFormat.recordCrc(length, type, b.duplicate()) != crc) {
            throw new JournalFormat.FormatException("record CRC mismatch");
        }
        return JournalFormat.decode(type, b);
    }

    private static boolean isZero(FileChannel ch, long from, long to) throws IOException {
        ByteBuffer b = ByteBuffer.allocate((int) Math.min(CHUNK, to - from));
        long pos = from;
        while (pos < to) {
            b.clear();
            b.limit((int) Math.min(b.capacity(), to - pos));
            readFully(ch, b, pos);
            b.flip();
            while (b.remaining() >= 8) {
                if (b.getLong() != 0) {
                    return false;
                }
            }
            while (b.hasRemaining()) {
                if (b.get() != 0) {
                    return false;
                }
            }
            pos += b.limit();
        }
        return true;
    }

    static void readFully(FileChannel ch, ByteBuffer b, long position) throws IOException {
        long pos = position;
        while (b.hasRemaining()) {
            int n = ch.read(b, pos);
            if (n < 0) {
                throw new IOException("unexpected end of file at offset " + pos);
            }
            pos += n;
        }
    }

    /** Sequential reads through a window buffer; returns views valid until the next call. */
    private static final class Reader {
        private final FileChannel ch;
        private final long size;
        private ByteBuffer window = ByteBuffer.allocate(CHUNK);
        private long windowStart;
        private int windowLength;

        Reader(FileChannel ch, long size) {
            this.ch = ch;
            this.size = size;
        }

        ByteBuffer at(long pos, int length) throws IOException {
            if (pos < windowStart || pos + length > windowStart + windowLength) {
                if (length > window.capacity()) {
                    window = ByteBuffer.allocate(length);
                }
                window.clear();
                window.limit((int) Math.min(window.capacity(), size - pos));
                readFully(ch, window, pos);
                windowStart = pos;
                windowLength = window.limit();
            }
            return window.slice((int) (pos - windowStart), length);
        }
    }
}
