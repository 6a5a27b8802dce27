package io.fedbridge.core.internal;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;

import io.fedbridge.core.FrameLimits;
import io.fedbridge.core.StompCommand;
import io.fedbridge.core.StompFrame;
import io.fedbridge.core.StompHeaders;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

class StompFrameDecoderTest {

    private static final FrameLimits SMALL = new FrameLimits(256, 3, 64);

    private EmbeddedChannel channel = new EmbeddedChannel(new StompFrameDecoder(FrameLimits.ofDefaults()));

    @AfterEach
    void releaseEverything() {
        channel.finishAndReleaseAll();
    }

    private void useLimits(FrameLimits limits) {
        channel.finishAndReleaseAll();
        channel = new EmbeddedChannel(new StompFrameDecoder(limits));
    }

    // ------------------------------------------------------------------------------------------- helpers

    private List<Object> feed(byte[] bytes) {
        channel.writeInbound(Unpooled.wrappedBuffer(bytes));
        return drain();
    }

    private List<Object> feed(String text) {
        return feed(text.getBytes(UTF_8));
    }

    private List<Object> feedOneByteAtATime(byte[] bytes) {
        List<Object> out = new ArrayList<>();
        for (byte b : bytes) {
            channel.writeInbound(Unpooled.wrappedBuffer(new byte[] {b}));
            out.addAll(drain());
        }
        return out;
    }

    private List<Object> drain() {
        List<Object> out = new ArrayList<>();
        for (Object m = channel.readInbound(); m != null; m = channel.readInbound()) {
            out.add(m);
        }
        return out;
    }

    private StompFrame single(List<Object> out) {
        assertThat(out).hasSize(1);
        assertThat(out.get(0)).isInstanceOf(StompFrame.class);
        return (StompFrame) out.get(0);
    }

    private MalformedFrame malformed(List<Object> out) {
        assertThat(out).hasSize(1);
        assertThat(out.get(0)).isInstanceOf(MalformedFrame.class);
        return (MalformedFrame) out.get(0);
    }

    private static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        for (byte[] p : parts) {
            b.writeBytes(p);
        }
        return b.toByteArray();
    }

    private static byte[] bytes(String s) {
        return s.getBytes(UTF_8);
    }

    /** A few frames of every shape: plain, CRLF, content-length with NULs, heart-beats between them. */
    private static byte[] mixedStream() {
        return concat(
                bytes("\n\r\n"),
                bytes("CONNECTED\nversion:1.2\nheart-beat:0,0\n\n\0"),
                bytes("\n"),
                bytes("MESSAGE\r\ndestination:/queue/a\r\nmessage-id:m\\c1\r\n\r\nhello\0"),
                bytes("\r\n\n"),
                bytes("MESSAGE\ncontent-length:5\ndestination:/topic/b\n\n"), new byte[] {1, 0, 2, 0, 3}, new byte[] {0},
                bytes("RECEIPT\nreceipt-id:77\n\n\0\n"));
    }

    private static void assertMixedStreamFrames(List<Object> out) {
        assertThat(out).hasSize(4).allMatch(StompFrame.class::isInstance);
        StompFrame connected = (StompFrame) out.get(0);
        assertThat(connected.command()).isEqualTo(StompCommand.CONNECTED);
        assertThat(connected.headers().toMap()).containsExactly(
                entry("version", "1.2"),
                entry("heart-beat", "0,0"));
        assertThat(connected.body()).isEmpty();
        StompFrame first = (StompFrame) out.get(1);
        assertThat(first.command()).isEqualTo(StompCommand.MESSAGE);
        assertThat(first.header("destination")).isEqualTo("/queue/a");
        assertThat(first.header("message-id")).isEqualTo("m:1");
        assertThat(first.bodyAsString()).isEqualTo("hello");
        StompFrame second = (StompFrame) out.get(2);
        assertThat(second.header("destination")).isEqualTo("/topic/b");
        assertThat(second.body()).containsExactly(1, 0, 2, 0, 3);
        StompFrame receipt = (StompFrame) out.get(3);
        assertThat(receipt.command()).isEqualTo(StompCommand.RECEIPT);
        assertThat(receipt.header("receipt-id")).isEqualTo("77");
    }

    // ------------------------------------------------------------------------------------------- framing

    @Nested
    class Framing {

        @ParameterizedTest
        @EnumSource(StompCommand.class)
        void shouldDecodeEveryClientAndServerCommand(StompCommand command) {
            StompFrame f = single(feed(command.name() + "\nname:value\n\nbody\0"));

            assertThat(f.command()).isEqualTo(command);
            assertThat(f.header("name")).isEqualTo("value");
            assertThat(f.headers().size()).isEqualTo(1);
            assertThat(f.bodyAsString()).isEqualTo("body");
        }

        @Test
        void shouldDecodeFrameWithoutHeadersOrBody() {
            StompFrame f = single(feed("DISCONNECT\n\n\0"));

            assertThat(f.command()).isEqualTo(StompCommand.DISCONNECT);
            assertThat(f.headers().isEmpty()).isTrue();
            assertThat(f.body()).isEmpty();
        }

        @Test
        void shouldAcceptCrLfLineEndings() {
            StompFrame f = single(feed("SEND\r\ndestination:/queue/a\r\nreceipt:1\r\n\r\nhi\0"));

            assertThat(f.command()).isEqualTo(StompCommand.SEND);
            assertThat(f.headers().toMap()).containsExactly(
                    entry("destination", "/queue/a"),
                    entry("receipt", "1"));
            assertThat(f.bodyAsString()).isEqualTo("hi");
        }

        @Test
        void shouldAcceptCrLfWithContentLength() {
            StompFrame f = single(feed("SEND\r\ncontent-length:2\r\n\r\nhi\0\r\n"));

            assertThat(f.bodyAsString()).isEqualTo("hi");
        }

        @Test
        void shouldSkipHeartBeatEolsBetweenFrames() {
            List<Object> out = feed("\n\n\r\nSEND\ndestination:/q\n\none\0\n\r\n\n\nSEND\ndestination:/q\n\ntwo\0\n");

            assertThat(out).hasSize(2);
            assertThat(((StompFrame) out.get(0)).bodyAsString()).isEqualTo("one");
            assertThat(((StompFrame) out.get(1)).bodyAsString()).isEqualTo("two");
        }

        @Test
        void shouldEmitNothingForHeartBeatsAlone() {
            for (int i = 0; i < 1000; i++) {
                assertThat(feed(i % 2 == 0 ? "\n" : "\r\n")).isEmpty();
            }
            assertThat(single(feed("ACK\nid:1\n\n\0")).command()).isEqualTo(StompCommand.ACK);
        }

        @Test
        void shouldDecodeSeveralFramesInOneBuffer() {
            assertMixedStreamFrames(feed(mixedStream()));
        }

        @Test
        void shouldDecodeFramesFedOneByteAtATime() {
            assertMixedStreamFrames(feedOneByteAtATime(mixedStream()));
        }

        @Test
        void shouldDecodeFramesSplitAtEveryByteBoundary() {
            byte[] stream = mixedStream();
            for (int split = 1; split < stream.length; split++) {
                useLimits(FrameLimits.ofDefaults());
                List<Object> out = new ArrayList<>(feed(Arrays.copyOfRange(stream, 0, split)));
                out.addAll(feed(Arrays.copyOfRange(stream, split, stream.length)));

                assertMixedStreamFrames(out);
            }
        }

        @Test
        void shouldNotEmitAPartialFrame() {
            byte[] frame = bytes("SEND\ndestination:/q\ncontent-length:3\n\nabc\0");
            List<Object> out = feed(Arrays.copyOf(frame, frame.length - 1));

            assertThat(out).isEmpty();
            assertThat(single(feed(new byte[] {0})).bodyAsString()).isEqualTo("abc");
        }
    }

    // ------------------------------------------------------------------------------------------- bodies

    @Nested
    class Bodies {

        @Test
        void shouldReadBodyWithNulBytesByContentLength() {
            byte[] body = {0, 'a', 0, 0, 'b', 0};
            StompFrame f = single(feed(concat(bytes("SEND\ndestination:/q\ncontent-length:6\n\n"), body, new byte[] {0})));

            assertThat(f.body()).containsExactly(body);
            assertThat(f.header(StompHeaders.CONTENT_LENGTH)).isEqualTo("6");
        }

        @Test
        void shouldReadEmptyBodyWithContentLengthZero() {
            StompFrame f = single(feed("SEND\ncontent-length:0\n\n\0"));

            assertThat(f.body()).isEmpty();
        }

        @Test
        void shouldEndBodyWithoutContentLengthAtFirstNul() {
            List<Object> out = feed("SEND\ndestination:/q\n\nab\0\nSEND\ndestination:/q\n\ncd\0");

            assertThat(out).hasSize(2);
            assertThat(((StompFrame) out.get(0)).bodyAsString()).isEqualTo("ab");
            assertThat(((StompFrame) out.get(1)).bodyAsString()).isEqualTo("cd");
        }

        @Test
        void shouldTreatBytesAfterFirstNulAsNextFrameWhenThereIsNoContentLength() {
            List<Object> out = feed("SEND\n\nab\0cd\n\n\0");

            assertThat(out).hasSize(2);
            assertThat(((StompFrame) out.get(0)).bodyAsString()).isEqualTo("ab");
            assertThat(((MalformedFrame) out.get(1)).reason()).contains("unknown command 'cd");
        }

        @Test
        void shouldDecodeUtf8Body() {
            StompFrame f = single(feed("SEND\ncontent-type:text/plain;charset=utf-8\n\nh\u00e9llo \u20ac \ud83d\ude00\0"));

            assertThat(f.bodyAsString()).isEqualTo("h\u00e9llo \u20ac \ud83d\ude00");
        }

        @ParameterizedTest
        @ValueSource(strings = {"abc", "-1", "", "1.5", "0x10", "99999999999"})
        void shouldRejectInvalidContentLength(String value) {
            MalformedFrame bad = malformed(feed("SEND\ndestination:/q\ncontent-length:" + value + "\n\nabc\0"));

            assertThat(bad.reason()).contains("SEND").contains("invalid content-length '" + value + "'");
        }

        @Test
        void shouldRejectContentLengthFollowedByNonNulByte() {
            MalformedFrame bad = malformed(feed("SEND\ndestination:/q\ncontent-length:2\n\nabc\0"));

            assertThat(bad.reason()).contains("SEND").contains("not terminated by NUL").contains("content-length 2");
        }

        @Test
        void shouldRejectContentLengthFollowedByNonNulByteWhenFedOneByteAtATime() {
            List<Object> out = feedOneByteAtATime(bytes("SEND\ndestination:/q\ncontent-length:2\n\nabc\0SEND\n\n\0"));

            assertThat(malformed(out).reason()).contains("not terminated by NUL");
        }
    }

    // ------------------------------------------------------------------------------------------- headers

    @Nested
    class Headers {

        @Test
        void shouldUnescapeHeaderNamesAndValues() {
            StompFrame f = single(feed("MESSAGE\nmy\\cname:a\\nb\\rc\\cd\\\\e\nplain:x\n\n\0"));

            assertThat(f.header("my:name")).isEqualTo("a\nb\rc:d\\e");
            assertThat(f.header("plain")).isEqualTo("x");
        }

        @Test
        void shouldUnescapeColonInValueAfterSplittingAtTheFirstRawColon() {
            StompFrame f = single(feed("SEND\nurl:tcp\\c//h\n\n\0"));

            assertThat(f.header("url")).isEqualTo("tcp://h");
        }

        @ParameterizedTest
        @ValueSource(strings = {"a\\tb", "ab\\", "\\x", "a\\\\\\"})
        void shouldRejectInvalidEscapeNamingTheHeader(String value) {
            MalformedFrame bad = malformed(feed("SEND\ndestination:/q\nfoo:" + value + "\n\n\0"));

            assertThat(bad.reason()).contains("SEND").contains("invalid escape").contains("foo:" + value);
        }

        @Test
        void shouldRejectInvalidEscapeInHeaderName() {
            MalformedFrame bad = malformed(feed("SEND\nf\\too:bar\n\n\0"));

            assertThat(bad.reason()).contains("invalid escape").contains("f\\too");
        }

        @ParameterizedTest
        @EnumSource(value = StompCommand.class, names = {"CONNECT", "STOMP", "CONNECTED"})
        void shouldNotUnescapeConnectFrameHeaders(StompCommand command) {
            StompFrame f = single(feed(command + "\nlogin:a\\cb\\nc\\\\d\\t\npasscode:x:y:z\n\n\0"));

            assertThat(f.header("login")).isEqualTo("a\\cb\\nc\\\\d\\t");
            assertThat(f.header("passcode")).isEqualTo("x:y:z");
        }

        @Test
        void shouldLetFirstOfRepeatedHeadersWin() {
            StompFrame f = single(feed("MESSAGE\nfoo:first\nfoo:second\nfoo:third\n\n\0"));

            assertThat(f.header("foo")).isEqualTo("first");
            assertThat(f.headers().size()).isEqualTo(3);
            assertThat(f.headers().value(1)).isEqualTo("second");
        }

        @Test
        void shouldUseFirstOfRepeatedContentLengthHeaders() {
            StompFrame f = single(feed("SEND\ncontent-length:2\ncontent-length:5\n\nab\0"));

            assertThat(f.bodyAsString()).isEqualTo("ab");
        }

        @Test
        void shouldKeepEmptyValuesAndUnicodeHeaders() {
            StompFrame f = single(feed("SEND\nempty:\n\u00fcber:\u20ac\ud83d\ude00\n\n\0"));

            assertThat(f.header("empty")).isEmpty();
            assertThat(f.header("\u00fcber")).isEqualTo("\u20ac\ud83d\ude00");
        }

        @Test
        void shouldRejectHeaderLineWithoutColon() {
            MalformedFrame bad = malformed(feed("SEND\ndestination:/q\nnocolonhere\n\n\0"));

            assertThat(bad.reason()).contains("SEND").contains("without ':'").contains("nocolonhere");
        }

        @Test
        void shouldRejectHeaderWithEmptyName() {
            MalformedFrame bad = malformed(feed("SEND\n:value\n\n\0"));

            assertThat(bad.reason()).contains("empty name");
        }

        @Test
        void shouldAcceptExactlyMaxHeaders() {
            useLimits(SMALL);

            StompFrame f = single(feed("SEND\na:1\nb:2\nc:3\n\n\0"));

            assertThat(f.headers().size()).isEqualTo(3);
        }

        @Test
        void shouldRejectTooManyHeaders() {
            useLimits(SMALL);

            MalformedFrame bad = malformed(feed("SEND\na:1\nb:2\nc:3\nd:4\n\n\0"));

            assertThat(bad.reason()).contains("SEND").contains("limit of 3 headers");
        }

        @Test
        void shouldAcceptHeaderLineOfExactlyMaxHeaderLength() {
            useLimits(SMALL);
            String line = "k:" + "v".repeat(62);

            StompFrame f = single(feed("SEND\n" + line + "\n\n\0"));

            assertThat(f.header("k")).hasSize(62);
        }

        @Test
        void shouldAcceptHeaderLineOfExactlyMaxHeaderLengthWithCrLfFedOneByteAtATime() {
            useLimits(SMALL);
            String line = "k:" + "v".repeat(62);

            StompFrame f = single(feedOneByteAtATime(bytes("SEND\r\n" + line + "\r\n\r\n\0")));

            assertThat(f.header("k")).hasSize(62);
        }

        @Test
        void shouldRejectTooLongHeaderLine() {
            useLimits(SMALL);
            String line = "k:" + "v".repeat(63);

            MalformedFrame bad = malformed(feed("SEND\n" + line + "\n\n\0"));

            assertThat(bad.reason()).contains("SEND").contains("header line longer than the limit of 64 bytes");
        }

        @Test
        void shouldRejectTooLongHeaderLineBeforeItsEndArrives() {
            useLimits(SMALL);

            List<Object> out = feed("SEND\nk:" + "v".repeat(100));

            assertThat(malformed(out).reason()).contains("limit of 64 bytes");
        }

        @Test
        void shouldDecodeHeaderLinesThatTrickleInAcrossChunksInEveryFrame() {
            // Regression (found by StompFrameDecoderFuzzTest): a header line arriving in pieces was searched for its
            // EOL from its start on every piece; the decoder now remembers how far it searched, per line.
            String frame = "SEND\r\ndestination:/queue/" + "q".repeat(300) + "\r\nk:v\n\n\0";
            List<Object> out = new ArrayList<>();
            byte[] stream = bytes(frame + "\n" + frame);
            for (int i = 0; i < stream.length; i += 7) {
                out.addAll(feed(Arrays.copyOfRange(stream, i, Math.min(stream.length, i + 7))));
            }

            assertThat(out).hasSize(2).allSatisfy(m -> {
                StompFrame f = (StompFrame) m;
                assertThat(f.header("destination")).isEqualTo("/queue/" + "q".repeat(300));
                assertThat(f.header("k")).isEqualTo("v");
            });
        }

        @Test
        void shouldRejectCommandLineThatNeverEnds() {
            MalformedFrame bad = malformed(feed("A".repeat(40)));

            assertThat(bad.reason()).contains("no command line within 32 bytes").contains("AAAA");
        }
    }

    // ------------------------------------------------------------------------------------------- commands

    @Nested
    class Commands {

        @Test
        void shouldRejectUnknownCommand() {
            MalformedFrame bad = malformed(feed("FOO\n\n\0"));

            assertThat(bad.reason()).isEqualTo("unknown command 'FOO'");
            assertThat(bad.receipt()).isNull();
        }

        @ParameterizedTest
        @ValueSource(strings = {"send", "Send", "SEND ", " SEND", "GET / HTTP/1.1"})
        void shouldRejectCommandsThatAreNotExactlyStomp(String line) {
            MalformedFrame bad = malformed(feed(line + "\r\nHost: x\r\n\r\n\0"));

            assertThat(bad.reason()).isEqualTo("unknown command '" + line + "'");
        }
    }

    // ------------------------------------------------------------------------------------------- size limit

    @Nested
    class FrameSize {

        @Test
        void shouldAcceptFrameOfExactlyMaxFrameSizeWithoutContentLength() {
            useLimits(SMALL);
            String frame = "SEND\n\n" + "x".repeat(256 - 7) + "\0";
            assertThat(frame).hasSize(256);

            assertThat(single(feed(frame)).body()).hasSize(249);
        }

        @Test
        void shouldAcceptFrameOfExactlyMaxFrameSizeWithContentLengthFedOneByteAtATime() {
            useLimits(SMALL);
            String head = "SEND\ncontent-length:230\n\n";
            byte[] frame = concat(bytes(head), new byte[230], new byte[] {0});
            assertThat(frame).hasSize(256);

            assertThat(single(feedOneByteAtATime(frame)).body()).hasSize(230);
        }

        @Test
        void shouldRejectContentLengthOverTheLimitBeforeTheBodyArrives() {
            useLimits(SMALL);

            MalformedFrame bad = malformed(feed("SEND\nreceipt:r-1\ncontent-length:1000\n\n"));

            assertThat(bad.reason()).contains("SEND").contains("size limit of 256 bytes");
            assertThat(bad.receipt()).isEqualTo("r-1");
        }

        @Test
        void shouldRejectFrameOneByteOverTheLimitWithContentLength() {
            useLimits(SMALL);
            byte[] frame = concat(bytes("SEND\ncontent-length:231\n\n"), new byte[231], new byte[] {0});

            assertThat(malformed(feed(frame)).reason()).contains("size limit of 256 bytes");
        }

        @Test
        void shouldRejectFrameOverTheLimitWithoutContentLength() {
            useLimits(SMALL);

            MalformedFrame bad = malformed(feed("SEND\nreceipt:r-2\n\n" + "x".repeat(300) + "\0"));

            assertThat(bad.reason()).contains("size limit of 256 bytes");
            assertThat(bad.receipt()).isEqualTo("r-2");
        }

        @Test
        void shouldRejectFrameOneByteOverTheLimitWithoutContentLength() {
            useLimits(SMALL);

            MalformedFrame bad = malformed(feed("SEND\n\n" + "x".repeat(250) + "\0"));

            assertThat(bad.reason()).contains("size limit of 256 bytes");
        }

        @Test
        void shouldRejectSlowBodyWithoutNulAsSoonAsItPassesTheLimit() {
            useLimits(SMALL);
            assertThat(feed("SEND\n\n")).isEmpty();

            int fed = 6;
            List<Object> out = List.of();
            while (out.isEmpty() && fed < 10_000) {
                out = feed("x");
                fed++;
            }

            assertThat(malformed(out).reason()).contains("size limit of 256 bytes");
            // 249 body bytes + NUL would still fit; the 250th cannot
            assertThat(fed).as("bytes fed until the decoder gave up").isEqualTo(256);
        }

        @Test
        void shouldRejectSlowHeadersAsSoonAsTheyPassTheLimit() {
            useLimits(new FrameLimits(256, 1000, 64));
            assertThat(feed("SEND\n")).isEmpty();

            int fed = 5;
            List<Object> out = List.of();
            for (int i = 0; out.isEmpty() && i < 1000; i++) {
                out = feedOneByteAtATime(bytes("h" + (i % 10) + ":0123456789\n"));
                fed += 14;
            }

            assertThat(malformed(out).reason()).contains("SEND").contains("size limit of 256 bytes");
            assertThat(fed).isLessThanOrEqualTo(256 + 14);
        }

        @Test
        void shouldRejectSlowContentLengthBodyOverTheLimitWithoutWaitingForIt() {
            useLimits(SMALL);

            List<Object> out = feedOneByteAtATime(bytes("SEND\ncontent-length:100000\n\n"));

            assertThat(malformed(out).reason()).contains("size limit of 256 bytes");
        }
    }

    // ------------------------------------------------------------------------------------------- after failure

    @Nested
    class AfterFailure {

        @Test
        void shouldEmitNothingAfterAMalformedFrame() {
            List<Object> out = feed("SEND\n\nok\0FOO\n\n\0SEND\n\nlost\0");

            assertThat(out).hasSize(2);
            assertThat(((StompFrame) out.get(0)).bodyAsString()).isEqualTo("ok");
            assertThat(((MalformedFrame) out.get(1)).reason()).isEqualTo("unknown command 'FOO'");

            assertThat(feed("SEND\n\nstill lost\0")).isEmpty();
            assertThat(feedOneByteAtATime(bytes("SEND\ndestination:/q\n\nlost too\0"))).isEmpty();
        }

        @Test
        void shouldEmitOneMalformedFrameWhenBadInputArrivesOneByteAtATime() {
            List<Object> out = feedOneByteAtATime(bytes("SEND\nbad header\n\n\0FOO\n\n\0"));

            assertThat(malformed(out).reason()).contains("without ':'");
        }

        @Test
        void shouldCarryReceiptOfFrameWithInvalidContentLength() {
            MalformedFrame bad = malformed(feed("SEND\nreceipt:r-9\ncontent-length:abc\n\n\0"));

            assertThat(bad.receipt()).isEqualTo("r-9");
        }

        @Test
        void shouldCarryReceiptOfFrameWithBodyNotTerminatedByNul() {
            MalformedFrame bad = malformed(feed("SEND\nreceipt:r-10\ncontent-length:1\n\nab\0"));

            assertThat(bad.receipt()).isEqualTo("r-10");
        }

        @Test
        void shouldCarryUnescapedReceipt() {
            MalformedFrame bad = malformed(feed("SEND\nreceipt:r\\c11\ncontent-length:x\n\n\0"));

            assertThat(bad.receipt()).isEqualTo("r:11");
        }

        @Test
        void shouldHaveNoReceiptWhenTheFailureComesBeforeAnyHeader() {
            assertThat(malformed(feed("NOPE\nreceipt:1\n\n\0")).receipt()).isNull();
        }

        /*
         * MalformedFrame promises the receipt "if it could be read". When the receipt header precedes the bad
         * header line it has been read, so the broker can answer ERROR with receipt-id and the client's send
         * fails with the real reason.
         */
        @ParameterizedTest
        @ValueSource(strings = {"foo:a\\tb", "no colon", ":empty-name", "k:vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"})
        void shouldCarryReceiptReadBeforeABadHeaderLine(String badLine) {
            useLimits(SMALL);

            MalformedFrame bad = malformed(feed("SEND\nreceipt:r-12\n" + badLine + "\n\n\0"));

            assertThat(bad.receipt()).isEqualTo("r-12");
        }

        @Test
        void shouldCarryReceiptReadBeforeTooManyHeaders() {
            useLimits(SMALL);

            MalformedFrame bad = malformed(feed("SEND\nreceipt:r-13\nb:2\nc:3\nd:4\n\n\0"));

            assertThat(bad.receipt()).isEqualTo("r-13");
        }
    }

    @Nested
    class RepeatedValues {

        @Test
        void shouldHandOutTheSameStringForAValueThatRepeatsAndANewOneWhenItChanges() {
            StompFrame a = single(feed("SEND\ndestination:/queue/a\nmessage-id:m-1\n\n\0"));
            StompFrame b = single(feed("SEND\ndestination:/queue/a\nmessage-id:m-2\n\n\0"));
            StompFrame c = single(feed("SEND\ndestination:/queue/b\nmessage-id:m-3\n\n\0"));

            assertThat(b.header(StompHeaders.DESTINATION)).isSameAs(a.header(StompHeaders.DESTINATION));
            assertThat(c.header(StompHeaders.DESTINATION)).isEqualTo("/queue/b");
            assertThat(List.of(a, b, c)).extracting(f -> f.header(StompHeaders.MESSAGE_ID)).containsExactly("m-1", "m-2", "m-3");
        }

        @Test
        void shouldStillUnescapeAndDecodeNonAsciiValuesThatRepeat() {
            for (int i = 0; i < 3; i++) {
                StompFrame f = single(feed("SEND\ndestination:/queue/a\\cb\ncontent-type:text/plain;x=\u00e9\n\n\0"));
                assertThat(f.header(StompHeaders.DESTINATION)).isEqualTo("/queue/a:b");
                assertThat(f.header(StompHeaders.CONTENT_TYPE)).isEqualTo("text/plain;x=\u00e9");
            }
            StompFrame plain = single(feed("SEND\ndestination:/queue/ab\n\n\0"));
            assertThat(plain.header(StompHeaders.DESTINATION)).isEqualTo("/queue/ab");
        }

        @Test
        void shouldUnescapeAsciiAndNonAsciiValuesAlike() {
            StompFrame ascii = single(feed("SEND\nfedbridge-id:A\\cb\\\\c\\n\n\n\0"));
            StompFrame other = single(feed("SEND\nfedbridge-id:\u00e9\\c1\n\n\0"));

            assertThat(ascii.header("fedbridge-id")).isEqualTo("A:b\\c\n");
            assertThat(other.header("fedbridge-id")).isEqualTo("\u00e9:1");
        }

        @Test
        void shouldKeepValuesOfEveryConnectionApart() {
            single(feed("SEND\ndestination:/queue/a\n\n\0"));
            EmbeddedChannel other = new EmbeddedChannel(new StompFrameDecoder(FrameLimits.ofDefaults()));
            other.writeInbound(Unpooled.wrappedBuffer("SEND\ndestination:/queue/z\n\n\0".getBytes(UTF_8)));
            StompFrame f = other.readInbound();
            other.finishAndReleaseAll();

            assertThat(f.header(StompHeaders.DESTINATION)).isEqualTo("/queue/z");
        }
    }
}
