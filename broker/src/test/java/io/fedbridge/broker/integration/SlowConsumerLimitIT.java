package io.fedbridge.broker.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fedbridge.broker.Broker;
import io.fedbridge.broker.BrokerConfig;
import io.fedbridge.core.AckMode;
import io.fedbridge.core.Message;
import io.fedbridge.core.StompConnection;
import io.fedbridge.core.SubscriptionRequest;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * maxSlowDuration: a topic subscriber that stops reading its socket holds a copy of every message published to its
 * topic. Without the policy those copies fill memoryLimit and the broker pauses every producer it has, on every
 * destination, for good; with it the stuck subscriber is aborted and everyone else carries on.
 */
class SlowConsumerLimitIT extends BrokerTestSupport {

    private static final long MEMORY_LIMIT = 1024 * 1024;
    private static final int MESSAGES = 8000;
    private static final byte[] BODY = new byte[1024];

    @Test
    void shouldAbortAStuckTopicSubscriberSoThatProducersAndHealthySubscribersKeepGoing() throws Exception {
        Broker b = startBroker(BrokerConfig.builder("slow-abort").memoryLimit(MEMORY_LIMIT)
                .resourceLimits(l -> l.maxSlowDuration(Duration.ofSeconds(1))));
        AtomicInteger healthy = new AtomicInteger();
        connect(b, "tcp").subscribeAndWait(SubscriptionRequest.of("/topic/prices"), m -> healthy.incrementAndGet(),
                Duration.ofSeconds(5));
        StuckSubscriber stuck = stuckSubscriber(b, "/topic/prices", "auto", 1000);

        CompletableFuture<Void> producing = produce(connect(b, "tcp"), "/topic/prices", MESSAGES);

        producing.get(60, TimeUnit.SECONDS);
        await("the healthy subscriber gets every message").atMost(Duration.ofSeconds(30))
                .until(() -> healthy.get() == MESSAGES + 1); // and "last"
        assertThat(stuck.readsToTheEnd()).as("the broker closed the stuck connection").isTrue();
        await("its copies are released").atMost(Duration.ofSeconds(10)).until(() -> b.memoryUsed() < MEMORY_LIMIT / 2);
    }

    @Test
    void shouldStallEveryProducerOfTheBrokerWhenThePolicyIsOff() throws Exception {
        // What happens without the policy (and did before it existed): memoryLimit holds every producer back.
        Broker b = startBroker(BrokerConfig.builder("slow-off").memoryLimit(MEMORY_LIMIT)
                .resourceLimits(l -> l.maxSlowDuration(Duration.ZERO)));
        stuckSubscriber(b, "/topic/prices", "auto", 1000);

        CompletableFuture<Void> producing = produce(connect(b, "tcp"), "/topic/prices", MESSAGES);
        await("memory fills with the stuck subscriber's copies").atMost(Duration.ofSeconds(30))
                .until(() -> b.memoryUsed() >= MEMORY_LIMIT);
        CompletableFuture<Void> unrelated = produce(connect(b, "tcp"), "/queue/unrelated", 2000);
        await("the topic's producer and an unrelated one stay paused").during(Duration.ofSeconds(3))
                .atMost(Duration.ofSeconds(10)).until(() -> !producing.isDone() && !unrelated.isDone());
    }

    @Test
    void shouldAbortASubscriberThatReadsButNeverAcknowledgesWithAnErrorNamingThePolicy() throws Exception {
        Broker b = startBroker(BrokerConfig.builder("slow-ack")
                .resourceLimits(l -> l.maxSlowDuration(Duration.ofMillis(500))));
        RawStomp lazy = raw(b);
        lazy.handshake();
        lazy.write("SUBSCRIBE\nid:s1\ndestination:/topic/news\nack:client\nprefetch-size:5\nreceipt:sub\n\n\0");
        assertThat(lazy.read().command()).isEqualTo("RECEIPT");
        StompConnection producer = connect(b, "tcp");
        for (int i = 0; i < 10; i++) {
            producer.send(Message.of("/topic/news", "n" + i)).get(5, TimeUnit.SECONDS);
        }

        RawStomp.Frame f;
        int messages = 0;
        while ((f = lazy.read()).command().equals("MESSAGE")) {
            messages++;
        }
        assertThat(messages).as("a full prefetch window, never acknowledged").isEqualTo(5);
        assertThat(f.command()).isEqualTo("ERROR");
        assertThat(f.header("message")).contains("subscription s1 to /topic/news aborted")
                .contains("(maxSlowDuration=500ms)");
        assertThat(lazy.isClosedByPeer()).isTrue();
        producer.send(Message.of("/topic/news", "after")).get(5, TimeUnit.SECONDS);
    }

    private static CompletableFuture<Void> produce(StompConnection producer, String destination, int count) {
        return CompletableFuture.runAsync(() -> {
            for (int i = 0; i < count; i++) {
                producer.sendWithoutReceipt(Message.builder(destination).body(BODY).build());
            }
            producer.send(Message.of(destination, "last")).join();
        });
    }

    /** A subscriber that subscribes, then never reads its socket again (a small receive buffer fills fast). */
    private StuckSubscriber stuckSubscriber(Broker b, String destination, String ack, int prefetch) throws IOException {
        String hostPort = b.connectUris().get(0).substring("tcp://".length());
        int colon = hostPort.lastIndexOf(':');
        Socket s = new Socket();
        s.setReceiveBufferSize(4096);
        s.setSoTimeout(10_000);
        s.connect(new InetSocketAddress(hostPort.substring(0, colon), Integer.parseInt(hostPort.substring(colon + 1))));
        StuckSubscriber stuck = new StuckSubscriber(s);
        resources.add(0, stuck);
        OutputStream out = s.getOutputStream();
        out.write(("CONNECT\naccept-version:1.2\nhost:localhost\nheart-beat:0,0\n\n\0"
                + "SUBSCRIBE\nid:stuck\ndestination:" + destination + "\nack:" + ack + "\nprefetch-size:" + prefetch
                + "\nreceipt:subscribed\n\n\0").getBytes(StandardCharsets.UTF_8));
        out.flush();
        String seen = stuck.readUntil("receipt-id:subscribed");
        assertThat(seen).startsWith("CONNECTED");
        return stuck;
    }

    private record StuckSubscriber(Socket socket) implements AutoCloseable {

        String readUntil(String marker) throws IOException {
            StringBuilder sb = new StringBuilder();
            InputStream in = socket.getInputStream();
            while (!sb.toString().contains(marker)) {
                int c = in.read();
                if (c < 0) {
                    throw new IOException("closed before '" + marker + "': " + sb);
                }
                sb.append((char) c);
            }
            return sb.toString();
        }

        /** Reads whatever the broker buffered; true if it closed the connection (end of stream or reset). */
        boolean readsToTheEnd() {
            byte[] buf = new byte[65536];
            try {
                InputStream in = socket.getInputStream();
                while (in.read(buf) >= 0) {
                    // drain
                }
                return true;
            } catch (java.net.SocketTimeoutException e) {
                return false;
            } catch (IOException e) {
                return true;
            }
        }

        @Override
        public void close() throws IOException {
            socket.close();
        }
    }
}
