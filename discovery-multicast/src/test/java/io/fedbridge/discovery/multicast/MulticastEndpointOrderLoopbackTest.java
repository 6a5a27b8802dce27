package io.fedbridge.discovery.multicast;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fedbridge.discovery.multicast.internal.MulticastEndpoint;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * Datagrams sealed with a sequence number leave in that order whichever threads send them: the agent sends
 * heartbeats from a timer and replies from the socket's I/O thread, and a receiver takes a lower sequence number
 * arriving after a higher one for a replay (seen once in CI as a rejected datagram between two honest agents).
 * On the loopback interface only.
 */
class MulticastEndpointOrderLoopbackTest {

    private static final int SENDERS = 3;
    private static final int EACH = 100;

    @Test
    void shouldSendDatagramsInTheOrderTheyAreSealedFromAnyThread() throws Exception {
        Loopback net = Loopback.random();
        NetworkInterface lo = NetworkInterface.getByInetAddress(InetAddress.getLoopbackAddress());
        InetSocketAddress group = new InetSocketAddress(net.address, net.port);
        EventLoopGroup receiverLoop = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        EventLoopGroup senderLoop = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        List<Long> received = new CopyOnWriteArrayList<>();
        try (net;
             MulticastEndpoint receiver = MulticastEndpoint.open(group, lo, 0, true, receiverLoop,
                     (ByteBuffer datagram, InetSocketAddress from) -> received.add(datagram.getLong()),
                     Duration.ofSeconds(5));
             MulticastEndpoint sender = MulticastEndpoint.open(group, lo, 0, false, senderLoop,
                     (datagram, from) -> { }, Duration.ofSeconds(5))) {
            AtomicLong sequence = new AtomicLong();
            Runnable burst = () -> {
                for (int i = 0; i < EACH; i++) {
                    sender.send(() -> ByteBuffer.allocate(Long.BYTES).putLong(sequence.incrementAndGet()).array());
                }
            };
            // Timer threads and the I/O thread itself, at once, as in the agent.
            List<CompletableFuture<Void>> bursts = new java.util.ArrayList<>(IntStream.range(0, SENDERS - 1)
                    .mapToObj(i -> CompletableFuture.runAsync(burst)).toList());
            CompletableFuture<Void> onLoop = new CompletableFuture<>();
            senderLoop.next().execute(() -> {
                burst.run();
                onLoop.complete(null);
            });
            bursts.add(onLoop);
            CompletableFuture.allOf(bursts.toArray(CompletableFuture[]::new)).get(10, TimeUnit.SECONDS);

            // UDP may drop a few under a burst; order is what is checked, over most of them.
            await("most datagrams arrive").atMost(Duration.ofSeconds(10))
                    .until(() -> received.size() >= SENDERS * EACH * 2 / 3);
            assertThat(received).as("sequence numbers as received").isSorted().doesNotHaveDuplicates();
        } finally {
            receiverLoop.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
            senderLoop.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }
}
