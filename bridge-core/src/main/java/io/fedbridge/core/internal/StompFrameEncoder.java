package io.fedbridge.core.internal;

import io.fedbridge.core.StompFrame;
import io.fedbridge.core.StompHeaders;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.MessageToByteEncoder;

/**
 * Encodes {@link StompFrame}s. Escapes header names and values (except in CONNECT/CONNECTED, as STOMP 1.2
 * requires) and always writes {@code content-length} for a non-empty body, so bodies may contain NUL.
 */
@ChannelHandler.Sharable
public final class StompFrameEncoder extends MessageToByteEncoder<StompFrame> {

    public static final StompFrameEncoder INSTANCE = new StompFrameEncoder();

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
        out.writeCharSequence(frame.command().name(), java.nio.charset.StandardCharsets.US_ASCII);
        out.writeByte('\n');
        boolean escape = !frame.command().isConnectFrame();
        StompHeaders h = frame.headers();
        byte[] body = frame.body();
        boolean wroteLength = false;
        for (int i = 0; i < h.size(); i++) {
            String name = h.name(i);
            if (name.equals(StompHeaders.CONTENT_LENGTH)) {
                if (wroteLength) {
                    continue;
                }
                wroteLength = true;
                writeHeader(out, name, Integer.toString(body.length), false);
                continue;
            }
            writeHeader(out, name, h.value(i), escape);
        }
        if (!wroteLength && body.length > 0) {
            writeHeader(out, StompHeaders.CONTENT_LENGTH, Integer.toString(body.length), false);
        }
        out.writeByte('\n');
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

    private static void writeHeader(ByteBuf out, String name, String value, boolean escape) {
        writeText(out, name, escape);
        out.writeByte(':');
        writeText(out, value, escape);
        out.writeByte('\n');
    }

    /**
     * One pass over {@code s}: plain ASCII that needs no escape (nearly every header) goes out as it is, with no
     * second scan for escapes and no UTF-8 encoder; anything else takes the general path.
     */
    private static void writeText(ByteBuf out, String s, boolean escape) {
        int n = s.length();
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            if (c >= 0x80 || escape && (c == '\\' || c == '\n' || c == '\r' || c == ':')) {
                writeSlow(out, s, escape);
                return;
            }
        }
        out.writeCharSequence(s, java.nio.charset.StandardCharsets.US_ASCII);
    }

    private static void writeSlow(ByteBuf out, String s, boolean escape) {
        if (escape && isAscii(s)) {
            // ASCII with escapes (a federation id's ':', on every forwarded message): two bytes per escaped char, room
            // made once, no StringBuilder, no copy
            int n = s.length();
            out.ensureWritable(2 * n);
            int w = out.writerIndex();
            for (int i = 0; i < n; i++) {
                char c = s.charAt(i);
                switch (c) {
                    case '\\' -> w = escaped(out, w, '\\');
                    case '\n' -> w = escaped(out, w, 'n');
                    case '\r' -> w = escaped(out, w, 'r');
                    case ':' -> w = escaped(out, w, 'c');
                    default -> out.setByte(w++, c);
                }
            }
            out.writerIndex(w);
            return;
        }
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

    private static int escaped(ByteBuf out, int w, char c) {
        out.setByte(w, '\\');
        out.setByte(w + 1, c);
        return w + 2;
    }

    private static boolean isAscii(String s) {
        for (int i = 0; i < s.length(); i++) {
            if (s.charAt(i) >= 0x80) {
                return false;
            }
        }
        return true;
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
