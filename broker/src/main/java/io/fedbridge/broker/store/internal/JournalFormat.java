package io.fedbridge.broker.store.internal;

import io.fedbridge.broker.MessageStore.DurableSubscriptionInfo;
import io.fedbridge.broker.StoredMessage;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.CRC32C;

/**
 * The journal's on-disk format. All numbers are big-endian.
 *
 * <pre>
 * segment file journal-NNNNNNNNNN.log (NNNNNNNNNN = segment id, decimal, zero-padded to 10 digits)
 *   header, 64 bytes:
 *     0  magic "FBJOURNL" (8 bytes)
 *     8  int   format version (1)
 *     12 int   0 (reserved)
 *     16 long  segment id (must match the file name)
 *     24 long  highest message sequence stored before this segment was created
 *     32 long  creation time, epoch millis
 *     40 20 zero bytes (reserved)
 *     60 int   CRC32C of bytes 0..59
 *   records, back to back, from offset 64:
 *     0  int   payload length L
 *     4  int   CRC32C of (the 4 length bytes, the type byte, the payload)
 *     8  byte  type: 1 ADD, 2 REMOVE, 3 REDELIVERY, 4 DURABLE_SUB_SAVE, 5 DURABLE_SUB_REMOVE,
 *                6 REMOVE_CONSUMED_HERE (a REMOVE after a local consumer took the message; readers before 2026-12
 *                stop at it as at a corrupt record), 7 GROUP (records that hold all together or not at all: a STOMP
 *                transaction's sends and acks; readers before 2026-12-03 stop at it as at a corrupt record)
 *     9  L bytes payload
 *   end: end of file, or a record header of 9 zero bytes (the rest of a preallocated file is zeros)
 *
 * payloads (str = int byte length + UTF-8 bytes, length -1 = null):
 *   ADD                 long sequence, str key, int redeliveryCount, str messageId, str destination,
 *                       int headerCount, headerCount x (str name, str value), int bodyLength (-1 = null), body
 *   REMOVE              long sequence, str key
 *   REMOVE_CONSUMED_HERE long sequence, str key
 *   REDELIVERY          long sequence, str key, int redeliveryCount
 *   DURABLE_SUB_SAVE    str key, str clientId, str name, str destination, str selector
 *   DURABLE_SUB_REMOVE  str key
 *   GROUP               int count (at least 1), then count whole records back to back, each as above (length, CRC,
 *                       type, payload) and each an ADD, REMOVE, REMOVE_CONSUMED_HERE or REDELIVERY
 * </pre>
 *
 * <p>A GROUP is one record with one CRC over all it holds, written with one write and forced once: a crash that
 * tears it leaves a CRC mismatch at its start, so replay drops the whole group with the torn tail, and never applies
 * part of it. Replay and the index then see the grouped records one by one, each at its own offset inside the group,
 * so compaction reads a grouped ADD back as it reads any other. The format version stays 1: a directory written
 * before groups existed reads the same, and groups are only written when the broker commits a transaction.
 */
public final class JournalFormat {

    public static final int HEADER_SIZE = 64;
    public static final int RECORD_HEADER_SIZE = 9;
    /** The bytes of a GROUP's payload before its first record (the count). */
    public static final int GROUP_HEADER_SIZE = 4;
    public static final int VERSION = 1;
    private static final byte[] MAGIC = "FBJOURNL".getBytes(StandardCharsets.US_ASCII);
    private static final Pattern SEGMENT_NAME = Pattern.compile("journal-(\\d{10,19})\\.log");
    private static final Pattern SEGMENT_TMP_NAME = Pattern.compile("journal-(\\d{10,19})\\.log\\.tmp");

    private JournalFormat() {
    }

    public static String segmentName(long id) {
        return String.format("journal-%010d.log", id);
    }

    public static String tmpSegmentName(long id) {
        return segmentName(id) + ".tmp";
    }

    /** The segment id named by {@code fileName}, or -1 when it is not a segment's name. */
    public static long segmentId(String fileName) {
        Matcher m = SEGMENT_NAME.matcher(fileName);
        return m.matches() ? parseId(m.group(1)) : -1;
    }

    public static boolean isTmpSegmentName(String fileName) {
        return SEGMENT_TMP_NAME.matcher(fileName).matches();
    }

    private static long parseId(String digits) {
        try {
            return Long.parseLong(digits);
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    // ---------------------------------------------------------------- segment header

    public static ByteBuffer header(long segmentId, long lastSequence, long createdMillis) {
        ByteBuffer b = ByteBuffer.allocate(HEADER_SIZE);
        b.put(MAGIC).putInt(VERSION).putInt(0).putLong(segmentId).putLong(lastSequence).putLong(createdMillis);
        CRC32C crc = new CRC32C();
        crc.update(b.array(), 0, HEADER_SIZE - 4);
        b.putInt(HEADER_SIZE - 4, (int) crc.getValue());
        b.clear();
        return b;
    }

    /** A segment header read back. */
    public record Header(long segmentId, long lastSequence, long createdMillis) {
    }

    /**
     * Reads a header.
     *
     * @throws FormatException saying what is wrong with it
     */
    public static Header readHeader(ByteBuffer b) throws FormatException {
        if (b.remaining() < HEADER_SIZE) {
            throw new FormatException("file is shorter than a segment header (" + b.remaining() + " bytes)");
        }
        byte[] magic = new byte[MAGIC.length];
        b.get(b.position(), magic);
        if (!Arrays.equals(magic, MAGIC)) {
            throw new FormatException("bad magic (not a fedbridge journal segment)");
        }
        int version = b.getInt(b.position() + 8);
        if (version != VERSION) {
            throw new FormatException("unsupported journal format version " + version + " (this build reads " + VERSION + ")");
        }
        CRC32C crc = new CRC32C();
        crc.update(b.slice(b.position(), HEADER_SIZE - 4));
        if ((int) crc.getValue() != b.getInt(b.position() + HEADER_SIZE - 4)) {
            throw new FormatException("segment header CRC mismatch");
        }
        return new Header(b.getLong(b.position() + 16), b.getLong(b.position() + 24), b.getLong(b.position() + 32));
    }

    // ---------------------------------------------------------------- records

    /** The CRC32C a record header must carry. */
    public static int recordCrc(int length, byte type, ByteBuffer payload) {
        CRC32C crc = new CRC32C();
        crc.update(length >>> 24);
        crc.update(length >>> 16);
        crc.update(length >>> 8);
        crc.update(length);
        crc.update(type);
        crc.update(payload);
        return (int) crc.getValue();
    }

    public static int recordCrc(int length, byte type, byte[] payload, int off, int len) {
        return recordCrc(length, type, ByteBuffer.wrap(payload, off, len));
    }

    /** Encodes a record's payload into {@code out} (cleared first). */
    public static void encodePayload(JournalRecord record, PayloadBuffer out) {
        out.clear();
        encodeInto(record, out);
    }

    private static void encodeInto(JournalRecord record, PayloadBuffer out) {
        if (record instanceof JournalRecord.Group g) {
            out.putInt(g.records().size());
            for (JournalRecord r : g.records()) {
                int at = out.size();
                out.putInt(0);
                out.putInt(0);
                out.putByte(r.type());
                encodeInto(r, out);
                int length = out.size() - at - RECORD_HEADER_SIZE;
                out.setInt(at, length);
                out.setInt(at + 4, recordCrc(length, r.type(), out.array(), at + RECORD_HEADER_SIZE, length));
            }
        } else if (record instanceof JournalRecord.Add a) {
            StoredMessage m = a.message();
            out.putLong(m.sequence());
            out.putString(a.key());
            out.putInt(m.redeliveryCount());
            out.putString(m.messageId());
            out.putString(m.destination());
            out.putInt(m.headers().size());
            for (Map.Entry<String, String> h : m.headers().entrySet()) {
                out.putString(h.getKey());
                out.putString(h.getValue());
            }
            out.putBytes(m.body());
        } else if (record instanceof JournalRecord.Remove r) {
            out.putLong(r.sequence());
            out.putString(r.key());
        } else if (record instanceof JournalRecord.Redelivery r) {
            out.putLong(r.sequence());
            out.putString(r.key());
            out.putInt(r.count());
        } else if (record instanceof JournalRecord.SubscriptionSave s) {
            DurableSubscriptionInfo i = s.info();
            out.putString(i.key());
            out.putString(i.clientId());
            out.putString(i.name());
            out.putString(i.destination());
            out.putString(i.selector());
        } else if (record instanceof JournalRecord.SubscriptionRemove s) {
            out.putString(s.key());
        } else {
            throw new IllegalArgumentException("record must be a known journal record, but was " + record);
        }
    }

    /**
     * Decodes a payload whose CRC was checked.
     *
     * @throws FormatException when the type is unknown or the payload does not parse
     */
    public static JournalRecord decode(byte type, ByteBuffer payload) throws FormatException {
        try {
            JournalRecord r = switch (type) {
                case JournalRecord.Add.TYPE -> {
                    long seq = payload.getLong();
                    String key = requireString(payload, "key");
                    int count = payload.getInt();
                    String messageId = getString(payload);
                    String destination = getString(payload);
                    int n = payload.getInt();
                    if (n < 0 || n > payload.remaining() / 8) {
                        throw new FormatException("bad header count " + n);
                    }
                    Map<String, String> headers = new LinkedHashMap<>(Math.max(4, n * 2));
                    for (int i = 0; i < n; i++) {
                        headers.put(getString(payload), getString(payload));
                    }
                    byte[] body = getBytes(payload);
                    yield new JournalRecord.Add(key, new StoredMessage(seq, messageId, destination, headers, body, count));
                }
                case JournalRecord.Remove.TYPE, JournalRecord.Remove.TYPE_CONSUMED_HERE -> {
                    long seq = payload.getLong();
                    yield new JournalRecord.Remove(requireString(payload, "key"), seq,
                            type == JournalRecord.Remove.TYPE_CONSUMED_HERE);
                }
                case JournalRecord.Redelivery.TYPE -> {
                    long seq = payload.getLong();
                    String key = requireString(payload, "key");
                    yield new JournalRecord.Redelivery(key, seq, payload.getInt());
                }
                case JournalRecord.SubscriptionSave.TYPE -> new JournalRecord.SubscriptionSave(
                        new DurableSubscriptionInfo(requireString(payload, "key"), getString(payload), getString(payload),
                                getString(payload), getString(payload)));
                case JournalRecord.SubscriptionRemove.TYPE ->
                        new JournalRecord.SubscriptionRemove(requireString(payload, "key"));
                case JournalRecord.Group.TYPE -> decodeGroup(payload);
                default -> throw new FormatException("unknown record type " + type);
            };
            if (payload.hasRemaining()) {
                throw new FormatException(payload.remaining() + " unexpected bytes after a record of type " + type);
            }
            return r;
        } catch (BufferUnderflowException e) {
            throw new FormatException("record of type " + type + " is shorter than its fields");
        }
    }

    private static JournalRecord.Group decodeGroup(ByteBuffer payload) throws FormatException {
        int n = payload.getInt();
        if (n < 1 || n > payload.remaining() / RECORD_HEADER_SIZE) {
            throw new FormatException("bad group record count " + n);
        }
        java.util.List<JournalRecord> records = new java.util.ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            int length = payload.getInt();
            int crc = payload.getInt();
            byte type = payload.get();
            if (length < 0 || length > payload.remaining()) {
                throw new FormatException("grouped record " + i + " length " + length + " does not fit in its group");
            }
            ByteBuffer inner = payload.slice(payload.position(), length);
            if (recordCrc(length, type, inner.duplicate()) != crc) {
                throw new FormatException("grouped record " + i + " CRC mismatch");
            }
            if (type == JournalRecord.Group.TYPE) {
                throw new FormatException("a group holds a group");
            }
            records.add(decode(type, inner));
            payload.position(payload.position() + length);
        }
        try {
            return new JournalRecord.Group(records);
        } catch (IllegalArgumentException e) {
            throw new FormatException(e.getMessage());
        }
    }

    /**
     * The sizes (header included) of the records a GROUP's payload holds, in order; the first starts
     * {@link #GROUP_HEADER_SIZE} bytes into the payload. The payload must have been decoded (so it is well formed).
     */
    public static int[] groupedSizes(ByteBuffer groupPayload) {
        ByteBuffer b = groupPayload.duplicate();
        int n = b.getInt();
        int[] sizes = new int[n];
        for (int i = 0; i < n; i++) {
            int length = b.getInt(b.position());
            sizes[i] = RECORD_HEADER_SIZE + length;
            b.position(b.position() + sizes[i]);
        }
        return sizes;
    }

    private static String requireString(ByteBuffer b, String field) throws FormatException {
        String s = getString(b);
        if (s == null) {
            throw new FormatException(field + " is null");
        }
        return s;
    }

    private static String getString(ByteBuffer b) throws FormatException {
        byte[] bytes = getBytes(b);
        if (bytes == null) {
            return null;
        }
        try {
            return StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes)).toString();
        } catch (CharacterCodingException e) {
            throw new FormatException("a string is not valid UTF-8");
        }
    }

    private static byte[] getBytes(ByteBuffer b) throws FormatException {
        int n = b.getInt();
        if (n == -1) {
            return null;
        }
        if (n < 0 || n > b.remaining()) {
            throw new FormatException("bad field length " + n);
        }
        byte[] bytes = new byte[n];
        b.get(bytes);
        return bytes;
    }

    /** What is wrong with a header or record. */
    public static final class FormatException extends Exception {
        private static final long serialVersionUID = 1L;

        public FormatException(String message) {
            super(message);
        }
    }

    /** A growable big-endian byte buffer for encoding payloads. */
    public static final class PayloadBuffer {
        private byte[] bytes = new byte[4096];
        private int size;

        public void clear() {
            size = 0;
        }

        public int size() {
            return size;
        }

        public byte[] array() {
            return bytes;
        }

        private void ensure(int more) {
            if (size + more > bytes.length) {
                long want = Math.max((long) bytes.length * 2, (long) size + more);
                if (want > Integer.MAX_VALUE - 64) {
                    throw new IllegalArgumentException("record must be smaller than 2 GiB, but was at least " + want + " bytes");
                }
                bytes = Arrays.copyOf(bytes, (int) want);
            }
        }

        void putLong(long v) {
            ensure(8);
            for (int i = 7; i >= 0; i--) {
                bytes[size++] = (byte) (v >>> (i * 8));
            }
        }

        void putInt(int v) {
            ensure(4);
            bytes[size++] = (byte) (v >>> 24);
            bytes[size++] = (byte) (v >>> 16);
            bytes[size++] = (byte) (v >>> 8);
            bytes[size++] = (byte) v;
        }

        void putByte(byte v) {
            ensure(1);
            bytes[size++] = v;
        }

        void setInt(int at, int v) {
            bytes[at] = (byte) (v >>> 24);
            bytes[at + 1] = (byte) (v >>> 16);
            bytes[at + 2] = (byte) (v >>> 8);
            bytes[at + 3] = (byte) v;
        }

        void putString(String s) {
            putBytes(s == null ? null : s.getBytes(StandardCharsets.UTF_8));
        }

        void putBytes(byte[] b) {
            if (b == null) {
                putInt(-1);
                return;
            }
            putInt(b.length);
            ensure(b.length);
            System.arraycopy(b, 0, bytes, size, b.length);
            size += b.length;
        }
    }
}
