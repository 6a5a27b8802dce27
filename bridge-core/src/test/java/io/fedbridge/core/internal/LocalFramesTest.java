package io.fedbridge.core.internal;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.fedbridge.core.FrameLimits;
import io.fedbridge.core.StompCommand;
import io.fedbridge.core.StompFrame;
import io.fedbridge.core.StompHeaders;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** vm:// frames cross as objects, but arrive as the wire would have delivered them. */
class LocalFramesTest {

    private EmbeddedChannel channel;

    @AfterEach
    void release() {
        if (channel != null) {
            channel.finishAndReleaseAll();
        }
    }

    private void start(FrameLimits limits) {
        release();
        channel = new EmbeddedChannel(new LocalFrames(limits));
    }

    private static StompFrame send(String body, String... headers) {
        StompHeaders h = StompHeaders.of(headers);
        return new StompFrame(StompCommand.SEND, h, body.getBytes(UTF_8));
    }

    @Test
    void shouldHandTheReceiverItsOwnCopyWithContentLengthAsTheEncoderWrites() {
        start(FrameLimits.ofDefaults());
        StompFrame sent = send("hello", "destination", "/queue/a", "content-length", "999", "content-length", "3");

        channel.writeInbound(sent);
        StompFrame got = channel.readInbound();

        assertThat(got).isNotSameAs(sent);
        assertThat(got.headers().toMap()).containsEntry("destination", "/queue/a").containsEntry("content-length", "5");
        assertThat(got.headers().size()).as("a repeated content-length is dropped, as on the wire").isEqualTo(2);
        sent.body()[0] = 'J';
        sent.headers().set("destination", "/queue/changed");
        assertThat(got.bodyAsString()).as("the sender may reuse its frame").isEqualTo("hello");
        assertThat(got.header("destination")).isEqualTo("/queue/a");
    }

    @Test
    void shouldShareTheBodyArrayWithTheClientEndOfAFederationLinkAndCopyHeadersThatDoNotReadAsEncoded() {
        release();
        channel = new EmbeddedChannel(new LocalFrames(FrameLimits.ofDefaults(), true));
        StompFrame sent = send("hello", "destination", "/queue/a");

        channel.writeInbound(sent);
        StompFrame got = channel.readInbound();

        assertThat(got.body()).isSameAs(sent.body());
        assertThat(got.headers()).as("no content-length: the copy gets the encoder's").isNotSameAs(sent.headers());
        assertThat(got.header("content-length")).isEqualTo("5");

        StompFrame wrongLength = send("hello", "destination", "/queue/a", "content-length", "4");
        channel.writeInbound(wrongLength);
        assertThat(((StompFrame) channel.readInbound()).header("content-length")).isEqualTo("5");

        StompFrame twice = send("hello", "destination", "/queue/a", "content-length", "5", "content-length", "5");
        channel.writeInbound(twice);
        assertThat(((StompFrame) channel.readInbound()).headers().size()).isEqualTo(2);
    }

    @Test
    void shouldPassAFrameThatReadsAsEncodedOnAFederationLinkAsItIsButStillCheckIt() {
        release();
        channel = new EmbeddedChannel(new LocalFrames(new FrameLimits(1024, 3, 64), true));
        StompFrame sent = send("hello", "destination", "/queue/a", "content-length", "5");
        StompFrame empty = StompFrame.of(StompCommand.RECEIPT, "receipt-id", "r-1");

        channel.writeInbound(sent, empty);

        assertThat((StompFrame) channel.readInbound()).isSameAs(sent);
        assertThat((StompFrame) channel.readInbound()).isSameAs(empty);
        channel.writeInbound(send("x", "destination", "/queue/a", "content-length", "1", "a", "1", "b", "2"));
        assertThat(((MalformedFrame) channel.readInbound()).reason()).isEqualTo("SEND frame has more than the limit of 3 headers");
    }

    @Test
    void shouldCopyEvenAFrameThatReadsAsEncodedForAnOrdinaryReceiver() {
        start(FrameLimits.ofDefaults());
        StompFrame sent = send("hello", "destination", "/queue/a", "content-length", "5");

        channel.writeInbound(sent);

        StompFrame got = channel.readInbound();
        assertThat(got).isNotSameAs(sent);
        assertThat(got.body()).isNotSameAs(sent.body());
    }

    @Test
    void shouldAddContentLengthToANonEmptyBodyOnly() {
        start(FrameLimits.ofDefaults());
        channel.writeInbound(send("x", "destination", "/queue/a"), StompFrame.of(StompCommand.DISCONNECT, "receipt", "r-1"));

        StompFrame withBody = channel.readInbound();
        StompFrame empty = channel.readInbound();
        assertThat(withBody.header("content-length")).isEqualTo("1");
        assertThat(empty.header("content-length")).isNull();
    }

    @Test
    void shouldTurnAFrameOverTheLimitsIntoAMalformedFrameThatNamesTheLimitAndStopReading() {
        start(new FrameLimits(1024, 3, 64));
        channel.writeInbound(send("x", "destination", "/queue/a", "a", "1", "b", "2", "receipt", "r-9"));

        MalformedFrame bad = channel.readInbound();
        assertThat(bad.reason()).isEqualTo("SEND frame has more than the limit of 3 headers");
        assertThat(bad.receipt()).isEqualTo("r-9");

        channel.writeInbound(send("y", "destination", "/queue/a"));
        assertThat((Object) channel.readInbound()).as("nothing more is read from a connection that sent a bad frame").isNull();
    }

    @Test
    void shouldApplyTheHeaderLengthFrameSizeAndEmptyNameChecksOfTheDecoder() {
        start(new FrameLimits(1024, 10, 64));
        channel.writeInbound(send("x", "destination", "/queue/" + "a".repeat(60)));
        assertThat(((MalformedFrame) channel.readInbound()).reason())
                .isEqualTo("SEND frame has a header line longer than the limit of 64 bytes");

        start(new FrameLimits(256, 10, 64));
        channel.writeInbound(send("x".repeat(400), "destination", "/queue/a"));
        assertThat(((MalformedFrame) channel.readInbound()).reason()).isEqualTo("SEND frame exceeds the size limit of 256 bytes");

        start(new FrameLimits(256, 10, 64));
        channel.writeInbound(send("x", "", "v"));
        assertThat(((MalformedFrame) channel.readInbound()).reason()).isEqualTo("SEND frame has a header with an empty name");
    }

    @Test
    void shouldDropHeartBeatsAndReleaseThem() {
        start(FrameLimits.ofDefaults());
        ByteBuf eol = Unpooled.buffer().writeByte('\n');

        channel.writeInbound(eol);

        assertThat((Object) channel.readInbound()).isNull();
        assertThat(eol.refCnt()).isZero();
    }
}
