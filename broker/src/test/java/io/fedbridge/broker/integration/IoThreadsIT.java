package io.fedbridge.broker.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fedbridge.broker.Broker;
import io.fedbridge.broker.BrokerConfig;
import io.fedbridge.core.Message;
import io.fedbridge.core.StompConnection;
import io.fedbridge.core.Subscription;
import io.fedbridge.core.SubscriptionRequest;
import io.fedbridge.core.bridge.BridgeState;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@code ioThreads}: how many threads serve a broker's connections, its bridges' included. */
class IoThreadsIT extends BrokerTestSupport {

    private static final Duration WAIT = Duration.ofSeconds(10);

    private static long ioThreadsOf(String broker) {
        String prefix = "fedbridge-" + broker + "-io-";
        return Thread.getAllStackTraces().keySet().stream().filter(t -> t.isAlive() && t.getName().startsWith(prefix)).count();
    }

    /** Connections that each send a message to themselves and receive it: each has run on its loop. */
    private void serveThrough(Broker b, int connections) throws Exception {
        for (int i = 0; i < connections; i++) {
            StompConnection c = connect(b, "tcp");
            Subscription s = c.subscribeAndWait(SubscriptionRequest.of("/queue/io-" + i), null, WAIT);
            c.send(Message.of("/queue/io-" + i, "m" + i)).get();
            assertThat(s.receive(WAIT).bodyAsString()).isEqualTo("m" + i);
        }
    }

    @Test
    void shouldServeManyConnectionsOnAsManyThreadsAsConfigured() throws Exception {
        Broker b = startBroker(BrokerConfig.builder("io-three").ioThreads(3));

        serveThrough(b, 7);

        assertThat(ioThreadsOf("io-three")).isEqualTo(3);
    }

    @Test
    void shouldForwardOverABridgeWhenEverythingRunsOnOneThread() throws Exception {
        Broker a = startBroker(BrokerConfig.builder("io-one-a").ioThreads(1));
        Broker b = startBroker(BrokerConfig.builder("io-one-b").ioThreads(1));
        a.addNetworkConnector("static:(" + b.connectUris().get(0) + ")?duplex=true&initialReconnectDelay=50");
        await("the bridge is up").atMost(WAIT).until(() -> !a.bridges().isEmpty()
                && a.bridges().get(0).state() == BridgeState.UP);

        // consumers on both sides, producers on both sides: each message crosses the bridge once
        Subscription onB = connect(b, "tcp").subscribeAndWait(SubscriptionRequest.of("/queue/to-b"), null, WAIT);
        Subscription onA = connect(a, "tcp").subscribeAndWait(SubscriptionRequest.of("/queue/to-a"), null, WAIT);
        StompConnection producerA = connect(a, "tcp");
        StompConnection producerB = connect(b, "tcp");
        await("demand reached both sides").atMost(WAIT).until(() -> a.bridges().get(0).networkSubscriptions() >= 2);
        List<String> got = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            producerA.send(Message.of("/queue/to-b", "ab" + i)).get();
            producerB.send(Message.of("/queue/to-a", "ba" + i)).get();
        }
        for (int i = 0; i < 200; i++) {
            got.add(onB.receive(WAIT).bodyAsString());
            got.add(onA.receive(WAIT).bodyAsString());
        }

        assertThat(got).hasSize(400).doesNotHaveDuplicates();
        assertThat(ioThreadsOf("io-one-a")).isEqualTo(1);
        assertThat(ioThreadsOf("io-one-b")).isEqualTo(1);
    }
}
