package io.fedbridge.core.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.fedbridge.core.StompCommand;
import io.fedbridge.core.StompFrame;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.channel.DefaultEventLoopGroup;
import io.netty.channel.EventLoopGroup;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class FrameWriterTest {

    private final EventLoopGroup group = new DefaultEventLoopGroup(1);
    /** Loops as a broker's (epoll where it loads): a task queued lazily there really waits for a wake-up. */
    private final EventLoopGroup ioLoops = Transports.newEventLoopGroup(1, new io.netty.util.concurrent.DefaultThreadFactory("test-io", true));
    private final EventLoopGroup writers = Transports.newEventLoopGroup(1, new io.netty.util.concurrent.DefaultThreadFactory("test-writer", true));

    @AfterEach
    void stop() {
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        writers.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        ioLoops.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    /** A channel on {@link #group} that records the ids of the frames written and how many flushes reached it. */
    private Channel recordingChannel(List<String> written, java.util.concurrent.atomic.AtomicInteger flushes) {
        Channel ch = new io.netty.channel.local.LocalChannel();
        ch.pipeline().addLast(new ChannelOutboundHandlerAdapter() {
            @Override
            public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
                written.add(((StompFrame) msg).header("id"));
                promise.trySuccess();
            }

            @Override
            public void flush(ChannelHandlerContext ctx) {
                flushes.incrementAndGet();
            }
        });
        ioLoops.register(ch).syncUninterruptibly();
        return ch;
    }

    @Test
    void shouldWakeAnIdleLoopForABurstWrittenFromAnotherEventLoopAndFlushItOnce() throws Exception {
        List<String> written = new CopyOnWriteArrayList<>();
        java.util.concurrent.atomic.AtomicInteger flushes = new java.util.concurrent.atomic.AtomicInteger();
        Channel ch = recordingChannel(written, flushes);
        FrameWriter w = new FrameWriter(ch, null);
        ch.eventLoop().submit(() -> null).get(5, TimeUnit.SECONDS); // the channel's loop is idle now

        // queued without waking the channel's loop, which the writing loop wakes once its task is done
        writers.next().submit(() -> {
            for (int i = 1; i <= 100; i++) {
                w.write(ack(Integer.toString(i)));
            }
        }).get(5, TimeUnit.SECONDS);

        org.awaitility.Awaitility.await("the burst reaches the channel").atMost(java.time.Duration.ofSeconds(5))
                .until(() -> written.size() == 100);
        assertThat(written).containsExactlyElementsOf(java.util.stream.IntStream.rangeClosed(1, 100)
                .mapToObj(Integer::toString).toList());
        ch.eventLoop().submit(() -> null).get(5, TimeUnit.SECONDS); // the flush task runs after the drain
        assertThat(flushes.get()).isEqualTo(1);
        ch.close().syncUninterruptibly();
    }

    @Test
    void shouldRunATaskQueuedOnTheLoopAfterAWriteFromAnotherEventLoopAfterThatWrite() throws Exception {
        List<String> written = new CopyOnWriteArrayList<>();
        Channel ch = recordingChannel(written, new java.util.concurrent.atomic.AtomicInteger());
        FrameWriter w = new FrameWriter(ch, null);
        List<Integer> seenByTask = new CopyOnWriteArrayList<>();
        writers.next().submit(() -> {
            w.write(ack("1"));
            ch.eventLoop().execute(() -> seenByTask.add(written.size())); // as closeAsync queues its close
        }).get(5, TimeUnit.SECONDS);

        org.awaitility.Awaitility.await("the task ran").atMost(java.time.Duration.ofSeconds(5)).until(() -> !seenByTask.isEmpty());
        assertThat(seenByTask).containsExactly(1);
        ch.close().syncUninterruptibly();
    }

    private static StompFrame ack(String id) {
        return StompFrame.of(StompCommand.ACK, "id", id);
    }

    @Test
    void shouldNotLetAWriteOnTheEventLoopOvertakeOneQueuedEarlierByAnotherThread() throws Exception {
        List<String> written = new CopyOnWriteArrayList<>();
        Channel ch = new io.netty.channel.local.LocalChannel();
        ch.pipeline().addLast(new ChannelOutboundHandlerAdapter() {
            @Override
            public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
                written.add(((StompFrame) msg).header("id"));
                promise.trySuccess();
            }

            @Override
            public void flush(ChannelHandlerContext ctx) {
            }
        });
        group.register(ch).syncUninterruptibly();
        FrameWriter w = new FrameWriter(ch, null);
        CountDownLatch loopBusy = new CountDownLatch(1);
        CountDownLatch queued = new CountDownLatch(1);
        CountDownLatch secondWritten = new CountDownLatch(1);
        ch.eventLoop().execute(() -> {
            loopBusy.countDown();
            try {
                queued.await(5, TimeUnit.SECONDS); // another thread queues "1" meanwhile
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            w.write(ack("2")); // ordered after "1" by the latch, made on the event loop
            secondWritten.countDown();
        });
        loopBusy.await(5, TimeUnit.SECONDS);
        w.write(ack("1"));
        queued.countDown();
        // only once "2" was handed to the writer: a task submitted earlier could run before one it queues
        assertThat(secondWritten.await(5, TimeUnit.SECONDS)).isTrue();
        ch.eventLoop().submit(() -> null).get(5, TimeUnit.SECONDS); // after every write task queued so far

        assertThat(written).containsExactly("1", "2");
        ch.close().syncUninterruptibly();
    }
}
