package io.fedbridge.broker.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fedbridge.broker.Broker;
import io.fedbridge.broker.BrokerConfig;
import io.fedbridge.broker.management.ManagementDestinations;
import io.fedbridge.core.Message;
import io.fedbridge.core.StompConnection;
import io.fedbridge.core.SubscriptionRequest;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * When the broker cannot keep up it stops reading the producer; it never buffers without bound, and says so: the
 * operator learns which queue holds the memory and when the producers resume.
 */
class FlowControlIT extends BrokerTestSupport {

    private static final int MESSAGES = 40_000;
    private static final long LIMIT = 1024 * 1024;
    private static final ObjectMapper JSON = new ObjectMapper();

    @OverBothTransports
    void shouldBlockAProducerAtTheMemoryLimitAndReleaseItWhenConsumersDrain(String transport) throws Exception {
        Broker b = startBroker(BrokerConfig.builder("flow-" + transport).memoryLimit(LIMIT));
        List<JsonNode> events = new CopyOnWriteArrayList<>();
        connect(b, transport).subscribeAndWait(SubscriptionRequest.of(ManagementDestinations.EVENTS), m -> {
            try {
                events.add(JSON.readTree(m.body()));
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }, Duration.ofSeconds(10));
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
        assertThat(b.memoryLimitReached()).isEqualTo(1);
        assertThat(b.memoryPausedConnections()).isEqualTo(1);
        JsonNode reached = await("the memory-limit-reached event").atMost(Duration.ofSeconds(10))
                .until(() -> event(events, "memory-limit-reached"), java.util.Objects::nonNull);
        assertThat(reached.path("data").path("limit").asLong()).isEqualTo(LIMIT);
        assertThat(reached.path("data").path("used").asLong()).isGreaterThanOrEqualTo(LIMIT);
        JsonNode largest = reached.path("data").path("largest").get(0);
        assertThat(largest.path("destination").asText()).as(reached.toString()).isEqualTo("/queue/flood");
        assertThat(largest.path("consumers").asInt()).isZero();
        assertThat(largest.path("messages").asInt()).isGreaterThan(500);
        assertThat(largest.path("bytes").asLong()).isGreaterThan(LIMIT / 2);
        assertThat(event(events, "memory-limit-released")).as("nothing released yet").isNull();

        AtomicInteger received = new AtomicInteger();
        connect(b, transport).subscribe(SubscriptionRequest.of("/queue/flood"), m -> received.incrementAndGet());
        producing.get(60, java.util.concurrent.TimeUnit.SECONDS);
        await("every message arrives once the consumer drains").atMost(Duration.ofSeconds(60))
                .until(() -> received.get() == MESSAGES);
        assertThat(b.queue("/queue/flood").pending()).isZero();
        JsonNode released = await("the memory-limit-released event").atMost(Duration.ofSeconds(10))
                .until(() -> event(events, "memory-limit-released"), java.util.Objects::nonNull);
        // A consumer draining a full broker pauses and resumes the producer many times: one episode, one event each way.
        assertThat(released.path("data").path("pauses").asLong()).isEqualTo(b.memoryLimitReached()).isGreaterThanOrEqualTo(1);
        assertThat(released.path("data").path("pausedMillis").asLong()).isGreaterThanOrEqualTo(700);
        assertThat(released.path("data").path("used").asLong()).isLessThan(LIMIT * 7 / 10);
        assertThat(events.stream().filter(e -> e.path("type").asText().startsWith("memory-limit-"))).hasSize(2);
        assertThat(b.memoryPausedConnections()).isZero();
    }

    private static JsonNode event(List<JsonNode> events, String type) {
        return events.stream().filter(e -> type.equals(e.path("type").asText())).findFirst().orElse(null);
    }
}
