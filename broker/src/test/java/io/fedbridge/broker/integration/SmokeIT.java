package io.fedbridge.broker.integration;

import static org.assertj.core.api.Assertions.assertThat;

import io.fedbridge.broker.Broker;
import io.fedbridge.core.Message;
import io.fedbridge.core.ReceivedMessage;
import io.fedbridge.core.StompConnection;
import io.fedbridge.core.Subscription;
import io.fedbridge.core.SubscriptionRequest;
import java.time.Duration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class SmokeIT extends BrokerTestSupport {

    @ParameterizedTest
    @ValueSource(strings = {"tcp", "vm"})
    void shouldDeliverAQueueMessageFromProducerToConsumer(String transport) throws Exception {
        Broker b = startBroker();
        StompConnection producer = connect(b, transport);
        StompConnection consumer = connect(b, transport);
        Subscription s = consumer.subscribe(SubscriptionRequest.of("/queue/a"));
        producer.send(Message.of("/queue/a", "hello")).get();
        ReceivedMessage m = s.receive(Duration.ofSeconds(5));
        assertThat(m).isNotNull();
        assertThat(m.bodyAsString()).isEqualTo("hello");
        assertThat(m.destination()).isEqualTo("/queue/a");
    }
}
