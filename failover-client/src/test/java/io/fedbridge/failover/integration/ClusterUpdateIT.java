package io.fedbridge.failover.integration;

import static io.fedbridge.failover.internal.ClusterHeaders.CLUSTER_REBALANCE;
import static io.fedbridge.failover.internal.ClusterHeaders.CLUSTER_TOPIC;
import static io.fedbridge.failover.internal.ClusterHeaders.CLUSTER_URIS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fedbridge.broker.Broker;
import io.fedbridge.core.Message;
import io.fedbridge.core.SubscriptionRequest;
import io.fedbridge.failover.FailoverClient;
import io.fedbridge.failover.FailoverEvent;
import io.fedbridge.failover.FailoverSubscription;
import io.fedbridge.failover.FailoverTransaction;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The client side of cluster membership: a broker announces its federation peers in CONNECTED
 * ({@code fedbridge-cluster-uris}) and on the cluster advisory topic; the client adds them to its list and rebalances
 * when asked. No broker sends these yet, so a fake one does.
 */
class ClusterUpdateIT extends FailoverTestSupport {

    @Test
    void shouldLearnTheBrokersAnnouncedOnConnectAndFailOverToThem() throws Exception {
        FakeStompServer f = fake();
        Broker b = startBroker();
        f.connectedHeaders = Map.of(CLUSTER_URIS, f.uri() + "," + uri(b));
        Events events = new Events();
        FailoverClient client = connect(ordered(f.uri()).build(), events);

        FailoverEvent.UrisUpdated updated = events.await(FailoverEvent.UrisUpdated.class, e -> true);
        assertThat(updated.uris()).containsExactly(f.uri(), uri(b));
        assertThat(updated.rebalance()).isFalse();
        assertThat(client.knownUris()).containsExactly(f.uri(), uri(b));

        f.close();

        await("failed over to the announced broker").atMost(WAIT).until(() -> uri(b).equals(client.connectedUri()));
    }

    @Test
    void shouldSubscribeToClusterUpdatesOnlyWhereTheBrokerAnnouncesThem() throws Exception {
        FakeStompServer announcing = fake();
        announcing.connectedHeaders = Map.of(CLUSTER_URIS, "");
        FakeStompServer plainBroker = fake();

        connect(ordered(announcing.uri()).build());
        FakeStompServer.Frame sub = announcing.next("SUBSCRIBE", WAIT);
        assertThat(sub.header("destination")).isEqualTo(CLUSTER_TOPIC);
        assertThat(sub.header("ack")).isEqualTo("auto");

        FailoverClient other = connect(ordered(plainBroker.uri()).build());
        other.send(Message.of("/queue/x", "x"));
        assertThat(plainBroker.frames("SUBSCRIBE")).as("a broker that does not announce gets no cluster subscription").isEmpty();
    }

    @Test
    void shouldReplaceTheLearnedBrokersWhenAnUpdateArrives() throws Exception {
        FakeStompServer f = fake();
        f.connectedHeaders = Map.of(CLUSTER_URIS, f.uri() + ",tcp://10.0.0.1:61613");
        Events events = new Events();
        FailoverClient client = connect(ordered(f.uri()).build(), events);
        FakeStompServer.Frame sub = f.next("SUBSCRIBE", WAIT);
        events.await(FailoverEvent.UrisUpdated.class, e -> e.uris().contains("tcp://10.0.0.1:61613"));

        sub.session().message(sub.header("id"), CLUSTER_TOPIC,
                Map.of(CLUSTER_URIS, "tcp://10.0.0.2:61613," + f.uri() + ",not a uri"), "");

        events.await(FailoverEvent.UrisUpdated.class, e -> e.uris().contains("tcp://10.0.0.2:61613"));
        assertThat(client.knownUris()).containsExactly(f.uri(), "tcp://10.0.0.2:61613");
        assertThat(client.connectedUri()).isEqualTo(f.uri());
    }

    @Test
    void shouldRebalanceToTheFirstAnnouncedBrokerWhenAsked() throws Exception {
        FakeStompServer f = fake();
        f.connectedHeaders = Map.of(CLUSTER_URIS, f.uri());
        Broker b = startBroker();
        Events events = new Events();
        FailoverClient client = connect(ordered(f.uri()).build(), events);
        FailoverSubscription s = client.subscribe(SubscriptionRequest.of("/queue/moved"));
        FakeStompServer.Frame sub = f.next("SUBSCRIBE", WAIT);
        assertThat(sub.header("destination")).isEqualTo(CLUSTER_TOPIC);

        sub.session().message(sub.header("id"), CLUSTER_TOPIC, Map.of(CLUSTER_URIS, uri(b) + "," + f.uri(), CLUSTER_REBALANCE, "true"), "");

        FailoverEvent.Switched switched = events.await(FailoverEvent.Switched.class, e -> true);
        assertThat(switched.from()).isEqualTo(f.uri());
        assertThat(switched.to()).isEqualTo(uri(b));
        assertThat(switched.reason()).contains("rebalance");
        assertThat(client.connectedUri()).isEqualTo(uri(b));
        plain(b).send(Message.of("/queue/moved", "here")).join();
        assertThat(s.receive(WAIT).bodyAsString()).isEqualTo("here");
        await("the old connection closed").atMost(WAIT).until(() -> f.openSessions().isEmpty());
    }

    @Test
    void shouldIgnoreAnnouncementsWhenUpdateUrisSupportedIsFalse() throws Exception {
        FakeStompServer f = fake();
        f.connectedHeaders = Map.of(CLUSTER_URIS, f.uri() + ",tcp://10.0.0.1:61613");
        FailoverClient client = connect(ordered(f.uri()).updateURIsSupported(false).build());
        client.send(Message.of("/queue/x", "x"));

        assertThat(client.knownUris()).containsExactly(f.uri());
        assertThat(f.frames("SUBSCRIBE")).isEmpty();
    }

    @Test
    void shouldLearnButStayWhenRebalanceUpdateUrisIsFalse() throws Exception {
        FakeStompServer f = fake();
        f.connectedHeaders = Map.of(CLUSTER_URIS, f.uri());
        Broker b = startBroker();
        Events events = new Events();
        FailoverClient client = connect(ordered(f.uri()).rebalanceUpdateURIs(false).build(), events);
        FakeStompServer.Frame sub = f.next("SUBSCRIBE", WAIT);

        sub.session().message(sub.header("id"), CLUSTER_TOPIC, Map.of(CLUSTER_URIS, uri(b) + "," + f.uri(), CLUSTER_REBALANCE, "true"), "");

        events.await(FailoverEvent.UrisUpdated.class, FailoverEvent.UrisUpdated::rebalance);
        assertThat(client.knownUris()).containsExactly(f.uri(), uri(b));
        await("stays").during(Duration.ofMillis(300)).atMost(WAIT).until(() -> f.uri().equals(client.connectedUri()));
        assertThat(b.connectionCount()).isZero();
    }

    @Test
    void shouldRebalanceOnlyOnceTheOpenTransactionHasEnded() throws Exception {
        FakeStompServer f = fake();
        f.connectedHeaders = Map.of(CLUSTER_URIS, f.uri());
        Broker b = startBroker();
        FailoverClient client = connect(ordered(f.uri()).build());
        FakeStompServer.Frame sub = f.next("SUBSCRIBE", WAIT);
        FailoverTransaction tx = client.begin();
        tx.send(Message.of("/queue/tx", "x"));

        sub.session().message(sub.header("id"), CLUSTER_TOPIC, Map.of(CLUSTER_URIS, uri(b), CLUSTER_REBALANCE, "true"), "");

        await("stays while the transaction is open").during(Duration.ofMillis(300)).atMost(WAIT)
                .until(() -> f.uri().equals(client.connectedUri()));
        tx.commit();
        await("moves after the commit").atMost(WAIT).until(() -> uri(b).equals(client.connectedUri()));
        assertThat(List.of(f.frames("COMMIT").get(0).header("transaction"))).containsExactly(tx.id());
    }
}
