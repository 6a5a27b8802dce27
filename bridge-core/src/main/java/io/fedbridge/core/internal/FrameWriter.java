package io.fedbridge.core.internal;

import io.netty.channel.Channel;
import io.netty.channel.EventLoop;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Writes frames to one channel from any thread, in order, with flushes batched: a burst of writes costs
 * one flush (one syscall) instead of one per frame, and the last frame of a burst is always flushed.
 *
 * <p>Writes from outside the event loop become event-loop tasks; the flush task is queued from inside the
 * loop, after the write it covers, so no write can slip in behind a flush that was queued earlier. A write made
 * on the event loop itself goes straight to the channel only while no other thread's write waits for the loop;
 * otherwise it queues behind those, so writes that the callers ordered (a bridge's cumulative ACKs, made under
 * its lock from two threads) reach the channel in that order. Bytes
 * queued this way count against {@link #isWritable()}, so producers see back-pressure before the tasks
 * have even reached the channel.
 */
public final class FrameWriter {

    /** Bytes queued for the event loop beyond which {@link #isWritable()} is false. */
    static final long QUEUED_LIMIT = 512 * 1024;

    private final Channel channel;
    private final EventLoop loop;
    private final Runnable onDrained;
    private final AtomicLong queued = new AtomicLong();
    private final Runnable flushTask;
    private boolean flushPending; // confined to the event loop

    /**
     * @param onDrained run on the event loop when queued bytes fall back under the limit after having
     *                  reached it (as {@code channelWritabilityChanged} is for the channel itself)
     */
    public FrameWriter(Channel channel, Runnable onDrained) {
        this.channel = channel;
        this.loop = channel.eventLoop();
        this.onDrained = onDrained;
        this.flushTask = () -> {
            flushPending = false;
            channel.flush();
        };
        if (onDrained != null) {
            LocalFlowControl.register(channel, onDrained);
        }
    }

    /** Queues {@code frame} for writing; its size is estimated only when it has to wait for the event loop. */
    public void write(io.fedbridge.core.StompFrame frame) {
        if (loop.inEventLoop() && queued.get() == 0) {
            writeInLoop(frame);
            return;
        }
        write(frame, StompFrameEncoder.estimate(frame));
    }

    /** Queues {@code msg} (a frame or a ByteBuf) for writing; {@code size} is its approximate encoded size. */
    public void write(Object msg, int size) {
        if (loop.inEventLoop() && queued.get() == 0) {
            // Only when no other thread's write is still queued: a write that happened before this one (as the
            // caller's locks ordered them) must not be overtaken.
            writeInLoop(msg);
            return;
        }
        queued.addAndGet(size);
        loop.execute(() -> {
            writeInLoop(msg);
            long before = queued.getAndAdd(-size);
            if (before >= QUEUED_LIMIT && before - size < QUEUED_LIMIT && onDrained != null) {
                onDrained.run();
            }
        });
    }

    private void writeInLoop(Object msg) {
        channel.write(msg, channel.voidPromise());
        if (!flushPending) {
            flushPending = true;
            loop.execute(flushTask);
        }
    }

    /** False while the channel's outbound buffer or the queue of writes waiting for the event loop is full. */
    public boolean isWritable() {
        return channel.isWritable() && queued.get() < QUEUED_LIMIT && !LocalFlowControl.isPaused(channel);
    }

    public Channel channel() {
        return channel;
    }
}
