package io.fedbridge.core.internal;

import io.netty.channel.Channel;
import io.netty.channel.EventLoop;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.FastThreadLocal;
import io.netty.util.concurrent.SingleThreadEventExecutor;
import io.netty.util.internal.PlatformDependent;
import java.util.ArrayList;
import java.util.Queue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Writes frames to one channel from any thread, in order, with flushes batched: a burst of writes costs
 * one flush (one syscall) instead of one per frame, and the last frame of a burst is always flushed.
 *
 * <p>Writes from outside the event loop go to an inbox that one task drains: a burst of them costs one task and at
 * most one wake-up of the loop, not one each. When the writer is itself an event loop (a broker handing a message from
 * its producer's connection to its consumer's), the drain task is queued without waking the target loop, and that
 * wake-up is made once at the end of the writing loop's read burst, for every loop it wrote to (or at once when
 * {@value #WAKE_BYTES} bytes wait): so when frames arrive one per read, a burst of reads over several connections still
 * wakes the consumers' loop once. A write made on the event loop itself goes straight to the channel only while nothing
 * waits in the inbox; otherwise it queues behind, so writes that the callers ordered (a bridge's cumulative ACKs, made
 * under its lock from two threads) reach the channel in that order. A task the caller runs on the loop after a write
 * returned runs after that write. Bytes in the inbox count against {@link #isWritable()}, so producers see
 * back-pressure before they have even reached the channel.
 *
 * <p>{@code -Dfedbridge.flush=consolidation} replaces the flush batching here by Netty's
 * {@link io.netty.handler.flush.FlushConsolidationHandler} (every write flushed, the handler consolidating flushes
 * across a read burst); it is there to compare the two schemes.
 */
public final class FrameWriter {

    /** Bytes queued for the event loop beyond which {@link #isWritable()} is false. */
    static final long QUEUED_LIMIT = 512 * 1024;
    /** Bytes waiting in the inbox beyond which the target loop is woken at once rather than at the writer's burst end. */
    static final long WAKE_BYTES = 32 * 1024;
    /** Whether Netty's FlushConsolidationHandler does the flush batching (see the class comment). */
    public static final boolean NETTY_CONSOLIDATION = "consolidation".equals(System.getProperty("fedbridge.flush"));

    private static final Runnable WAKE_UP = () -> { };
    private static final FastThreadLocal<Waker> WAKERS = new FastThreadLocal<>() {
        @Override
        protected Waker initialValue() {
            return new Waker();
        }
    };

    private final Channel channel;
    private final EventLoop loop;
    private final Runnable onDrained;
    private final AtomicLong queued = new AtomicLong();
    private final Queue<Queued> inbox = PlatformDependent.newMpscQueue();
    private final AtomicBoolean drainScheduled = new AtomicBoolean();
    private final Runnable drainTask = new DrainTask();
    private final Runnable flushTask;
    private boolean flushPending; // confined to the event loop

    private record Queued(Object msg, int size) {
    }

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
            // Only when nothing is still queued: a write that happened before this one (as the caller's locks ordered
            // them) must not be overtaken.
            writeInLoop(msg);
            return;
        }
        inbox.add(new Queued(msg, size));
        long after = queued.addAndGet(size);
        if (drainScheduled.compareAndSet(false, true)) {
            schedule();
        } else if (after >= WAKE_BYTES && after - size < WAKE_BYTES) {
            loop.execute(WAKE_UP); // a long burst: let the loop start on it
        }
    }

    private void schedule() {
        if (loop.inEventLoop()) {
            lazyExecute(drainTask);
            return;
        }
        EventExecutor current = io.netty.util.internal.ThreadExecutorMap.currentExecutor();
        if (current instanceof EventLoop && loop instanceof SingleThreadEventExecutor lazy) {
            lazy.lazyExecute(drainTask); // in order with later tasks, but no wake-up yet
            WAKERS.get().add(current, loop);
        } else {
            loop.execute(drainTask);
        }
    }

    private void lazyExecute(Runnable task) {
        if (loop instanceof SingleThreadEventExecutor lazy) {
            lazy.lazyExecute(task);
        } else {
            loop.execute(task);
        }
    }

    /** Writes everything in the inbox; runs on the event loop. */
    private final class DrainTask implements Runnable {
        @Override
        public void run() {
            do {
                long drained = 0;
                Queued q;
                while ((q = inbox.poll()) != null) {
                    writeInLoop(q.msg);
                    drained += q.size;
                }
                long before = queued.getAndAdd(-drained);
                if (before >= QUEUED_LIMIT && before - drained < QUEUED_LIMIT && onDrained != null) {
                    onDrained.run();
                }
                drainScheduled.set(false);
            } while (!inbox.isEmpty() && drainScheduled.compareAndSet(false, true));
        }
    }

    private void writeInLoop(Object msg) {
        if (NETTY_CONSOLIDATION) {
            channel.writeAndFlush(msg, channel.voidPromise());
            return;
        }
        channel.write(msg, channel.voidPromise());
        if (!flushPending) {
            flushPending = true;
            lazyExecute(flushTask); // on this loop: after the rest of this burst's reads and tasks
        }
    }

    /** False while the channel's outbound buffer or the queue of writes waiting for the event loop is full. */
    public boolean isWritable() {
        return channel.isWritable() && queued.get() < QUEUED_LIMIT && !LocalFlowControl.isPaused(channel);
    }

    public Channel channel() {
        return channel;
    }

    /**
     * The loops one event-loop thread queued drain tasks on without waking them: woken once, by a task of that thread
     * that runs after the reads and tasks of its current burst. Confined to that thread.
     */
    private static final class Waker implements Runnable {
        private final ArrayList<EventExecutor> loops = new ArrayList<>(4);
        private boolean scheduled;

        void add(EventExecutor current, EventExecutor target) {
            if (!loops.contains(target)) {
                loops.add(target);
            }
            if (!scheduled) {
                try {
                    current.execute(this);
                    scheduled = true;
                } catch (java.util.concurrent.RejectedExecutionException shuttingDown) {
                    run(); // this thread's loop takes no more tasks: wake the targets now
                }
            }
        }

        @Override
        public void run() {
            scheduled = false;
            for (int i = 0; i < loops.size(); i++) {
                loops.get(i).execute(WAKE_UP);
            }
            loops.clear();
        }
    }
}
