package io.fedbridge.broker.integration.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fedbridge.broker.Broker;
import io.fedbridge.broker.BrokerConfig;
import io.fedbridge.broker.security.AuthorizationRules;
import io.fedbridge.broker.security.PropertiesUserStore;
import io.fedbridge.broker.security.SecurityConfig;
import io.fedbridge.core.AckMode;
import io.fedbridge.core.ClientConfig;
import io.fedbridge.core.FederationHeaders;
import io.fedbridge.core.Message;
import io.fedbridge.core.ReceivedMessage;
import io.fedbridge.core.StompConnection;
import io.fedbridge.core.StompErrorException;
import io.fedbridge.core.Subscription;
import io.fedbridge.core.SubscriptionRequest;
import io.fedbridge.core.bridge.BridgeConfig;
import io.fedbridge.core.bridge.BridgeListener;
import io.fedbridge.core.bridge.BridgeState;
import io.fedbridge.core.bridge.FederationBridge;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The federation's headers and advisory topics are its control plane: an ordinary client, with a producer account on a
 * secured broker or anonymous on an open one, can forge none of it. Each test is what an attacker would try, over TCP,
 * against two bridged brokers.
 */
class ControlPlaneIT extends SecurityTestSupport {

    /** A broker with users and rules, and one without a [security] section. */
    enum Mode { SECURED, OPEN }

    private static final String RULES = """
            /queue/>                    read,write          group:apps
            /topic/>                    read,write          group:apps
            /queue/>                    read,write,federate group:bridges
            /topic/>                    read,write,federate group:bridges
            /topic/fedbridge.advisory.> admin,federate      group:bridges
            /temp-queue/>               read,write          group:apps
            """;
    /** Bridges may read and write, but hold no federate right. */
    private static final String RULES_WITHOUT_FEDERATE = """
            /queue/>                    read,write          group:apps, group:bridges
            /topic/fedbridge.advisory.> admin               group:bridges
            """;
    private final String password = "pw-" + System.nanoTime();

    private BrokerConfig.Builder broker(String name, Mode mode) {
        return broker(name, mode, RULES);
    }

    private BrokerConfig.Builder broker(String name, Mode mode, String rules) {
        BrokerConfig.Builder b = BrokerConfig.builder(uniqueName(name)).listen("tcp://127.0.0.1:0").heartBeat(Duration.ZERO);
        if (mode == Mode.SECURED) {
            PropertiesUserStore users = PropertiesUserStore.parse(userLine("bridge", password, "bridges") + "\n"
                    + userLine("alice", password, "apps") + "\n" + userLine("mallory", password, "apps") + "\n", "users-" + name);
            b.security(SecurityConfig.builder().authenticator(users).authorizer(AuthorizationRules.parse(rules, "rules")).build());
        }
        return b;
    }

    private StompConnection user(Broker broker, Mode mode, String name) {
        return user(broker, mode, name, null);
    }

    private StompConnection user(Broker broker, Mode mode, String name, String clientId) {
        ClientConfig.Builder c = client(broker.connectUris().get(0), mode == Mode.SECURED ? name : null,
                mode == Mode.SECURED ? password : null);
        if (clientId != null) {
            c.clientId(clientId);
        }
        return connect(c.build());
    }

    private String bridgeOptions(Mode mode) {
        return "heartBeat=0&initialReconnectDelay=50&maxReconnectDelay=500"
                + (mode == Mode.SECURED ? "&userName=bridge&password=" + password : "");
    }

    /** Brokers A and B, bridged A -> B. */
    private Broker[] pair(Mode mode) {
        Broker a = start(broker("A", mode));
        Broker b = start(broker("B", mode));
        a.addNetworkConnector("static:(" + b.connectUris().get(0) + ")?" + bridgeOptions(mode));
        await("A's bridge up").atMost(WAIT).until(() -> a.bridges().stream().anyMatch(s -> s.state() == BridgeState.UP));
        return new Broker[] {a, b};
    }

    private static Throwable failure(CompletableFuture<?> f) {
        try {
            f.get(WAIT.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
            throw new AssertionError("expected a refusal, but it succeeded");
        } catch (ExecutionException e) {
            return e.getCause();
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void shouldNeverLetAClientsIdDropAnotherProducersMessage(Mode mode) throws Exception {
        Broker[] ab = pair(mode);
        Broker a = ab[0];
        Broker b = ab[1];
        Subscription onB = user(b, mode, "alice").subscribeAndWait(SubscriptionRequest.of("/queue/ids"), null, WAIT);
        StompConnection mallory = user(b, mode, "mallory");
        StompConnection alice = user(b, mode, "alice");
        mallory.send(Message.builder("/queue/ids").body("mallory").header(FederationHeaders.FEDERATION_ID, "order-1").build()).get();
        alice.send(Message.builder("/queue/ids").body("alice").header(FederationHeaders.FEDERATION_ID, "order-1").build()).get();
        alice.send(Message.builder("/queue/ids").body("alice again").header(FederationHeaders.FEDERATION_ID, "order-1").build()).get();
        Set<String> bodies = new HashSet<>();
        bodies.add(onB.receive(WAIT).bodyAsString());
        bodies.add(onB.receive(WAIT).bodyAsString());
        assertThat(bodies).as("each producer's own id is its own").containsExactlyInAnyOrder("mallory", "alice");
        assertThat(onB.receive(Duration.ofMillis(300))).as("alice's resend is still dropped").isNull();

        // The ids a bridge gives the messages it forwards are predictable: A's id and A's message-ids. Mallory sends
        // them to B first; the real messages must still arrive.
        StompConnection onA = user(a, mode, "alice");
        String brokerIdA = onA.connectedHeaders().get(FederationHeaders.BROKER_ID);
        Subscription probe = onA.subscribeAndWait(SubscriptionRequest.of("/queue/probe"), null, WAIT);
        onA.send(Message.of("/queue/probe", "probe")).get();
        String messageId = probe.receive(WAIT).messageId();
        String prefix = messageId.replaceAll("\\d+$", "");
        long seq = Long.parseLong(messageId.substring(prefix.length()));
        for (long s = seq + 1; s <= seq + 300; s++) {
            mallory.sendWithoutReceipt(Message.builder("/queue/elsewhere").body("x")
                    .header(FederationHeaders.FEDERATION_ID, brokerIdA + ":" + prefix + s).build());
        }
        mallory.send(Message.of("/queue/elsewhere", "last")).get();
        Subscription fwd = user(b, mode, "alice").subscribeAndWait(SubscriptionRequest.of("/queue/fwd"), null, WAIT);
        await("demand reaches A").atMost(WAIT).until(() -> a.bridges().get(0).networkSubscriptions() >= 1);
        for (int i = 0; i < 20; i++) {
            onA.send(Message.of("/queue/fwd", "m" + i)).get();
        }
        for (int i = 0; i < 20; i++) {
            ReceivedMessage m = fwd.receive(WAIT);
            assertThat(m).as("forwarded message %s", i).isNotNull();
            assertThat(m.bodyAsString()).isEqualTo("m" + i);
        }
        assertThat(b.duplicatesDropped()).as("only alice's resend").isEqualTo(1);
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void shouldNotLetAFloodOfIdsFlushAnotherProducersResendProtection(Mode mode) throws Exception {
        Broker b = start(broker("B", mode));
        StompConnection alice = connect(client(b.connectUris().get(0), mode == Mode.SECURED ? "alice" : null,
                mode == Mode.SECURED ? password : null).connectHeader(FederationHeaders.PRODUCER_SECRET, "alice-producer-secret-1234").build());
        Subscription s = alice.subscribeAndWait(SubscriptionRequest.of("/queue/flood"), null, WAIT);
        alice.send(Message.builder("/queue/flood").body("once").header(FederationHeaders.FEDERATION_ID, "a-1").build()).get();
        assertThat(s.receive(WAIT).bodyAsString()).isEqualTo("once");
        // More ids than the whole dedupe window holds (100,000), to a topic nobody reads.
        StompConnection mallory = user(b, mode, "mallory");
        for (int i = 0; i < 110_000; i++) {
            mallory.sendWithoutReceipt(Message.builder("/topic/void").body("")
                    .header(FederationHeaders.FEDERATION_ID, "flood-" + i).build());
        }
        mallory.send(Message.of("/topic/void", "last")).get(60, java.util.concurrent.TimeUnit.SECONDS);
        // alice's resend after a failover, on a new connection with the same producer secret.
        StompConnection aliceAgain = connect(client(b.connectUris().get(0), mode == Mode.SECURED ? "alice" : null,
                mode == Mode.SECURED ? password : null).connectHeader(FederationHeaders.PRODUCER_SECRET, "alice-producer-secret-1234").build());
        aliceAgain.send(Message.builder("/queue/flood").body("resent").header(FederationHeaders.FEDERATION_ID, "a-1").build()).get();
        assertThat(s.receive(Duration.ofMillis(500))).as("the resend is still recognised").isNull();
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void shouldRefuseAForgedAdvisoryAndKeepRealDemand(Mode mode) throws Exception {
        Broker[] ab = pair(mode);
        Broker a = ab[0];
        Broker b = ab[1];
        Subscription real = user(b, mode, "alice").subscribeAndWait(SubscriptionRequest.of("/queue/real"), null, WAIT);
        await("real demand reaches A").atMost(WAIT).until(() -> a.bridges().get(0).networkSubscriptions() == 1);
        StompConnection mallory = user(b, mode, "mallory");
        Message removeReal = Message.builder(FederationHeaders.CONSUMER_ADVISORY_TOPIC)
                .header(FederationHeaders.ADVISORY, FederationHeaders.CONSUMER_REMOVED)
                .header(FederationHeaders.ADVISORY_DESTINATION, "/queue/real")
                .header(FederationHeaders.ORIGIN_CONSUMER, "whatever").build();
        assertThat(failure(mallory.send(removeReal))).isInstanceOf(StompErrorException.class)
                .hasMessageContaining("SEND denied: advisory topics are written by the federation's brokers and links only");
        StompConnection mallory2 = user(b, mode, "mallory");
        Message addFake = Message.builder(FederationHeaders.CONSUMER_ADVISORY_TOPIC)
                .header(FederationHeaders.ADVISORY, FederationHeaders.CONSUMER_ADDED)
                .header(FederationHeaders.ADVISORY_DESTINATION, "/queue/fake")
                .header(FederationHeaders.ORIGIN_CONSUMER, "fake-1").build();
        assertThat(failure(mallory2.send(addFake))).hasMessageContaining("advisory topics are written by");
        await("no demand created or withdrawn").during(Duration.ofMillis(500)).atMost(WAIT)
                .until(() -> a.bridges().get(0).networkSubscriptions() == 1);
        StompConnection onA = user(a, mode, "alice");
        onA.send(Message.of("/queue/fake", "stays on A")).get();
        onA.send(Message.of("/queue/real", "crosses")).get();
        assertThat(real.receive(WAIT).bodyAsString()).isEqualTo("crosses");
        assertThat(a.queue("/queue/fake").pending()).isEqualTo(1);
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void shouldRefuseANetworkSubscriptionOrRouteHeadersFromAClient(Mode mode) {
        Broker b = start(broker("B", mode));
        for (String header : List.of(FederationHeaders.NETWORK_CONSUMER, FederationHeaders.EXCLUDE_BROKER,
                FederationHeaders.CONSUMER_PATH)) {
            StompConnection mallory = user(b, mode, "mallory");
            mallory.subscribe(SubscriptionRequest.builder("/queue/steal").header(header, "true").build());
            await("refused").atMost(WAIT).until(() -> !mallory.isConnected());
            assertThat(mallory.closeCause()).hasMessageContaining("SUBSCRIBE denied: " + header
                    + " is for the federation's bridges only");
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void shouldRefuseAForgedClusterUpdateSoNoClientMoves(Mode mode) throws Exception {
        Broker b = start(broker("B", mode));
        Subscription cluster = user(b, mode, "alice").subscribeAndWait(SubscriptionRequest.of(FederationHeaders.CLUSTER_TOPIC), null, WAIT);
        assertThat(cluster.receive(WAIT).header(FederationHeaders.CLUSTER_URIS)).as("the broker's own list")
                .contains(b.connectUris().get(0));
        StompConnection mallory = user(b, mode, "mallory");
        Message forged = Message.builder(FederationHeaders.CLUSTER_TOPIC)
                .header(FederationHeaders.CLUSTER_URIS, "tcp://attacker.example:61613")
                .header(FederationHeaders.CLUSTER_REBALANCE, "true").build();
        assertThat(failure(mallory.send(forged))).hasMessageContaining("advisory topics are written by");
        assertThat(cluster.receive(Duration.ofMillis(500))).as("no client hears it").isNull();
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void shouldIgnoreAClientsRouteHeadersOnSend(Mode mode) throws Exception {
        Broker b = start(broker("B", mode));
        StompConnection alice = user(b, mode, "alice");
        Subscription s = alice.subscribeAndWait(SubscriptionRequest.of("/queue/hdr"), null, WAIT);
        // A message an application received elsewhere and sends on: it still carries the federation's headers.
        alice.send(Message.builder("/queue/hdr").body("sent on")
                .header(FederationHeaders.BROKER_PATH, b.id())
                .header(FederationHeaders.HOPS, "7")
                .header(FederationHeaders.REPLAYS, "3").build()).get();
        ReceivedMessage m = s.receive(WAIT);
        assertThat(m).as("not dropped as a loop").isNotNull();
        assertThat(m.header(FederationHeaders.BROKER_PATH)).isNull();
        assertThat(m.header(FederationHeaders.HOPS)).isNull();
        assertThat(m.header(FederationHeaders.REPLAYS)).isNull();
    }

    @Test
    void shouldCarryDestinationDefinitionsOnlyOverALinkHoldingFederateOnTheDefinitionsTopic() throws Exception {
        Broker[] granted = pair(Mode.SECURED);
        granted[0].cluster().define(io.fedbridge.broker.DestinationPolicy.builder("/queue/defined").maxNumMsgs(5).build());
        await("the definition crosses a link holding federate on the advisory topics").atMost(WAIT)
                .until(() -> granted[1].cluster().definition("/queue/defined").isPresent());

        String consumerAdvisoriesOnly = """
                /queue/>                                read,write          group:apps
                /queue/>                                read,write,federate group:bridges
                /topic/fedbridge.advisory.consumer      admin,federate      group:bridges
                """;
        Broker a = start(broker("A2", Mode.SECURED, consumerAdvisoriesOnly));
        Broker b = start(broker("B2", Mode.SECURED, consumerAdvisoriesOnly));
        a.addNetworkConnector("static:(" + b.connectUris().get(0) + ")?" + bridgeOptions(Mode.SECURED));
        await("A2's bridge up").atMost(WAIT).until(() -> a.bridges().stream().anyMatch(s -> s.state() == BridgeState.UP));
        a.cluster().define(io.fedbridge.broker.DestinationPolicy.builder("/queue/defined").maxNumMsgs(5).build());
        try (StompConnection alice = user(b, Mode.SECURED, "alice")) {
            Subscription sub = alice.subscribeAndWait(SubscriptionRequest.of("/queue/defined"), null, WAIT);
            try (StompConnection producer = user(a, Mode.SECURED, "alice")) {
                producer.send(Message.of("/queue/defined", "still forwarded")).get();
            }
            assertThat(sub.receive(WAIT).bodyAsString()).as("the link works without the definitions").isEqualTo("still forwarded");
        }
        assertThat(b.cluster().definition("/queue/defined")).as("no federate on the definitions topic: none cross").isEmpty();
        assertThat(a.bridges()).allMatch(s -> s.state() == BridgeState.UP);
    }
    @Test
    void shouldRefuseAFederationLinkWithoutTheFederateRightNamingIt() {
        Broker a = start(broker("A", Mode.SECURED, RULES_WITHOUT_FEDERATE));
        Broker b = start(broker("B", Mode.SECURED, RULES_WITHOUT_FEDERATE));
        user(b, Mode.SECURED, "alice").subscribeAndWait(SubscriptionRequest.of("/queue/nofed.x"), null, WAIT);
        CompletableFuture<Throwable> down = new CompletableFuture<>();
        track(FederationBridge.start(BridgeConfig.builder(a.vmUri(), b.connectUris().get(0)).userName("bridge")
                .password(password).heartBeat(Duration.ZERO).build(), new BridgeListener() {
                    @Override
                    public void linkDown(FederationBridge bridge, Throwable cause) {
                        down.complete(cause);
                    }
                }));
        assertThat(down).succeedsWithin(WAIT).satisfies(cause -> assertThat(cause)
                .hasMessageContaining("user 'bridge' has no federate permission on /queue/nofed.x"));
    }

    @Test
    void shouldRequireTheFederationSecretWhenOneIsSet() throws Exception {
        String secret = "federation-secret-" + System.nanoTime();
        SecurityConfig withSecret = SecurityConfig.builder().federationSecret(secret).build();
        Broker a = start(broker("A", Mode.OPEN).security(withSecret));
        Broker b = start(broker("B", Mode.OPEN).security(withSecret));
        a.addNetworkConnector("static:(" + b.connectUris().get(0) + ")?" + bridgeOptions(Mode.OPEN));
        Subscription onB = connect(client(b.connectUris().get(0), null, null).build())
                .subscribeAndWait(SubscriptionRequest.of("/queue/secret"), null, WAIT);
        await("the bridge proves the broker's secret").atMost(WAIT)
                .until(() -> a.bridges().stream().anyMatch(s -> s.state() == BridgeState.UP && s.networkSubscriptions() == 1));
        connect(client(a.connectUris().get(0), null, null).build()).send(Message.of("/queue/secret", "with proof")).get();
        assertThat(onB.receive(WAIT).bodyAsString()).isEqualTo("with proof");

        CompletableFuture<Throwable> down = new CompletableFuture<>();
        track(FederationBridge.start(BridgeConfig.builder(a.vmUri(), b.connectUris().get(0)).heartBeat(Duration.ZERO)
                .federationSecret("another-secret-of-16+").build(), new BridgeListener() {
                    @Override
                    public void linkDown(FederationBridge bridge, Throwable cause) {
                        down.complete(cause);
                    }
                }));
        assertThat(down).succeedsWithin(WAIT).satisfies(cause -> assertThat(cause)
                .hasMessageContaining("does not match this broker's federationSecret")
                .satisfies(c -> assertThat(c.getMessage()).doesNotContain(secret)));

        String unsigned = connectFailure(b, Map.of(FederationHeaders.FEDERATE, "true"));
        assertThat(unsigned).contains("not of the form v1:");
        String proof = io.fedbridge.core.internal.FederationProof.create(secret, java.time.Clock.systemUTC());
        connect(client(b.connectUris().get(0), null, null).connectHeader(FederationHeaders.FEDERATE, proof).build());
        assertThat(connectFailure(b, Map.of(FederationHeaders.FEDERATE, proof))).contains("was used before");
    }

    private String connectFailure(Broker broker, Map<String, String> headers) {
        ClientConfig.Builder c = client(broker.connectUris().get(0), null, null);
        headers.forEach(c::connectHeader);
        return catchConnect(() -> connect(c.build()));
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void shouldLetOnlyItsOwnerReadATemporaryQueue(Mode mode) throws Exception {
        Broker b = start(broker("B", mode));
        StompConnection alice = user(b, mode, "alice");
        Subscription replies = alice.subscribeAndWait(SubscriptionRequest.of("/temp-queue/replies"), null, WAIT);
        StompConnection mallory = user(b, mode, "mallory");
        Subscription requests = mallory.subscribeAndWait(SubscriptionRequest.of("/queue/requests"), null, WAIT);
        alice.send(Message.builder("/queue/requests").body("question").header("reply-to", "/temp-queue/replies").build()).get();
        String replyTo = requests.receive(WAIT).header("reply-to");
        assertThat(replyTo).startsWith("/temp-queue/@");
        mallory.send(Message.of(replyTo, "answer")).get(); // replying is what a reply-to is for
        assertThat(replies.receive(WAIT).bodyAsString()).isEqualTo("answer");
        mallory.subscribe(SubscriptionRequest.of(replyTo));
        await("refused").atMost(WAIT).until(() -> !mallory.isConnected());
        assertThat(mallory.closeCause()).hasMessageContaining("is a temporary destination of another connection");
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void shouldAllowOneLiveConnectionPerClientId(Mode mode) {
        Broker b = start(broker("B", mode));
        StompConnection first = user(b, mode, "alice", "app-1");
        assertThat(catchConnect(() -> user(b, mode, "alice", "app-1"))).contains("client-id 'app-1' is already in use");
        first.close();
        await("the client-id is free again").atMost(WAIT).until(() -> {
            try {
                user(b, mode, "alice", "app-1");
                return true;
            } catch (RuntimeException e) {
                return false;
            }
        });
    }

    private static String catchConnect(Runnable r) {
        try {
            r.run();
            throw new AssertionError("expected CONNECT to be refused");
        } catch (RuntimeException e) {
            return e.getMessage();
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void shouldLetOnlyItsOwnerRemoveADurableSubscription(Mode mode) throws Exception {
        Broker b = start(broker("B", mode));
        StompConnection alice = user(b, mode, "alice", "app-1");
        alice.subscribeAndWait(SubscriptionRequest.builder("/topic/news").ackMode(AckMode.CLIENT_INDIVIDUAL)
                .header("durable-subscription-name", "feed").build(), null, WAIT);
        StompConnection mallory = user(b, mode, "mallory", "other");
        // While alice is connected, her client-id is hers alone.
        mallory.sendFrame(unsubscribeDurable("app-1", "feed"), true);
        await("refused").atMost(WAIT).until(() -> !mallory.isConnected());
        assertThat(mallory.closeCause()).hasMessageContaining("client-id 'app-1' belongs to another connection");
        alice.close();
        await("alice gone").atMost(WAIT).until(() -> durables(b).stream().allMatch(d -> d.consumers() == 0));
        if (mode == Mode.SECURED) {
            // Gone, but still hers: another user with the same client-id neither finds nor removes it.
            StompConnection again = user(b, mode, "mallory", "app-1");
            again.sendFrame(unsubscribeDurable(null, "feed"), true);
            await("refused").atMost(WAIT).until(() -> !again.isConnected());
            assertThat(again.closeCause()).hasMessageContaining("unknown durable subscription 'feed'");
            assertThat(durables(b)).hasSize(1);
        }
        StompConnection owner = user(b, mode, "alice", "app-1");
        owner.sendForReceipt(unsubscribeDurable(null, "feed")).get();
        assertThat(durables(b)).isEmpty();
    }

    private static io.fedbridge.core.StompFrame unsubscribeDurable(String clientId, String name) {
        io.fedbridge.core.StompHeaders h = new io.fedbridge.core.StompHeaders();
        h.add("id", "durable-" + name);
        h.add("durable-subscription-name", name);
        if (clientId != null) {
            h.add("client-id", clientId);
        }
        return new io.fedbridge.core.StompFrame(io.fedbridge.core.StompCommand.UNSUBSCRIBE, h);
    }

    private static List<io.fedbridge.broker.DestinationStats> durables(Broker b) {
        return b.queues().stream().filter(q -> q.name().startsWith("durable:")).toList();
    }
}
