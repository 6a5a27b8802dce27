package io.fedbridge.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import io.fedbridge.core.AckMode;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/** The relays the benchmarks compare against: the one-hop ceiling and the two-relay chain (the latency floor). */
class StompRelayTest {

    private static final int MESSAGES = 50_000;

    @Test
    void aChainOfTwoRelaysShouldPassEverySendInOrderThroughItsFlowControl() throws Exception {
        try (StompRelay r2 = StompRelay.start("tcp://127.0.0.1:0");
             StompRelay r1 = StompRelay.start("tcp://127.0.0.1:0", r2.connectUri())) {
            assertEveryMessageArrivesInOrder(r1.connectUri(), r2.connectUri(), r1, r2);
        }
    }

    @Test
    void oneRelayShouldDeliverEverySendToItsSubscriber() throws Exception {
        try (StompRelay r = StompRelay.start("tcp://127.0.0.1:0")) {
            assertEveryMessageArrivesInOrder(r.connectUri(), r.connectUri(), r);
        }
    }

    /**
     * 50,000 bodies of 1 KiB from a producer that does not wait, to a consumer that spends 20 us on each: far more than
     * the relays' buffers (1 MiB per subscriber and connection), so the producer is paused and resumed along the way.
     */
    private static void assertEveryMessageArrivesInOrder(String producerUri, String consumerUri, StompRelay... relays)
            throws Exception {
        AtomicInteger next = new AtomicInteger();
        AtomicReference<String> outOfOrder = new AtomicReference<>();
        try (LoadConnection consumer = LoadConnection.connect(LoadConnection.Mode.BATCHED, consumerUri);
             LoadConnection producer = LoadConnection.connect(LoadConnection.Mode.PER_FRAME, producerUri)) {
            AtomicInteger probes = new AtomicInteger();
            consumer.subscribe("/queue/q", AckMode.AUTO, 1000, (body, ack) -> {
                if (body.length == 4) {
                    probes.incrementAndGet();
                    return;
                }
                int n = ByteBuffer.wrap(body).getInt();
                long busyUntil = System.nanoTime() + 20_000; // a consumer slower than the producer: the relays congest
                while (System.nanoTime() < busyUntil) {
                    Thread.onSpinWait();
                }
                if (n != next.getAndIncrement()) {
                    outOfOrder.compareAndSet(null, "expected " + (next.get() - 1) + " but got " + n);
                }
            });
            // The relay drops SENDs for a destination nobody subscribed to: wait until the subscription is in place.
            Awaitility.await("the subscription through the relays").atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(50))
                    .until(() -> {
                        producer.send("/queue/q", new byte[4], false).get(5, TimeUnit.SECONDS);
                        return probes.get() > 0;
                    });
            // On its own thread: a producer paused for good would block in write(2), and the test must fail, not hang.
            CompletableFuture<Void> sending = CompletableFuture.runAsync(() -> {
                byte[] body = new byte[1024];
                for (int i = 0; i < MESSAGES; i++) {
                    ByteBuffer.wrap(body).putInt(i);
                    producer.sendWithoutReceipt("/queue/q", body.clone(), false);
                }
            });
            try {
                sending.get(60, TimeUnit.SECONDS);
            } catch (TimeoutException e) {
                for (StompRelay r : relays) {
                    r.close(); // closes the producer's socket, so that its blocked write, and then its close, can end
                }
                throw new AssertionError("the producer was paused for good after " + next.get() + " deliveries", e);
            }
            Awaitility.await(MESSAGES + " messages").atMost(Duration.ofSeconds(60))
                    .untilAsserted(() -> assertThat(next).hasValue(MESSAGES));
            assertThat(outOfOrder).hasValue(null);
        }
    }
}
