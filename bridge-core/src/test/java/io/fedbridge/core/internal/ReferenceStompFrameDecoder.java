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
 */
final class ReferenceStompFrameDecoder extends ByteToMessageDecoder {

    private static final int MAX_COMMAND_LENGTH = 32;

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
    private final byte[] cacheMisses = new byte[VALUE_CACHE];
    private int cacheNext;

    private static final int VALUE_CACHE = 12;
    private static final int MAX_CACHED_VALUE = 128;
    /** Misses in a row after which a name is taken for one whose values are unique (ids): no more comparing. */
    private static final int UNIQUE_AFTER = 3;

    ReferenceStompFrameDecoder(FrameLimits limits) {
        this.limits = limits;
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        while (true) {
            switch (state) {
                case COMMAND -> {
                    if (!readCommand(in, out)) {
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
        String name = in.toString(in.readerIndex(), lineLength, StandardCharsets.UTF_8);
        StompCommand c = lineLength <= MAX_COMMAND_LENGTH ? StompCommand.lookup(name) : null;
        if (c == null) {
            fail(out, "unknown command '" + truncate(name) + "'", null);
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
        int slot = -1;
        for (int i = 0; i < VALUE_CACHE; i++) {
            if (cachedNames[i] == known) {
                slot = i;
                break;
            }
        }
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
            slot = cacheNext;
            cacheNext = (cacheNext + 1) % VALUE_CACHE;
            cachedNames[slot] = known;
            cacheMisses[slot] = 0;
        }
        String v = in.toString(from, len, StandardCharsets.UTF_8);
        // Only plain ASCII without escapes: then the bytes spell the string char for char, and unescape returns it.
        cachedValues[slot] = isPlainAscii(v) ? v : null;
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
