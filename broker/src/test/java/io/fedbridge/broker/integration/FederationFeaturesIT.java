package io.fedbridge.broker.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fedbridge.broker.Broker;
import io.fedbridge.broker.BrokerConfig;
import io.fedbridge.broker.DestinationPolicy;
import io.fedbridge.core.FederationHeaders;
import io.fedbridge.core.Message;
import io.fedbridge.core.ReceivedMessage;
import io.fedbridge.core.StompConnection;
import io.fedbridge.core.Subscription;
import io.fedbridge.core.SubscriptionRequest;
import io.fedbridge.core.bridge.BridgeState;
import io.fedbridge.core.bridge.BridgeStats;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** Advisories, temporary destinations across brokers, and the federation flags of destination policies. */
class FederationFeaturesIT extends BrokerTestSupport {

    private static final Duration WAIT = Duration.ofSeconds(15);
    private static final String FAST = "initialReconnectDelay=50&maxReconnectDelay=500";

    private static String tcp(Broker b) {
        return b.connectUris().get(0);
    }

    private static void awaitUp(Broker b, int n) {
        await().atMost(WAIT).until(() -> b.bridges().stream().filter(s -> s.state() == BridgeState.UP).count() == n);
    }

    private static int networkSubs(Broker b) {
        return b.bridges().stream().mapToInt(BridgeStats::networkSubscriptions).sum();
    }

    @Test
    void shouldReplayExistingConsumersToANewAdvisorySubscriberThenStreamChanges() throws Exception {
        Broker b = startBroker();
        connect(b, "tcp").subscribeAndWait(SubscriptionRequest.builder("/queue/a").selector("x = 1").build(), null, WAIT);
        StompConnection second = connect(b, "tcp");
        Subscription s2 = second.subscribeAndWait(SubscriptionRequest.of("/topic/b.>"), null, WAIT);
        try (RawStomp watcher = raw(b)) {
            watcher.handshake();
            watcher.write("SUBSCRIBE\nid:adv\ndestination:" + FederationHeaders.CONSUMER_ADVISORY_TOPIC + "\n\n\0");
            RawStomp.Frame e1 = watcher.read();
            RawStomp.Frame e2 = watcher.read();
            assertThat(e1.header(FederationHeaders.ADVISORY)).isEqualTo("consumer-added");
            assertThat(e1.header(FederationHeaders.ADVISORY_DESTINATION)).isEqualTo("/queue/a");
            assertThat(e1.header(FederationHeaders.ADVISORY_SELECTOR)).isEqualTo("x = 1");
            assertThat(e1.header(FederationHeaders.CONSUMER_PATH)).isEqualTo(b.id());
            assertThat(e1.header(FederationHeaders.NETWORK_CONSUMER)).isEqualTo("false");
            assertThat(e2.header(FederationHeaders.ADVISORY_DESTINATION)).isEqualTo("/topic/b.>");
            s2.unsubscribe();
            RawStomp.Frame removed = watcher.read();
            assertThat(removed.header(FederationHeaders.ADVISORY)).isEqualTo("consumer-removed");
            assertThat(removed.header(FederationHeaders.ORIGIN_CONSUMER)).isEqualTo(e2.header(FederationHeaders.ORIGIN_CONSUMER));
            connect(b, "tcp").subscribeAndWait(SubscriptionRequest.of("/queue/c"), null, WAIT);
            assertThat(watcher.read().header(FederationHeaders.ADVISORY_DESTINATION)).isEqualTo("/queue/c");
        }
    }

    @Test
    void shouldCarryRequestReplyThroughTemporaryQueuesAcrossAChainAndDeleteThemEverywhere() throws Exception {
        Broker c = startBroker(BrokerConfig.builder("rr-C"));
        Broker b = startBroker(BrokerConfig.builder("rr-B"));
        Broker a = startBroker(BrokerConfig.builder("rr-A"));
        a.addNetworkConnector("static:(" + tcp(b) + ")?networkTTL=2&duplex=true&" + FAST);
        b.addNetworkConnector("static:(" + tcp(c) + ")?networkTTL=2&duplex=true&" + FAST);
        awaitUp(a, 1);
        awaitUp(b, 1);
        // Responder on C: echoes every request to its reply-to.
        StompConnection responder = connect(c, "tcp");
        responder.subscribeAndWait(SubscriptionRequest.of("/queue/svc"), m ->
                responder.sendWithoutReceipt(Message.builder(m.header("reply-to")).body("re:" + m.bodyAsString())
                        .header("correlation-id", m.header("correlation-id")).build()), WAIT);
        await("service demand reaches A").atMost(WAIT).until(() -> networkSubs(a) >= 1);
        StompConnection requester = connect(a, "tcp");
        Subscription replies = requester.subscribeAndWait(SubscriptionRequest.of("/temp-queue/replies"), null, WAIT);
        // B's duplex bridges hold the network subscriptions on both sides: svc (A->B, B->C) and replies (C->B, B->A).
        await("reply demand reaches C").atMost(WAIT).until(() -> networkSubs(b) >= 2 && networkSubs(a) >= 2);
        requester.send(Message.builder("/queue/svc").body("ping").header("reply-to", "/temp-queue/replies")
                .header("correlation-id", "42").build()).get();
        ReceivedMessage reply = replies.receive(WAIT);
        assertThat(reply.bodyAsString()).isEqualTo("re:ping");
        assertThat(reply.header("correlation-id")).isEqualTo("42");
        String tempName = reply.destination();
        assertThat(tempName).startsWith("/temp-queue/@").endsWith("@replies");
        requester.close();
        await("the temporary queue vanishes on every broker").atMost(WAIT).until(() ->
                a.queue(tempName) == null && b.queue(tempName) == null && c.queue(tempName) == null);
    }

    @Test
    void shouldNeverForwardLocalOnlyDestinationsAndPreferLocalConsumersWhenAsked() throws Exception {
        DestinationPolicy localOnly = DestinationPolicy.builder("/queue/local.>").isLocalOnly(true).build();
        DestinationPolicy preferLocal = DestinationPolicy.builder("/queue/pref").localDeliveryPreferred(true).build();
        Broker b = startBroker(BrokerConfig.builder("lo-B").policy(localOnly).policy(preferLocal));
        Broker a = startBroker(BrokerConfig.builder("lo-A").policy(localOnly).policy(preferLocal));
        a.addNetworkConnector("static:(" + tcp(b) + ")?" + FAST);
        awaitUp(a, 1);
        connect(b, "tcp").subscribeAndWait(SubscriptionRequest.of("/queue/local.x"), null, WAIT);
        AtomicInteger remote = new AtomicInteger();
        connect(b, "tcp").subscribeAndWait(SubscriptionRequest.of("/queue/pref"), m -> remote.incrementAndGet(), WAIT);
        await("only /queue/pref creates demand").atMost(WAIT).until(() -> networkSubs(a) == 1);
        await().during(Duration.ofMillis(300)).atMost(WAIT).until(() -> networkSubs(a) == 1);

        AtomicInteger local = new AtomicInteger();
        connect(a, "tcp").subscribeAndWait(SubscriptionRequest.of("/queue/pref"), m -> local.incrementAndGet(), WAIT);
        StompConnection p = connect(a, "tcp");
        for (int i = 0; i < 200; i++) {
            p.send(Message.of("/queue/pref", "m" + i)).get();
        }
        await().atMost(WAIT).until(() -> local.get() == 200);
        assertThat(remote.get()).as("with a local consumer nothing goes to the peer").isZero();
    }

    @Test
    void shouldDropResendsWithAKnownFederationId() throws Exception {
        Broker b = startBroker();
        Subscription s = connect(b, "tcp").subscribeAndWait(SubscriptionRequest.of("/queue/once"), null, WAIT);
        StompConnection p = connect(b, "tcp");
        for (int i = 0; i < 3; i++) {
            p.send(Message.builder("/queue/once").body("same").header(FederationHeaders.FEDERATION_ID, "origin:1").build()).get();
        }
        p.send(Message.builder("/queue/once").body("other").header(FederationHeaders.FEDERATION_ID, "origin:2").build()).get();
        Set<String> got = new HashSet<>();
        got.add(s.receive(WAIT).bodyAsString());
        got.add(s.receive(WAIT).bodyAsString());
        assertThat(got).containsExactlyInAnyOrder("same", "other");
        assertThat(s.receive(Duration.ofMillis(300))).isNull();
        assertThat(b.duplicatesDropped()).isEqualTo(2);
    }

    @Test
    void shouldTellClientsTheClusterInConnectedAndOnTheClusterTopic() throws Exception {
        Broker b = startBroker(BrokerConfig.builder("cl-B"));
        Broker c = startBroker(BrokerConfig.builder("cl-C"));
        Broker a = startBroker(BrokerConfig.builder("cl-A"));
        assertThat(connect(a, "tcp").connectedHeaders().get(FederationHeaders.CLUSTER_URIS)).isEqualTo(tcp(a));
        Subscription updates = connect(a, "tcp").subscribeAndWait(SubscriptionRequest.of(FederationHeaders.CLUSTER_TOPIC), null, WAIT);
        assertThat(updates.receive(WAIT).header(FederationHeaders.CLUSTER_URIS)).as("the current list first").isEqualTo(tcp(a));
        a.addNetworkConnector("static:(" + tcp(b) + "," + tcp(c) + ")?" + FAST);
        String expected = tcp(a) + "," + tcp(b) + "," + tcp(c);
        await("the list grows as bridges come up").atMost(WAIT).untilAsserted(() -> {
            ReceivedMessage m = updates.receive(Duration.ofMillis(200));
            assertThat(m).isNotNull();
            assertThat(java.util.Set.of(m.header(FederationHeaders.CLUSTER_URIS).split(",")))
                    .containsExactlyInAnyOrder(expected.split(","));
        });
        assertThat(connect(a, "tcp").connectedHeaders().get(FederationHeaders.CLUSTER_URIS)).startsWith(tcp(a) + ",");
        a.rebalanceClients();
        ReceivedMessage rebalance = updates.receive(WAIT);
        assertThat(rebalance.header(FederationHeaders.CLUSTER_REBALANCE)).isEqualTo("true");
    }
}
