package io.fedbridge.core.internal;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.fedbridge.core.StompCommand;
import io.fedbridge.core.StompFrame;
import io.fedbridge.core.StompHeaders;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.util.ReferenceCountUtil;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Compares every byte the encoder writes with a deliberately plain encoding of the same frame (String
 * concatenation, {@code String.getBytes(UTF_8)}), over many random frames: the encoder's fast paths (scratch
 * array, direct digits, pre-encoded names) must never change the output.
 */
class StompFrameEncoderReferenceTest {

    private final EmbeddedChannel encoder = new EmbeddedChannel(StompFrameEncoder.INSTANCE);

    @AfterEach
    void releaseEverything() {
        encoder.finishAndReleaseAll();
    }

    /**
     * Escapes, backslash-letters, non-ASCII (2, 3 and 4 bytes), NUL, frequent names. No lone surrogates: for
     * those Netty's UTF-8 writer and the JDK's differ (see {@link #shouldWriteLoneSurrogatesAsNettysUtf8WriterDoes}).
     */
    private static final String[] PIECES = {
        "a", "Z", "0", "9", "-", " ", ":", "\n", "\r", "\\", "\\n", "\\c", "c", "\u0000", "\t", "\u007f",
        "\u0080", "\u00e9", "\u00ff", "\u0100", "\u0141", "\u013a", "\u20ac", "\u4e2d", "\ud83d\ude00",
        "content-length", "destination", "/queue/orders", "fedbridge-id", "ID:node-1:42",
        "message-id", "subscription", "=", ","
    };

    private static final String[] NAMES = {
        StompHeaders.CONTENT_LENGTH, StompHeaders.DESTINATION, StompHeaders.MESSAGE_ID, StompHeaders.SUBSCRIPTION,
        StompHeaders.CONTENT_TYPE, StompHeaders.RECEIPT, StompHeaders.ACK, StompHeaders.PERSISTENT,
        "fedbridge-id", "fedbridge-path", "Content-Length", "content-length "
    };

    @Test
    void shouldWriteTheSameBytesAsAPlainReferenceEncodingForRandomFrames() {
        long seed = new Random().nextLong();
        Random random = new Random(seed);
        for (int i = 0; i < 3_000; i++) {
            StompFrame frame = randomFrame(random);
            String description = "frame " + i + " with seed " + seed + ": " + printable(frame.toString());
            byte[] expected = reference(frame);

            assertSameBytes(encodeThroughChannel(frame), expected, description);
            assertSameBytes(encodeStatic(frame, Unpooled.buffer(0)), expected, description);
            assertSameBytes(encodeStatic(frame, Unpooled.directBuffer(StompFrameEncoder.estimate(frame))), expected,
                    description);
        }
    }

    @Test
    void shouldWriteTheSameBytesAsTheReferenceForTypicalForwardedMessages() {
        byte[] body = new byte[1024];
        new Random(7).nextBytes(body);
        for (StompCommand command : StompCommand.values()) {
            StompFrame frame = new StompFrame(command, StompHeaders.of(
                    "destination", "/queue/bench", "message-id", "ID:broker-A-1:" + command.ordinal(),
                    "fedbridge-id", "A:17:123456789", "persistent", "true", "content-length", "1024",
                    "subscription", "fedbridge-bridge-0", "ack", "client-individual"), body);

            assertSameBytes(encodeThroughChannel(frame), reference(frame), command.name());
        }
    }

    @Test
    void shouldWriteContentLengthDigitsForEveryMagnitude() {
        for (int length : new int[] {1, 9, 10, 99, 100, 999, 1000, 9_999, 10_000, 65_535, 99_999, 100_000,
                999_999, 1_000_000, 1 << 21}) {
            StompFrame frame = new StompFrame(StompCommand.MESSAGE, StompHeaders.of("destination", "/q"),
                    new byte[length]);

            assertSameBytes(encodeThroughChannel(frame), reference(frame), "length " + length);
        }
    }

    /** Headers that end at, or one byte past, every offset near the end of the scratch array. */
    @Test
    void shouldWriteTheSameBytesAsTheReferenceWhereTheHeaderBlockCrossesTheScratchArraysEnd() {
        int fourByteHeaders = (StompFrameEncoder.SCRATCH_SIZE - "MESSAGE\n".length()) / 4; // "a:b\n"
        for (int n = fourByteHeaders - 12; n <= fourByteHeaders + 2; n++) {
            for (int shift = 0; shift < 4; shift++) {
                for (int escapes = 0; escapes < 8; escapes++) {
                    for (String last : new String[] {":", "\u00e9", "y", ""}) {
                        StompHeaders headers = new StompHeaders();
                        for (int i = 0; i < n; i++) {
                            headers.add("a", "b");
                        }
                        headers.add("p", "y".repeat(shift));
                        headers.add(":", ":".repeat(escapes) + last);
                        byte[] body = last.isEmpty() ? new byte[0] : new byte[] {0, 'z'};
                        if (body.length > 0) {
                            headers.add("content-length", "1");
                        }
                        StompFrame frame = new StompFrame(StompCommand.MESSAGE, headers, body);

                        assertSameBytes(encodeThroughChannel(frame), reference(frame),
                                n + " headers, shift " + shift + ", " + escapes + " escapes, then " + last);
                    }
                }
            }
        }
    }

    /**
     * Malformed UTF-16 goes through Netty's {@code ByteBufUtil.writeUtf8}, as it always has: a high surrogate not
     * followed by a low one becomes '?' and takes the next char with it, unlike {@code String.getBytes(UTF_8)}.
     */
    @Test
    void shouldWriteLoneSurrogatesAsNettysUtf8WriterDoes() {
        for (String value : new String[] {"\ud83d", "\ude00", "a\ud83d\ud83d\ude00b", "\ud83dx:", "\ude00\u00e9\ud83d\u00e9"}) {
            StompFrame frame = StompFrame.of(StompCommand.SEND, "k", value);
            ByteBuf expected = Unpooled.buffer();
            expected.writeBytes("SEND\nk:".getBytes(UTF_8));
            ByteBufUtil.writeUtf8(expected, escaped(value));
            expected.writeBytes(new byte[] {'\n', '\n', 0});

            assertSameBytes(encodeThroughChannel(frame), ByteBufUtil.getBytes(expected), printable(value));
            expected.release();
        }
    }

    private static StompFrame randomFrame(Random random) {
        StompCommand[] commands = StompCommand.values();
        StompCommand command = commands[random.nextInt(commands.length)];
        // now and then more headers than a small scratch array holds
        int count = random.nextInt(20) == 0 ? 40 + random.nextInt(200) : random.nextInt(10);
        StompHeaders headers = new StompHeaders();
        for (int h = 0; h < count; h++) {
            String name = random.nextInt(3) == 0 ? NAMES[random.nextInt(NAMES.length)] : randomText(random);
            String value = switch (random.nextInt(30)) {
                case 0, 1, 2 -> "";
                case 3, 4, 5 -> Integer.toString(random.nextInt(2_000_000) - 1000);
                case 6 -> randomLongText(random);
                default -> randomText(random);
            };
            headers.add(name, value);
        }
        byte[] body = new byte[switch (random.nextInt(6)) {
            case 0 -> 0;
            case 1 -> 1 + random.nextInt(9);
            case 2 -> random.nextInt(70_000);
            default -> random.nextInt(2_000);
        }];
        for (int b = 0; b < body.length; b++) {
            body[b] = random.nextInt(4) == 0 ? 0 : (byte) random.nextInt(256);
        }
        return new StompFrame(command, headers, body);
    }

    private static String randomText(Random random) {
        StringBuilder sb = new StringBuilder();
        boolean plain = random.nextBoolean(); // most real headers are plain ASCII
        int n = random.nextInt(8);
        for (int i = 0; i < n; i++) {
            sb.append(plain ? PIECES[random.nextInt(2)] + (char) ('a' + random.nextInt(26))
                    : PIECES[random.nextInt(PIECES.length)]);
        }
        return sb.toString();
    }

    /** Values up to a few times any scratch array, plain or with an escape or non-ASCII char somewhere. */
    private static String randomLongText(Random random) {
        int n = random.nextInt(10_000);
        StringBuilder sb = new StringBuilder(n + 4);
        for (int i = 0; i < n; i++) {
            sb.append((char) (' ' + random.nextInt(90) + (random.nextInt(40) == 0 ? 1 : 0)));
        }
        if (random.nextBoolean() && n > 0) {
            sb.insert(random.nextInt(n), PIECES[random.nextInt(PIECES.length)]);
        }
        return sb.toString();
    }

    /** STOMP 1.2 as the encoder promises to write it, in the plainest way. */
    static byte[] reference(StompFrame frame) {
        StringBuilder head = new StringBuilder(frame.command().name()).append('\n');
        boolean escape = !frame.command().isConnectFrame();
        byte[] body = frame.body();
        StompHeaders h = frame.headers();
        boolean wroteLength = false;
        for (int i = 0; i < h.size(); i++) {
            if (h.name(i).equals("content-length")) {
                if (!wroteLength) {
                    head.append("content-length:").append(body.length).append('\n');
                    wroteLength = true;
                }
            } else {
                head.append(escape ? escaped(h.name(i)) : h.name(i)).append(':')
                        .append(escape ? escaped(h.value(i)) : h.value(i)).append('\n');
            }
        }
        if (!wroteLength && body.length > 0) {
            head.append("content-length:").append(body.length).append('\n');
        }
        head.append('\n');
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(head.toString().getBytes(UTF_8));
        out.writeBytes(body);
        out.write(0);
        return out.toByteArray();
    }

    private static String escaped(String s) {
        return s.replace("\\", "\\\\").replace("\n", "\\n").replace("\r", "\\r").replace(":", "\\c");
    }

    /** Names the first byte that differs, with the bytes around it, instead of printing two whole frames. */
    private static void assertSameBytes(byte[] actual, byte[] expected, String description) {
        int n = Math.min(actual.length, expected.length);
        int at = 0;
        while (at < n && actual[at] == expected[at]) {
            at++;
        }
        if (at == n && actual.length == expected.length) {
            return;
        }
        int from = Math.max(0, at - 20);
        assertThat(Arrays.toString(Arrays.copyOfRange(actual, from, Math.min(actual.length, at + 20))))
                .as("%s: first difference at byte %d of %d (expected %d bytes)", description, at, actual.length,
                        expected.length)
                .isEqualTo(Arrays.toString(Arrays.copyOfRange(expected, from, Math.min(expected.length, at + 20))));
    }

    /** Control characters and surrogates as {@code \\uXXXX}, so that a failure report shows them. */
    private static String printable(String s) {
        StringBuilder sb = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < ' ' || Character.isSurrogate(c)) {
                sb.append(String.format("\\u%04x", (int) c));
            } else {
                sb.append(c);
            }
        }
        return sb.toString();
    }

    private byte[] encodeThroughChannel(StompFrame frame) {
        assertThat(encoder.writeOutbound(frame)).isTrue();
        List<byte[]> parts = new ArrayList<>();
        for (ByteBuf b = encoder.readOutbound(); b != null; b = encoder.readOutbound()) {
            parts.add(ByteBufUtil.getBytes(b));
            ReferenceCountUtil.release(b);
        }
        assertThat(parts).hasSize(1);
        return parts.get(0);
    }

    private static byte[] encodeStatic(StompFrame frame, ByteBuf out) {
        try {
            StompFrameEncoder.encode(frame, out);
            return ByteBufUtil.getBytes(out);
        } finally {
            out.release();
        }
    }
}
