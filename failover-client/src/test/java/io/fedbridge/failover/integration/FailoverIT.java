package io.fedbridge.failover.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fedbridge.broker.Broker;
import io.fedbridge.core.AckMode;
import io.fedbridge.core.FederationHeaders;
import io.fedbridge.core.Message;
import io.fedbridge.core.StompConnection;
import io.fedbridge.core.SubscriptionRequest;
import io.fedbridge.failover.FailoverClient;
import io.fedbridge.failover.FailoverEvent;
import io.fedbridge.failover.FailoverMessage;
import io.fedbridge.failover.FailoverSubscription;
import io.fedbridge.failover.SendReceipt;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/** What the client restores at a failover: subscriptions (durable ones by name), unconfirmed sends, deliveries. */
class FailoverIT extends FailoverTestSupport {

    private static final Duration NOTHING_MORE = Duration.ofMillis(200);

    @Test
    void shouldResendUnreceiptedSendsWithTheSameFederationIdsToTheNextBroker() throws Exception {
        FakeStompServer silent = fake();
        silent.receiptSends = false;
        Broker b = startBroker();
        Events events = new Events();
        FailoverClient client = connect(ordered(silent.uri(), uri(b)).build(), events);
        List<CompletableFuture<SendReceipt>> receipts = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            receipts.add(client.sendAsync(persistent("/queue/resend", "m" + i)));
        }
        await("5 sends reach the silent broker").atMost(WAIT).until(() -> silent.frames("SEND").size() == 5);
        List<String> firstIds = silent.frames("SEND").stream().map(f -> f.header(FederationHeaders.FEDERATION_ID)).toList();
        assertThat(receipts).noneMatch(CompletableFuture::isDone);

        silent.close();

        assertThat(CompletableFuture.allOf(receipts.toArray(CompletableFuture[]::new))).succeedsWithin(WAIT);
        assertThat(receipts.stream().map(CompletableFuture::join).map(SendReceipt::federationId)).containsExactlyElementsOf(firstIds);
        assertThat(receipts).allMatch(r -> r.join().resent() && r.join().brokerUri().equals(uri(b)));
        assertThat(b.queue("/queue/resend").pending()).isEqualTo(5);
        FailoverEvent.Connected connected = events.await(FailoverEvent.Connected.class, FailoverEvent.Connected::reconnect);
        assertThat(connected.uri()).isEqualTo(uri(b));
        assertThat(connected.resentSends()).isEqualTo(5);
        assertThat(client.stats().sendsResent()).isEqualTo(5);
        assertThat(client.stats().connectionsLost()).isEqualTo(1);
    }

    @Test
    void shouldRestoreSubscriptionsOnTheNextBroker() throws Exception {
        Broker a = startBroker();
        Broker b = startBroker();
        FailoverClient client = connect(ordered(uri(a), uri(b)).build());
        FailoverSubscription pull = client.subscribe(SubscriptionRequest.of("/queue/restore"));
        List<String> topic = new CopyOnWriteArrayList<>();
        client.subscribe(SubscriptionRequest.of("/topic/restore"), m -> topic.add(m.bodyAsString()));
        assertThat(client.connectedUri()).isEqualTo(uri(a));

        a.close();
        await("client moved to B").atMost(WAIT).until(() -> uri(b).equals(client.connectedUri()));

        StompConnection producer = plain(b);
        producer.send(Message.of("/queue/restore", "q")).join();
        producer.send(Message.of("/topic/restore", "t")).join();
        assertThat(pull.receive(WAIT).bodyAsString()).isEqualTo("q");
        await("topic message on the restored subscription").atMost(WAIT).until(() -> topic.equals(List.of("t")));
    }

    @Test
    void shouldHandARedeliveredMessageOnceAndAcknowledgeItOverTheNewConnection() throws Exception {
        Broker a = startBroker();
        StompConnection producer = plain(a);
        producer.send(persistent("/queue/redeliver", "m1")).join();
        producer.send(persistent("/queue/redeliver", "m2")).join();
        FailoverClient consumer = connect(ordered(uri(a)).build());
        FailoverSubscription s = consumer.subscribe(SubscriptionRequest.builder("/queue/redeliver")
                .ackMode(AckMode.CLIENT_INDIVIDUAL).build());
        FailoverMessage m1 = s.receive(WAIT);
        assertThat(m1.bodyAsString()).isEqualTo("m1");

        a.close(); // m1 handed out, m2 perhaps prefetched: neither acknowledged
        Broker again = restart(a);
        await("reconnected").atMost(WAIT).until(consumer::isConnected);

        FailoverMessage next = s.receive(WAIT);
        assertThat(next.bodyAsString()).as("m1 is not handed out twice").isEqualTo("m2");
        assertThat(s.receive(NOTHING_MORE)).isNull();
        assertThat(consumer.stats().redeliveriesDropped()).isEqualTo(1);

        m1.ack(); // over the new connection, with the broker's redelivery of m1
        next.ack();
        await("both acknowledged on the restarted broker").atMost(WAIT)
                .until(() -> again.queue("/queue/redeliver").pending() == 0 && again.queue("/queue/redeliver").inflight() == 0);
    }

    @Test
    void shouldAcknowledgeARedeliveryOfAMessageWhoseAckTheBrokerNeverGot() throws Exception {
        FakeStompServer f = fake();
        f.connectedHeaders = Map.of(FederationHeaders.VOUCHED_IDS, "true");
        f.dropOn = frame -> frame.command().equals("ACK");
        FailoverClient client = connect(ordered(f.uri()).build());
        List<String> handed = new CopyOnWriteArrayList<>();
        client.subscribe(SubscriptionRequest.builder("/queue/lost-ack").ackMode(AckMode.CLIENT_INDIVIDUAL).build(), m -> {
            handed.add(m.bodyAsString());
            m.ack();
        });
        FakeStompServer.Frame sub = f.next("SUBSCRIBE", WAIT);
        sub.session().message(sub.header("id"), "/queue/lost-ack", Map.of(FederationHeaders.FEDERATION_ID, "p:1"), "once");
        assertThat(f.next("ACK", WAIT)).as("the application's ACK, never processed").isNotNull();
        await("the connection dropped on the ACK").atMost(WAIT).until(() -> !sub.session().isOpen());
        f.dropOn = frame -> false;

        FakeStompServer.Frame resub = f.next("SUBSCRIBE", WAIT);
        assertThat(resub.session()).isNotSameAs(sub.session());
        resub.session().message(resub.header("id"), "/queue/lost-ack", Map.of(FederationHeaders.FEDERATION_ID, "p:1"), "once");

        FakeStompServer.Frame ack = f.next("ACK", WAIT);
        assertThat(ack).as("the client acknowledges the redelivery itself").isNotNull();
        assertThat(ack.session()).isSameAs(resub.session());
        assertThat(ack.header("id")).startsWith("fake-");
        assertThat(handed).containsExactly("once");
        assertThat(client.stats().redeliveriesDropped()).isEqualTo(1);
    }

    /**
     * The copy KillNineFailoverIT met now and then: a resend's first copy, stored by a broker that died before its
     * receipt, delivered when that broker is back, after more messages than the audit of old remembered (auditDepth).
     */
    @Test
    void shouldDropALateCopyAfterAFailoverHoweverManyMessagesCameBetweenAtDefaults() throws Exception {
        FakeStompServer f = fake();
        f.connectedHeaders = Map.of(FederationHeaders.VOUCHED_IDS, "true");
        FailoverClient client = connect(ordered(f.uri()).build());
        java.util.concurrent.atomic.AtomicInteger handed = new java.util.concurrent.atomic.AtomicInteger();
        List<String> copiesOfFirst = new CopyOnWriteArrayList<>();
        client.subscribe(SubscriptionRequest.builder("/queue/late-copy").ackMode(AckMode.CLIENT_INDIVIDUAL).build(), m -> {
            if (m.federationId().equals("pScope:producer:1:1")) {
                copiesOfFirst.add(m.bodyAsString());
            }
            handed.incrementAndGet();
            m.ack();
        });
        int between = io.fedbridge.failover.FailoverConfig.DEFAULT_AUDIT_DEPTH + 1; // the old audit forgot m1 then
        FakeStompServer.Frame sub = f.next("SUBSCRIBE", WAIT);
        for (int n = 1; n <= 1 + between; n++) {
            sub.session().message(sub.header("id"), "/queue/late-copy", Map.of(FederationHeaders.FEDERATION_ID, "pScope:producer:1:" + n), "m" + n);
        }
        // ~1,000 deliveries a second on a busy 2-core machine (each ACK asks for a receipt)
        await("every message handed out").atMost(Duration.ofSeconds(90)).until(() -> handed.get() == 1 + between);
        client.send(Message.of("/queue/fence", "x")); // receipted once the broker took every ACK before it

        f.dropConnections();

        FakeStompServer.Frame resub = f.next("SUBSCRIBE", WAIT);
        resub.session().message(resub.header("id"), "/queue/late-copy", Map.of(FederationHeaders.FEDERATION_ID, "pScope:producer:1:1"), "copy");
        resub.session().message(resub.header("id"), "/queue/late-copy",
                Map.of(FederationHeaders.FEDERATION_ID, "pScope:producer:1:" + (2 + between)), "next");
        await("the next message handed out").atMost(WAIT).until(() -> handed.get() >= 2 + between);
        assertThat(copiesOfFirst).as("the copy of m1 was not handed out").containsExactly("m1");
        assertThat(client.stats().redeliveriesDropped()).isEqualTo(1);
    }

    @Test
    void shouldUseFedbridgeIdsAcrossConnectionsOnlyFromABrokerThatVouchesForThem() throws Exception {
        assertThat(handedOverTwoConnections(Map.of(FederationHeaders.VOUCHED_IDS, "true")))
                .as("the redelivery on the new connection is recognised by its fedbridge-id").containsExactly("m1", "m2");
        assertThat(handedOverTwoConnections(Map.of()))
                .as("fedbridge-ids from a broker that does not vouch are not trusted").containsExactly("m1", "m1", "m2");
    }

    @Test
    void shouldNotLetAForgedFedbridgeIdHideAMessageOnABrokerThatDoesNotVouch() throws Exception {
        FakeStompServer f = fake();
        FailoverClient client = connect(ordered(f.uri()).build());
        List<String> handed = new CopyOnWriteArrayList<>();
        client.subscribe(SubscriptionRequest.builder("/queue/forged").ackMode(AckMode.CLIENT_INDIVIDUAL).build(), m -> {
            handed.add(m.bodyAsString());
            m.ack();
        });
        FakeStompServer.Frame sub = f.next("SUBSCRIBE", WAIT);
        sub.session().message(sub.header("id"), "/queue/forged", Map.of(FederationHeaders.FEDERATION_ID, "victim:1"), "real");
        sub.session().message(sub.header("id"), "/queue/forged", Map.of(FederationHeaders.FEDERATION_ID, "victim:1"), "other");

        await("both messages handed out").atMost(WAIT).until(() -> handed.size() == 2);
        assertThat(handed).containsExactly("real", "other");
        assertThat(client.stats().redeliveriesDropped()).isZero();
    }

    /**
     * A fake broker with these CONNECTED headers delivers m1 (fedbridge-id p:1) unacknowledged, fails, then on the
     * client's next connection delivers m1 again and m2; returns what the application was handed.
     */
    private List<String> handedOverTwoConnections(Map<String, String> connected) throws Exception {
        FakeStompServer f = fake();
        f.connectedHeaders = connected;
        FailoverClient client = connect(ordered(f.uri()).build());
        List<String> handed = new CopyOnWriteArrayList<>();
        FailoverSubscription s = client.subscribe(SubscriptionRequest.builder("/queue/vouched")
                .ackMode(AckMode.CLIENT_INDIVIDUAL).build(), m -> handed.add(m.bodyAsString()));
        FakeStompServer.Frame sub = f.next("SUBSCRIBE", WAIT);
        sub.session().message(sub.header("id"), "/queue/vouched", Map.of(FederationHeaders.FEDERATION_ID, "p:1"), "m1");
        await("m1 handed out").atMost(WAIT).until(() -> handed.size() == 1);

        f.dropConnections();

        FakeStompServer.Frame resub = f.next("SUBSCRIBE", WAIT);
        resub.session().message(resub.header("id"), "/queue/vouched", Map.of(FederationHeaders.FEDERATION_ID, "p:1"), "m1");
        resub.session().message(resub.header("id"), "/queue/vouched", Map.of(FederationHeaders.FEDERATION_ID, "p:2"), "m2");
        await("m2 handed out").atMost(WAIT).until(() -> handed.contains("m2"));
        s.close();
        client.close();
        return handed;
    }

    @Test
    void shouldResubscribeADurableSubscriptionByNameWithTheSameClientId() throws Exception {
        FakeStompServer f = fake();
        FailoverClient client = connect(ordered(f.uri()).clientId("orders-app").build());
        client.subscribe(SubscriptionRequest.builder("/topic/prices").header("durable-subscription-name", "prices-1").build(),
                m -> { });
        FakeStompServer.Frame first = f.next("SUBSCRIBE", WAIT);

        f.dropConnections();

        FakeStompServer.Frame again = f.next("SUBSCRIBE", WAIT);
        assertThat(again.session()).isNotSameAs(first.session());
        assertThat(again.header("durable-subscription-name")).isEqualTo("prices-1");
        assertThat(again.header("id")).isEqualTo(first.header("id"));
        assertThat(again.header("destination")).isEqualTo("/topic/prices");
        assertThat(again.session().connectHeaders.get("client-id")).isEqualTo("orders-app");
    }

    @Test
    void shouldSendTheSameRandomProducerSecretOnEveryConnectAndNowhereElse() throws Exception {
        FakeStompServer a = fake();
        FakeStompServer b = fake();
        FailoverClient client = connect(ordered(a.uri(), b.uri()).build());
        client.send(Message.of("/queue/secret", "m"));
        String secret = a.sessions().get(0).connectHeaders.get(FederationHeaders.PRODUCER_SECRET);
        assertThat(secret).as("128 random bits, base64url without padding").matches("[A-Za-z0-9_-]{22}");

        a.close();
        await("client moved to B").atMost(WAIT).until(() -> b.uri().equals(client.connectedUri()));

        assertThat(b.sessions().get(0).connectHeaders.get(FederationHeaders.PRODUCER_SECRET)).isEqualTo(secret);
        assertThat(a.frames("SEND").get(0).headers().values()).doesNotContain(secret);
        assertThat(client.toString()).doesNotContain(secret);
        assertThat(client.config().toString()).doesNotContain(secret);
        FakeStompServer other = fake();
        connect(ordered(other.uri()).build());
        assertThat(other.sessions().get(0).connectHeaders.get(FederationHeaders.PRODUCER_SECRET))
                .as("another client's secret").isNotNull().isNotEqualTo(secret);
    }

    @Test
    void shouldReceiveWhatADurableSubscriptionKeptWhileTheBrokerRestarted() throws Exception {
        Broker a = startBroker();
        FailoverClient client = connect(ordered(uri(a)).clientId("news-reader").build());
        FailoverSubscription s = client.subscribe(SubscriptionRequest.builder("/topic/news")
                .ackMode(AckMode.CLIENT_INDIVIDUAL).header("durable-subscription-name", "news").build());
        plain(a).send(persistent("/topic/news", "before")).join();
        s.receive(WAIT).ack();

        a.close();
        Broker again = restart(a);
        // Published while the client may still be reconnecting: the durable subscription keeps it.
        plain(again).send(persistent("/topic/news", "while away")).join();

        FailoverMessage m = s.receive(WAIT);
        assertThat(m.bodyAsString()).isEqualTo("while away");
        m.ack();
        assertThat(s.receive(NOTHING_MORE)).isNull();
    }
}
