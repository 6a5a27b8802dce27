package io.fedbridge.broker.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fedbridge.broker.Broker;
import io.fedbridge.broker.BrokerConfig;
import io.fedbridge.core.Message;
import io.fedbridge.core.StompConnection;
import io.fedbridge.core.SubscriptionRequest;
import io.fedbridge.core.bridge.BridgeState;
import io.fedbridge.core.bridge.BridgeStats;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** Brokers linked by network connectors with static discovery: chains, rings and meshes. */
class NetworkTopologyIT extends BrokerTestSupport {

    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final String FAST = "initialReconnectDelay=50&maxReconnectDelay=500&heartBeat=1000";

    private Broker broker(String name) {
        return startBroker(BrokerConfig.builder(name));
    }

    private static String tcp(Broker b) {
        return b.connectUris().get(0);
    }

    private static void awaitBridgesUp(Broker b, int n) {
        await(b.name() + " has " + n + " bridges up").atMost(WAIT)
                .until(() -> b.bridges().stream().filter(s -> s.state() == BridgeState.UP).count() == n);
    }

    private static int networkSubs(Broker... brokers) {
        int n = 0;
        for (Broker b : brokers) {
            for (BridgeStats s : b.bridges()) {
                n += s.networkSubscriptions();
            }
        }
        return n;
    }

    @Test
    void shouldDeliverAcrossAChainOfThreeWithTtlTwo() throws Exception {
        Broker c = broker("chain-C");
        Broker b = broker("chain-B");
        Broker a = broker("chain-A");
        b.addNetworkConnector("static:(" + tcp(c) + ")?networkTTL=2&" + FAST);
        a.addNetworkConnector("static:(" + tcp(b) + ")?networkTTL=2&" + FAST);
        awaitBridgesUp(a, 1);
        awaitBridgesUp(b, 1);
        Map<String, AtomicInteger> seen = new ConcurrentHashMap<>();
        connect(c, "tcp").subscribeAndWait(SubscriptionRequest.of("/queue/far"),
                m -> seen.computeIfAbsent(m.bodyAsString(), k -> new AtomicInteger()).incrementAndGet(), WAIT);
        await("demand crosses two bridges").atMost(WAIT).until(() -> networkSubs(a) == 1 && networkSubs(b) == 1);
        StompConnection p = connect(a, "tcp");
        for (int i = 0; i < 500; i++) {
            p.send(Message.builder("/queue/far").body("m" + i).persistent(true).build()).get();
        }
        await().atMost(WAIT).until(() -> seen.size() == 500);
        assertThat(seen.values()).allMatch(n -> n.get() == 1);
        assertThat(a.queue("/queue/far").pending()).isZero();
    }

    @Test
    void shouldNotForwardBeyondNetworkTtl() throws Exception {
        Broker c = broker("ttl-C");
        Broker b = broker("ttl-B");
        Broker a = broker("ttl-A");
        b.addNetworkConnector("static:(" + tcp(c) + ")?" + FAST);
        a.addNetworkConnector("static:(" + tcp(b) + ")?" + FAST);
        awaitBridgesUp(a, 1);
        awaitBridgesUp(b, 1);
        connect(c, "tcp").subscribeAndWait(SubscriptionRequest.of("/queue/near"), null, WAIT);
        await().atMost(WAIT).until(() -> networkSubs(b) == 1);
        await("with networkTTL=1 the demand stops after one bridge").during(Duration.ofMillis(500)).atMost(WAIT)
                .until(() -> networkSubs(a) == 0);
    }

    @Test
    void shouldDeliverTopicMessagesExactlyOnceAroundARing() throws Exception {
        Broker a = broker("ring-A");
        Broker b = broker("ring-B");
        Broker c = broker("ring-C");
        a.addNetworkConnector("static:(" + tcp(b) + ")?networkTTL=2&" + FAST);
        b.addNetworkConnector("static:(" + tcp(c) + ")?networkTTL=2&" + FAST);
        c.addNetworkConnector("static:(" + tcp(a) + ")?networkTTL=2&" + FAST);
        for (Broker x : List.of(a, b, c)) {
            awaitBridgesUp(x, 1);
        }
        List<AtomicInteger> counts = new ArrayList<>();
        for (Broker x : List.of(a, b, c)) {
            AtomicInteger n = new AtomicInteger();
            counts.add(n);
            connect(x, "tcp").subscribeAndWait(SubscriptionRequest.of("/topic/ring"), m -> n.incrementAndGet(), WAIT);
        }
        await("every broker forwards demand around the ring").atMost(WAIT).until(() -> networkSubs(a, b, c) >= 3);
        StompConnection p = connect(a, "tcp");
        for (int i = 0; i < 50; i++) {
            p.send(Message.of("/topic/ring", "t" + i)).get();
        }
        await().atMost(WAIT).until(() -> counts.stream().allMatch(n -> n.get() == 50));
        await("no loops: counts stay put").during(Duration.ofSeconds(1)).atMost(WAIT)
                .until(() -> counts.stream().allMatch(n -> n.get() == 50));
    }

    @Test
    void shouldSpreadQueueLoadAndDeliverExactlyOnceInAFullMeshOfFour() throws Exception {
        List<Broker> brokers = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            brokers.add(broker("mesh-" + i));
        }
        for (Broker x : brokers) {
            StringBuilder peers = new StringBuilder();
            for (Broker y : brokers) {
                if (y != x) {
                    peers.append(peers.length() == 0 ? "" : ",").append(tcp(y));
                }
            }
            x.addNetworkConnector("static:(" + peers + ")?networkTTL=3&" + FAST);
        }
        for (Broker x : brokers) {
            awaitBridgesUp(x, 3);
        }
        Map<String, AtomicInteger> seen = new ConcurrentHashMap<>();
        List<AtomicInteger> perBroker = new ArrayList<>();
        for (int i = 1; i < 4; i++) {
            AtomicInteger n = new AtomicInteger();
            perBroker.add(n);
            connect(brokers.get(i), "tcp").subscribeAndWait(SubscriptionRequest.of("/queue/mesh"), m -> {
                n.incrementAndGet();
                seen.computeIfAbsent(m.bodyAsString(), k -> new AtomicInteger()).incrementAndGet();
            }, WAIT);
        }
        Broker origin = brokers.get(0);
        try {
            await("each remote consumer has one network subscription on the origin, on its shortest route")
                    .atMost(WAIT).until(() -> networkSubs(origin) == 3);
        } catch (org.awaitility.core.ConditionTimeoutException e) {
            StringBuilder state = new StringBuilder(e.getMessage()).append("; bridges:");
            for (Broker x : brokers) {
                state.append("\n  ").append(x.bridges());
            }
            throw new AssertionError(state.toString(), e); // which route is missing or extra, for the next time
        }
        StompConnection p = connect(origin, "tcp");
        for (int i = 0; i < 900; i++) {
            p.sendWithoutReceipt(Message.of("/queue/mesh", "m" + i));
        }
        await().atMost(WAIT).until(() -> seen.size() == 900);
        await().during(Duration.ofMillis(500)).atMost(WAIT).until(() -> seen.values().stream().allMatch(n -> n.get() == 1));
        assertThat(perBroker).allMatch(n -> n.get() > 100);
    }

    @Test
    void shouldSkipAConnectionToItself() {
        Broker a = broker("self");
        a.addNetworkConnector("static:(" + tcp(a) + ")?" + FAST);
        await().atMost(WAIT).until(() -> a.bridges().isEmpty());
        await("never retried").during(Duration.ofMillis(500)).atMost(WAIT).until(() -> a.bridges().isEmpty());
    }

    @Test
    void shouldRetryAPeerThatIsDownAtStart() throws Exception {
        Broker probe = Broker.start(BrokerConfig.builder("late").listen("tcp://127.0.0.1:0").build());
        String lateUri = tcp(probe);
        probe.close();
        Broker a = broker("early");
        a.addNetworkConnector("static:(" + lateUri + ")?" + FAST);
        await("the bridge keeps failing while the peer is down").during(Duration.ofMillis(300)).atMost(WAIT)
                .until(() -> a.bridges().stream().noneMatch(s -> s.state() == BridgeState.UP));
        await("the broken link is shown DOWN with its error, not missing").atMost(WAIT).until(() ->
                a.bridges().stream().anyMatch(s -> s.state() == BridgeState.DOWN && s.lastError() != null));
        Broker late = startBroker(BrokerConfig.builder("late").listeners(List.of(lateUri)));
        awaitBridgesUp(a, 1);
        assertThat(late.isRunning()).isTrue();
    }

    @Test
    void shouldRejectUnknownSchemesAndOptionsListingTheValidOnes() {
        Broker a = broker("bad-uri");
        assertThatThrownBy(() -> a.addNetworkConnector("gossip:(tcp://127.0.0.1:1)"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("unknown discovery scheme 'gossip'")
                .hasMessageContaining("static");
        assertThatThrownBy(() -> a.addNetworkConnector("static:(tcp://127.0.0.1:1)?networkTTl=2"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("networkTTl")
                .hasMessageContaining("networkTTL");
        assertThatThrownBy(() -> a.addNetworkConnector("static:(tcp://127.0.0.1:1)?prefetchSize=0"))
                .hasMessageContaining("prefetchSize must be > 0, but was 0");
    }
}
