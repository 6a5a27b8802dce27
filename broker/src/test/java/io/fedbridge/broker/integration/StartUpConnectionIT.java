package io.fedbridge.broker.integration;

import static org.assertj.core.api.Assertions.assertThat;

import io.fedbridge.broker.Broker;
import io.fedbridge.broker.BrokerConfig;
import io.fedbridge.core.Message;
import io.fedbridge.core.StompConnection;
import io.fedbridge.core.Subscription;
import io.fedbridge.core.SubscriptionRequest;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * A broker takes one connection through its own listener as it starts, so that its first client (a failover
 * client moving to a standby broker) does not pay for loading the serving code: that connection must leave nothing
 * a user can see.
 */
class StartUpConnectionIT extends BrokerTestSupport {

    @Test
    void shouldBeGoneWithoutATraceWhenStartReturns() throws Exception {
        Broker b = startBroker();

        assertThat(b.connectionCount()).as("connections right after start").isZero();
        assertThat(b.queues()).as("queues right after start").isEmpty();
        StompConnection client = connect(b, "tcp");
        assertThat(b.connectionCount()).isEqualTo(1);
        Subscription s = client.subscribe(SubscriptionRequest.of("/queue/first"));
        client.send(Message.of("/queue/first", "served")).get();
        assertThat(s.receive(Duration.ofSeconds(5)).bodyAsString()).isEqualTo("served");
    }

    @Test
    void shouldLeaveTheOnlyPlaceOfAOneConnectionListenerToTheFirstClient() throws Exception {
        Broker b = Broker.start(BrokerConfig.builder("one-place").listen("tcp://127.0.0.1:0?maximumConnections=1").build());
        resources.add(b);

        StompConnection client = connect(b, "tcp");
        client.send(Message.of("/queue/q", "in")).get();
        assertThat(b.connectionCount()).isEqualTo(1);
    }

    @Test
    void shouldTakeItsStartUpConnectionThroughAPlainListenerWhenTheFirstOneIsNotUsable() throws Exception {
        // the first listener has a limit, the second none: the broker still starts clean and serves both
        Broker b = Broker.start(BrokerConfig.builder("two-listeners").listen("tcp://127.0.0.1:0?maximumConnections=1")
                .listen("tcp://127.0.0.1:0").build());
        resources.add(b);

        assertThat(b.connectionCount()).isZero();
        connect(io.fedbridge.core.ClientConfig.builder(b.connectUris().get(0)).heartBeats(Duration.ZERO).build());
        connect(io.fedbridge.core.ClientConfig.builder(b.connectUris().get(1)).heartBeats(Duration.ZERO).build());
        assertThat(b.connectionCount()).isEqualTo(2);
    }
}
