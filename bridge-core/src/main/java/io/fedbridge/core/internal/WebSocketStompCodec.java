package io.fedbridge.core.internal;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.websocketx.BinaryWebSocketFrame;
import io.netty.handler.codec.http.websocketx.CloseWebSocketFrame;
import io.netty.handler.codec.http.websocketx.ContinuationWebSocketFrame;
import io.netty.handler.codec.http.websocketx.PingWebSocketFrame;
import io.netty.handler.codec.http.websocketx.PongWebSocketFrame;
import io.netty.handler.codec.http.websocketx.TextWebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocketClientProtocolHandler;
import io.netty.handler.codec.http.websocketx.WebSocketCloseStatus;
import io.netty.handler.codec.http.websocketx.WebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocketServerProtocolHandler;
import io.netty.util.CharsetUtil;

/**
 * Carries a STOMP byte stream in WebSocket frames, between the WebSocket codec (below) and the STOMP codec (above),
 * so that the STOMP decoder, heart-beats and session see exactly what they see on TCP.
 *
 * <ul>
 *   <li>In: the payload of every text, binary and continuation frame goes up as bytes, so a STOMP frame split over
 *       several WebSocket frames, several STOMP frames in one, and heart-beat EOLs decode as on a socket. Pings are
 *       answered with pongs; a close frame is answered with one, then the connection closes.</li>
 *   <li>Out: each buffer (one STOMP frame or a heart-beat) goes out as one text frame when it is valid UTF-8 (every
 *       frame with a text body), else as a binary frame: browsers' STOMP clients read both.</li>
 *   <li>Closing the channel first sends a close frame: 1000 (normal), or 1008 (policy violation, reason
 *       {@code STOMP ERROR}) after an ERROR frame went out.</li>
 * </ul>
 *
 * Until the WebSocket handshake completes (Netty's {@code HandshakeComplete} event on the server,
 * {@code HANDSHAKE_COMPLETE} on the client) nothing can be written: a STOMP frame written meanwhile (a CONNECT
 * timeout's ERROR) fails and is dropped. A client's codec also holds {@code channelActive} back until then, so that
 * the STOMP client sends its CONNECT on an open WebSocket. One instance per channel; runs on its event loop.
 */
public final class WebSocketStompCodec extends ChannelDuplexHandler {

    /** The close reason after an ERROR frame; a close frame's reason may hold at most 123 bytes. */
    static final String ERROR_REASON = "STOMP ERROR";
    private static final byte[] ERROR_COMMAND = "ERROR\n".getBytes(CharsetUtil.US_ASCII);

    private final boolean client;
    private boolean open;
    private boolean activePending;
    private boolean errorSent;
    private boolean closeSent;

    private WebSocketStompCodec(boolean client) {
        this.client = client;
    }

    /** The codec of a broker's end: the channel is active from the TCP accept on (the CONNECT timeout runs). */
    public static WebSocketStompCodec forServer() {
        return new WebSocketStompCodec(false);
    }

    /** The codec of a client's end: the channel becomes active for the handlers above once the handshake is done. */
    public static WebSocketStompCodec forClient() {
        return new WebSocketStompCodec(true);
    }

    /** Whether the WebSocket handshake has completed. */
    public boolean isOpen() {
        return open;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) throws Exception {
        if (client && !open) {
            activePending = true;
            return;
        }
        super.channelActive(ctx);
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
        if (evt instanceof WebSocketServerProtocolHandler.HandshakeComplete
                || evt == WebSocketClientProtocolHandler.ClientHandshakeStateEvent.HANDSHAKE_COMPLETE) {
            open = true;
            if (activePending) {
                activePending = false;
                ctx.fireChannelActive();
            }
        }
        super.userEventTriggered(ctx, evt);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
        if (!(msg instanceof WebSocketFrame frame)) {
            ctx.fireChannelRead(msg);
            return;
        }
        if (frame instanceof TextWebSocketFrame || frame instanceof BinaryWebSocketFrame
                || frame instanceof ContinuationWebSocketFrame) {
            ctx.fireChannelRead(frame.content()); // the frame's buffer now belongs to the STOMP decoder
        } else if (frame instanceof PingWebSocketFrame) {
            ctx.writeAndFlush(new PongWebSocketFrame(frame.content()));
        } else if (frame instanceof CloseWebSocketFrame close) {
            int status = close.statusCode();
            close.release();
            if (closeSent) {
                ctx.close();
            } else {
                closeSent = true;
                // Echo the peer's status (none: normal closure), then close: the closing handshake is complete.
                ctx.writeAndFlush(WebSocketCloseStatus.isValidStatusCode(status) ? new CloseWebSocketFrame(status, null)
                        : new CloseWebSocketFrame(WebSocketCloseStatus.NORMAL_CLOSURE)).addListener(f -> ctx.close());
            }
        } else {
            frame.release(); // a pong
        }
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) throws Exception {
        if (!(msg instanceof ByteBuf buf)) {
            ctx.write(msg, promise);
            return;
        }
        if (!open || closeSent) {
            buf.release();
            promise.tryFailure(new IllegalStateException(open ? "WebSocket closing" : "WebSocket handshake not complete"));
            return;
        }
        if (!errorSent && startsWith(buf, ERROR_COMMAND)) {
            errorSent = true;
        }
        WebSocketFrame frame = ByteBufUtil.isText(buf, CharsetUtil.UTF_8)
                ? new TextWebSocketFrame(buf) : new BinaryWebSocketFrame(buf);
        ctx.write(frame, promise);
    }

    @Override
    public void close(ChannelHandlerContext ctx, ChannelPromise promise) throws Exception {
        if (!open || closeSent || !ctx.channel().isActive()) {
            ctx.close(promise);
            return;
        }
        closeSent = true;
        CloseWebSocketFrame frame = errorSent
                ? new CloseWebSocketFrame(WebSocketCloseStatus.POLICY_VIOLATION, ERROR_REASON)
                : new CloseWebSocketFrame(WebSocketCloseStatus.NORMAL_CLOSURE);
        ctx.writeAndFlush(frame).addListener(f -> ctx.close(promise));
    }

    private static boolean startsWith(ByteBuf buf, byte[] prefix) {
        if (buf.readableBytes() < prefix.length) {
            return false;
        }
        int at = buf.readerIndex();
        for (int i = 0; i < prefix.length; i++) {
            if (buf.getByte(at + i) != prefix[i]) {
                return false;
            }
        }
        return true;
    }
}
