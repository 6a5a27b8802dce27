package io.fedbridge.core.internal;

import static java.nio.charset.StandardCharsets.ISO_8859_1;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.fedbridge.core.FrameLimits;
import io.fedbridge.core.StompCommand;
import io.fedbridge.core.StompFrame;
import io.fedbridge.core.testing.Fuzz;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.channel.ChannelHandler;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.util.ReferenceCountUtil;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * {@link StompFrameDecoder} against {@link ReferenceStompFrameDecoder}, the straightforward line-by-line decoder it
 * replaced: for random streams of valid and invalid frames (escapes, non-ASCII, CRLF, missing colons, empty names,
 * lines and frames over the limits, header blocks longer than the decoder's copy, content-length bodies with NUL,
 * heart-beats), split anywhere, on heap and direct buffers, both must emit the same frames and the same
 * {@link MalformedFrame}s (reason and receipt).
 */
class StompFrameDecoderDifferentialTest {

    private static final List<FrameLimits> LIMITS = List.of(new FrameLimits(256, 3, 64), new FrameLimits(2048, 6, 300),
            FrameLimits.ofDefaults());

    private static final List<String> NAMES = List.of("destination", "content-length", "receipt", "message-id",
            "subscription", "persistent", "fedbridge-id", "fedbridge-hops", "id", "ack", "x-custom", "destinatioN",
            "Destination", "");

    private static final List<String> VALUES = List.of("/queue/bench", "/queue/a", "true", "1", "sub-0", "", "r-1",
            "a\\cb", "\\\\", "\\n\\r", "x:y", "bad\\x", "trailing\\", "caf\u00e9", "\u4e2d", " 3 ");

    /** Value characters: escapes (valid and not), ':', CR, non-ASCII, NUL. */
    private static final String ALPHABET = "abcxyz019-/.:, \\\\\\\\ncrt\r\u00e9\u4e2d\0";

    private static final List<ByteBufAllocator> ALLOCATORS = List.of(new UnpooledByteBufAllocator(false),
            new UnpooledByteBufAllocator(true), ByteBufAllocator.DEFAULT);

    @Test
    void randomStreamsDecodeAsTheReferenceDoesOverAnyChunking() {
        Fuzz.run("randomStreamsDecodeAsTheReferenceDoesOverAnyChunking", Fuzz.tries(800), random -> {
            byte[] input = stream(random, Fuzz.between(random, 1, 5), true);
            FrameLimits limits = Fuzz.pick(random, LIMITS);
            ByteBufAllocator alloc = Fuzz.pick(random, ALLOCATORS);
            List<Integer> chunks = Fuzz.list(random, 1, 8, r -> Fuzz.oneIn(r, 3) ? Fuzz.between(r, 1, 2000) : Fuzz.between(r, 1, 20));
            compare(input, List.of(), limits, alloc);
            compare(input, chunks, limits, alloc);
        });
    }

    @Test
    void framesSplitAtEveryByteDecodeAsTheReferenceDoes() {
        Fuzz.run("framesSplitAtEveryByteDecodeAsTheReferenceDoes", Fuzz.tries(30), random -> {
            byte[] input = stream(random, Fuzz.between(random, 1, 2), false);
            FrameLimits limits = Fuzz.pick(random, LIMITS);
            ByteBufAllocator alloc = Fuzz.pick(random, ALLOCATORS);
            for (int split = 1; split < input.length; split++) {
                compare(input, List.of(split, input.length), limits, alloc);
            }
            compare(input, List.of(1), limits, alloc);
        });
    }

    @Test
    void longConnectionsDecodeAsTheReferenceDoes() {
        // Many frames on one decoder: its cache of repeated header values sees hits, misses and unique values.
        Fuzz.run("longConnectionsDecodeAsTheReferenceDoes", Fuzz.tries(25), random -> {
            ByteArrayOutputStream b = new ByteArrayOutputStream();
            for (int i = 0; i < 60; i++) {
                b.writeBytes(Fuzz.oneIn(random, 20) ? frame(random, true) : validFrame(random, i));
            }
            ByteBufAllocator alloc = Fuzz.pick(random, ALLOCATORS);
            compare(b.toByteArray(), List.of(), FrameLimits.ofDefaults(), alloc);
            compare(b.toByteArray(), List.of(Fuzz.between(random, 1, 3000)), FrameLimits.ofDefaults(), alloc);
        });
    }

    private static void compare(byte[] input, List<Integer> chunks, FrameLimits limits, ByteBufAllocator alloc) {
        List<String> expected = decode(input, chunks, () -> new ReferenceStompFrameDecoder(limits), alloc);
        List<String> actual = decode(input, chunks, () -> new StompFrameDecoder(limits), alloc);
        assertThat(actual).as("%s split %s with %s", new String(input, ISO_8859_1), chunks, limits).isEqualTo(expected);
    }

    private static List<String> decode(byte[] input, List<Integer> chunks, Supplier<ChannelHandler> decoder,
            ByteBufAllocator alloc) {
        EmbeddedChannel channel = new EmbeddedChannel();
        channel.config().setAllocator(alloc);
        channel.pipeline().addLast(decoder.get());
        List<String> out = new ArrayList<>();
        int position = 0;
        for (int i = 0; position < input.length; i++) {
            int n = chunks.isEmpty() ? input.length : Math.min(chunks.get(i % chunks.size()), input.length - position);
            channel.writeInbound(alloc.buffer(n).writeBytes(input, position, n));
            position += n;
            drain(channel, out);
        }
        channel.finish();
        drain(channel, out);
        return out;
    }

    private static void drain(EmbeddedChannel channel, List<String> out) {
        for (Object m = channel.readInbound(); m != null; m = channel.readInbound()) {
            try {
                if (m instanceof MalformedFrame bad) {
                    out.add("MALFORMED " + bad.reason() + " receipt=" + bad.receipt());
                } else {
                    StompFrame f = (StompFrame) m;
                    StringBuilder sb = new StringBuilder(f.command().name());
                    f.headers().forEach((name, value) -> sb.append("\n[").append(name).append("]=[").append(value).append(']'));
                    out.add(sb.append("\nbody ").append(HexFormat.of().formatHex(f.body())).toString());
                }
            } finally {
                ReferenceCountUtil.release(m);
            }
        }
    }

    // ------------------------------------------------------------------------------------------- generators

    private static byte[] stream(Random random, int frames, boolean longLines) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        for (int i = 0; i < frames; i++) {
            b.writeBytes(frame(random, longLines));
        }
        return b.toByteArray();
    }

    /**
     * A frame that is valid more often than not, with one of many ways to be wrong; with {@code longLines} a header
     * line may be longer than the decoder's copy.
     */
    private static byte[] frame(Random random, boolean longLines) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        b.writeBytes(bytes(Fuzz.pick(random, "", "", "", "\n", "\r\n", "\n\n\r\n", "\r")));
        b.writeBytes(bytes(command(random)));
        b.writeBytes(bytes(eol(random)));
        int headers = Fuzz.between(random, 0, 8);
        byte[] body = Fuzz.oneIn(random, 3) ? new byte[0] : Fuzz.bytes(random, 120);
        boolean withLength = random.nextBoolean();
        for (int i = 0; i < headers; i++) {
            b.writeBytes(headerLine(random, longLines));
            b.writeBytes(bytes(eol(random)));
        }
        if (withLength) {
            String length = Fuzz.oneIn(random, 8) ? Fuzz.pick(random, "-1", "x", " 2 ", "99999999999", "", "+1", "0")
                    : Integer.toString(body.length + (Fuzz.oneIn(random, 10) ? Fuzz.between(random, -2, 2) : 0));
            b.writeBytes(bytes("content-length:" + length + eol(random)));
        } else {
            for (int i = 0; i < body.length; i++) {
                body[i] = body[i] == 0 ? 1 : body[i];
            }
        }
        if (!Fuzz.oneIn(random, 30)) {
            b.writeBytes(bytes(eol(random)));
        }
        b.writeBytes(body);
        if (!Fuzz.oneIn(random, 30)) {
            b.write(0);
        }
        return b.toByteArray();
    }

    /** A valid frame with repeating values (destination, persistent) and changing ones (ids), as a bridge sends. */
    private static byte[] validFrame(Random random, int n) {
        StringBuilder sb = new StringBuilder(Fuzz.pick(random, "MESSAGE", "SEND", "ACK", "CONNECTED")).append('\n');
        sb.append("destination:").append(Fuzz.oneIn(random, 10) ? "/queue/" + n : "/queue/bench").append('\n');
        sb.append("message-id:id-").append(n).append('\n');
        sb.append("fedbridge-id:").append(Fuzz.oneIn(random, 2) ? "b\\c" + n : "b-" + n).append('\n');
        sb.append("persistent:true\nsubscription:").append(n % 3).append('\n');
        byte[] body = Fuzz.bytes(random, 200);
        sb.append("content-length:").append(body.length).append("\n\n");
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        b.writeBytes(bytes(sb.toString()));
        b.writeBytes(body);
        b.write(0);
        return b.toByteArray();
    }

    private static String command(Random random) {
        if (Fuzz.oneIn(random, 25)) {
            return Fuzz.pick(random, "send", "SEND ", "BOGUS", "", "\u00c9", "X".repeat(33), "MESSAGE".repeat(5));
        }
        return Fuzz.pick(random, StompCommand.class).name();
    }

    private static String eol(Random random) {
        return Fuzz.oneIn(random, 4) ? "\r\n" : "\n";
    }

    private static byte[] headerLine(Random random, boolean longLines) {
        int kind = random.nextInt(40);
        String line;
        if (kind == 0) {
            line = Fuzz.string(random, ALPHABET, 0, 20); // likely without ':'
        } else if (kind == 1) {
            line = Fuzz.pick(random, NAMES) + ":" + "v".repeat(Fuzz.between(random, 50, 320)); // around the limits
        } else if (kind == 2 && longLines) {
            line = "x-long:" + "w".repeat(Fuzz.between(random, 900, 5000)); // past the decoder's copy
        } else if (kind == 3) {
            line = Fuzz.string(random, ALPHABET, 1, 8) + ":" + Fuzz.string(random, ALPHABET, 0, 30);
        } else if (kind == 4) {
            byte[] raw = Fuzz.bytes(random, 12); // anything, even bad UTF-8, but no EOL
            for (int i = 0; i < raw.length; i++) {
                raw[i] = raw[i] == '\n' ? (byte) 0xff : raw[i];
            }
            return concat(bytes("x-raw:"), raw);
        } else if (kind < 20) {
            line = Fuzz.pick(random, NAMES) + ":" + Fuzz.pick(random, VALUES);
        } else {
            line = Fuzz.pick(random, NAMES) + ":" + Fuzz.string(random, ALPHABET, 0, 24);
        }
        return bytes(line.replace("\n", "\\n"));
    }

    private static byte[] bytes(String s) {
        return s.getBytes(UTF_8);
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] c = new byte[a.length + b.length];
        System.arraycopy(a, 0, c, 0, a.length);
        System.arraycopy(b, 0, c, a.length, b.length);
        return c;
    }
}
