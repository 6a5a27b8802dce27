package io.fedbridge.broker.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fedbridge.broker.Broker;
import io.fedbridge.broker.BrokerConfig;
import io.fedbridge.core.Message;
import io.fedbridge.core.StompConnection;
import io.fedbridge.core.Subscription;
import io.fedbridge.core.SubscriptionRequest;
import io.fedbridge.core.bridge.BridgeConfig;
import io.fedbridge.core.bridge.BridgeState;
import io.fedbridge.core.bridge.FederationBridge;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** Demand forwarding over a bridge between two in-JVM brokers. */
class BridgeForwardingIT extends BrokerTestSupport {

    private static final Duration WAIT = Duration.ofSeconds(10);

    private FederationBridge bridge(Broker from, Broker to, BridgeConfig.Builder b) {
        FederationBridge fb = FederationBridge.start(b.build());
        resources.add(0, fb);
        fb.awaitUp(WAIT);
        return fb;
    }

    private static BridgeConfig.Builder config(Broker from, Broker to) {
        return BridgeConfig.builder(from.vmUri(), to.connectUris().get(0)).heartBeat(Duration.ZERO);
    }

    @Test
    void shouldForwardQueueMessagesToARemoteConsumerExactlyOnce() throws Exception {
        Broker a = startBroker(BrokerConfig.builder("A"));
        Broker b = startBroker(BrokerConfig.builder("B"));
        FederationBridge fb = bridge(a, b, config(a, b));
        Set<String> got = ConcurrentHashMap.newKeySet();
        AtomicInteger deliveries = new AtomicInteger();
        connect(b, "tcp").subscribe(SubscriptionRequest.of("/queue/orders"), m -> {
            got.add(m.bodyAsString());
            deliveries.incrementAndGet();
        });
        await("demand reaches A").atMost(WAIT).until(() -> fb.stats().networkSubscriptions() == 1);
        StompConnection p = connect(a, "tcp");
        for (int i = 0; i < 1000; i++) {
            p.sendWithoutReceipt(Message.builder("/queue/orders").body("m" + i).persistent(i % 2 == 0).build());
        }
        await().atMost(WAIT).until(() -> got.size() == 1000);
        assertThat(deliveries.get()).isEqualTo(1000);
        await().atMost(WAIT).until(() -> fb.stats().pending() == 0);
        assertThat(fb.stats().forwarded()).isEqualTo(1000);
        assertThat(a.queue("/queue/orders").pending()).isZero();
        assertThat(fb.state()).isEqualTo(BridgeState.UP);
    }

    @Test
    void shouldPreferLocalConsumersAndRemoveDemandWhenTheRemoteConsumerLeaves() throws Exception {
        Broker a = startBroker(BrokerConfig.builder("A2"));
        Broker b = startBroker(BrokerConfig.builder("B2"));
        FederationBridge fb = bridge(a, b, config(a, b));
        StompConnection remoteConsumer = connect(b, "tcp");
        Subscription rs = remoteConsumer.subscribeAndWait(SubscriptionRequest.of("/queue/pref"), null, WAIT);
        await().atMost(WAIT).until(() -> fb.stats().networkSubscriptions() == 1);
        rs.unsubscribe();
        await("demand removed").atMost(WAIT).until(() -> fb.stats().networkSubscriptions() == 0);
        StompConnection p = connect(a, "tcp");
        p.send(Message.of("/queue/pref", "stays")).get();
        // The UNSUBSCRIBE may still be on its way: a message dispatched to it meanwhile is never forwarded and
        // returns to A's queue when the broker ends the subscription.
        await("the message stays on A").atMost(WAIT).until(() -> a.queue("/queue/pref").pending() == 1);
        assertThat(fb.stats().forwarded()).isZero();
    }

    @Test
    void shouldForwardTopicMessagesOnceForManyIdenticalRemoteSubscribers() throws Exception {
        Broker a = startBroker(BrokerConfig.builder("A3"));
        Broker b = startBroker(BrokerConfig.builder("B3"));
        FederationBridge fb = bridge(a, b, config(a, b));
        AtomicInteger deliveries = new AtomicInteger();
        for (int i = 0; i < 10; i++) {
            connect(b, "tcp").subscribeAndWait(SubscriptionRequest.of("/topic/prices"), m -> deliveries.incrementAndGet(), WAIT);
        }
        await().atMost(WAIT).until(() -> fb.stats().remoteConsumers() == 10 && fb.stats().networkSubscriptions() == 1);
        StompConnection p = connect(a, "tcp");
        for (int i = 0; i < 100; i++) {
            p.send(Message.of("/topic/prices", "p" + i)).get();
        }
        await().atMost(WAIT).until(() -> deliveries.get() == 1000);
        await().atMost(WAIT).until(() -> fb.stats().acked() == 100);
        assertThat(fb.stats().forwarded()).as("one copy per message crosses the link").isEqualTo(100);
    }

    @Test
    void shouldForwardBothWaysOverADuplexBridgeWithoutLoops() throws Exception {
        Broker a = startBroker(BrokerConfig.builder("A4"));
        Broker b = startBroker(BrokerConfig.builder("B4"));
        FederationBridge fb = bridge(a, b, config(a, b).duplex(true));
        AtomicInteger onA = new AtomicInteger();
        AtomicInteger onB = new AtomicInteger();
        connect(a, "tcp").subscribeAndWait(SubscriptionRequest.of("/topic/chat"), m -> onA.incrementAndGet(), WAIT);
        connect(b, "tcp").subscribeAndWait(SubscriptionRequest.of("/topic/chat"), m -> onB.incrementAndGet(), WAIT);
        await().atMost(WAIT).until(() -> fb.stats().networkSubscriptions() == 2);
        connect(a, "tcp").send(Message.of("/topic/chat", "from A")).get();
        connect(b, "tcp").send(Message.of("/topic/chat", "from B")).get();
        await().atMost(WAIT).until(() -> onA.get() == 2 && onB.get() == 2);
        await().during(Duration.ofMillis(500)).atMost(WAIT).until(() -> onA.get() == 2 && onB.get() == 2);
        assertThat(fb.stats().forwarded()).isEqualTo(2);
    }

    @Test
    void shouldRunAsAStandaloneBridgeBetweenTwoRemoteBrokers() throws Exception {
        // An embedder's bridge in a JVM that hosts neither broker: both ends over TCP.
        Broker a = startBroker(BrokerConfig.builder("A5"));
        Broker b = startBroker(BrokerConfig.builder("B5"));
        FederationBridge fb = bridge(a, b, BridgeConfig.builder(a.connectUris().get(0), b.connectUris().get(0))
                .heartBeat(Duration.ofSeconds(1)));
        assertThat(fb.localBrokerId()).isEqualTo(a.id());
        assertThat(fb.remoteBrokerId()).isEqualTo(b.id());
        Subscription s = connect(b, "tcp").subscribeAndWait(SubscriptionRequest.of("/queue/standalone"), null, WAIT);
        await().atMost(WAIT).until(() -> fb.stats().networkSubscriptions() == 1);
        connect(a, "tcp").send(Message.builder("/queue/standalone").body("via tcp").persistent(true).build()).get();
        assertThat(s.receive(WAIT).bodyAsString()).isEqualTo("via tcp");
    }
}
