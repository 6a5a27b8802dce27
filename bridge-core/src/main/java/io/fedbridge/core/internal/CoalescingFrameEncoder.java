package io.fedbridge.core.internal;

import io.fedbridge.core.StompFrame;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.EncoderException;

/**
 * Encodes the {@link StompFrame}s written to one socket between two flushes into shared buffers of
 * {@value #CHUNK} bytes, rather than a buffer of its own per frame as {@link StompFrameEncoder} does. A broker
 * delivering a burst, or a bridge forwarding one, then costs one buffer allocation and one entry in the channel's
 * outbound buffer per chunk instead of per frame, and the flush writes one contiguous region. A frame whose write
 * has a promise to complete, or that is larger than a chunk, gets its own buffer as before (after what is pending,
 * so the order of the bytes is the order of the writes); so does anything that is not a frame (a pre-encoded
 * {@link ByteBuf}).
 *
 * <p>At most one chunk is held back from the channel's outbound buffer (and so from its writability) until the
 * next flush. One per channel: not {@code @Sharable}. All calls come on the channel's event loop.
 */
public final class CoalescingFrameEncoder extends ChannelOutboundHandlerAdapter {

    /** Bytes per shared buffer; a frame that does not fit in what is left starts the next one. */
    static final int CHUNK = 16 * 1024;

    /** The frames written since the last flush that fitted in the current chunk; null when none. */
    private ByteBuf pending;

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        if (!(msg instanceof StompFrame frame)) {
            writePending(ctx);
            ctx.write(msg, promise);
            return;
        }
        int estimate = StompFrameEncoder.estimate(frame);
        if (!promise.isVoid() || estimate > CHUNK) {
            writePending(ctx);
            ByteBuf own = ctx.alloc().ioBuffer(estimate);
            try {
                StompFrameEncoder.encode(frame, own);
            } catch (RuntimeException e) {
                own.release();
                promise.setFailure(new EncoderException(e));
                return;
            }
            ctx.write(own, promise);
            return;
        }
        if (pending != null && pending.writableBytes() < estimate) {
            writePending(ctx);
        }
        if (pending == null) {
            pending = ctx.alloc().ioBuffer(CHUNK);
        }
        int start = pending.writerIndex();
        try {
            StompFrameEncoder.encode(frame, pending);
        } catch (RuntimeException e) {
            pending.writerIndex(start); // none of this frame's bytes go out; the frames before it still do
            promise.setFailure(new EncoderException(e));
        }
    }

    @Override
    public void flush(ChannelHandlerContext ctx) {
        writePending(ctx);
        ctx.flush();
    }

    @Override
    public void close(ChannelHandlerContext ctx, ChannelPromise promise) throws Exception {
        // as unflushed writes are failed when a channel closes: what was never flushed is not sent
        discardPending();
        super.close(ctx, promise);
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        discardPending();
    }

    private void writePending(ChannelHandlerContext ctx) {
        ByteBuf p = pending;
        if (p != null) {
            pending = null;
            if (p.isReadable()) {
                ctx.write(p, ctx.voidPromise());
            } else {
                p.release();
            }
        }
    }

    private void discardPending() {
        ByteBuf p = pending;
        if (p != null) {
            pending = null;
            p.release();
        }
    }
}
