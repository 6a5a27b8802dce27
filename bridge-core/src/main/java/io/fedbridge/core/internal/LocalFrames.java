package io.fedbridge.core.internal;

import io.fedbridge.core.FrameLimits;
import io.fedbridge.core.StompFrame;
import io.fedbridge.core.StompHeaders;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.local.LocalChannel;

/**
 * The codec of a {@code vm://} connection: frames cross it as objects, never as bytes. Encoding a 1 KiB
 * MESSAGE and decoding it again on the other side of the same JVM was most of the CPU a broker spent on
 * the vm:// link to its own bridge.
 *
 * <p>What arrives is what the wire would have delivered: a copy whose headers and body belong to the receiver
 * (the sender may reuse its frame, the receiver may change its copy), {@code content-length} set the way the
 * encoder writes it, and the decoder's checks: the same {@link FrameLimits}, an empty header name refused, a
 * frame that breaks them turned into a {@link MalformedFrame} naming the problem. Heart-beat EOLs (written as
 * bytes by {@link HeartBeatHandler}, which sits in front and counts them as reads) are dropped here.
 *
 * <p>One exception to the copy: the client end of a federation link (a connection that announces
 * {@link io.fedbridge.core.FederationHeaders#FEDERATE}, a bridge's or HA link's) shares the body array of the MESSAGE
 * the broker wrote. Its sender is the broker, which never changes a stored message's body, and its receiver is
 * fedbridge's own bridge engine, which only passes the body on; the copy was a fifth of what a forwarding broker
 * allocated per message. Such a frame whose {@code content-length} already reads as the encoder would write it is not
 * copied at all (see {@code asEncoded}).
 */
public final class LocalFrames extends ChannelInboundHandlerAdapter {

    private final FrameLimits limits;
    private final boolean sharesBodies;
    private boolean bad;

    LocalFrames(FrameLimits limits) {
        this(limits, false);
    }

    LocalFrames(FrameLimits limits, boolean sharesBodies) {
        this.limits = limits;
        this.sharesBodies = sharesBodies;
    }

    /**
     * Adds the STOMP codec for {@code ch} to its pipeline as {@link PipelineNames#DECODER} (and
     * {@link PipelineNames#ENCODER} on sockets): objects on {@code vm://}, bytes otherwise.
     */
    public static void install(Channel ch, FrameLimits limits) {
        install(ch, limits, false);
    }

    /**
     * As {@link #install(Channel, FrameLimits)}; {@code federationLink}: the client end of a bridge's or HA link's
     * connection, whose frames share the broker's body arrays on {@code vm://} (see above).
     */
    public static void install(Channel ch, FrameLimits limits, boolean federationLink) {
        ChannelPipeline p = ch.pipeline();
        if (ch instanceof LocalChannel) {
            p.addLast(PipelineNames.DECODER, new LocalFrames(limits, federationLink));
        } else {
            // on a socket the frames written between two flushes share buffers; over WebSocket each frame is a
            // buffer of its own, since each buffer becomes one WebSocket message (WebSocketStompCodec)
            boolean webSocket = p.get(WebSocketStompCodec.class) != null;
            p.addLast(PipelineNames.DECODER, new StompFrameDecoder(limits))
                    .addLast(PipelineNames.ENCODER, webSocket ? StompFrameEncoder.INSTANCE : new CoalescingFrameEncoder());
        }
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof ByteBuf b) {
            b.release(); // a heart-beat
            return;
        }
        if (bad) {
            return; // as after a malformed frame on a socket: nothing more is read until the connection closes
        }
        if (!(msg instanceof StompFrame f)) {
            ctx.fireChannelRead(msg);
            return;
        }
        String problem = check(f);
        if (problem != null) {
            bad = true;
            ctx.fireChannelRead(new MalformedFrame(problem, f.headers().get(StompHeaders.RECEIPT)));
            return;
        }
        ctx.fireChannelRead(sharesBodies && asEncoded(f) ? f : received(f, sharesBodies));
    }

    /**
     * Whether {@code f} already reads as its copy would: one {@code content-length}, the body's length (or none and
     * no body). On a federation link's client end such a frame is passed on as it is, headers and all: its sender, the
     * broker, made it for this one write and keeps no reference to it, and the bridge engine that receives it reads
     * it and builds frames of its own; copying its dozen headers was the largest cost left on the broker's vm://
     * hop to its own bridge.
     */
    private static boolean asEncoded(StompFrame f) {
        StompHeaders h = f.headers();
        String length = null;
        for (int i = 0; i < h.size(); i++) {
            if (h.name(i).equals(StompHeaders.CONTENT_LENGTH)) {
                if (length != null) {
                    return false;
                }
                length = h.value(i);
            }
        }
        int n = f.body().length;
        return length == null ? n == 0 : length.equals(Decimals.of(n));
    }

    /** The decoder's limits, applied to a frame object; null when it passes. */
    String check(StompFrame f) {
        StompHeaders h = f.headers();
        if (h.size() > limits.maxHeaders()) {
            return f.command() + " frame has more than the limit of " + limits.maxHeaders() + " headers";
        }
        long size = f.command().name().length() + 3L + f.body().length;
        for (int i = 0; i < h.size(); i++) {
            String name = h.name(i);
            if (name.isEmpty()) {
                return f.command() + " frame has a header with an empty name";
            }
            int line = name.length() + 1 + h.value(i).length();
            if (line > limits.maxHeaderLength()) {
                return f.command() + " frame has a header line longer than the limit of " + limits.maxHeaderLength() + " bytes";
            }
            size += line + 1;
        }
        if (size > limits.maxFrameSize()) {
            return f.command() + " frame exceeds the size limit of " + limits.maxFrameSize() + " bytes";
        }
        return null;
    }

    /** The receiver's own copy, with {@code content-length} as the encoder would have written it. */
    static StompFrame received(StompFrame f) {
        return received(f, false);
    }

    /** As {@link #received(StompFrame)}; with {@code sharedBody} the body array is the sender's. */
    static StompFrame received(StompFrame f, boolean sharedBody) {
        StompHeaders in = f.headers();
        byte[] body = f.body();
        StompHeaders h = new StompHeaders(in.size() + 1);
        boolean length = false;
        for (int i = 0; i < in.size(); i++) {
            String name = in.name(i);
            if (name.equals(StompHeaders.CONTENT_LENGTH)) {
                if (!length) {
                    length = true;
                    h.add(name, Decimals.of(body.length));
                }
                continue;
            }
            h.add(name, in.value(i));
        }
        if (!length && body.length > 0) {
            h.add(StompHeaders.CONTENT_LENGTH, Decimals.of(body.length));
        }
        return new StompFrame(f.command(), h, body.length == 0 || sharedBody ? body : body.clone());
    }
}
