package io.fedbridge.failover.integration;

import static io.fedbridge.failover.internal.ClusterHeaders.CLUSTER_REBALANCE;
import static io.fedbridge.failover.internal.ClusterHeaders.CLUSTER_TOPIC;
import static io.fedbridge.failover.internal.ClusterHeaders.CLUSTER_URIS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fedbridge.core.FederationHeaders;
import io.fedbridge.failover.FailoverClient;
import io.fedbridge.failover.FailoverConfig;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * What a failover client takes from a broker's cluster announcements: no learned broker over a weaker transport, none
 * outside {@code updateURIsAllowed}, no credentials to a learned broker without {@code updateURIsCredentials}, and
 * never a learned URI's own options. The announcing and the learned brokers are fake ones (plain or TLS), so the test
 * sees every CONNECT a learned broker gets.
 */
class ClusterTrustIT extends FailoverTestSupport {

    private static final Duration STAYS = Duration.ofMillis(500);

    @Test
    void shouldNotFollowARebalanceToALearnedBrokerOutsideUpdateURIsAllowed() throws Exception {
        FakeStompServer a = announcing(fake());
        FakeStompServer learned = fake();
        FailoverClient client = connect(ordered(a.uri()).updateURIsAllowed(List.of("*.prod.example.com:*",
                "127.0.0.1:" + a.port())).build());

        rebalanceTo(a, learned.uri() + "," + a.uri());

        await("the announcement ignored").atMost(WAIT).until(() -> client.stats().learnedUrisIgnored() == 1);
        assertStaysOn(client, a, learned);
    }

    @Test
    void shouldFollowARebalanceToALearnedBrokerMatchingUpdateURIsAllowed() throws Exception {
        FakeStompServer a = announcing(fake());
        FakeStompServer learned = fake();
        FailoverClient client = connect(ordered(a.uri()).updateURIsAllowed(List.of("*.prod.example.com:*", "127.0.0.1:*")).build());

        rebalanceTo(a, learned.uri() + "," + a.uri());

        await("moved to the learned broker").atMost(WAIT).until(() -> learned.uri().equals(client.connectedUri()));
        assertThat(client.stats().learnedUrisIgnored()).isZero();
    }

    @Test
    void shouldConnectToALearnedBrokerWithoutTheConfiguredCredentialsOrTheAnnouncedOptions() throws Exception {
        FakeStompServer a = announcing(fake());
        FakeStompServer learned = fake();
        FailoverClient client = connect(ordered(a.uri()).nested("login", "app").nested("passcode", "app-secret").build());

        rebalanceTo(a, learned.uri() + "?login=evil&passcode=x");

        await("moved to the learned broker").atMost(WAIT).until(() -> learned.uri().equals(client.connectedUri()));
        Map<String, String> toA = a.sessions().get(0).connectHeaders;
        Map<String, String> toLearned = learned.sessions().get(0).connectHeaders;
        assertThat(toA).containsEntry("login", "app").containsEntry("passcode", "app-secret");
        assertThat(toLearned).doesNotContainKeys("login", "passcode");
        assertThat(toLearned.get(FederationHeaders.PRODUCER_SECRET)).isEqualTo(toA.get(FederationHeaders.PRODUCER_SECRET));
    }

    @Test
    void shouldSendTheConfiguredCredentialsToALearnedBrokerWithUpdateURIsCredentials() throws Exception {
        FakeStompServer a = announcing(fake());
        FakeStompServer learned = fake();
        FailoverClient client = connect(FailoverConfig.fromUri("failover:(" + a.uri() + ")?randomize=false&heartBeatSend=0"
                + "&heartBeatReceive=0&updateURIsCredentials=true&nested.login=app&nested.passcode=app-secret"));

        rebalanceTo(a, learned.uri() + "?login=evil&passcode=x");

        await("moved to the learned broker").atMost(WAIT).until(() -> learned.uri().equals(client.connectedUri()));
        assertThat(learned.sessions().get(0).connectHeaders).as("the client's own, not the announced ones")
                .containsEntry("login", "app").containsEntry("passcode", "app-secret");
    }

    @Test
    void shouldNotDowngradeFromAnSslConnectionToALearnedTcpBroker() throws Exception {
        SelfSignedKeyStore key = SelfSignedKeyStore.get();
        FakeStompServer a = announcing(track(FakeStompServer.startTls(key.serverContext())));
        FakeStompServer learned = fake();
        // The trust store on A's URI alone: a tcp:// broker could take nested TLS options, but not A's.
        FailoverClient client = connect(ordered(a.uri() + "?" + key.trustOptions("")).build());

        rebalanceTo(a, learned.uri() + "," + a.uri());

        await("the announcement ignored").atMost(WAIT).until(() -> client.stats().learnedUrisIgnored() == 1);
        assertStaysOn(client, a, learned);
    }

    @Test
    void shouldFollowALearnedSslBrokerWithTheClientsOwnTlsSettings() throws Exception {
        SelfSignedKeyStore key = SelfSignedKeyStore.get();
        FakeStompServer a = announcing(track(FakeStompServer.startTls(key.serverContext())));
        FakeStompServer learned = track(FakeStompServer.startTls(key.serverContext()));
        FailoverClient client = connect(FailoverConfig.fromUri("failover:(" + a.uri() + ")?randomize=false&heartBeatSend=0"
                + "&heartBeatReceive=0&" + key.trustOptions("nested.")));

        // Were the announced options used, the trust store would not exist and the move would fail.
        rebalanceTo(a, learned.uri() + "?trustStore=/nonexistent/evil.p12&verifyHostName=false");

        await("moved to the learned TLS broker").atMost(WAIT).until(() -> learned.uri().equals(client.connectedUri()));
        assertThat(client.stats().learnedUrisIgnored()).isZero();
    }

    @Test
    void shouldNotTakeAVmBrokerFromATcpConnection() throws Exception {
        FakeStompServer a = fake();
        a.connectedHeaders = Map.of(CLUSTER_URIS, a.uri() + ",vm://elsewhere");
        FailoverClient client = connect(ordered(a.uri()).build());

        await("the announcement ignored").atMost(WAIT).until(() -> client.stats().learnedUrisIgnored() == 1);
        assertThat(client.knownUris()).containsExactly(a.uri());
    }

    /** {@code f} announces itself alone in CONNECTED, so the client subscribes to the cluster topic there. */
    private static FakeStompServer announcing(FakeStompServer f) {
        f.connectedHeaders = Map.of(CLUSTER_URIS, f.uri());
        return f;
    }

    /** {@code a} publishes {@code uris} on the cluster topic and asks clients to rebalance. */
    private static void rebalanceTo(FakeStompServer a, String uris) throws InterruptedException {
        FakeStompServer.Frame sub = a.next("SUBSCRIBE", WAIT);
        assertThat(sub.header("destination")).isEqualTo(CLUSTER_TOPIC);
        sub.session().message(sub.header("id"), CLUSTER_TOPIC, Map.of(CLUSTER_URIS, uris, CLUSTER_REBALANCE, "true"), "");
    }

    private static void assertStaysOn(FailoverClient client, FakeStompServer a, FakeStompServer learned) {
        await("stays on " + a.uri()).during(STAYS).atMost(WAIT).until(() -> a.uri().equals(client.connectedUri()));
        assertThat(learned.acceptedConnections()).isZero();
        assertThat(client.knownUris()).containsExactly(a.uri());
    }
}
