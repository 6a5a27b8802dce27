package io.fedbridge.broker.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fedbridge.broker.Broker;
import io.fedbridge.broker.BrokerConfig;
import io.fedbridge.broker.testing.EmbeddedArtemis;
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
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Bridges a fedbridge broker and an embedded Apache ActiveMQ Artemis (its STOMP acceptor, default settings: no
 * destination prefixes), in both directions, with statically included destinations. The bridge picks the Artemis
 * dialect from CONNECTED's {@code server} header: {@code /queue/orders} is Artemis' anycast queue {@code orders},
 * {@code /topic/prices} its multicast address {@code prices}.
 */
class ArtemisInteropIT extends BrokerTestSupport {

    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final int COUNT = 200;
    private static final int RESTART_COUNT = 1000;
    /** The bridge's forwards in flight: a peer without dedupe sees at most this many again after its restart. */
    private static final int WINDOW = 200;
    private static final AtomicInteger NAMES = new AtomicInteger();

    @TempDir
    Path artemisData;

    private EmbeddedArtemis artemis;
    private Broker fed;

    @BeforeEach
    void startBrokers() throws Exception {
        artemis = EmbeddedArtemis.start(artemisData, "artemis-" + NAMES.incrementAndGet());
        fed = startBroker(BrokerConfig.builder("F" + NAMES.incrementAndGet()));
    }

    @AfterEach
    void closeEverything() throws Exception {
        closeResources(); // bridges first, so that stopping Artemis does not take them down
        artemis.close();
    }

    // ---------------------------------------------------------------- fedbridge -> Artemis

    @Test
    void shouldForwardQueueMessagesFromFedbridgeToArtemisAnycastQueueExactlyOnce() throws Exception {
        Deliveries onArtemis = new Deliveries(WAIT);
        connectArtemis().subscribeAndWait(artemisQueue("to.artemis"), onArtemis.acking(), WAIT);
        FederationBridge fb = bridge(config(fed.vmUri(), artemis.stompUri()).staticallyIncludedDestination("/queue/to.artemis"));

        StompConnection producer = connect(fed, "tcp");
        for (int i = 0; i < COUNT; i++) {
            producer.send(Message.builder("/queue/to.artemis").body("m" + i).persistent(true).build()).get();
        }

        onArtemis.awaitExactlyOnce("m", COUNT);
        ReceivedMessage m0 = onArtemis.last("m0");
        assertThat(m0.destination()).as("Artemis' own name for the queue").isEqualTo("to.artemis");
        await("every forward receipted").atMost(WAIT).until(() -> fb.stats().acked() == COUNT);
        assertThat(fed.queue("/queue/to.artemis").pending()).as("acknowledged at the source").isZero();
    }

    @Test
    void shouldForwardTopicMessagesFromFedbridgeToEveryArtemisMulticastSubscriberOnce() throws Exception {
        Deliveries first = new Deliveries(WAIT);
        Deliveries second = new Deliveries(WAIT);
        connectArtemis().subscribeAndWait(artemisTopic("prices"), first.auto(), WAIT);
        connectArtemis().subscribeAndWait(artemisTopic("prices"), second.auto(), WAIT);
        FederationBridge fb = bridge(config(fed.vmUri(), artemis.stompUri()).staticallyIncludedDestination("/topic/prices"));
        awaitNetworkSubscription(fed, "/topic/prices");

        StompConnection producer = connect(fed, "tcp");
        for (int i = 0; i < COUNT; i++) {
            producer.send(Message.of("/topic/prices", "p" + i)).get();
        }

        first.awaitExactlyOnce("p", COUNT);
        second.awaitExactlyOnce("p", COUNT);
        assertThat(fb.stats().forwarded()).as("one copy per message crosses the link").isEqualTo(COUNT);
    }

    // ---------------------------------------------------------------- Artemis -> fedbridge

    @Test
    void shouldForwardQueueMessagesFromArtemisToFedbridgeExactlyOnce() throws Exception {
        Deliveries onFed = new Deliveries(WAIT);
        connect(fed, "tcp").subscribeAndWait(clientIndividual("/queue/to.fed"), onFed.acking(), WAIT);
        bridge(config(artemis.stompUri(), fed.vmUri()).staticallyIncludedDestination("/queue/to.fed"));

        StompConnection producer = connectArtemis();
        for (int i = 0; i < COUNT; i++) {
            producer.send(toArtemisQueue("to.fed", "m" + i)).get();
        }

        onFed.awaitExactlyOnce("m", COUNT);
        assertThat(onFed.last("m0").destination()).isEqualTo("/queue/to.fed");
        assertThat(onFed.last("m0").header("persistent")).isEqualTo("true");
        await("acknowledged on Artemis").atMost(WAIT).until(() -> artemis.messageCount("to.fed") == 0);
    }

    @Test
    void shouldForwardTopicMessagesFromArtemisToFedbridge() throws Exception {
        Deliveries onFed = new Deliveries(WAIT);
        connect(fed, "tcp").subscribeAndWait(SubscriptionRequest.of("/topic/news"), onFed.auto(), WAIT);
        bridge(config(artemis.stompUri(), fed.vmUri()).staticallyIncludedDestination("/topic/news"));
        await("network subscription on Artemis").atMost(WAIT).until(() -> artemis.consumers("news") > 0);

        StompConnection producer = connectArtemis();
        for (int i = 0; i < COUNT; i++) {
            producer.send(Message.builder("news").body("n" + i).header("destination-type", "MULTICAST").build()).get();
        }

        onFed.awaitExactlyOnce("n", COUNT);
        assertThat(onFed.last("n0").destination()).isEqualTo("/topic/news");
    }

    // ---------------------------------------------------------------- a restart in the middle

    @Test
    void shouldDeliverEveryPersistentMessageOnceFromFedbridgeToArtemisAcrossAnArtemisRestart() throws Exception {
        Broker withConnector = startBroker(BrokerConfig.builder("FC" + NAMES.incrementAndGet())
                .networkConnector("static:(" + artemis.stompUri() + ")?staticallyIncludedDestinations=/queue/orders"
                        + "&heartBeat=1000&initialReconnectDelay=100&maxReconnectDelay=500&prefetchSize=" + WINDOW));
        StompConnection producer = connect(withConnector, "tcp");
        CompletableFuture<?>[] sent = new CompletableFuture<?>[RESTART_COUNT];
        for (int i = 0; i < RESTART_COUNT; i++) {
            sent[i] = producer.send(Message.builder("/queue/orders").body("o" + i).persistent(true).build());
        }
        CompletableFuture.allOf(sent).get();

        await("some forwarded").atMost(WAIT).until(() -> artemis.messageCount("orders") >= RESTART_COUNT / 4);
        artemis.restart();

        await("all forwarded and acknowledged on F").atMost(WAIT)
                .until(() -> withConnector.queue("/queue/orders").pending() == 0 && artemis.messageCount("orders") >= RESTART_COUNT);
        Deliveries onArtemis = new Deliveries(WAIT);
        connectArtemis().subscribeAndWait(artemisQueue("orders"), onArtemis.acking(), WAIT);
        // What Artemis stored when the restart cut its RECEIPT off, the bridge resends with the same _AMQ_DUPL_ID
        // (the message's fedbridge-id), and Artemis' duplicate detection, whose id cache is journaled, drops it.
        onArtemis.awaitExactlyOnce("o", RESTART_COUNT);
    }

    @Test
    void shouldDeliverEveryPersistentMessageOnceFromArtemisToFedbridgeAcrossAnArtemisRestart() throws Exception {
        StompConnection producer = connectArtemis();
        CompletableFuture<?>[] sent = new CompletableFuture<?>[RESTART_COUNT];
        for (int i = 0; i < RESTART_COUNT; i++) {
            sent[i] = producer.send(toArtemisQueue("to.fed", "a" + i));
        }
        CompletableFuture.allOf(sent).get();
        producer.close();
        Deliveries onFed = new Deliveries(WAIT);
        connect(fed, "tcp").subscribeAndWait(clientIndividual("/queue/to.fed"), onFed.acking(), WAIT);
        // A connector beside Artemis: its "local" broker is Artemis, its peer the fedbridge broker.
        NetworkConnector nc = NetworkConnector.start("static:(" + fed.vmUri() + ")?staticallyIncludedDestinations=/queue/to.fed"
                + "&heartBeat=1000&initialReconnectDelay=100&maxReconnectDelay=500&prefetchSize=" + WINDOW,
                NetworkConnector.Local.of(artemis.stompUri(), null, "artemis", List.of()));
        resources.add(0, nc);

        await("some forwarded").atMost(WAIT).until(() -> onFed.deliveries("a") >= RESTART_COUNT / 4);
        artemis.restart();

        // Forwarded, receipted by F, and their ACKs lost in the restart: Artemis redelivers them under a new consumer,
        // but the message's part of its message-id (CONSUMER,MESSAGE) is the same, so F drops them by fedbridge-id.
        onFed.awaitExactlyOnce("a", RESTART_COUNT);
        await("acknowledged on Artemis").atMost(WAIT).until(() -> artemis.messageCount("to.fed") == 0);
        System.out.printf("Artemis -> fedbridge across a restart: %d redeliveries dropped by F%n", fed.duplicatesDropped());
    }

    @Test
    void shouldDeliverEveryPersistentMessageOnceFromAFedbridgeQueueToAnArtemisTopicAcrossAnArtemisRestart() throws Exception {
        // Store-and-forward into a topic: the bridge carries a fedbridge queue (which keeps what arrives while the link
        // is down) to the Artemis address (destinationMap), whose durable subscription keeps it across the restart.
        artemis.server().createQueue(org.apache.activemq.artemis.api.core.QueueConfiguration.of("prices.sub").setAddress("prices")
                .setRoutingType(org.apache.activemq.artemis.api.core.RoutingType.MULTICAST).setDurable(true));
        Broker withConnector = startBroker(BrokerConfig.builder("FC" + NAMES.incrementAndGet())
                .networkConnector("static:(" + artemis.stompUri() + "?destinationMap=/queue/prices.out=prices)"
                        + "?staticallyIncludedDestinations=/queue/prices.out"
                        + "&heartBeat=1000&initialReconnectDelay=100&maxReconnectDelay=500&prefetchSize=" + WINDOW));
        StompConnection producer = connect(withConnector, "tcp");
        CompletableFuture<?>[] sent = new CompletableFuture<?>[RESTART_COUNT];
        for (int i = 0; i < RESTART_COUNT; i++) {
            sent[i] = producer.send(Message.builder("/queue/prices.out").body("p" + i).persistent(true).build());
        }
        CompletableFuture.allOf(sent).get();

        await("some forwarded").atMost(WAIT).until(() -> artemis.messageCount("prices.sub") >= RESTART_COUNT / 4);
        artemis.restart();

        await("all forwarded and acknowledged on F").atMost(WAIT)
                .until(() -> withConnector.queue("/queue/prices.out").pending() == 0 && artemis.messageCount("prices.sub") >= RESTART_COUNT);
        Deliveries onArtemis = new Deliveries(WAIT);
        connectArtemis().subscribeAndWait(SubscriptionRequest.builder("prices::prices.sub").ackMode(AckMode.CLIENT_INDIVIDUAL).build(),
                onArtemis.acking(), WAIT);
        onArtemis.awaitExactlyOnce("p", RESTART_COUNT);
    }

    @Test
    void shouldDeliverEveryPersistentTopicMessageOnceFromArtemisToFedbridgeAcrossARestartThroughADurableQueue() throws Exception {
        // The bridge reads the topic from a durable multicast queue on its address (destinationMap to Artemis' fully
        // qualified name ADDRESS::QUEUE), which keeps what is published while the link is down.
        artemis.server().createQueue(org.apache.activemq.artemis.api.core.QueueConfiguration.of("news.fedbridge").setAddress("news")
                .setRoutingType(org.apache.activemq.artemis.api.core.RoutingType.MULTICAST).setDurable(true));
        StompConnection producer = connectArtemis();
        CompletableFuture<?>[] sent = new CompletableFuture<?>[RESTART_COUNT];
        for (int i = 0; i < RESTART_COUNT; i++) {
            sent[i] = producer.send(Message.builder("news").body("t" + i).persistent(true).header("destination-type", "MULTICAST").build());
        }
        CompletableFuture.allOf(sent).get();
        producer.close();
        Deliveries onFed = new Deliveries(WAIT);
        connect(fed, "tcp").subscribeAndWait(SubscriptionRequest.of("/topic/news"), onFed.auto(), WAIT);
        NetworkConnector nc = NetworkConnector.start("static:(" + fed.vmUri() + ")?staticallyIncludedDestinations=/topic/news"
                + "&heartBeat=1000&initialReconnectDelay=100&maxReconnectDelay=500&prefetchSize=" + WINDOW,
                NetworkConnector.Local.of(artemis.stompUri() + "?destinationMap=/topic/news=news::news.fedbridge", null, "artemis", List.of()));
        resources.add(0, nc);

        await("some forwarded").atMost(WAIT).until(() -> onFed.deliveries("t") >= RESTART_COUNT / 4);
        artemis.restart();

        onFed.awaitExactlyOnce("t", RESTART_COUNT);
        assertThat(onFed.last("t0").destination()).isEqualTo("/topic/news");
        await("acknowledged on Artemis").atMost(WAIT).until(() -> artemis.messageCount("news.fedbridge") == 0);
    }

    @Test
    void shouldDeliverEveryPersistentTopicMessageOnceFromArtemisToFedbridgeThroughTheBridgesDurableSubscription() throws Exception {
        // No queue defined on Artemis: the bridge subscribes to the topic durably (CONNECT client-id, stable per bridge, and
        // durable-subscription-name), so what is published while the bridge is away, and what Artemis held at its restart, waits.
        String connector = "static:(" + fed.vmUri() + ")?staticallyIncludedDestinations=/topic/news"
                + "&heartBeat=1000&initialReconnectDelay=100&maxReconnectDelay=500&prefetchSize=" + WINDOW;
        NetworkConnector.Local local = NetworkConnector.Local.of(artemis.stompUri(), null, "artemis", List.of());
        String subscriptionQueue = io.fedbridge.core.bridge.PeerProfile.AUTO.stableSubscriptionName(artemis.stompUri() + "->" + fed.vmUri())
                + ".news";
        NetworkConnector first = NetworkConnector.start(connector, local);
        await("durable subscription on Artemis").atMost(WAIT).until(() -> artemis.consumers("news") > 0);
        first.close();
        await("the bridge gone").atMost(WAIT).until(() -> artemis.consumers("news") == 0);

        StompConnection producer = connectArtemis();
        CompletableFuture<?>[] sent = new CompletableFuture<?>[RESTART_COUNT];
        for (int i = 0; i < RESTART_COUNT; i++) {
            sent[i] = producer.send(Message.builder("news").body("t" + i).persistent(true).header("destination-type", "MULTICAST").build());
        }
        CompletableFuture.allOf(sent).get();
        producer.close();
        assertThat(artemis.messageCount(subscriptionQueue)).as("kept for the bridge while it was away").isEqualTo(RESTART_COUNT);
        Deliveries onFed = new Deliveries(WAIT);
        connect(fed, "tcp").subscribeAndWait(SubscriptionRequest.of("/topic/news"), onFed.auto(), WAIT);
        NetworkConnector nc = NetworkConnector.start(connector, local);
        resources.add(0, nc);

        await("forwarding begun").atMost(WAIT).pollInterval(Duration.ofMillis(1)).until(() -> onFed.deliveries("t") >= 1);
        artemis.restart();
        int beforeRestart = onFed.deliveries("t");
        assertThat(beforeRestart).as("the restart came in the middle of the flow").isLessThan(RESTART_COUNT);

        // Forwarded and receipted by F whose ACKs the restart lost: Artemis redelivers them, F drops them (fedbridge-id).
        onFed.awaitExactlyOnce("t", RESTART_COUNT);
        assertThat(onFed.last("t0").destination()).isEqualTo("/topic/news");
        await("acknowledged on Artemis").atMost(WAIT).until(() -> artemis.messageCount(subscriptionQueue) == 0);
        System.out.printf("Artemis topic -> fedbridge across a restart (durable subscription %s): %d of %d before the restart,"
                + " %d redeliveries dropped by F%n", subscriptionQueue, beforeRestart, RESTART_COUNT, fed.duplicatesDropped());
    }

    @Test
    void shouldLeaveNoSubscriptionBehindWithoutDurableTopicSubscriptionsAndLetAnOperatorRemoveADurableOne() throws Exception {
        FederationBridge plain = bridge(config(artemis.stompUri() + "?durableTopicSubscriptions=false", fed.vmUri())
                .staticallyIncludedDestination("/topic/plain"));
        await("network subscription on Artemis").atMost(WAIT).until(() -> artemis.consumers("plain") > 0);
        plain.close();
        await("its subscription queue deleted with it").atMost(WAIT).until(() -> artemisQueuesOn("plain") == 0);

        FederationBridge durable = bridge(config(artemis.stompUri() + "?durableSubscriptionName=orders-feed", fed.vmUri())
                .staticallyIncludedDestination("/topic/kept"));
        await("durable subscription on Artemis").atMost(WAIT).until(() -> artemis.consumers("kept") > 0);
        durable.close();
        await("the bridge gone").atMost(WAIT).until(() -> artemis.consumers("kept") == 0);
        assertThat(artemis.server().locateQueue(org.apache.activemq.artemis.api.core.SimpleString.of("orders-feed.kept")))
                .as("the durable subscription outlives the bridge").isNotNull();

        // What an operator does once the bridge is removed for good: UNSUBSCRIBE it under the bridge's client-id (or
        // `artemis queue delete --name orders-feed.kept`).
        StompConnection operator = connect(ClientConfig.builder(artemis.stompUri()).clientId("orders-feed").heartBeats(Duration.ZERO).build());
        operator.subscribeAndWait(SubscriptionRequest.builder("kept").header("subscription-type", "MULTICAST")
                .header("durable-subscription-name", "kept").build(), m -> { }, WAIT)
                .unsubscribe(java.util.Map.of("durable-subscription-name", "kept"));
        await("durable subscription removed").atMost(WAIT).until(() -> artemisQueuesOn("kept") == 0);
    }

    // ---------------------------------------------------------------- request-reply, link state

    @Test
    void shouldCarryARequestToAnArtemisResponderAndItsReplyBack() throws Exception {
        bridge(config(fed.vmUri(), artemis.stompUri()).staticallyIncludedDestination("/queue/requests"));
        bridge(config(artemis.stompUri(), fed.vmUri()).staticallyIncludedDestination("/queue/replies"));
        StompConnection responder = connectArtemis();
        responder.subscribeAndWait(artemisQueue("requests"), m -> {
            responder.send(Message.builder(m.header("reply-to")).body("re:" + m.bodyAsString())
                    .header("correlation-id", m.header("correlation-id")).build());
            m.ack();
        }, WAIT);
        StompConnection requester = connect(fed, "tcp");
        Subscription replies = requester.subscribeAndWait(SubscriptionRequest.of("/queue/replies"), null, WAIT);

        requester.send(Message.builder("/queue/requests").body("ping").header("reply-to", "/queue/replies")
                .header("correlation-id", "c-1").build()).get();

        ReceivedMessage reply = replies.receive(WAIT);
        assertThat(reply).isNotNull();
        assertThat(reply.bodyAsString()).isEqualTo("re:ping");
        assertThat(reply.header("correlation-id")).isEqualTo("c-1");
    }

    @Test
    void shouldKeepAnIdleLinkToArtemisUpWithHeartBeats() {
        FederationBridge fb = bridge(config(fed.vmUri(), artemis.stompUri()).heartBeat(Duration.ofSeconds(1))
                .staticallyIncludedDestination("/queue/to.artemis"));

        await("idle link stays up").during(Duration.ofMillis(4500)).atMost(WAIT).until(() -> fb.state() == BridgeState.UP);
    }

    // ---------------------------------------------------------------- helpers

    private StompConnection connectArtemis() {
        return connect(ClientConfig.builder(artemis.stompUri()).heartBeats(Duration.ZERO).build());
    }

    /** Queues bound to the Artemis address {@code address}. */
    private int artemisQueuesOn(String address) throws Exception {
        org.apache.activemq.artemis.core.postoffice.Bindings b = artemis.server().getPostOffice()
                .lookupBindingsForAddress(org.apache.activemq.artemis.api.core.SimpleString.of(address));
        return b == null ? 0 : b.getBindings().size();
    }

    private static SubscriptionRequest artemisQueue(String name) {
        return SubscriptionRequest.builder(name).ackMode(AckMode.CLIENT_INDIVIDUAL).header("subscription-type", "ANYCAST").build();
    }

    private static SubscriptionRequest artemisTopic(String name) {
        return SubscriptionRequest.builder(name).header("subscription-type", "MULTICAST").build();
    }

    private static Message toArtemisQueue(String name, String body) {
        return Message.builder(name).body(body).persistent(true).header("destination-type", "ANYCAST").build();
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
