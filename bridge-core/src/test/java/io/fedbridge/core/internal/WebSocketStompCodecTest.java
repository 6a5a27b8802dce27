package io.fedbridge.core.internal;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.fedbridge.core.FrameLimits;
import io.fedbridge.core.StompCommand;
import io.fedbridge.core.StompFrame;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.websocketx.BinaryWebSocketFrame;
import io.netty.handler.codec.http.websocketx.CloseWebSocketFrame;
import io.netty.handler.codec.http.websocketx.ContinuationWebSocketFrame;
import io.netty.handler.codec.http.websocketx.PingWebSocketFrame;
import io.netty.handler.codec.http.websocketx.PongWebSocketFrame;
import io.netty.handler.codec.http.websocketx.TextWebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocketClientProtocolHandler;
import io.netty.handler.codec.http.websocketx.WebSocketServerProtocolHandler;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The STOMP byte stream in WebSocket frames: in both directions, and when the connection closes. */
class WebSocketStompCodecTest {

    private EmbeddedChannel channel;

    @AfterEach
    void release() {
        if (channel != null) {
            channel.finishAndReleaseAll();
        }
    }

    /** A broker's end whose handshake has completed, with the STOMP codec above the WebSocket codec. */
    private void openServer() {
        channel = new EmbeddedChannel(WebSocketStompCodec.forServer());
        LocalFrames.install(channel, FrameLimits.ofDefaults());
        channel.pipeline().fireUserEventTriggered(
                new WebSocketServerProtocolHandler.HandshakeComplete("/stomp", new DefaultHttpHeaders(), "v12.stomp"));
    }

    private static ByteBuf utf8(String s) {
        return Unpooled.copiedBuffer(s, UTF_8);
    }

    @Test
    void shouldDecodeStompFramesSplitOverAndJoinedInWebSocketFramesWithHeartBeats() {
        openServer();

        channel.writeInbound(new TextWebSocketFrame(false, 0, utf8("SEND\ndestination:/queue/a\n")),
                new ContinuationWebSocketFrame(true, 0, utf8("\nhello\0")),
                new TextWebSocketFrame(utf8("\n")),
                new BinaryWebSocketFrame(utf8("SEND\ndestination:/queue/b\n\none\0\nSEND\ndestination:/queue/c\n\ntwo\0")));

        StompFrame first = channel.readInbound();
        StompFrame second = channel.readInbound();
        StompFrame third = channel.readInbound();
        assertThat(first.header("destination")).isEqualTo("/queue/a");
        assertThat(first.bodyAsString()).isEqualTo("hello");
        assertThat(second.bodyAsString()).isEqualTo("one");
        assertThat(third.header("destination")).isEqualTo("/queue/c");
        assertThat(third.bodyAsString()).isEqualTo("two");
        assertThat((Object) channel.readInbound()).isNull();
    }

    @Test
    void shouldSendEachStompFrameAsOneTextFrameWhenItIsUtf8AndBinaryOtherwise() {
        openServer();

        channel.writeOutbound(new StompFrame(StompCommand.MESSAGE, io.fedbridge.core.StompHeaders.of("destination", "/queue/a"),
                "grüße".getBytes(UTF_8)));
        channel.writeOutbound(new StompFrame(StompCommand.MESSAGE, io.fedbridge.core.StompHeaders.of("destination", "/queue/a"),
                new byte[] {(byte) 0xff, (byte) 0xfe, 0}));
        channel.writeOutbound(Unpooled.wrappedBuffer(new byte[] {'\n'}));

        TextWebSocketFrame text = channel.readOutbound();
        BinaryWebSocketFrame binary = channel.readOutbound();
        TextWebSocketFrame heartBeat = channel.readOutbound();
        try {
            assertThat(text.text()).startsWith("MESSAGE\n").contains("destination:/queue/a").endsWith("grüße\0");
            assertThat(binary.content().readableBytes()).isGreaterThan(3);
            assertThat(heartBeat.text()).isEqualTo("\n");
        } finally {
            text.release();
            binary.release();
            heartBeat.release();
        }
    }

    @Test
    void shouldRefuseWritesBeforeTheHandshakeCompletes() {
        channel = new EmbeddedChannel(WebSocketStompCodec.forServer());
        LocalFrames.install(channel, FrameLimits.ofDefaults());

        ChannelFuture f = channel.writeAndFlush(StompFrame.of(StompCommand.ERROR, "message", "CONNECT timed out"));

        assertThat(f.isSuccess()).isFalse();
        assertThat(f.cause()).hasMessageContaining("handshake not complete");
        assertThat((Object) channel.readOutbound()).isNull();
    }

    @Test
    void shouldCloseWithPolicyViolationAfterAnErrorFrame() {
        openServer();

        channel.writeAndFlush(StompFrame.of(StompCommand.ERROR, "message", "bad login"));
        channel.close();

        TextWebSocketFrame error = channel.readOutbound();
        CloseWebSocketFrame close = channel.readOutbound();
        try {
            assertThat(error.text()).startsWith("ERROR\n");
            assertThat(close.statusCode()).isEqualTo(1008);
            assertThat(close.reasonText()).isEqualTo("STOMP ERROR");
            assertThat(channel.isOpen()).isFalse();
        } finally {
            error.release();
            close.release();
        }
    }

    @Test
    void shouldCloseNormallyOtherwise() {
        openServer();

        channel.close();

        CloseWebSocketFrame close = channel.readOutbound();
        assertThat(close.statusCode()).isEqualTo(1000);
        close.release();
        assertThat(channel.isOpen()).isFalse();
    }

    @Test
    void shouldAnswerPingWithPongAndEchoAPeersClose() {
        openServer();

        channel.writeInbound(new PingWebSocketFrame(utf8("are you there")));
        PongWebSocketFrame pong = channel.readOutbound();
        assertThat(pong.content().toString(UTF_8)).isEqualTo("are you there");
        pong.release();

        channel.writeInbound(new CloseWebSocketFrame(1001, "going away"));
        CloseWebSocketFrame close = channel.readOutbound();
        assertThat(close.statusCode()).isEqualTo(1001);
        close.release();
        assertThat(channel.isOpen()).isFalse();
    }

    @Test
    void shouldHoldAClientsChannelActiveUntilTheHandshakeCompletes() throws Exception {
        AtomicInteger active = new AtomicInteger();
        channel = new EmbeddedChannel(false, false, WebSocketStompCodec.forClient(), new ChannelInboundHandlerAdapter() {
            @Override
            public void channelActive(ChannelHandlerContext ctx) {
                active.incrementAndGet();
            }
        });
        channel.register();
        assertThat(active).as("active before the handshake").hasValue(0);

        channel.pipeline().fireUserEventTriggered(WebSocketClientProtocolHandler.ClientHandshakeStateEvent.HANDSHAKE_COMPLETE);

        assertThat(active).as("active once the WebSocket is open").hasValue(1);
    }
}
