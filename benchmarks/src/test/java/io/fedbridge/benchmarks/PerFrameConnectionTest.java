package io.fedbridge.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fedbridge.broker.Broker;
import io.fedbridge.broker.BrokerConfig;
import io.fedbridge.core.AckMode;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class PerFrameConnectionTest {

    private Broker broker;
    private String uri;

    @BeforeEach
    void start() {
        broker = Broker.start(BrokerConfig.builder("per-frame-test").listen("tcp://127.0.0.1:0").build());
        uri = broker.connectUris().get(0);
    }

    @AfterEach
    void stop() {
        broker.close();
    }

    @Test
    void shouldAckEachMessageSoThatMoreThanThePrefetchArrives() throws Exception {
        AtomicInteger received = new AtomicInteger();
        try (LoadConnection consumer = LoadConnection.connect(LoadConnection.Mode.PER_FRAME, uri);
             LoadConnection producer = LoadConnection.connect(LoadConnection.Mode.PER_FRAME, uri)) {
            consumer.subscribe("/queue/q", AckMode.CLIENT_INDIVIDUAL, 10, (body, ack) -> {
                assertThat(new String(body, StandardCharsets.UTF_8)).startsWith("m");
                received.incrementAndGet();
                ack.run();
            });
            for (int i = 0; i < 99; i++) {
                producer.sendWithoutReceipt("/queue/q", ("m" + i).getBytes(StandardCharsets.UTF_8), false);
            }
            producer.send("/queue/q", "m99".getBytes(StandardCharsets.UTF_8), true).get(10, TimeUnit.SECONDS);

            // With prefetch 10, the broker stops after 10 unacknowledged deliveries: 100 arrive only if each is acked.
            Awaitility.await("100 deliveries").atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(received).hasValue(100));
            assertThat(consumer.server()).startsWith("fedbridge");
        }
    }

    @Test
    void shouldRefuseAnythingButTcp() {
        assertThatThrownBy(() -> PerFrameConnection.connect("ssl://127.0.0.1:1"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("per-frame client mode needs a tcp:// URI");
    }
}
