package io.fedbridge.core.internal;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fedbridge.core.FrameLimits;
import io.fedbridge.core.StompFrame;
import io.fedbridge.core.uri.CompositeUri;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.websocketx.TextWebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocket13FrameDecoder;
import io.netty.handler.codec.http.websocketx.WebSocket13FrameEncoder;
import io.netty.handler.codec.http.websocketx.WebSocketServerProtocolHandler;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** A ws:// listener's HTTP side: the upgrade, and a clear HTTP error for everything else. */
class WebSocketHandshakeHandlerTest {

    private static final String UPGRADE = "Connection: Upgrade\r\nUpgrade: websocket\r\n"
            + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n";

    private final List<Object> events = new ArrayList<>();
    private EmbeddedChannel channel;

    @AfterEach
    void release() {
        if (channel != null) {
            channel.finishAndReleaseAll();
        }
    }

    private void start(String listener) {
        channel = new EmbeddedChannel();
        WebSockets.installServer(channel.pipeline(), CompositeUri.parse(listener), FrameLimits.ofDefaults());
        LocalFrames.install(channel, FrameLimits.ofDefaults());
        channel.pipeline().addLast(new ChannelInboundHandlerAdapter() {
            @Override
            public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
                events.add(evt);
            }
        });
    }

    /** Sends {@code request} and returns all the broker wrote back, as text. */
    private String exchange(String request) {
        channel.writeInbound(Unpooled.copiedBuffer(request, UTF_8));
        StringBuilder out = new StringBuilder();
        for (ByteBuf b; (b = channel.readOutbound()) != null; ) {
            out.append(b.toString(UTF_8));
            b.release();
        }
        return out.toString();
    }

    @Test
    void shouldUpgradeToStompSelectingTheClientsFirstStompSubprotocol() {
        start("ws://127.0.0.1:0/stomp");

        String response = exchange("GET /stomp?x=1 HTTP/1.1\r\nHost: 127.0.0.1\r\n" + UPGRADE
                + "Sec-WebSocket-Protocol: v12.stomp, v11.stomp, v10.stomp\r\n\r\n");

        assertThat(response).startsWith("HTTP/1.1 101 Switching Protocols")
                .containsIgnoringCase("sec-websocket-protocol: v12.stomp")
                .containsIgnoringCase("sec-websocket-accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=");
        assertThat(events).hasAtLeastOneElementOfType(WebSocketServerProtocolHandler.HandshakeComplete.class);
        assertThat(channel.pipeline().names()).doesNotContain(PipelineNames.HTTP, PipelineNames.HTTP_AGGREGATOR,
                PipelineNames.WS_HANDSHAKE);
        assertThat(channel.isOpen()).isTrue();

        // A masked text frame, as a browser sends it, arrives at the STOMP decoder.
        EmbeddedChannel browser = new EmbeddedChannel(new WebSocket13FrameEncoder(true));
        browser.writeOutbound(new TextWebSocketFrame("SEND\ndestination:/queue/a\n\nhi\0"));
        for (ByteBuf b; (b = browser.readOutbound()) != null; ) {
            channel.writeInbound(b);
        }
        browser.finishAndReleaseAll();
        StompFrame send = channel.readInbound();
        assertThat(send.bodyAsString()).isEqualTo("hi");

        // What the broker writes goes out as an unmasked WebSocket frame.
        channel.writeOutbound(Unpooled.copiedBuffer("RECEIPT\nreceipt-id:1\n\n\0", UTF_8));
        EmbeddedChannel reader = new EmbeddedChannel(new WebSocket13FrameDecoder(false, false, 65536));
        for (ByteBuf b; (b = channel.readOutbound()) != null; ) {
            reader.writeInbound(b);
        }
        TextWebSocketFrame receipt = reader.readInbound();
        assertThat(receipt.text()).isEqualTo("RECEIPT\nreceipt-id:1\n\n\0");
        receipt.release();
        reader.finishAndReleaseAll();
    }

    @Test
    void shouldCloseWithMessageTooBigOnAWebSocketFrameBeyondTheFrameLimitAndItsRoom() {
        channel = new EmbeddedChannel();
        FrameLimits limits = new FrameLimits(1024, 100, 512);
        WebSockets.installServer(channel.pipeline(), CompositeUri.parse("ws://127.0.0.1:0/"), limits);
        LocalFrames.install(channel, limits);
        assertThat(exchange("GET / HTTP/1.1\r\nHost: h\r\n" + UPGRADE + "\r\n")).startsWith("HTTP/1.1 101");

        EmbeddedChannel browser = new EmbeddedChannel(new WebSocket13FrameEncoder(true));
        browser.writeOutbound(new TextWebSocketFrame("x".repeat(1024 + WebSockets.FRAME_SLACK + 1)));
        List<ByteBuf> frame = new ArrayList<>();
        for (ByteBuf b; (b = browser.readOutbound()) != null; ) {
            frame.add(b);
        }
        browser.finishAndReleaseAll();
        assertThatThrownBy(() -> channel.writeInbound(Unpooled.wrappedBuffer(frame.toArray(ByteBuf[]::new))))
                .as("reaches the session, which closes").hasMessageContaining("Max frame length of 66560 has been exceeded");

        EmbeddedChannel reader = new EmbeddedChannel(new WebSocket13FrameDecoder(false, false, 65536));
        for (ByteBuf b; (b = channel.readOutbound()) != null; ) {
            reader.writeInbound(b);
        }
        io.netty.handler.codec.http.websocketx.CloseWebSocketFrame close = reader.readInbound();
        assertThat(close.statusCode()).isEqualTo(1009);
        close.release();
        reader.finishAndReleaseAll();
        assertThat(channel.isOpen()).isFalse();
    }

    @Test
    void shouldServeAClientThatAsksForNoSubprotocol() {
        start("ws://127.0.0.1:0/stomp");

        assertThat(exchange("GET /stomp HTTP/1.1\r\nHost: h\r\n" + UPGRADE + "\r\n"))
                .startsWith("HTTP/1.1 101 Switching Protocols");
    }

    @Test
    void shouldAnswer404ForAnotherPath() {
        start("ws://127.0.0.1:0/stomp");

        String response = exchange("GET /other HTTP/1.1\r\nHost: h\r\n" + UPGRADE + "\r\n");

        assertThat(response).startsWith("HTTP/1.1 404 Not Found")
                .contains("no WebSocket endpoint at /other; STOMP is served at /stomp");
        assertThat(channel.isOpen()).isFalse();
    }

    @Test
    void shouldAnswer426ForAPlainHttpRequest() {
        start("ws://127.0.0.1:0/");

        String response = exchange("GET / HTTP/1.1\r\nHost: h\r\n\r\n");

        assertThat(response).startsWith("HTTP/1.1 426 Upgrade Required")
                .contains("/ is a STOMP over WebSocket endpoint: send a WebSocket handshake");
        assertThat(channel.isOpen()).isFalse();
    }

    @Test
    void shouldAnswer405ForAnotherMethod() {
        start("ws://127.0.0.1:0/stomp");

        assertThat(exchange("POST /stomp HTTP/1.1\r\nHost: h\r\nContent-Length: 0\r\n\r\n"))
                .startsWith("HTTP/1.1 405 Method Not Allowed").containsIgnoringCase("allow: GET");
    }

    @Test
    void shouldAnswer400ForUnsupportedSubprotocols() {
        start("ws://127.0.0.1:0/stomp");

        String response = exchange("GET /stomp HTTP/1.1\r\nHost: h\r\n" + UPGRADE + "Sec-WebSocket-Protocol: mqtt\r\n\r\n");

        assertThat(response).startsWith("HTTP/1.1 400 Bad Request")
                .contains("unsupported WebSocket subprotocol 'mqtt'; supported: v12.stomp, v11.stomp, v10.stomp");
    }

    @Test
    void shouldAnswer426ForAnUnsupportedWebSocketVersion() {
        start("ws://127.0.0.1:0/stomp");

        String response = exchange("GET /stomp HTTP/1.1\r\nHost: h\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n"
                + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 99\r\n\r\n");

        assertThat(response).startsWith("HTTP/1.1 426 Upgrade Required").containsIgnoringCase("sec-websocket-version: 13");
    }

    @Test
    void shouldAnswer400ToRawStomp() {
        start("ws://127.0.0.1:0/stomp");

        String response = exchange("CONNECT\naccept-version:1.2\nhost:h\n\n\0");

        assertThat(response).startsWith("HTTP/1.1 400 Bad Request").contains("this is a STOMP over WebSocket listener");
        assertThat(channel.isOpen()).isFalse();
    }
}
