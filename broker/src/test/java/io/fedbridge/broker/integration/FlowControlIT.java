package io.fedbridge.broker.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fedbridge.broker.Broker;
import io.fedbridge.broker.BrokerConfig;
import io.fedbridge.core.Message;
import io.fedbridge.core.StompConnection;
import io.fedbridge.core.SubscriptionRequest;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

/** When the broker cannot keep up it stops reading the producer; it never buffers without bound. */
class FlowControlIT extends BrokerTestSupport {

    private static final int MESSAGES = 40_000;
    private static final long LIMIT = 1024 * 1024;

    @OverBothTransports
    void shouldBlockAProducerAtTheMemoryLimitAndReleaseItWhenConsumersDrain(String transport) throws Exception {
        Broker b = startBroker(BrokerConfig.builder("flow-" + transport).memoryLimit(LIMIT));
        StompConnection producer = connect(b, transport);
        AtomicInteger sent = new AtomicInteger();
        byte[] body = new byte[1024];
        CompletableFuture<Void> producing = CompletableFuture.runAsync(() -> {
            for (int i = 0; i < MESSAGES; i++) {
                producer.sendWithoutReceipt(Message.builder("/queue/flood").body(body).build());
                sent.incrementAndGet();
            }
        });
        await("broker reaches its memory limit").atMost(Duration.ofSeconds(20)).until(() -> b.memoryUsed() >= LIMIT);
        // With no consumer the producer must stall well short of the end, and memory stay bounded.
        await("producer is held back").during(Duration.ofMillis(700)).atMost(Duration.ofSeconds(10))
                .until(() -> !producing.isDone() && b.memoryUsed() < 2 * LIMIT);
        assertThat(sent.get()).isLessThan(MESSAGES);

        AtomicInteger received = new AtomicInteger();
        connect(b, transport).subscribe(SubscriptionRequest.of("/queue/flood"), m -> received.incrementAndGet());
        producing.get(60, java.util.concurrent.TimeUnit.SECONDS);
        await("every message arrives once the consumer drains").atMost(Duration.ofSeconds(60))
                .until(() -> received.get() == MESSAGES);
        assertThat(b.queue("/queue/flood").pending()).isZero();
    }
}
