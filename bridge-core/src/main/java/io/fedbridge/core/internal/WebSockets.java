package io.fedbridge.core.internal;

import io.fedbridge.core.FrameLimits;
import io.fedbridge.core.uri.CompositeUri;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.websocketx.WebSocketClientProtocolConfig;
import io.netty.handler.codec.http.websocketx.WebSocketClientProtocolHandler;
import io.netty.handler.codec.http.websocketx.WebSocketDecoderConfig;
import java.net.URI;
import java.time.Duration;
import java.util.List;

/**
 * STOMP over WebSocket ({@code ws://host:port/path}, {@code wss://}): the handlers that go between the socket (and
 * TLS) and the STOMP codec. The STOMP codec, limits, heart-beats and session above them are those of a TCP
 * connection; see {@link WebSocketStompCodec} for how the byte stream maps to WebSocket frames.
 */
public final class WebSockets {

    /** The subprotocols of STOMP over WebSocket, as STOMP clients ask for them (stompjs: all three). */
    public static final List<String> SUBPROTOCOLS = List.of("v12.stomp", "v11.stomp", "v10.stomp");
    /** Room over the STOMP frame size limit in one WebSocket frame (a client may join small frames in one). */
    static final int FRAME_SLACK = 64 * 1024;
    private static final int MAX_HANDSHAKE_REQUEST = 8 * 1024;

    private WebSockets() {
    }

    /** The path a {@code ws://} URI serves: its path, or {@code /} if it has none. */
    public static String path(CompositeUri uri) {
        String p = uri.path();
        return p == null || p.isEmpty() ? "/" : p;
    }

    /**
     * The longest WebSocket frame accepted: the STOMP frame size limit plus some room. A longer frame closes the
     * WebSocket with 1009 (message too big); a STOMP frame over the limit inside a frame that fits gets the same ERROR
     * as on TCP. A STOMP frame may span several WebSocket frames: each counts on its own.
     */
    static int maxFramePayload(FrameLimits limits) {
        return (int) Math.min(Integer.MAX_VALUE, (long) limits.maxFrameSize() + FRAME_SLACK);
    }

    /** Adds a broker's WebSocket handlers to a freshly accepted channel (after TLS, before the STOMP codec). */
    public static void installServer(ChannelPipeline p, CompositeUri listener, FrameLimits limits) {
        WebSocketDecoderConfig config = WebSocketDecoderConfig.newBuilder()
                .maxFramePayloadLength(maxFramePayload(limits))
                .allowExtensions(false)
                .build();
        p.addLast(PipelineNames.HTTP, new HttpServerCodec())
                .addLast(PipelineNames.HTTP_AGGREGATOR, new HttpObjectAggregator(MAX_HANDSHAKE_REQUEST))
                .addLast(PipelineNames.WS_HANDSHAKE, new WebSocketHandshakeHandler(path(listener),
                        Transports.isTls(listener), config))
                .addLast(PipelineNames.WS_CODEC, WebSocketStompCodec.forServer());
    }

    /**
     * Adds a client's WebSocket handlers to a new connection (after TLS, before the STOMP codec): the handshake asks
     * for {@code v12.stomp} on the URI's path, and the handlers above see the channel active once it succeeded.
     */
    public static void installClient(ChannelPipeline p, CompositeUri server, FrameLimits limits, Duration handshakeTimeout) {
        URI uri = URI.create(server.scheme() + "://" + Transports.uriHost(server.host()) + ":" + server.port() + path(server));
        WebSocketClientProtocolConfig config = WebSocketClientProtocolConfig.newBuilder()
                .webSocketUri(uri)
                .subprotocol(SUBPROTOCOLS.get(0))
                .maxFramePayloadLength(maxFramePayload(limits))
                .handshakeTimeoutMillis(Math.max(1, handshakeTimeout.toMillis()))
                .handleCloseFrames(false)
                .dropPongFrames(true)
                .build();
        p.addLast(PipelineNames.HTTP, new HttpClientCodec())
                .addLast(PipelineNames.HTTP_AGGREGATOR, new HttpObjectAggregator(MAX_HANDSHAKE_REQUEST))
                .addLast(PipelineNames.WS_HANDSHAKE, new WebSocketClientProtocolHandler(config))
                .addLast(PipelineNames.WS_CODEC, WebSocketStompCodec.forClient());
    }
}
