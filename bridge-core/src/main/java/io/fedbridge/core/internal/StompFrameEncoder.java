package io.fedbridge.core.internal;

import static java.nio.charset.StandardCharsets.US_ASCII;

import io.fedbridge.core.StompCommand;
import io.fedbridge.core.StompFrame;
import io.fedbridge.core.StompHeaders;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.MessageToByteEncoder;
import io.netty.util.concurrent.FastThreadLocal;

/**
 * Encodes {@link StompFrame}s. Escapes header names and values (except in CONNECT/CONNECTED, as STOMP 1.2
 * requires) and always writes {@code content-length} for a non-empty body, so bodies may contain NUL.
 *
 * <p>The command line and the header block are written into a per-thread scratch array with plain array stores
 * (one pass per header name and value, escaping as it goes) and copied into the frame's buffer at once, followed by
 * the body: three buffer calls per frame instead of several per header. A header with a non-ASCII char, or too long
 * for the scratch array, takes the general path (escape, then Netty's UTF-8 writer) with the same output bytes.
 * Stateless but for that per-thread array, hence {@code @Sharable}.
 */
@ChannelHandler.Sharable
public final class StompFrameEncoder extends MessageToByteEncoder<StompFrame> {

    public static final StompFrameEncoder INSTANCE = new StompFrameEncoder();

    /** Scratch bytes per thread; a header block that does not fit is written in several pieces. */
    static final int SCRATCH_SIZE = 4096;

    private static final FastThreadLocal<byte[]> SCRATCH = new FastThreadLocal<>() {
        @Override
        protected byte[] initialValue() {
            return new byte[SCRATCH_SIZE];
        }
    };

    /** "COMMAND\n" per command, by ordinal. */
    private static final byte[][] COMMAND_LINES = new byte[StompCommand.values().length][];

    private static final byte[] CONTENT_LENGTH_COLON = (StompHeaders.CONTENT_LENGTH + ":").getBytes(US_ASCII);

    /** For each ASCII char, the letter that follows its backslash when escaped, or 0 if it is written as it is. */
    private static final byte[] ESCAPES = new byte[128];

    static {
        for (StompCommand c : StompCommand.values()) {
            COMMAND_LINES[c.ordinal()] = (c.name() + "\n").getBytes(US_ASCII);
        }
        ESCAPES['\\'] = '\\';
        ESCAPES['\n'] = 'n';
        ESCAPES['\r'] = 'r';
        ESCAPES[':'] = 'c';
    }

    private StompFrameEncoder() {
        super(StompFrame.class);
    }

    @Override
    protected ByteBuf allocateBuffer(ChannelHandlerContext ctx, StompFrame frame, boolean preferDirect) {
        return ctx.alloc().ioBuffer(estimate(frame));
    }

    @Override
    protected void encode(ChannelHandlerContext ctx, StompFrame frame, ByteBuf out) {
        encode(frame, out);
    }

    /** Writes one frame to {@code out}; public so that frames can be pre-encoded once for fan-out. */
    public static void encode(StompFrame frame, ByteBuf out) {
        byte[] b = SCRATCH.get();
        byte[] commandLine = COMMAND_LINES[frame.command().ordinal()];
        System.arraycopy(commandLine, 0, b, 0, commandLine.length);
        int w = commandLine.length;
        boolean escape = !frame.command().isConnectFrame();
        StompHeaders h = frame.headers();
        byte[] body = frame.body();
        boolean wroteLength = false;
        for (int i = 0; i < h.size(); i++) {
            String name = h.name(i);
            if (name.equals(StompHeaders.CONTENT_LENGTH)) {
                if (!wroteLength) {
                    wroteLength = true;
                    w = writeContentLength(out, b, w, body.length);
                }
                continue;
            }
            w = writeHeader(out, b, w, name, h.value(i), escape);
        }
        if (!wroteLength && body.length > 0) {
            w = writeContentLength(out, b, w, body.length);
        }
        if (w == b.length) {
            out.writeBytes(b, 0, w);
            w = 0;
        }
        b[w++] = '\n';
        out.writeBytes(b, 0, w);
        out.writeBytes(body);
        out.writeByte(0);
    }

    public static int estimate(StompFrame frame) {
        StompHeaders h = frame.headers();
        int n = 16 + frame.body().length + 24;
        for (int i = 0; i < h.size(); i++) {
            n += h.name(i).length() + h.value(i).length() + 2;
        }
        return n + n / 8;
    }

    /** Appends "name:value\n" to {@code b} from {@code w}, or writes it (and what {@code b} holds) to {@code out}. */
    private static int writeHeader(ByteBuf out, byte[] b, int w, String name, String value, boolean escape) {
        int worst = 2 * (name.length() + value.length()) + 2;
        if (w + worst > b.length) {
            out.writeBytes(b, 0, w);
            w = 0;
        }
        if (worst <= b.length) {
            int end = writeAscii(b, w, name, escape);
            if (end >= 0) {
                b[end++] = ':';
                end = writeAscii(b, end, value, escape);
                if (end >= 0) {
                    b[end++] = '\n';
                    return end;
                }
            }
        }
        // non-ASCII, or longer than the scratch array: what b holds up to w, then the header the general way
        out.writeBytes(b, 0, w);
        writeGeneral(out, name, escape);
        out.writeByte(':');
        writeGeneral(out, value, escape);
        out.writeByte('\n');
        return 0;
    }

    /**
     * Copies {@code s} into {@code b} from {@code w}, escaping if asked; returns the end, or -1 at the first non-ASCII
     * char. The caller made room for every char escaped.
     */
    private static int writeAscii(byte[] b, int w, String s, boolean escape) {
        for (int i = 0, n = s.length(); i < n; i++) {
            char c = s.charAt(i);
            if (c >= 0x80) {
                return -1;
            }
            byte e = escape ? ESCAPES[c] : 0;
            if (e == 0) {
                b[w++] = (byte) c;
            } else {
                b[w++] = '\\';
                b[w++] = e;
            }
        }
        return w;
    }

    private static int writeContentLength(ByteBuf out, byte[] b, int w, int length) {
        if (w + CONTENT_LENGTH_COLON.length + 11 > b.length) {
            out.writeBytes(b, 0, w);
            w = 0;
        }
        System.arraycopy(CONTENT_LENGTH_COLON, 0, b, w, CONTENT_LENGTH_COLON.length);
        w += CONTENT_LENGTH_COLON.length;
        int digits = 1;
        for (int v = length; v >= 10; v /= 10) {
            digits++;
        }
        int v = length;
        for (int p = w + digits - 1; p >= w; p--) {
            b[p] = (byte) ('0' + v % 10);
            v /= 10;
        }
        w += digits;
        b[w++] = '\n';
        return w;
    }

    /** Escapes (if asked) and writes {@code s} as UTF-8, as Netty's writer does it (lone surrogates included). */
    private static void writeGeneral(ByteBuf out, String s, boolean escape) {
        if (escape && needsEscape(s)) {
            StringBuilder sb = new StringBuilder(s.length() + 8);
            for (int i = 0; i < s.length(); i++) {
                char c = s.charAt(i);
                switch (c) {
                    case '\\' -> sb.append("\\\\");
                    case '\n' -> sb.append("\\n");
                    case '\r' -> sb.append("\\r");
                    case ':' -> sb.append("\\c");
                    default -> sb.append(c);
                }
            }
            s = sb.toString();
        }
        ByteBufUtil.writeUtf8(out, s);
    }

    private static boolean needsEscape(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '\\' || c == '\n' || c == '\r' || c == ':') {
                return true;
            }
        }
        return false;
    }
}
