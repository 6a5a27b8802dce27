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

    @AfterEach
    void stop() {
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
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
