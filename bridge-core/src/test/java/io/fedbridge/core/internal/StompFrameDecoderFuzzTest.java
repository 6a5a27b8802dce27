package io.fedbridge.core.internal;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.fedbridge.core.FrameLimits;
import io.fedbridge.core.StompCommand;
import io.fedbridge.core.StompFrame;
import io.fedbridge.core.StompHeaders;
import io.fedbridge.core.testing.Fuzz;
import io.netty.buffer.AbstractByteBufAllocator;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledHeapByteBuf;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.util.ByteProcessor;
import io.netty.util.ReferenceCountUtil;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Fuzzes {@link StompFrameDecoder}: whatever bytes arrive, split however, nothing escapes the pipeline as an
 * exception, a bad frame becomes one {@link MalformedFrame} with a reason (and is the last thing decoded), the
 * result does not depend on where the bytes were split, every buffer is released, and the work done is linear
 * in the bytes fed. Valid frames survive encode, heart-beats and arbitrary chunking unchanged. Inputs come from
 * {@link Fuzz}: the same ones in every build, fifty times as many with {@code -Dfedbridge.soak=true}.
 */
class StompFrameDecoderFuzzTest {

    private static final FrameLimits SMALL = new FrameLimits(256, 3, 64);

    /** Pieces of STOMP that random input is assembled from, so that it gets past the command line often. */
    private static final List<String> TOKENS = List.of(
            "SEND\n", "MESSAGE\r\n", "CONNECT\n", "CONNECTED\n", "STOMP\n", "ERROR\n", "send\n", "SEND", "SEND \n",
            "\n", "\r\n", "\r", "\n\n", "\0", ":", "::", "\\", "\\\\", "\\c", "\\n", "\\r", "\\t", "\\",
            "destination:/queue/a\n", "receipt:r-1\n", "content-length:", "content-length:0\n", "content-length:3\n",
            "content-length:-1\n", "content-length: 2 \n", "content-length:+1\n", "content-length:99999999999\n",
            "content-length:2147483647\n", "content-length:abc\n", "heart-beat:0,0\n", "x", "abc", "\u00e9",
            "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa");

    /** What mutations insert into valid frames: escapes, EOL variants, NULs, content-length lines, bad UTF-8. */
    private static final List<byte[]> PAYLOADS = List.of(
            bytes("\\"), bytes("\\c"), bytes("\\x"), bytes("\\n"), bytes(":"), bytes("\n"), bytes("\r\n"),
            bytes("\r"), bytes("\n\n"), new byte[] {0}, new byte[] {0, 0}, bytes("content-length:"),
            bytes("content-length:5\n"), bytes("content-length:-1\n"), bytes("content-length:4294967296\n"),
            bytes("content-length:1\n"), bytes("receipt:r\n"), new byte[] {(byte) 0xff}, new byte[] {(byte) 0xc3},
            new byte[] {(byte) 0xe2, (byte) 0x82}, bytes("SEND\n"), bytes("\u4e2d"));

    // ------------------------------------------------------------------------------------------- properties

    @Test
    void randomBytesNeverEscapeTheDecoder() {
        Fuzz.run("randomBytesNeverEscapeTheDecoder", Fuzz.tries(2000), random -> checkInvariants(noise(random),
                chunking(random), random.nextBoolean() ? SMALL : FrameLimits.ofDefaults()));
    }

    @Test
    void arbitraryBytesNeverEscapeTheDecoder() {
        Fuzz.run("arbitraryBytesNeverEscapeTheDecoder", Fuzz.tries(1000), random ->
                checkInvariants(Fuzz.bytes(random, 600), chunking(random), SMALL));
    }

    @Test
    void mutatedValidFramesNeverEscapeTheDecoder() {
        Fuzz.run("mutatedValidFramesNeverEscapeTheDecoder", Fuzz.tries(2000), random -> {
            byte[] input = encode(frames(random), heartBeats(random));
            for (Mutation m : mutations(random)) {
                input = m.apply(input);
            }
            checkInvariants(input, chunking(random), random.nextBoolean() ? SMALL : FrameLimits.ofDefaults());
        });
    }

    @Test
    void validFramesRoundTripOverAnyChunking() {
        Fuzz.run("validFramesRoundTripOverAnyChunking", Fuzz.tries(1000), random -> {
            List<StompFrame> frames = frames(random);
            List<String> decoded = checkInvariants(encode(frames, heartBeats(random)), chunking(random),
                    FrameLimits.ofDefaults());

            List<String> expected = new ArrayList<>();
            for (StompFrame f : frames) {
                StompHeaders h = f.headers().copy();
                if (f.body().length > 0) {
                    h.add(StompHeaders.CONTENT_LENGTH, Integer.toString(f.body().length));
                }
                expected.add(describe(new StompFrame(f.command(), h, f.body())));
            }
            assertThat(decoded).containsExactlyElementsOf(expected);
        });
    }

    // ------------------------------------------------------------------------------------------- large inputs

    @Test
    void headerLineWithoutEolTakesLinearWork() {
        // A header line trickling in small chunks must not be rescanned from its start on every chunk.
        FrameLimits roomy = new FrameLimits(64 << 20, 1000, 16 << 20);
        long small = work(headerWithoutEol(128 << 10), 64, roomy);
        long large = work(headerWithoutEol(1 << 20), 64, roomy);
        assertThat(large).as("bytes examined for 1 MiB vs %s for 128 KiB", small).isLessThan(12 * small);
        assertThat(large).as("bytes examined for 1 MiB").isLessThan(4L << 20);
    }

    @Test
    void oversizedHeaderLineIsRejectedWithLinearWork() {
        byte[] input = headerWithoutEol(1 << 20);
        List<String> out = checkInvariants(input, List.of(7), FrameLimits.ofDefaults());
        assertThat(out).containsExactly("MALFORMED");
        assertThat(work(input, 7, FrameLimits.ofDefaults())).isLessThan(4L << 20);
    }

    @Test
    void bodyWithoutNulTakesLinearWork() {
        FrameLimits roomy = new FrameLimits(64 << 20, 1000, 1024);
        long small = work(bodyWithoutNul(128 << 10), 64, roomy);
        long large = work(bodyWithoutNul(1 << 20), 64, roomy);
        assertThat(large).isLessThan(12 * small).isLessThan(4L << 20);
    }

    @Test
    void megabyteOfHeartBeatsAndEscapesDecodes() {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        for (int i = 0; i < 256 << 10; i++) {
            b.writeBytes(i % 2 == 0 ? bytes("\n") : bytes("\r\n"));
        }
        b.writeBytes(bytes("SEND\ndestination:" + "\\c\\n\\r\\\\".repeat(6000) + "\n\n\0"));
        List<String> out = checkInvariants(b.toByteArray(), List.of(1000, 1, 4093), FrameLimits.ofDefaults());
        assertThat(out).hasSize(1).allMatch(s -> s.startsWith("SEND"));
        assertThat(work(b.toByteArray(), 1000, FrameLimits.ofDefaults())).isLessThan(4L * b.size());
    }

    // ------------------------------------------------------------------------------------------- the checks

    /**
     * Decodes {@code input} split at {@code chunks} (cycled) and in one piece, and checks what must hold for any
     * input; returns the decoded frames described as strings, "MALFORMED" for a malformed frame.
     */
    private static List<String> checkInvariants(byte[] input, List<Integer> chunks, FrameLimits limits) {
        List<String> chunked = decode(input, chunks, limits);
        List<String> whole = decode(input, List.of(), limits);
        int malformed = chunked.indexOf("MALFORMED");
        assertThat(malformed).as("a malformed frame is the last thing decoded: %s", chunked)
                .isIn(-1, chunked.size() - 1);
        assertThat(chunked).as("the frames do not depend on the chunking").isEqualTo(whole);
        return chunked;
    }

    private static List<String> decode(byte[] input, List<Integer> chunks, FrameLimits limits) {
        TrackingAllocator alloc = new TrackingAllocator();
        EmbeddedChannel channel = new EmbeddedChannel();
        channel.config().setAllocator(alloc);
        channel.pipeline().addLast(new StompFrameDecoder(limits));
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
        assertThat(alloc.unreleased()).as("buffers not released").isEmpty();
        return out;
    }

    private static void drain(EmbeddedChannel channel, List<String> out) {
        for (Object m = channel.readInbound(); m != null; m = channel.readInbound()) {
            try {
                if (m instanceof MalformedFrame bad) {
                    assertThat(bad.reason()).as("reason of a malformed frame").isNotBlank();
                    out.add("MALFORMED");
                } else {
                    assertThat(m).isInstanceOf(StompFrame.class);
                    out.add(describe((StompFrame) m));
                }
            } finally {
                ReferenceCountUtil.release(m);
            }
        }
    }

    /** Bytes the decoder examined while decoding {@code input} fed in chunks of {@code chunk} bytes. */
    private static long work(byte[] input, int chunk, FrameLimits limits) {
        TrackingAllocator alloc = new TrackingAllocator();
        EmbeddedChannel channel = new EmbeddedChannel();
        channel.config().setAllocator(alloc);
        channel.pipeline().addLast(new StompFrameDecoder(limits));
        for (int position = 0; position < input.length; position += chunk) {
            int n = Math.min(chunk, input.length - position);
            channel.writeInbound(alloc.buffer(n).writeBytes(input, position, n));
        }
        channel.finishAndReleaseAll();
        assertThat(alloc.unreleased()).isEmpty();
        return alloc.examined;
    }

    private static String describe(StompFrame f) {
        StringBuilder sb = new StringBuilder(f.command().name());
        f.headers().forEach((name, value) -> sb.append('|').append(escapeForDescription(name)).append('=')
                .append(escapeForDescription(value)));
        return sb.append('|').append(HexFormat.of().formatHex(f.body())).toString();
    }

    private static String escapeForDescription(String s) {
        return s.replace("\\", "\\\\").replace("|", "\\|").replace("=", "\\=");
    }

    // ------------------------------------------------------------------------------------------- generators

    /** STOMP tokens (five times in six) and random bytes, up to 60 pieces. */
    private static byte[] noise(Random random) {
        return concat(Fuzz.list(random, 0, 60, r -> Fuzz.oneIn(r, 6) ? Fuzz.bytes(r, 8) : bytes(Fuzz.pick(r, TOKENS))));
    }

    /** Chunk sizes, cycled: mostly small (1-16), one in four up to 300. */
    private static List<Integer> chunking(Random random) {
        return Fuzz.list(random, 1, 12, r -> Fuzz.oneIn(r, 4) ? Fuzz.between(r, 1, 300) : Fuzz.between(r, 1, 16));
    }

    private static List<String> heartBeats(Random random) {
        return Fuzz.list(random, 0, 6, r -> Fuzz.pick(r, "", "", "\n", "\r\n", "\n\n\r\n"));
    }

    private static List<StompFrame> frames(Random random) {
        return Fuzz.list(random, 1, 4, StompFrameDecoderFuzzTest::frame);
    }

    private static List<Mutation> mutations(Random random) {
        return Fuzz.list(random, 1, 4, r -> new Mutation(Fuzz.pick(r, MutationKind.class), Fuzz.between(r, 0, 10_000),
                Fuzz.between(r, 1, 12), Fuzz.pick(r, PAYLOADS)));
    }

    private static StompFrame frame(Random random) {
        StompCommand command = Fuzz.pick(random, StompCommand.class);
        return new StompFrame(command, headers(random, command.isConnectFrame()), Fuzz.bytes(random, 80));
    }

    private static final List<String> KNOWN_NAMES = List.of(StompHeaders.DESTINATION, StompHeaders.RECEIPT,
            StompHeaders.MESSAGE_ID, "x-custom");

    /** Headers with every character that needs escaping, except in CONNECT/CONNECTED frames, which cannot carry them. */
    private static StompHeaders headers(Random random, boolean unescaped) {
        StompHeaders h = new StompHeaders();
        int n = Fuzz.between(random, 0, 6);
        for (int i = 0; i < n; i++) {
            String name = random.nextBoolean() ? headerName(random, unescaped) : Fuzz.pick(random, KNOWN_NAMES);
            h.add(name, Fuzz.string(random, alphabet(unescaped, false), 0, 30));
        }
        return h;
    }

    private static String headerName(Random random, boolean unescaped) {
        String name;
        do {
            name = Fuzz.string(random, alphabet(unescaped, true), 1, 12);
        } while (name.equals(StompHeaders.CONTENT_LENGTH));
        return name;
    }

    private static String alphabet(boolean unescaped, boolean name) {
        String s = "abcdefghijklmnopqrstuvwxyz-_ ./,0123456789\u00e9\u4e2d\0\t";
        if (!unescaped) {
            return s + ":\\\n\r";
        }
        return name ? s + "\\" : s + ":\\";
    }

    enum MutationKind { INSERT, DELETE, REPLACE, DUPLICATE }

    /** One edit of an encoded stream at {@code position} (taken modulo its length). */
    record Mutation(MutationKind kind, int position, int length, byte[] payload) {

        byte[] apply(byte[] in) {
            int at = position % (in.length + 1);
            int end = Math.min(in.length, at + length);
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            out.write(in, 0, at);
            switch (kind) {
                case INSERT -> {
                    out.writeBytes(payload);
                    out.write(in, at, in.length - at);
                }
                case DELETE -> out.write(in, end, in.length - end);
                case REPLACE -> {
                    out.writeBytes(payload);
                    out.write(in, end, in.length - end);
                }
                case DUPLICATE -> {
                    out.write(in, at, end - at);
                    out.write(in, at, in.length - at);
                }
            }
            return out.toByteArray();
        }

        @Override
        public String toString() {
            return kind + "@" + position + "/" + length + ":" + Arrays.toString(payload);
        }
    }

    // ------------------------------------------------------------------------------------------- helpers

    private static byte[] encode(List<StompFrame> frames, List<String> heartBeats) {
        ByteBuf buf = Unpooled.buffer();
        try {
            for (int i = 0; i < frames.size(); i++) {
                if (!heartBeats.isEmpty()) {
                    buf.writeCharSequence(heartBeats.get(i % heartBeats.size()), UTF_8);
                }
                StompFrameEncoder.encode(frames.get(i), buf);
            }
            return ByteBufUtil.getBytes(buf);
        } finally {
            buf.release();
        }
    }

    private static byte[] headerWithoutEol(int n) {
        byte[] b = new byte[5 + n];
        Arrays.fill(b, (byte) 'a');
        System.arraycopy(bytes("SEND\n"), 0, b, 0, 5);
        return b;
    }

    private static byte[] bodyWithoutNul(int n) {
        byte[] b = new byte[6 + n];
        Arrays.fill(b, (byte) 'a');
        System.arraycopy(bytes("SEND\n\n"), 0, b, 0, 6);
        return b;
    }

    private static byte[] bytes(String s) {
        return s.getBytes(UTF_8);
    }

    private static byte[] concat(List<byte[]> parts) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        parts.forEach(b::writeBytes);
        return b.toByteArray();
    }

    /**
     * Hands out heap buffers that remember they were allocated (to check that all were released) and count the
     * bytes the decoder examines through them (to check that the work is linear in the input).
     */
    private static final class TrackingAllocator extends AbstractByteBufAllocator {
        private final List<ByteBuf> allocated = new ArrayList<>();
        private long examined;

        TrackingAllocator() {
            super(false);
        }

        List<ByteBuf> unreleased() {
            return allocated.stream().filter(b -> b.refCnt() != 0).toList();
        }

        @Override
        protected ByteBuf newHeapBuffer(int initialCapacity, int maxCapacity) {
            ByteBuf b = new CountingByteBuf(this, initialCapacity, maxCapacity);
            allocated.add(b);
            return b;
        }

        @Override
        protected ByteBuf newDirectBuffer(int initialCapacity, int maxCapacity) {
            return newHeapBuffer(initialCapacity, maxCapacity);
        }

        @Override
        public boolean isDirectBufferPooled() {
            return false;
        }

        private static final class CountingByteBuf extends UnpooledHeapByteBuf {
            private final TrackingAllocator owner;

            CountingByteBuf(TrackingAllocator owner, int initialCapacity, int maxCapacity) {
                super(owner, initialCapacity, maxCapacity);
                this.owner = owner;
            }

            @Override
            public byte getByte(int index) {
                owner.examined++;
                return super.getByte(index);
            }

            @Override
            public int forEachByte(ByteProcessor processor) {
                int found = super.forEachByte(processor);
                owner.examined += found < 0 ? readableBytes() : found - readerIndex() + 1;
                return found;
            }

            @Override
            public int forEachByte(int index, int length, ByteProcessor processor) {
                int found = super.forEachByte(index, length, processor);
                owner.examined += found < 0 ? length : found - index + 1;
                return found;
            }

            @Override
            public int indexOf(int fromIndex, int toIndex, byte value) {
                int found = super.indexOf(fromIndex, toIndex, value);
                owner.examined += found < 0 ? Math.abs(toIndex - fromIndex) : Math.abs(found - fromIndex) + 1;
                return found;
            }
        }
    }
}
