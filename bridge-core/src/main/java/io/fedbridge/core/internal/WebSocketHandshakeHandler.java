package io.fedbridge.core.internal;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.netty.handler.codec.http.websocketx.WebSocketDecoderConfig;
import io.netty.handler.codec.http.websocketx.WebSocketServerHandshaker;
import io.netty.handler.codec.http.websocketx.WebSocketServerHandshakerFactory;
import io.netty.handler.codec.http.websocketx.WebSocketServerProtocolHandler;
import io.netty.util.CharsetUtil;
import java.util.Arrays;

/**
 * The broker's end of a WebSocket handshake on a {@code ws://} or {@code wss://} listener: takes the one HTTP request
 * a connection may make and either upgrades it to a STOMP WebSocket, or answers a plain-text HTTP error naming the
 * problem and closes:
 *
 * <ul>
 *   <li>400: not an HTTP request (e.g. raw STOMP sent to a WebSocket port), or only unsupported subprotocols asked
 *       for (a client that asks for none is served STOMP anyway);</li>
 *   <li>404: a path other than the listener's; 405: a method other than GET;</li>
 *   <li>426: a GET without {@code Upgrade: websocket}, or a WebSocket version other than 13 (8, 7).</li>
 * </ul>
 *
 * On success it removes itself, and the handshaker replaces the HTTP codec with the WebSocket one; then
 * {@link WebSocketServerProtocolHandler.HandshakeComplete} goes up the pipeline (it opens the
 * {@link WebSocketStompCodec}). Before that, the broker's CONNECT timeout bounds the whole handshake.
 */
final class WebSocketHandshakeHandler extends SimpleChannelInboundHandler<FullHttpRequest> {

    private final String path;
    private final boolean tls;
    private final WebSocketDecoderConfig decoderConfig;

    WebSocketHandshakeHandler(String path, boolean tls, WebSocketDecoderConfig decoderConfig) {
        this.path = path;
        this.tls = tls;
        this.decoderConfig = decoderConfig;
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest req) {
        if (!req.decoderResult().isSuccess()) {
            Throwable cause = req.decoderResult().cause();
            refuse(ctx, HttpResponseStatus.BAD_REQUEST, "not a valid HTTP request (" + (cause == null ? "?" : cause.getMessage())
                    + "): this is a STOMP over WebSocket listener; connect with a WebSocket client to " + path);
            return;
        }
        String requested = new QueryStringDecoder(req.uri()).path();
        if (!requested.equals(path)) {
            refuse(ctx, HttpResponseStatus.NOT_FOUND, "no WebSocket endpoint at " + requested + "; STOMP is served at " + path);
            return;
        }
        if (!HttpMethod.GET.equals(req.method())) {
            FullHttpResponse r = response(HttpResponseStatus.METHOD_NOT_ALLOWED, req.method() + " is not allowed: "
                    + path + " takes only a WebSocket handshake (GET with Upgrade: websocket)");
            r.headers().set(HttpHeaderNames.ALLOW, "GET");
            send(ctx, r);
            return;
        }
        if (!req.headers().containsValue(HttpHeaderNames.UPGRADE, HttpHeaderValues.WEBSOCKET, true)
                || !req.headers().containsValue(HttpHeaderNames.CONNECTION, HttpHeaderValues.UPGRADE, true)) {
            FullHttpResponse r = response(HttpResponseStatus.UPGRADE_REQUIRED, path
                    + " is a STOMP over WebSocket endpoint: send a WebSocket handshake (Connection: Upgrade, Upgrade: websocket)"
                    + " with subprotocol " + String.join(", ", WebSockets.SUBPROTOCOLS));
            r.headers().set(HttpHeaderNames.UPGRADE, HttpHeaderValues.WEBSOCKET);
            r.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.UPGRADE);
            send(ctx, r);
            return;
        }
        String asked = req.headers().get(HttpHeaderNames.SEC_WEBSOCKET_PROTOCOL);
        if (asked != null && Arrays.stream(asked.split(",")).map(String::trim).noneMatch(WebSockets.SUBPROTOCOLS::contains)) {
            refuse(ctx, HttpResponseStatus.BAD_REQUEST, "unsupported WebSocket subprotocol '" + asked + "'; supported: "
                    + String.join(", ", WebSockets.SUBPROTOCOLS));
            return;
        }
        String host = req.headers().get(HttpHeaderNames.HOST, "localhost");
        WebSocketServerHandshaker handshaker = new WebSocketServerHandshakerFactory((tls ? "wss://" : "ws://") + host + path,
                String.join(",", WebSockets.SUBPROTOCOLS), decoderConfig).newHandshaker(req);
        if (handshaker == null) {
            WebSocketServerHandshakerFactory.sendUnsupportedVersionResponse(ctx.channel())
                    .addListener(ChannelFutureListener.CLOSE);
            return;
        }
        ctx.pipeline().remove(this);
        String uri = req.uri();
        io.netty.handler.codec.http.HttpHeaders headers = req.headers().copy();
        handshaker.handshake(ctx.channel(), req).addListener(f -> {
            if (f.isSuccess()) {
                ctx.fireUserEventTriggered(new WebSocketServerProtocolHandler.HandshakeComplete(uri, headers,
                        handshaker.selectedSubprotocol()));
            } else {
                ctx.fireExceptionCaught(f.cause());
            }
        });
    }

    private void refuse(ChannelHandlerContext ctx, HttpResponseStatus status, String message) {
        send(ctx, response(status, message));
    }

    private static FullHttpResponse response(HttpResponseStatus status, String message) {
        FullHttpResponse r = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status,
                Unpooled.copiedBuffer(message + "\n", CharsetUtil.UTF_8));
        r.headers().set(HttpHeaderNames.CONTENT_TYPE, "text/plain; charset=utf-8")
                .setInt(HttpHeaderNames.CONTENT_LENGTH, r.content().readableBytes())
                .set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
        return r;
    }

    private static void send(ChannelHandlerContext ctx, FullHttpResponse r) {
        ctx.writeAndFlush(r).addListener(ChannelFutureListener.CLOSE);
    }
}
