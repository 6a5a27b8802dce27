package io.fedbridge.core.internal;

import io.fedbridge.core.FrameLimits;
import io.fedbridge.core.StompCommand;
import io.fedbridge.core.StompFrame;
import io.fedbridge.core.StompHeaders;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.util.ByteProcessor;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

/**
 * Decodes STOMP 1.2 frames into {@link StompFrame}s, heart-beat EOLs are skipped. Invalid input becomes a
 * {@link MalformedFrame}, after which everything else on the connection is discarded.
 *
 * <p>Handles: {@code \n} and {@code \r\n} line ends, header escaping ({@code \\ \n \c \r}) except for
 * CONNECT/CONNECTED frames, bodies delimited by {@code content-length} (which may contain NUL) or by the
 * first NUL, and the limits of {@link FrameLimits}.
 *
 * <p>Most header values repeat from frame to frame on one connection (destination, content-length, persistent,
 * subscription): the last value of each known header name is kept and handed out again while the bytes match, so
 * such a value costs a comparison instead of a string and its array. A name whose value keeps changing (ids) stops
 * being compared after a few misses.
 *
 * <p>Two paths, one result. A frame whose command line and header block have arrived whole, in plain ASCII, within
 * the first {@value #MAX_HEAD_COPY} bytes (nearly every frame) is parsed from one bulk copy of those bytes into a
 * {@code byte[]}, each line scanned once for its EOL, ':' and '\\' ({@link #readHeaderBlock}): a pooled direct
 * buffer's {@code getByte} is a virtual call with bounds checks, an array's is not. Anything else (a split frame,
 * non-ASCII, an escape in a name, any error or limit) leaves that path having changed nothing and takes the
 * {@code ByteBuf} path, line by line, which alone produces every {@link MalformedFrame}.
 *
 * <p>One instance per channel, used by its event loop only.
 */
public final class StompFrameDecoder extends ByteToMessageDecoder {

    private static final int MAX_COMMAND_LENGTH = 32;
    /** Bytes copied for {@link #readHeaderBlock}: first this many, then up to {@link #MAX_HEAD_COPY} if needed. */
    private static final int HEAD_COPY = 512;
    private static final int MAX_HEAD_COPY = 4096;
    /** {@link #parseHead}: the header block does not end within the bytes copied. */
    private static final int INCOMPLETE = -1;
    /** {@link #parseHead}: something the fast path does not handle; the ByteBuf path decides. */
    private static final int NOT_FAST = -2;
    private static final StompCommand[] COMMANDS = StompCommand.values();
    private static final byte[][] COMMAND_BYTES = new byte[COMMANDS.length][];

    static {
        for (int i = 0; i < COMMANDS.length; i++) {
            COMMAND_BYTES[i] = COMMANDS[i].name().getBytes(StandardCharsets.US_ASCII);
        }
    }

    private enum State { COMMAND, HEADERS, BODY, BAD }

    private final FrameLimits limits;

    private State state = State.COMMAND;
    private StompCommand command;
    private StompHeaders headers;
    private int frameBytes;
    private int contentLength;
    /** Bytes of the current header line already searched for its EOL, so a line that trickles in is scanned once. */
    private int lineScanned;
    private int bodyScanned;
    /** Per known header name (by identity): its last value, and how many values in a row missed it. */
    private final String[] cachedNames = new String[VALUE_CACHE];
    private final String[] cachedValues = new String[VALUE_CACHE];
    /** The bytes of {@link #cachedValues} (plain ASCII, so one byte per char), for comparing with an array. */
    private final byte[][] cachedBytes = new byte[VALUE_CACHE][];
    private final byte[] cacheMisses = new byte[VALUE_CACHE];
    private int cacheNext;

    private static final int VALUE_CACHE = 12;
    private static final int MAX_CACHED_VALUE = 128;
    /** Misses in a row after which a name is taken for one whose values are unique (ids): no more comparing. */
    private static final int UNIQUE_AFTER = 3;

    public StompFrameDecoder(FrameLimits limits) {
        this.limits = limits;
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        while (true) {
            switch (state) {
                case COMMAND -> {
                    if (!in.isReadable() || !readHeaderBlock(in, out) && !readCommand(in, out)) {
                        return;
                    }
                }
                case HEADERS -> {
                    if (!readHeaders(in, out)) {
                        return;
                    }
                }
                case BODY -> {
                    if (!readBody(in, out)) {
                        return;
                    }
                }
                case BAD -> {
                    in.skipBytes(in.readableBytes());
                    return;
                }
            }
        }
    }

    private boolean readCommand(ByteBuf in, List<Object> out) {
        // Skip heart-beats (EOLs between frames).
        while (in.isReadable()) {
            byte b = in.getByte(in.readerIndex());
            if (b == '\n' || b == '\r') {
                in.skipBytes(1);
            } else {
                break;
            }
        }
        if (!in.isReadable()) {
            return false;
        }
        int eol = in.forEachByte(ByteProcessor.FIND_LF);
        if (eol < 0) {
            if (in.readableBytes() > MAX_COMMAND_LENGTH) {
                fail(out, "invalid frame: no command line within " + MAX_COMMAND_LENGTH + " bytes (starts with '"
                        + printable(in, in.readerIndex(), 16) + "')", null);
                return true;
            }
            return false;
        }
        int lineLength = lineLength(in, in.readerIndex(), eol);
        StompCommand c = null;
        if (lineLength <= MAX_COMMAND_LENGTH) {
            in.getBytes(in.readerIndex(), scratch, 0, lineLength);
            c = command(scratch, 0, lineLength);
        }
        if (c == null) {
            fail(out, "unknown command '" + truncate(in.toString(in.readerIndex(), lineLength, StandardCharsets.UTF_8)) + "'", null);
            return true;
        }
        frameBytes = eol - in.readerIndex() + 1;
        in.readerIndex(eol + 1);
        command = c;
        headers = new StompHeaders();
        lineScanned = 0;
        state = State.HEADERS;
        return true;
    }

    /** The command with exactly the name that the {@code len} bytes at {@code from} spell, or null. */
    private static StompCommand command(byte[] a, int from, int len) {
        for (int i = 0; i < COMMANDS.length; i++) {
            if (HeaderNames.spells(a, from, len, COMMAND_BYTES[i])) {
                return COMMANDS[i];
            }
        }
        return null;
    }

    /**
     * The fast path at a frame's start: if heart-beats, the command line and the whole header block are within the
     * first {@value #MAX_HEAD_COPY} readable bytes and valid plain ASCII, parses them from an array, consumes them and
     * goes on as {@link #readHeaders} would at the blank line. Otherwise returns false having consumed nothing (only
     * the value cache may have changed, which decides identity, never content).
     */
    private boolean readHeaderBlock(ByteBuf in, List<Object> out) {
        int readable = in.readableBytes();
        int n = Math.min(readable, HEAD_COPY);
        int used = parseHead(in, n);
        if (used == INCOMPLETE && readable > n) {
            used = parseHead(in, Math.min(readable, MAX_HEAD_COPY));
        }
        if (used < 0) {
            return false;
        }
        in.skipBytes(used);
        lineScanned = 0;
        return startBody(out);
    }

    /**
     * Parses the first {@code n} readable bytes as heart-beats, command line and header block; on success sets
     * {@link #command}, {@link #headers} and {@link #frameBytes} and returns the bytes used up to and including the
     * blank line, else {@link #INCOMPLETE} or {@link #NOT_FAST}. Each line is scanned once, for its LF, first ':',
     * any '\\' and any byte over 0x7f together; the checks are those of {@link #readHeaders}, in which any failure
     * means {@link #NOT_FAST}.
     */
    private int parseHead(ByteBuf in, int n) {
        byte[] a;
        int base;
        if (in.hasArray()) {
            a = in.array();
            base = in.arrayOffset() + in.readerIndex();
        } else {
            if (head.length < n) {
                head = new byte[MAX_HEAD_COPY];
            }
            in.getBytes(in.readerIndex(), head, 0, n);
            a = head;
            base = 0;
        }
        int end = base + n;
        int p = base;
        while (p < end && (a[p] == '\n' || a[p] == '\r')) {
            p++;
        }
        int commandEnd = Math.min(end, p + MAX_COMMAND_LENGTH + 2);
        int eol = p;
        while (eol < commandEnd && a[eol] != '\n') {
            eol++;
        }
        if (eol == commandEnd) {
            return commandEnd == end ? INCOMPLETE : NOT_FAST;
        }
        int commandLength = eol > p && a[eol - 1] == '\r' ? eol - p - 1 : eol - p;
        StompCommand c = command(a, p, commandLength);
        if (c == null) {
            return NOT_FAST;
        }
        boolean connect = c.isConnectFrame();
        int frame = eol - p + 1;
        StompHeaders h = new StompHeaders();
        int start = eol + 1;
        while (true) {
            // The name up to ':' (hashing it for HeaderNames), then the value up to LF.
            int colon = -1;
            boolean nameEscaped = false;
            boolean valueEscaped = false;
            int hash = 0;
            int i = start;
            for (; i < end; i++) {
                byte b = a[i];
                if (b == ':' || b == '\n') {
                    break;
                }
                if (b < 0) {
                    return NOT_FAST;
                }
                nameEscaped |= b == '\\';
                hash = 31 * hash + b;
            }
            if (i < end && a[i] == ':') {
                colon = i;
                for (i++; i < end; i++) {
                    byte b = a[i];
                    if (b == '\n') {
                        break;
                    }
                    if (b < 0) {
                        return NOT_FAST;
                    }
                    valueEscaped |= b == '\\';
                }
            }
            if (i == end) {
                return INCOMPLETE;
            }
            frame += i - start + 1;
            int len = i > start && a[i - 1] == '\r' ? i - start - 1 : i - start;
            if (frame > limits.maxFrameSize() || len > limits.maxHeaderLength()) {
                return NOT_FAST;
            }
            if (len == 0) {
                command = c;
                headers = h;
                frameBytes = frame;
                return i + 1 - base;
            }
            if (colon <= start || h.size() >= limits.maxHeaders()) { // no ':', or an empty name
                return NOT_FAST;
            }
            String known = HeaderNames.lookup(a, start, colon - start, hash);
            String name = known;
            if (name == null) {
                if (nameEscaped && !connect) {
                    return NOT_FAST;
                }
                name = new String(a, start, colon - start, StandardCharsets.ISO_8859_1);
            }
            int valueLength = start + len - colon - 1;
            String value;
            if (valueEscaped && !connect) {
                value = unescapeAscii(a, colon + 1, valueLength);
                if (value == null) {
                    return NOT_FAST;
                }
            } else {
                value = value(known, a, colon + 1, valueLength, !valueEscaped);
            }
            h.add(name, value);
            start = i + 1;
        }
    }

    private boolean readHeaders(ByteBuf in, List<Object> out) {
        while (true) {
            int eol = in.forEachByte(in.readerIndex() + lineScanned, in.readableBytes() - lineScanned, ByteProcessor.FIND_LF);
            if (eol < 0) {
                int waiting = in.readableBytes();
                lineScanned = waiting;
                boolean overLimit = waiting > limits.maxHeaderLength() + 1
                        || waiting == limits.maxHeaderLength() + 1 && in.getByte(in.writerIndex() - 1) != '\r';
                if (overLimit) {
                    failInHeaders(out, command + " frame has a header line longer than the limit of " + limits.maxHeaderLength() + " bytes");
                    return true;
                }
                if (frameBytes + in.readableBytes() > limits.maxFrameSize()) {
                    failTooLarge(out);
                    return true;
                }
                return false;
            }
            lineScanned = 0;
            int start = in.readerIndex();
            int len = lineLength(in, start, eol);
            frameBytes += eol - start + 1;
            if (frameBytes > limits.maxFrameSize()) {
                failTooLarge(out);
                return true;
            }
            if (len > limits.maxHeaderLength()) {
                failInHeaders(out, command + " frame has a header line longer than the limit of " + limits.maxHeaderLength() + " bytes");
                return true;
            }
            if (len == 0) {
                in.readerIndex(eol + 1);
                return startBody(out);
            }
            int colon = in.indexOf(start, start + len, (byte) ':');
            if (colon < 0) {
                failInHeaders(out, command + " frame has a header line without ':': '" + truncate(in.toString(start, len, StandardCharsets.UTF_8)) + "'");
                return true;
            }
            if (headers.size() >= limits.maxHeaders()) {
                failInHeaders(out, command + " frame has more than the limit of " + limits.maxHeaders() + " headers");
                return true;
            }
            String known = HeaderNames.lookup(in, start, colon - start); // no escapes in it: the same either way
            String name = known != null ? known : in.toString(start, colon - start, StandardCharsets.UTF_8);
            int valueLength = start + len - colon - 1;
            boolean escaped = !command.isConnectFrame() && in.indexOf(colon + 1, start + len, (byte) '\\') >= 0;
            String value = escaped ? unescapeAscii(in, colon + 1, valueLength) : value(known, in, colon + 1, valueLength);
            if (value == NOT_ASCII) {
                value = unescape(in.toString(colon + 1, valueLength, StandardCharsets.UTF_8));
            }
            if (!command.isConnectFrame()) {
                name = known != null ? known : unescape(name);
                if (name == null || value == null) {
                    failInHeaders(out, command + " frame has an invalid escape sequence in header line '"
                            + truncate(in.toString(start, len, StandardCharsets.UTF_8)) + "' (valid: \\\\ \\n \\r \\c)");
                    return true;
                }
            }
            if (name.isEmpty()) {
                failInHeaders(out, command + " frame has a header with an empty name");
                return true;
            }
            headers.add(name, value);
            in.readerIndex(eol + 1);
        }
    }

    /** {@link #unescapeAscii}: the value is not plain ASCII, take the general path. */
    private static final String NOT_ASCII = new String("not ascii");
    private byte[] scratch = new byte[256];
    /** The bytes {@link #parseHead} parses, copied from a buffer without an array. */
    private byte[] head = new byte[HEAD_COPY];

    /** {@link #unescapeAscii} of ASCII bytes in an array: null if an escape is invalid. */
    private String unescapeAscii(byte[] a, int from, int len) {
        if (scratch.length < len) {
            scratch = new byte[Math.max(len, 2 * scratch.length)];
        }
        int n = 0;
        for (int i = from, end = from + len; i < end; i++) {
            byte b = a[i];
            if (b == '\\') {
                if (++i == end) {
                    return null;
                }
                switch (a[i]) {
                    case 'n' -> b = '\n';
                    case 'r' -> b = '\r';
                    case 'c' -> b = ':';
                    case '\\' -> b = '\\';
                    default -> {
                        return null;
                    }
                }
            }
            scratch[n++] = b;
        }
        return new String(scratch, 0, n, StandardCharsets.ISO_8859_1);
    }

    /**
     * {@link #value(String, ByteBuf, int, int)} for ASCII bytes in an array; {@code cacheable} if they hold no
     * backslash.
     */
    private String value(String known, byte[] a, int from, int len, boolean cacheable) {
        if (known == null || len > MAX_CACHED_VALUE) {
            return new String(a, from, len, StandardCharsets.ISO_8859_1);
        }
        int slot = slot(known);
        if (slot >= 0 && cacheMisses[slot] >= UNIQUE_AFTER) {
            return new String(a, from, len, StandardCharsets.ISO_8859_1);
        }
        if (slot >= 0) {
            byte[] cached = cachedBytes[slot];
            if (cached != null && HeaderNames.spells(a, from, len, cached)) {
                cacheMisses[slot] = 0;
                return cachedValues[slot];
            }
            cacheMisses[slot]++;
        } else {
            slot = newSlot(known);
        }
        String v = new String(a, from, len, StandardCharsets.ISO_8859_1);
        cachedValues[slot] = cacheable ? v : null;
        cachedBytes[slot] = cacheable ? Arrays.copyOfRange(a, from, from + len) : null;
        return v;
    }

    private int slot(String known) {
        for (int i = 0; i < VALUE_CACHE; i++) {
            if (cachedNames[i] == known) {
                return i;
            }
        }
        return -1;
    }

    private int newSlot(String known) {
        int slot = cacheNext;
        cacheNext = (cacheNext + 1) % VALUE_CACHE;
        cachedNames[slot] = known;
        cacheMisses[slot] = 0;
        return slot;
    }

    /**
     * An ASCII header value with escapes, unescaped straight from the bytes into one string (a federation id, origin
     * {@code :} sequence, crosses every hop as {@code \c}); null if an escape is invalid, {@link #NOT_ASCII} for a byte
     * over 0x7f.
     */
    private String unescapeAscii(ByteBuf in, int from, int len) {
        if (scratch.length < len) {
            scratch = new byte[Math.max(len, 2 * scratch.length)];
        }
        int n = 0;
        for (int i = from, end = from + len; i < end; i++) {
            byte b = in.getByte(i);
            if (b < 0) {
                return NOT_ASCII;
            }
            if (b == '\\') {
                if (++i == end) {
                    return null;
                }
                switch (in.getByte(i)) {
                    case 'n' -> b = '\n';
                    case 'r' -> b = '\r';
                    case 'c' -> b = ':';
                    case '\\' -> b = '\\';
                    default -> {
                        return null;
                    }
                }
            }
            scratch[n++] = b;
        }
        return new String(scratch, 0, n, StandardCharsets.ISO_8859_1);
    }

    /** The header value at {@code from}: the cached string of {@code known} if its bytes spell it. */
    private String value(String known, ByteBuf in, int from, int len) {
        if (known == null || len > MAX_CACHED_VALUE) {
            return in.toString(from, len, StandardCharsets.UTF_8);
        }
        int slot = slot(known);
        if (slot >= 0 && cacheMisses[slot] >= UNIQUE_AFTER) {
            return in.toString(from, len, StandardCharsets.UTF_8);
        }
        if (slot >= 0) {
            String cached = cachedValues[slot];
            if (spells(in, from, len, cached)) {
                cacheMisses[slot] = 0;
                return cached;
            }
            cacheMisses[slot]++;
        } else {
            slot = newSlot(known);
        }
        String v = in.toString(from, len, StandardCharsets.UTF_8);
        // Only plain ASCII without escapes: then the bytes spell the string char for char, and unescape returns it.
        boolean plain = isPlainAscii(v);
        cachedValues[slot] = plain ? v : null;
        cachedBytes[slot] = plain ? v.getBytes(StandardCharsets.ISO_8859_1) : null;
        return v;
    }

    private static boolean spells(ByteBuf in, int from, int len, String s) {
        if (s == null || s.length() != len) {
            return false;
        }
        for (int i = len - 1; i >= 0; i--) { // ids and counters differ at the end
            if (in.getByte(from + i) != s.charAt(i)) {
                return false;
            }
        }
        return true;
    }

    private static boolean isPlainAscii(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c >= 0x80 || c == '\\') {
                return false;
            }
        }
        return true;
    }

    private boolean startBody(List<Object> out) {
        String cl = headers.get(StompHeaders.CONTENT_LENGTH);
        contentLength = -1;
        if (cl != null) {
            try {
                contentLength = Integer.parseInt(cl.trim());
            } catch (NumberFormatException e) {
                contentLength = -2;
            }
            if (contentLength < 0) {
                fail(out, command + " frame has an invalid content-length '" + truncate(cl) + "'", headers.get(StompHeaders.RECEIPT));
                return true;
            }
            if ((long) frameBytes + contentLength + 1 > limits.maxFrameSize()) {
                failTooLarge(out);
                return true;
            }
        }
        bodyScanned = 0;
        state = State.BODY;
        return true;
    }

    private boolean readBody(ByteBuf in, List<Object> out) {
        int bodyLength;
        if (contentLength >= 0) {
            if (in.readableBytes() < contentLength + 1) {
                return false;
            }
            if (in.getByte(in.readerIndex() + contentLength) != 0) {
                fail(out, command + " frame body is not terminated by NUL after content-length " + contentLength + " bytes",
                        headers.get(StompHeaders.RECEIPT));
                return true;
            }
            bodyLength = contentLength;
        } else {
            int from = in.readerIndex() + bodyScanned;
            int nul = in.indexOf(from, in.writerIndex(), (byte) 0);
            if (nul < 0) {
                bodyScanned = in.readableBytes();
                if (frameBytes + bodyScanned + 1 > limits.maxFrameSize()) {
                    failTooLarge(out);
                    return true;
                }
                return false;
            }
            bodyLength = nul - in.readerIndex();
            if (frameBytes + bodyLength + 1 > limits.maxFrameSize()) {
                failTooLarge(out);
                return true;
            }
        }
        byte[] body = new byte[bodyLength];
        in.readBytes(body);
        in.skipBytes(1);
        out.add(new StompFrame(command, headers, body));
        command = null;
        headers = null;
        state = State.COMMAND;
        return true;
    }

    private void failInHeaders(List<Object> out, String reason) {
        fail(out, reason, headers == null ? null : headers.get(StompHeaders.RECEIPT));
    }

    private void failTooLarge(List<Object> out) {
        fail(out, command + " frame exceeds the size limit of " + limits.maxFrameSize() + " bytes",
                headers == null ? null : headers.get(StompHeaders.RECEIPT));
    }

    private void fail(List<Object> out, String reason, String receipt) {
        out.add(new MalformedFrame(reason, receipt));
        state = State.BAD;
        command = null;
        headers = null;
    }

    private static int lineLength(ByteBuf in, int start, int eol) {
        int len = eol - start;
        if (len > 0 && in.getByte(eol - 1) == '\r') {
            len--;
        }
        return len;
    }

    /** STOMP 1.2 header unescaping; null if an escape is invalid. */
    static String unescape(String s) {
        int i = s.indexOf('\\');
        if (i < 0) {
            return s;
        }
        StringBuilder sb = new StringBuilder(s.length());
        sb.append(s, 0, i);
        for (; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c != '\\') {
                sb.append(c);
                continue;
            }
            if (++i == s.length()) {
                return null;
            }
            switch (s.charAt(i)) {
                case 'n' -> sb.append('\n');
                case 'r' -> sb.append('\r');
                case 'c' -> sb.append(':');
                case '\\' -> sb.append('\\');
                default -> {
                    return null;
                }
            }
        }
        return sb.toString();
    }

    private static String truncate(String s) {
        return s.length() <= 64 ? s : s.substring(0, 64) + "...";
    }

    private static String printable(ByteBuf in, int from, int max) {
        StringBuilder sb = new StringBuilder();
        for (int i = from; i < Math.min(in.writerIndex(), from + max); i++) {
            byte b = in.getByte(i);
            sb.append(b >= 32 && b < 127 ? (char) b : '?');
        }
        return sb.toString();
    }
}
