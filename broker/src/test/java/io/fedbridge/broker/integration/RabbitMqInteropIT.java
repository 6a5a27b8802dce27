package io.fedbridge.broker.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fedbridge.broker.Broker;
import io.fedbridge.broker.BrokerConfig;
import io.fedbridge.broker.testing.RabbitMqServer;
import io.fedbridge.core.AckMode;
import io.fedbridge.core.ClientConfig;
import io.fedbridge.core.Message;
import io.fedbridge.core.ReceivedMessage;
import io.fedbridge.core.StompConnection;
import io.fedbridge.core.Subscription;
import io.fedbridge.core.SubscriptionRequest;
import io.fedbridge.core.bridge.BridgeConfig;
import io.fedbridge.core.bridge.BridgeState;
import io.fedbridge.core.bridge.FederationBridge;
import io.fedbridge.core.bridge.NetworkConnector;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Bridges a fedbridge broker and a real RabbitMQ node (its STOMP plugin), both directions, with statically included
 * destinations. RabbitMQ reads CONNECT's {@code host} as its virtual host, so its peer URI says {@code host=/}; it
 * names queues and topics as fedbridge does ({@code /queue/NAME} is the durable queue {@code NAME}). One node serves
 * the whole class (it takes seconds to start); each test uses its own queue names.
 */
class RabbitMqInteropIT extends BrokerTestSupport {

    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final int COUNT = 200;
    private static final int RESTART_COUNT = 1000;
    /** The bridge's forwards in flight: a peer without dedupe sees at most this many again after its restart. */
    private static final int WINDOW = 200;
    private static final AtomicInteger NAMES = new AtomicInteger();

    private static Path dir;
    private static RabbitMqServer rabbit;
    private Broker fed;
    private String q;

    @BeforeAll
    static void startRabbitMq() throws Exception {
        String reason = RabbitMqServer.unavailableReason();
        if (reason != null) {
            System.out.println("RabbitMqInteropIT skipped: " + reason);
        }
        Assumptions.assumeTrue(reason == null, reason);
        dir = Files.createTempDirectory("fedbridge-rabbitmq");
        rabbit = RabbitMqServer.start(dir);
    }

    @AfterAll
    static void stopRabbitMq() throws Exception {
        if (rabbit != null) {
            rabbit.close();
        }
        if (dir != null) {
            try (var files = Files.walk(dir)) {
                files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    @BeforeEach
    void startFedbridge() {
        fed = startBroker(BrokerConfig.builder("F" + NAMES.incrementAndGet()));
        q = "t" + NAMES.incrementAndGet(); // fresh RabbitMQ queue names per test
    }

    @AfterEach
    void closeEverything() throws Exception {
        closeResources();
    }

    // ---------------------------------------------------------------- the virtual host

    @Test
    void shouldReachRabbitMqsDefaultVirtualHostThroughThePeerUrisHostOption() {
        FederationBridge fb = FederationBridge.start(config(fed.vmUri(), rabbit.stompUri()).staticallyIncludedDestination("/queue/" + q).build());
        resources.add(0, fb);
        await("refused").atMost(WAIT).until(() -> fb.downFuture().isDone());
        assertThat(fb.stats().lastError()).as("without host=/ RabbitMQ takes 127.0.0.1 for the virtual host")
                .contains("Virtual host");

        FederationBridge ok = bridge(config(fed.vmUri(), peer()).staticallyIncludedDestination("/queue/" + q));
        assertThat(ok.state()).isEqualTo(BridgeState.UP);
    }

    // ---------------------------------------------------------------- fedbridge -> RabbitMQ

    @Test
    void shouldForwardQueueMessagesFromFedbridgeToRabbitMqExactlyOnce() throws Exception {
        Deliveries onRabbit = new Deliveries(WAIT);
        connectRabbit().subscribeAndWait(clientIndividual("/queue/" + q), onRabbit.acking(), WAIT);
        FederationBridge fb = bridge(config(fed.vmUri(), peer()).staticallyIncludedDestination("/queue/" + q));

        StompConnection producer = connect(fed, "tcp");
        for (int i = 0; i < COUNT; i++) {
            producer.send(Message.builder("/queue/" + q).body("m" + i).persistent(true).build()).get();
        }

        onRabbit.awaitExactlyOnce("m", COUNT);
        assertThat(onRabbit.last("m0").header("persistent")).isEqualTo("true");
        await("every forward receipted").atMost(WAIT).until(() -> fb.stats().acked() == COUNT);
        assertThat(fed.queue("/queue/" + q).pending()).as("acknowledged at the source").isZero();
    }

    @Test
    void shouldForwardNonPersistentMessagesIntoRabbitMqsDurableQueue() throws Exception {
        Deliveries onRabbit = new Deliveries(WAIT);
        // The subscription declares the durable queue first; a SEND with persistent:false would redeclare it non-durable.
        connectRabbit().subscribeAndWait(clientIndividual("/queue/" + q), onRabbit.acking(), WAIT);
        FederationBridge fb = bridge(config(fed.vmUri(), peer()).staticallyIncludedDestination("/queue/" + q));

        StompConnection producer = connect(fed, "tcp");
        for (int i = 0; i < COUNT; i++) {
            producer.send(Message.builder("/queue/" + q).body("t" + i).persistent(false).build()).get();
        }

        onRabbit.awaitExactlyOnce("t", COUNT);
        assertThat(fb.state()).as("the link stayed up").isEqualTo(BridgeState.UP);
        assertThat(fb.stats().lastError()).isNull();
    }

    @Test
    void shouldForwardTopicMessagesFromFedbridgeToEveryRabbitMqSubscriberOnce() throws Exception {
        Deliveries first = new Deliveries(WAIT);
        Deliveries second = new Deliveries(WAIT);
        connectRabbit().subscribeAndWait(SubscriptionRequest.of("/topic/" + q), first.auto(), WAIT);
        connectRabbit().subscribeAndWait(SubscriptionRequest.of("/topic/" + q), second.auto(), WAIT);
        FederationBridge fb = bridge(config(fed.vmUri(), peer()).staticallyIncludedDestination("/topic/" + q));
        awaitNetworkSubscription(fed, "/topic/" + q);

        StompConnection producer = connect(fed, "tcp");
        for (int i = 0; i < COUNT; i++) {
            producer.send(Message.of("/topic/" + q, "p" + i)).get();
        }

        first.awaitExactlyOnce("p", COUNT);
        second.awaitExactlyOnce("p", COUNT);
        assertThat(fb.stats().forwarded()).isEqualTo(COUNT);
    }

    // ---------------------------------------------------------------- RabbitMQ -> fedbridge

    @Test
    void shouldForwardQueueMessagesFromRabbitMqToFedbridgeExactlyOnce() throws Exception {
        Deliveries onFed = new Deliveries(WAIT);
        connect(fed, "tcp").subscribeAndWait(clientIndividual("/queue/" + q), onFed.acking(), WAIT);
        bridge(config(peer(), fed.vmUri()).staticallyIncludedDestination("/queue/" + q));

        StompConnection producer = connectRabbit();
        for (int i = 0; i < COUNT; i++) {
            producer.send(Message.builder("/queue/" + q).body("m" + i).persistent(true).build()).get();
        }

        onFed.awaitExactlyOnce("m", COUNT);
        assertThat(onFed.last("m0").destination()).isEqualTo("/queue/" + q);
        await("acknowledged on RabbitMQ").atMost(WAIT).until(() -> rabbit.messageCount(q) == 0);
    }

    @Test
    void shouldForwardTopicMessagesFromRabbitMqToFedbridge() throws Exception {
        Deliveries onFed = new Deliveries(WAIT);
        connect(fed, "tcp").subscribeAndWait(SubscriptionRequest.of("/topic/" + q), onFed.auto(), WAIT);
        FederationBridge fb = bridge(config(peer(), fed.vmUri()).staticallyIncludedDestination("/topic/" + q));
        await("network subscription on RabbitMQ").atMost(WAIT).until(() -> fb.stats().networkSubscriptions() > 0);
        StompConnection producer = connectRabbit();
        // The bridge's SUBSCRIBE may still be on its way: send until the first copy arrives, then the numbered run.
        await("topic subscription bound").atMost(WAIT).until(() -> {
            producer.send(Message.of("/topic/" + q, "warm-up")).get();
            return onFed.deliveries("warm-up") > 0;
        });
        for (int i = 0; i < COUNT; i++) {
            producer.send(Message.of("/topic/" + q, "n" + i)).get();
        }

        onFed.awaitExactlyOnce("n", COUNT);
        assertThat(onFed.last("n0").destination()).isEqualTo("/topic/" + q);
    }

    // ---------------------------------------------------------------- a restart in the middle

    @Test
    void shouldLoseNoPersistentMessageFromFedbridgeToRabbitMqAcrossStopAppAndStartApp() throws Exception {
        Broker withConnector = startBroker(BrokerConfig.builder("FC" + NAMES.incrementAndGet())
                .networkConnector("static:(" + peer() + ")?staticallyIncludedDestinations=/queue/" + q
                        + "&heartBeat=1000&initialReconnectDelay=100&maxReconnectDelay=500&prefetchSize=" + WINDOW));
        StompConnection producer = connect(withConnector, "tcp");
        CompletableFuture<Void> produced = CompletableFuture.runAsync(() -> {
            for (int i = 0; i < RESTART_COUNT; i++) {
                producer.send(Message.builder("/queue/" + q).body("o" + i).persistent(true).build()).join();
            }
        });

        await("some forwarded").atMost(WAIT).until(() -> rabbit.messageCount(q) >= RESTART_COUNT / 4);
        rabbit.stopApp();
        rabbit.startApp();
        produced.get();

        await("all forwarded and acknowledged on F").atMost(WAIT)
                .until(() -> withConnector.queue("/queue/" + q).pending() == 0 && rabbit.messageCount(q) >= RESTART_COUNT);
        Deliveries onRabbit = new Deliveries(WAIT);
        connectRabbit().subscribeAndWait(clientIndividual("/queue/" + q), onRabbit.acking(), WAIT);
        int repeats = onRabbit.awaitAtLeastOnce("o", RESTART_COUNT);
        // RabbitMQ keeps no federation ids: what it had stored when the restart cut the receipts off, the bridge resends.
        assertThat(repeats).as("copies resent after the restart").isLessThanOrEqualTo(WINDOW);
    }

    @Test
    void shouldDeliverEveryPersistentMessageOnceFromRabbitMqToFedbridgeAcrossStopAppAndStartApp() throws Exception {
        StompConnection producer = connectRabbit();
        for (int i = 0; i < RESTART_COUNT; i++) {
            // amqp-message-id: the AMQP message id, which (unlike RabbitMQ's message-id) a redelivery keeps
            producer.send(Message.builder("/queue/" + q).body("a" + i).persistent(true).header("amqp-message-id", q + "-" + i).build()).get();
        }
        producer.close();
        Deliveries onFed = new Deliveries(WAIT);
        connect(fed, "tcp").subscribeAndWait(clientIndividual("/queue/" + q), onFed.acking(), WAIT);
        NetworkConnector nc = NetworkConnector.start("static:(" + fed.vmUri() + ")?staticallyIncludedDestinations=/queue/" + q
                + "&heartBeat=1000&initialReconnectDelay=100&maxReconnectDelay=500&prefetchSize=" + WINDOW,
                NetworkConnector.Local.of(peer(), null, "rabbit", List.of()));
        resources.add(0, nc);

        await("some forwarded").atMost(WAIT).until(() -> onFed.deliveries("a") >= RESTART_COUNT / 4);
        rabbit.stopApp();
        rabbit.startApp();

        onFed.awaitExactlyOnce("a", RESTART_COUNT);
        await("acknowledged on RabbitMQ").atMost(WAIT).until(() -> rabbit.messageCount(q) == 0);
    }

    // ---------------------------------------------------------------- request-reply

    @Test
    void shouldCarryARequestToARabbitMqResponderAndItsReplyBack() throws Exception {
        bridge(config(fed.vmUri(), peer()).staticallyIncludedDestination("/queue/" + q + ".requests"));
        bridge(config(peer(), fed.vmUri()).staticallyIncludedDestination("/queue/" + q + ".replies"));
        StompConnection responder = connectRabbit();
        responder.subscribeAndWait(clientIndividual("/queue/" + q + ".requests"), m -> {
            responder.send(Message.builder(m.header("reply-to")).body("re:" + m.bodyAsString())
                    .header("correlation-id", m.header("correlation-id")).build());
            m.ack();
        }, WAIT);
        StompConnection requester = connect(fed, "tcp");
        Subscription replies = requester.subscribeAndWait(SubscriptionRequest.of("/queue/" + q + ".replies"), null, WAIT);

        requester.send(Message.builder("/queue/" + q + ".requests").body("ping").header("reply-to", "/queue/" + q + ".replies")
                .header("correlation-id", "c-1").build()).get();

        ReceivedMessage reply = replies.receive(WAIT);
        assertThat(reply).isNotNull();
        assertThat(reply.bodyAsString()).isEqualTo("re:ping");
        assertThat(reply.header("correlation-id")).isEqualTo("c-1");
    }

    @Test
    void shouldKeepAnIdleLinkToRabbitMqUpWithHeartBeats() {
        FederationBridge fb = bridge(config(fed.vmUri(), peer()).heartBeat(Duration.ofSeconds(1))
                .staticallyIncludedDestination("/queue/" + q));

        await("idle link stays up").during(Duration.ofMillis(4500)).atMost(WAIT).until(() -> fb.state() == BridgeState.UP);
    }

    // ---------------------------------------------------------------- helpers

    /** The bridge's peer URI for RabbitMQ: its default virtual host, its default guest user. */
    private static String peer() {
        return rabbit.stompUri() + "?host=/&login=guest&passcode=guest";
    }

    private StompConnection connectRabbit() {
        return connect(ClientConfig.builder(rabbit.stompUri()).host("/").login("guest").passcode("guest")
                .heartBeats(Duration.ZERO).build());
    }

    private static SubscriptionRequest clientIndividual(String destination) {
        return SubscriptionRequest.builder(destination).ackMode(AckMode.CLIENT_INDIVIDUAL).build();
    }

    /** A bridge configuration without heart-beats (a test that needs them sets its own). */
    private static BridgeConfig.Builder config(String localUri, String remoteUri) {
        return BridgeConfig.builder(localUri, remoteUri).heartBeat(Duration.ZERO);
    }

    private FederationBridge bridge(BridgeConfig.Builder b) {
        FederationBridge fb = FederationBridge.start(b.build());
        resources.add(0, fb);
        fb.awaitUp(WAIT);
        return fb;
    }
}
