package io.fedbridge.core.internal;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.fedbridge.core.FrameLimits;
import io.fedbridge.core.StompCommand;
import io.fedbridge.core.StompFrame;
import io.fedbridge.core.StompHeaders;
import io.fedbridge.core.testing.SoakTries;
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
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.arbitraries.StringArbitrary;
import net.jqwik.api.lifecycle.AddLifecycleHook;

/**
 * Fuzzes {@link StompFrameDecoder}: whatever bytes arrive, split however, nothing escapes the pipeline as an
 * exception, a bad frame becomes one {@link MalformedFrame} with a reason (and is the last thing decoded), the
 * result does not depend on where the bytes were split, every buffer is released, and the work done is linear
 * in the bytes fed. Valid frames survive encode, heart-beats and arbitrary chunking unchanged.
 */
@AddLifecycleHook(SoakTries.class)
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

    @Property(tries = 2000)
    void randomBytesNeverEscapeTheDecoder(@ForAll("noise") byte[] input, @ForAll("chunking") List<Integer> chunks,
                                          @ForAll boolean smallLimits) {
        checkInvariants(input, chunks, smallLimits ? SMALL : FrameLimits.ofDefaults());
    }

    @Property(tries = 1000)
    void arbitraryBytesNeverEscapeTheDecoder(@ForAll("arbitraryBytes") byte[] input, @ForAll("chunking") List<Integer> chunks) {
        checkInvariants(input, chunks, SMALL);
    }

    @Property(tries = 2000)
    void mutatedValidFramesNeverEscapeTheDecoder(@ForAll("frames") List<StompFrame> frames,
                                                 @ForAll("heartBeats") List<String> heartBeats,
                                                 @ForAll("mutations") List<Mutation> mutations,
                                                 @ForAll("chunking") List<Integer> chunks,
                                                 @ForAll boolean smallLimits) {
        byte[] input = encode(frames, heartBeats);
        for (Mutation m : mutations) {
            input = m.apply(input);
        }
        checkInvariants(input, chunks, smallLimits ? SMALL : FrameLimits.ofDefaults());
    }

    @Property(tries = 1000)
    void validFramesRoundTripOverAnyChunking(@ForAll("frames") List<StompFrame> frames,
                                             @ForAll("heartBeats") List<String> heartBeats,
                                             @ForAll("chunking") List<Integer> chunks) {
        List<String> decoded = checkInvariants(encode(frames, heartBeats), chunks, FrameLimits.ofDefaults());

        List<String> expected = new ArrayList<>();
        for (StompFrame f : frames) {
            StompHeaders h = f.headers().copy();
            if (f.body().length > 0) {
                h.add(StompHeaders.CONTENT_LENGTH, Integer.toString(f.body().length));
            }
            expected.add(describe(new StompFrame(f.command(), h, f.body())));
        }
        assertThat(decoded).containsExactlyElementsOf(expected);
    }

    // ------------------------------------------------------------------------------------------- large inputs

    @Example
    void headerLineWithoutEolTakesLinearWork() {
        // A header line trickling in small chunks must not be rescanned from its start on every chunk.
        FrameLimits roomy = new FrameLimits(64 << 20, 1000, 16 << 20);
        long small = work(headerWithoutEol(128 << 10), 64, roomy);
        long large = work(headerWithoutEol(1 << 20), 64, roomy);
        assertThat(large).as("bytes examined for 1 MiB vs %s for 128 KiB", small).isLessThan(12 * small);
        assertThat(large).as("bytes examined for 1 MiB").isLessThan(4L << 20);
    }

    @Example
    void oversizedHeaderLineIsRejectedWithLinearWork() {
        byte[] input = headerWithoutEol(1 << 20);
        List<String> out = checkInvariants(input, List.of(7), FrameLimits.ofDefaults());
        assertThat(out).containsExactly("MALFORMED");
        assertThat(work(input, 7, FrameLimits.ofDefaults())).isLessThan(4L << 20);
    }

    @Example
    void bodyWithoutNulTakesLinearWork() {
        FrameLimits roomy = new FrameLimits(64 << 20, 1000, 1024);
        long small = work(bodyWithoutNul(128 << 10), 64, roomy);
        long large = work(bodyWithoutNul(1 << 20), 64, roomy);
        assertThat(large).isLessThan(12 * small).isLessThan(4L << 20);
    }

    @Example
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

    @Provide
    Arbitrary<byte[]> noise() {
        Arbitrary<byte[]> token = Arbitraries.of(TOKENS).map(StompFrameDecoderFuzzTest::bytes);
        Arbitrary<byte[]> random = Arbitraries.bytes().array(byte[].class).ofMaxSize(8);
        return Arbitraries.frequencyOf(Tuple.of(5, token), Tuple.of(1, random)).list().ofMaxSize(60)
                .map(StompFrameDecoderFuzzTest::concat);
    }

    @Provide
    Arbitrary<byte[]> arbitraryBytes() {
        return Arbitraries.bytes().array(byte[].class).ofMaxSize(600);
    }

    @Provide
    Arbitrary<List<Integer>> chunking() {
        return Arbitraries.frequencyOf(
                Tuple.of(3, Arbitraries.integers().between(1, 16)),
                Tuple.of(1, Arbitraries.integers().between(1, 300))).list().ofMinSize(1).ofMaxSize(12);
    }

    @Provide
    Arbitrary<List<String>> heartBeats() {
        return Arbitraries.of("", "", "\n", "\r\n", "\n\n\r\n").list().ofMaxSize(6);
    }

    @Provide
    Arbitrary<List<StompFrame>> frames() {
        return frame().list().ofMinSize(1).ofMaxSize(4);
    }

    @Provide
    Arbitrary<List<Mutation>> mutations() {
        Arbitrary<Mutation> mutation = Combinators.combine(
                Arbitraries.of(MutationKind.class),
                Arbitraries.integers().between(0, 10_000),
                Arbitraries.integers().between(1, 12),
                Arbitraries.of(PAYLOADS)).as(Mutation::new);
        return mutation.list().ofMinSize(1).ofMaxSize(4);
    }

    private static Arbitrary<StompFrame> frame() {
        return Arbitraries.of(StompCommand.class).flatMap(command -> Combinators.combine(
                headers(command.isConnectFrame()),
                Arbitraries.bytes().array(byte[].class).ofMaxSize(80)).as((h, body) -> new StompFrame(command, h, body)));
    }

    /** Headers with every character that needs escaping, except in CONNECT/CONNECTED frames, which cannot carry them. */
    private static Arbitrary<StompHeaders> headers(boolean unescaped) {
        Arbitrary<String> name = text(unescaped, true).ofMinLength(1).ofMaxLength(12)
                .filter(n -> !n.equals(StompHeaders.CONTENT_LENGTH));
        Arbitrary<String> value = text(unescaped, false).ofMaxLength(30);
        Arbitrary<String> knownName = Arbitraries.of(StompHeaders.DESTINATION, StompHeaders.RECEIPT,
                StompHeaders.MESSAGE_ID, "x-custom");
        return Combinators.combine(Arbitraries.oneOf(name, knownName), value).as(Tuple::of).list().ofMaxSize(6)
                .map(pairs -> {
                    StompHeaders h = new StompHeaders();
                    pairs.forEach(p -> h.add(p.get1(), p.get2()));
                    return h;
                });
    }

    private static StringArbitrary text(boolean unescaped, boolean name) {
        StringArbitrary s = Arbitraries.strings().withCharRange('a', 'z').withChars("-_ ./,0123456789\u00e9\u4e2d\0\t");
        if (!unescaped) {
            return s.withChars(":\\\n\r");
        }
        return name ? s.withChars("\\") : s.withChars(":\\");
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
