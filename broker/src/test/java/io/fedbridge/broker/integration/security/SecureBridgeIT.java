package io.fedbridge.broker.integration.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fedbridge.broker.Broker;
import io.fedbridge.broker.BrokerConfig;
import io.fedbridge.broker.security.AuthorizationRules;
import io.fedbridge.broker.security.PropertiesUserStore;
import io.fedbridge.broker.security.SecurityConfig;
import io.fedbridge.core.Message;
import io.fedbridge.core.StompConnection;
import io.fedbridge.core.Subscription;
import io.fedbridge.core.SubscriptionRequest;
import io.fedbridge.core.bridge.BridgeConfig;
import io.fedbridge.core.bridge.BridgeListener;
import io.fedbridge.core.bridge.BridgeState;
import io.fedbridge.core.bridge.BridgeStats;
import io.fedbridge.core.bridge.FederationBridge;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Bridges between two secured brokers over TLS: a bridge logs in with its own identity on both of them and
 * gets exactly that identity's rights: it reads on its local broker only what it may read there, and the
 * receiving broker authorizes every forwarded SEND as it would a client's.
 */
class SecureBridgeIT extends SecurityTestSupport {

    private static final String RULES_A = """
            /queue/shared.>             read,write  group:apps
            /queue/shared.>             read,write,federate  group:bridges
            /queue/restricted.>         read,write  group:apps
            /queue/restricted.>         read,write,federate  group:bridges
            /queue/private.>            read,write  group:apps
            /topic/fedbridge.advisory.> admin       group:bridges
            """;
    /** On B the bridge may not write to /queue/restricted.>, though it may everywhere else. */
    private static final String RULES_B = """
            /queue/shared.>             read,write  group:apps
            /queue/shared.>             read,write,federate  group:bridges
            /queue/restricted.>         read,write  group:apps
            /queue/restricted.>         federate    group:bridges
            /queue/private.>            read,write  group:apps
            /queue/private.>            read,write,federate  group:bridges
            /topic/fedbridge.advisory.> admin       group:bridges
            """;

    private final String bridgePassword = "bridge-pw-" + System.nanoTime();
    private final String alicePassword = "alice-pw-" + System.nanoTime();
    private Broker a;
    private Broker b;

    @BeforeEach
    void startTwoSecuredBrokers() {
        a = start(secured("A", RULES_A));
        b = start(secured("B", RULES_B));
    }

    private BrokerConfig.Builder secured(String name, String rules) {
        PropertiesUserStore users = PropertiesUserStore.parse(userLine("bridge", bridgePassword, "bridges") + "\n"
                + userLine("alice", alicePassword, "apps") + "\n", "users-" + name);
        return BrokerConfig.builder(uniqueName(name)).listen("ssl://127.0.0.1:0").heartBeat(Duration.ZERO)
                .security(SecurityConfig.builder().tls(certs().serverTls()).authenticator(users)
                        .authorizer(AuthorizationRules.parse(rules, "rules-" + name)).build());
    }

    private StompConnection alice(Broker broker) {
        return connect(client(broker.connectUris().get(0), "alice", alicePassword).tls(certs().clientTls()).build());
    }

    /** A bridge from A to B over TLS, with {@code linkDown} causes collected. */
    private FederationBridge bridge(String password, CompletableFuture<Throwable> firstDown) {
        BridgeConfig config = BridgeConfig.builder(a.vmUri(), b.connectUris().get(0)).userName("bridge").password(password)
                .heartBeat(Duration.ZERO).tls(certs().clientTls()).build();
        return track(FederationBridge.start(config, new BridgeListener() {
            @Override
            public void linkDown(FederationBridge bridge, Throwable cause) {
                firstDown.complete(cause);
            }
        }));
    }

    @Test
    void shouldForwardOverTlsThroughAStaticNetworkConnectorWithTheBridgesOwnIdentity() throws Exception {
        a.addNetworkConnector("static:(" + b.connectUris().get(0) + ")?userName=bridge&password=" + bridgePassword
                + "&heartBeat=0&initialReconnectDelay=50&maxReconnectDelay=500&" + certs().clientTlsOptions());
        Subscription onB = alice(b).subscribeAndWait(SubscriptionRequest.of("/queue/shared.orders"), null, WAIT);
        await("demand reaches A over the TLS bridge").atMost(WAIT)
                .until(() -> a.bridges().stream().anyMatch(s -> s.state() == BridgeState.UP && s.networkSubscriptions() == 1));
        alice(a).send(Message.of("/queue/shared.orders", "across")).get();
        assertThat(onB.receive(WAIT).bodyAsString()).isEqualTo("across");
        List<BridgeStats> stats = a.bridges();
        assertThat(stats).hasSize(1);
        assertThat(stats.get(0).name()).doesNotContain(bridgePassword).doesNotContain(certs().password());
        assertThat(a.networkConnectors().get(0).uri().toString()).doesNotContain(bridgePassword)
                .doesNotContain(certs().password());
    }

    @Test
    void shouldNotLetABridgeForwardIntoADestinationItsIdentityMayNotWrite() throws Exception {
        Subscription onB = alice(b).subscribeAndWait(SubscriptionRequest.of("/queue/restricted.x"), null, WAIT);
        CompletableFuture<Throwable> down = new CompletableFuture<>();
        FederationBridge fb = bridge(bridgePassword, down);
        fb.awaitUp(WAIT);
        await("demand reaches A").atMost(WAIT).until(() -> fb.stats().networkSubscriptions() == 1);
        alice(a).send(Message.of("/queue/restricted.x", "smuggled")).get();
        assertThat(down).succeedsWithin(WAIT).satisfies(cause -> assertThat(cause)
                .hasMessageContaining("SEND denied: user 'bridge' has no write permission on /queue/restricted.x"));
        assertThat(onB.receive(Duration.ofMillis(500))).as("nothing delivered on B").isNull();
        await("the message stays on A").atMost(WAIT).until(() -> a.queue("/queue/restricted.x").pending() == 1);
        assertThat(b.queue("/queue/restricted.x").pending()).isZero();
    }

    @Test
    void shouldNotLetABridgeReadWhatItsIdentityMayNotReadOnItsOwnBroker() throws Exception {
        alice(b).subscribeAndWait(SubscriptionRequest.of("/queue/private.y"), null, WAIT);
        CompletableFuture<Throwable> down = new CompletableFuture<>();
        FederationBridge fb = bridge(bridgePassword, down);
        assertThat(down).succeedsWithin(WAIT).satisfies(cause -> assertThat(cause)
                .hasMessageContaining("SUBSCRIBE denied: user 'bridge' has no read permission on /queue/private.y"));
        alice(a).send(Message.of("/queue/private.y", "stays home")).get();
        assertThat(a.queue("/queue/private.y").pending()).isEqualTo(1);
        assertThat(fb.stats().forwarded()).isZero();
    }

    @Test
    void shouldKeepABridgeWithAWrongPasswordDown() {
        CompletableFuture<Throwable> down = new CompletableFuture<>();
        String wrong = "wrong-" + System.nanoTime();
        FederationBridge fb = bridge(wrong, down);
        assertThat(down).succeedsWithin(WAIT).satisfies(cause -> assertThat(cause)
                .hasMessageContaining("login failed for user 'bridge'")
                .satisfies(c -> assertThat(c.getMessage()).doesNotContain(wrong)));
        assertThat(fb.state()).isEqualTo(BridgeState.DOWN);
        assertThat(fb.config().toString()).doesNotContain(wrong);
    }

    @Test
    void shouldBridgeToAPeerFoundByMulticastAdvertisingSsl() throws Exception {
        ThreadLocalRandom r = ThreadLocalRandom.current();
        String discovery = "multicast://239.255." + r.nextInt(1, 255) + "." + r.nextInt(1, 255) + ":" + r.nextInt(20000, 40000)
                + "?group=sec-" + Long.toString(r.nextLong() & Long.MAX_VALUE, 36) + "&interface=lo&heartbeatInterval=100"
                + "&expiry=3&initialReconnectDelay=50&maxReconnectDelay=500&heartBeat=0&userName=bridge&password="
                + bridgePassword + "&" + certs().clientTlsOptions();
        a.addNetworkConnector(discovery);
        b.addNetworkConnector(discovery);
        Subscription onB = alice(b).subscribeAndWait(SubscriptionRequest.of("/queue/shared.found"), null, WAIT);
        await("A finds B's ssl:// listener and bridges to it").atMost(WAIT).until(() -> a.bridges().stream()
                .anyMatch(s -> s.state() == BridgeState.UP && s.networkSubscriptions() == 1 && s.name().contains("ssl://")));
        alice(a).send(Message.of("/queue/shared.found", "discovered")).get();
        assertThat(onB.receive(WAIT).bodyAsString()).isEqualTo("discovered");
    }
}
