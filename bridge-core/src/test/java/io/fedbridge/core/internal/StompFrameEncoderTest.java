package io.fedbridge.core.internal;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.fedbridge.core.FrameLimits;
import io.fedbridge.core.StompCommand;
import io.fedbridge.core.StompFrame;
import io.fedbridge.core.StompHeaders;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.util.ReferenceCountUtil;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class StompFrameEncoderTest {

    private final EmbeddedChannel encoder = new EmbeddedChannel(StompFrameEncoder.INSTANCE);
    private final EmbeddedChannel decoder = new EmbeddedChannel(new StompFrameDecoder(FrameLimits.ofDefaults()));

    @AfterEach
    void releaseEverything() {
        encoder.finishAndReleaseAll();
        decoder.finishAndReleaseAll();
    }

    private byte[] encode(StompFrame frame) {
        assertThat(encoder.writeOutbound(frame)).isTrue();
        ByteBuf buf = encoder.readOutbound();
        try {
            assertThat((Object) encoder.readOutbound()).isNull();
            return ByteBufUtil.getBytes(buf);
        } finally {
            ReferenceCountUtil.release(buf);
        }
    }

    private String encodeToString(StompFrame frame) {
        return new String(encode(frame), UTF_8);
    }

    private StompFrame decode(byte[] bytes) {
        decoder.writeInbound(Unpooled.wrappedBuffer(bytes));
        Object decoded = decoder.readInbound();
        assertThat(decoded).isInstanceOf(StompFrame.class);
        assertThat((Object) decoder.readInbound()).isNull();
        return (StompFrame) decoded;
    }

    // ------------------------------------------------------------------------------------------- wire format

    @Test
    void shouldWriteCommandHeadersContentLengthAndBody() {
        StompFrame f = new StompFrame(StompCommand.SEND, StompHeaders.of("destination", "/queue/a", "receipt", "1"),
                "hi".getBytes(UTF_8));

        assertThat(encodeToString(f)).isEqualTo("SEND\ndestination:/queue/a\nreceipt:1\ncontent-length:2\n\nhi\0");
    }

    @Test
    void shouldNotWriteContentLengthForEmptyBody() {
        assertThat(encodeToString(StompFrame.of(StompCommand.DISCONNECT, "receipt", "9")))
                .isEqualTo("DISCONNECT\nreceipt:9\n\n\0");
    }

    @Test
    void shouldCorrectAWrongContentLength() {
        StompFrame f = new StompFrame(StompCommand.SEND,
                StompHeaders.of("content-length", "99", "destination", "/q"), new byte[] {1, 2, 3});

        assertThat(encode(f)).containsExactly(bytes("SEND\ncontent-length:3\ndestination:/q\n\n", 1, 2, 3, 0));
    }

    @Test
    void shouldWriteContentLengthOnlyOnceWhenTheFrameHasSeveral() {
        StompFrame f = new StompFrame(StompCommand.SEND,
                StompHeaders.of("content-length", "1", "a", "b", "content-length", "7"), "xy".getBytes(UTF_8));

        assertThat(encodeToString(f)).isEqualTo("SEND\ncontent-length:2\na:b\n\nxy\0");
    }

    @Test
    void shouldCorrectContentLengthToZeroForEmptyBody() {
        StompFrame f = StompFrame.of(StompCommand.SEND, "content-length", "5");

        assertThat(encodeToString(f)).isEqualTo("SEND\ncontent-length:0\n\n\0");
    }

    @Test
    void shouldWriteBodyWithNulBytesThatDecodesWhole() {
        byte[] body = {0, 0, 'a', 0};
        StompFrame f = new StompFrame(StompCommand.MESSAGE, StompHeaders.of("destination", "/q"), body);

        assertThat(decode(encode(f)).body()).containsExactly(body);
    }

    @Test
    void shouldEscapeHeadersOfOrdinaryFrames() {
        StompFrame f = StompFrame.of(StompCommand.SEND, "a:b", "line1\nline2\r\\end:");

        assertThat(encodeToString(f)).isEqualTo("SEND\na\\cb:line1\\nline2\\r\\\\end\\c\n\n\0");
    }

    @ParameterizedTest
    @EnumSource(value = StompCommand.class, names = {"CONNECT", "STOMP", "CONNECTED"})
    void shouldNotEscapeConnectFrameHeaders(StompCommand command) {
        StompFrame f = StompFrame.of(command, "login", "a\\b", "passcode", "x:y\\c");

        assertThat(encodeToString(f)).isEqualTo(command + "\nlogin:a\\b\npasscode:x:y\\c\n\n\0");
        StompFrame back = decode(encode(f));
        assertThat(back.header("login")).isEqualTo("a\\b");
        assertThat(back.header("passcode")).isEqualTo("x:y\\c");
    }

    @Test
    void shouldWriteHeadersAsUtf8() {
        StompFrame f = StompFrame.of(StompCommand.SEND, "\u00fcber", "\u20ac\ud83d\ude00");

        assertThat(encode(f)).containsExactly(bytes("SEND\n\u00fcber:\u20ac\ud83d\ude00\n\n", 0));
    }

    @Test
    void shouldEncodeTheSameWayWithTheStaticMethod() {
        StompFrame f = new StompFrame(StompCommand.MESSAGE, StompHeaders.of("k", "v:\n"), new byte[] {0, 1});
        ByteBuf out = Unpooled.buffer(StompFrameEncoder.estimate(f));
        try {
            StompFrameEncoder.encode(f, out);
            assertThat(ByteBufUtil.getBytes(out)).containsExactly(encode(f));
        } finally {
            out.release();
        }
    }

    @Test
    void shouldNotChangeTheFrameItEncodes() {
        StompHeaders h = StompHeaders.of("content-length", "42", "k", "v");
        StompFrame f = new StompFrame(StompCommand.SEND, h, new byte[] {1});

        encode(f);

        assertThat(h.get("content-length")).isEqualTo("42");
        assertThat(h.size()).isEqualTo(2);
    }

    // ------------------------------------------------------------------------------------------- round trip

    private static final StompCommand[] ORDINARY = Arrays.stream(StompCommand.values())
            .filter(c -> !c.isConnectFrame()).toArray(StompCommand[]::new);
    private static final StompCommand[] CONNECT_FRAMES = {StompCommand.CONNECT, StompCommand.STOMP, StompCommand.CONNECTED};

    /** Characters that stress escaping and UTF-8: the escaped ones, backslash-letters, non-ASCII, astral. */
    private static final String[] PIECES = {
        "a", "Z", "0", "-", " ", ":", "\n", "\r", "\\", "\\n", "\\c", "c", "n", "r", "\u00e9", "\u20ac", "\u4e2d",
        "\ud83d\ude00", "\u0000", "\t", "content-length", "receipt", "=", ",", "/queue/x"
    };
    /** The same without what a CONNECT frame cannot carry (EOLs; ':' in names is excluded separately). */
    private static final String[] CONNECT_PIECES = {
        "a", "Z", "0", "-", " ", ":", "\\", "\\n", "\\c", "\u00e9", "\u20ac", "\ud83d\ude00", "\t", "=", ","
    };

    @Test
    void shouldRoundTripRandomFrames() {
        long seed = new Random().nextLong();
        Random random = new Random(seed);
        for (int i = 0; i < 2_000; i++) {
            boolean connect = random.nextInt(5) == 0;
            StompCommand command = connect ? CONNECT_FRAMES[random.nextInt(CONNECT_FRAMES.length)]
                    : ORDINARY[random.nextInt(ORDINARY.length)];
            StompHeaders headers = new StompHeaders();
            int count = random.nextInt(6);
            for (int h = 0; h < count; h++) {
                String name = random.nextInt(8) == 0 ? StompHeaders.CONTENT_LENGTH
                        : randomText(random, connect ? CONNECT_PIECES : PIECES, true, connect);
                String value = random.nextInt(8) == 0 ? Integer.toString(random.nextInt(1000) - 10)
                        : randomText(random, connect ? CONNECT_PIECES : PIECES, false, false);
                headers.add(name, value);
            }
            byte[] body = new byte[random.nextInt(4) == 0 ? 0 : random.nextInt(300)];
            for (int b = 0; b < body.length; b++) {
                body[b] = random.nextInt(4) == 0 ? 0 : (byte) random.nextInt(256);
            }
            StompFrame original = new StompFrame(command, headers, body);
            String description = "frame " + i + " with seed " + seed + ": " + original + " headers " + pairs(headers);

            StompFrame back = decode(encode(original));

            assertThat(back.command()).as(description).isEqualTo(command);
            assertThat(back.body()).as(description).containsExactly(body);
            assertThat(pairsWithoutContentLength(back.headers())).as(description)
                    .containsExactlyElementsOf(pairsWithoutContentLength(headers));
            if (body.length > 0 || headers.contains(StompHeaders.CONTENT_LENGTH)) {
                assertThat(back.header(StompHeaders.CONTENT_LENGTH)).as(description).isEqualTo(Integer.toString(body.length));
                assertThat(back.headers().names()).as(description).containsOnlyOnce(StompHeaders.CONTENT_LENGTH);
            } else {
                assertThat(back.headers().contains(StompHeaders.CONTENT_LENGTH)).as(description).isFalse();
            }
        }
    }

    @Test
    void shouldRoundTripSeveralFramesWrittenBackToBack() {
        List<StompFrame> frames = List.of(
                new StompFrame(StompCommand.SEND, StompHeaders.of("destination", "/q", "x", "a:b"), new byte[] {0}),
                StompFrame.of(StompCommand.CONNECTED, "version", "1.2", "server", "fedbridge/0.1"),
                new StompFrame(StompCommand.MESSAGE, StompHeaders.of("k", "\\"), "last".getBytes(UTF_8)));
        for (StompFrame f : frames) {
            encoder.write(f);
        }
        encoder.flush();
        for (ByteBuf b = encoder.readOutbound(); b != null; b = encoder.readOutbound()) {
            decoder.writeInbound(b);
        }

        List<StompFrame> back = new ArrayList<>();
        for (Object m = decoder.readInbound(); m != null; m = decoder.readInbound()) {
            back.add((StompFrame) m);
        }

        assertThat(back).hasSize(3);
        assertThat(back.get(0).header("x")).isEqualTo("a:b");
        assertThat(back.get(1).header("server")).isEqualTo("fedbridge/0.1");
        assertThat(back.get(2).header("k")).isEqualTo("\\");
        assertThat(back.get(2).bodyAsString()).isEqualTo("last");
    }

    private static String randomText(Random random, String[] pieces, boolean nonEmpty, boolean noColon) {
        StringBuilder sb = new StringBuilder();
        int n = random.nextInt(6);
        while (n-- > 0 || (nonEmpty && sb.length() == 0)) {
            String p = pieces[random.nextInt(pieces.length)];
            if (!(noColon && p.contains(":"))) {
                sb.append(p);
            }
        }
        return sb.toString();
    }

    private static List<String> pairs(StompHeaders h) {
        List<String> l = new ArrayList<>();
        h.forEach((n, v) -> l.add(n + "=" + v));
        return l;
    }

    private static List<List<String>> pairsWithoutContentLength(StompHeaders h) {
        List<List<String>> l = new ArrayList<>();
        h.forEach((n, v) -> {
            if (!n.equals(StompHeaders.CONTENT_LENGTH)) {
                l.add(List.of(n, v));
            }
        });
        return l;
    }

    private static byte[] bytes(String text, int... tail) {
        byte[] head = text.getBytes(UTF_8);
        byte[] all = Arrays.copyOf(head, head.length + tail.length);
        for (int i = 0; i < tail.length; i++) {
            all[head.length + i] = (byte) tail[i];
        }
        return all;
    }

    @Test
    void shouldEscapeNonAsciiValuesLikeAsciiOnes() {
        StompFrame f = StompFrame.of(StompCommand.SEND, "fedbridge-id", "\u00e9:1");

        assertThat(encode(f)).containsExactly(bytes("SEND\nfedbridge-id:\u00e9\\c1\n\n", 0));
    }
}
