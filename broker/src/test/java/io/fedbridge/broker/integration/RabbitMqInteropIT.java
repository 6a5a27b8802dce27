package io.fedbridge.broker.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fedbridge.broker.Broker;
import io.fedbridge.broker.BrokerConfig;
import io.fedbridge.broker.testing.RabbitMqExtension;
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
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Bridges a fedbridge broker and a real RabbitMQ node (its STOMP plugin), both directions, with statically included
 * destinations. RabbitMQ reads CONNECT's {@code host} as its virtual host, so its peer URI says {@code host=/}; it
 * names queues and topics as fedbridge does ({@code /queue/NAME} is the durable queue {@code NAME}). One node serves
 * the whole class (it takes seconds to start); each test uses its own queue names.
 */
class RabbitMqInteropIT extends BrokerTestSupport {

    private static final Duration WAIT = Duration.ofSeconds(30);
    /** After a node was killed: its recovery and the redelivery of what it held, on a machine shared with other builds. */
    private static final Duration RECOVERY_WAIT = Duration.ofSeconds(90);
    private static final int COUNT = 200;
    private static final int RESTART_COUNT = 1000;
    /** Messages in RabbitMQ when its node is killed: enough that the kill lands in the middle of the flow. */
    private static final int KILL_COUNT = 5000;
    /** The bridge's forwards in flight: a peer without dedupe sees at most this many again after its restart. */
    private static final int WINDOW = 200;
    private static final AtomicInteger NAMES = new AtomicInteger();

    @RegisterExtension
    static final RabbitMqExtension RABBIT = new RabbitMqExtension();

    private RabbitMqServer rabbit;
    private Broker fed;
    private String q;

    @BeforeEach
    void startFedbridge() {
        rabbit = RABBIT.server();
        fed = startBroker(BrokerConfig.builder("F" + NAMES.incrementAndGet()));
        q = "t" + NAMES.incrementAndGet(); // fresh RabbitMQ queue names per test
    }

    @AfterEach
    void closeEverything() throws Exception {
        closeResources();
        if (!rabbit.isRunning()) {
            rabbit.startAfterKill(); // a test that failed between kill and restart must not fail the ones after it
        }
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

    /** How a test interrupts RabbitMQ: gracefully, or by killing its process. */
    private enum Interruption { STOP_APP, KILL }

    @Test
    void shouldLoseNoPersistentMessageFromFedbridgeToRabbitMqAcrossStopAppAndStartApp() throws Exception {
        forwardToRabbitMqAcross(Interruption.STOP_APP, false);
    }

    @Test
    void shouldLoseNoPersistentMessageFromAFedbridgeQueueToARabbitMqTopicAcrossStopAppAndStartApp() throws Exception {
        // Store-and-forward into a topic: the bridge carries a fedbridge queue (which keeps what arrives while the link
        // is down) to the RabbitMQ topic (destinationMap), whose durable subscription keeps it across the restart.
        StompConnection setup = connectRabbit();
        setup.subscribeAndWait(SubscriptionRequest.builder("/topic/" + q).header("id", "durable-" + q).header("durable", "true")
                .header("auto-delete", "false").header("x-queue-name", q + ".sub").build(), m -> { }, WAIT);
        setup.close();
        forwardToRabbitMqAcross(Interruption.STOP_APP, true);
    }

    @Test
    void shouldLoseNoPersistentMessageFromFedbridgeToRabbitMqAcrossAKilledNode() throws Exception {
        forwardToRabbitMqAcross(Interruption.KILL, false);
    }

    /**
     * RabbitMQ does not deduplicate: what it had stored (and confirmed, or was about to) when the interruption cut the
     * RECEIPT off, the bridge resends. Each copy carries the message's fedbridge-id as its AMQP message-id, so a
     * consumer can drop repeats; their number is bounded by the bridge's forwards in flight (prefetchSize).
     */
    private void forwardToRabbitMqAcross(Interruption interruption, boolean intoTopic) throws Exception {
        String target = intoTopic ? peer() + "&destinationMap=/queue/" + q + "=/topic/" + q : peer();
        Broker withConnector = startBroker(BrokerConfig.builder("FC" + NAMES.incrementAndGet())
                .networkConnector("static:(" + target + ")?staticallyIncludedDestinations=/queue/" + q
                        + "&heartBeat=1000&initialReconnectDelay=100&maxReconnectDelay=500&prefetchSize=" + WINDOW));
        if (interruption == Interruption.KILL) {
            // The queue the bridge forwards into exists on disk before the kill: a kill -9 soon after RabbitMQ declared
            // it loses the queue with everything in it (RabbitMqServer.syncDefinitions), which is RabbitMQ's window,
            // not the bridge's. A SUBSCRIBE declares the durable queue, as the bridge's first SEND would.
            if (!intoTopic) {
                connectRabbit().subscribeAndWait(clientIndividual("/queue/" + q), m -> { }, WAIT).unsubscribe();
            }
            rabbit.syncDefinitions();
        }
        StompConnection producer = connect(withConnector, "tcp");
        AtomicInteger produced = new AtomicInteger();
        java.util.concurrent.atomic.AtomicBoolean interrupted = new java.util.concurrent.atomic.AtomicBoolean();
        CompletableFuture<Void> producing = new CompletableFuture<>();
        java.util.concurrent.ScheduledExecutorService pace = java.util.concurrent.Executors.newSingleThreadScheduledExecutor();
        resources.add(0, pace::shutdownNow);
        // 5 messages every 10 ms, RESTART_COUNT and on until the node has stopped: forwarding is in full flow when
        // RabbitMQ goes away (a graceful stop_app takes seconds), and a slow stop does not pile up messages without end.
        pace.scheduleAtFixedRate(() -> {
            if (producing.isDone()) {
                return;
            }
            if (produced.get() >= RESTART_COUNT && interrupted.get() || produced.get() >= 10 * RESTART_COUNT) {
                producing.complete(null);
                return;
            }
            try {
                CompletableFuture<?>[] batch = new CompletableFuture<?>[5];
                for (int j = 0; j < 5; j++) {
                    batch[j] = producer.send(Message.builder("/queue/" + q).body("o" + produced.getAndIncrement()).persistent(true).build());
                }
                CompletableFuture.allOf(batch).join();
            } catch (RuntimeException e) {
                producing.completeExceptionally(e);
            }
        }, 0, 10, java.util.concurrent.TimeUnit.MILLISECONDS);

        await("some produced").atMost(WAIT).pollInterval(Duration.ofMillis(10)).until(() -> produced.get() >= RESTART_COUNT / 4);
        int beforeInterruption = produced.get();
        if (interruption == Interruption.KILL) {
            rabbit.kill();
            interrupted.set(true);
            rabbit.startAfterKill();
        } else {
            rabbit.stopApp();
            interrupted.set(true);
            rabbit.startApp();
        }
        producing.get();
        int total = produced.get();
        assertThat(total).as("still producing when RabbitMQ went away").isGreaterThan(beforeInterruption);

        Deliveries onRabbit = new Deliveries(RECOVERY_WAIT);
        Map<String, Set<String>> amqpIds = new ConcurrentHashMap<>();
        connectRabbit().subscribeAndWait(clientIndividual(intoTopic ? "/amq/queue/" + q + ".sub" : "/queue/" + q), m -> {
            amqpIds.computeIfAbsent(m.bodyAsString(), k -> ConcurrentHashMap.newKeySet()).add(String.valueOf(m.header("amqp-message-id")));
            onRabbit.acking().onMessage(m);
        }, WAIT);
        await("all forwarded and acknowledged on F").atMost(RECOVERY_WAIT).until(() -> withConnector.queue("/queue/" + q).pending() == 0);
        try {
            onRabbit.awaitAtLeastOnce("o", total);
        } catch (AssertionError e) {
            // Which side lost them: RabbitMQ's own count of what it holds, and what was produced before the interruption.
            throw new AssertionError(e.getMessage() + "; RabbitMQ holds " + rabbit.messageCount(intoTopic ? q + ".sub" : q)
                    + " in the queue; " + beforeInterruption + " were produced before " + interruption + "; node log:\n"
                    + rabbit.logTail(), e);
        }
        int[] seen = {-1};
        await("no late repeat").during(Duration.ofMillis(500)).atMost(WAIT).until(() -> {
            int n = onRabbit.deliveries("o");
            boolean same = n == seen[0];
            seen[0] = n;
            return same;
        });
        int repeats = seen[0] - total;
        System.out.printf("fedbridge -> RabbitMQ %s across %s: %d of %d messages stored twice%n", intoTopic ? "topic" : "queue",
                interruption, repeats, total);
        assertThat(repeats).as("copies resent after the interruption").isLessThanOrEqualTo(WINDOW);
        assertThat(amqpIds.values()).as("every copy of a message has the same amqp-message-id").allMatch(ids -> ids.size() == 1);
        assertThat(amqpIds.values().stream().flatMap(Set::stream).distinct().count()).isEqualTo(total);
    }

    @Test
    void shouldDeliverEveryPersistentMessageOnceFromRabbitMqToFedbridgeAcrossAKilledNode() throws Exception {
        // amqp-message-id: the AMQP message id, which (unlike RabbitMQ's message-id) a redelivery keeps
        Forwarded f = forwardFromRabbitMqAcrossAKill(i -> q + "-" + i, Source.QUEUE);
        assertThat(f.repeats()).isZero();
    }

    @Test
    void shouldDeliverEveryPersistentTopicMessageOnceFromRabbitMqToFedbridgeAcrossAKilledNodeThroughADurableQueue() throws Exception {
        // The bridge reads the topic from a durable queue bound to it (destinationMap), which keeps what is published
        // while the link is down; RabbitMQ's STOMP plugin makes one for a durable SUBSCRIBE naming it (x-queue-name).
        StompConnection setup = connectRabbit();
        setup.subscribeAndWait(SubscriptionRequest.builder("/topic/" + q).header("id", "durable-" + q).header("durable", "true")
                .header("auto-delete", "false").header("x-queue-name", q + ".fedbridge").build(), m -> { }, WAIT);
        setup.close();
        Forwarded f = forwardFromRabbitMqAcrossAKill(i -> q + "-" + i, Source.TOPIC_THROUGH_MAPPED_QUEUE);
        assertThat(f.repeats()).isZero();
    }

    @Test
    void shouldLoseNoPersistentMessageFromRabbitMqToFedbridgeAcrossAKilledNodeWithoutAnAmqpMessageId() throws Exception {
        // Nothing in RabbitMQ's redelivery names the message, and a killed node redelivers every message whose ACK it
        // had not written yet (not only the bridge's window): only what F had before the kill, or was in flight, repeats.
        Forwarded f = forwardFromRabbitMqAcrossAKill(i -> null, Source.QUEUE);
        assertThat(f.repeats()).as("redeliveries after the kill").isLessThanOrEqualTo(f.beforeKill() + WINDOW);
    }

    @Test
    void shouldDeliverEveryPersistentTopicMessageOnceFromRabbitMqToFedbridgeAcrossAKilledNodeThroughTheBridgesDurableSubscription()
            throws Exception {
        // No queue set up on RabbitMQ: the bridge subscribes to the topic durably (durable:true, auto-delete:false, its
        // queue named by durableSubscriptionName and the topic), which keeps what is published while the bridge is away.
        Forwarded f = forwardFromRabbitMqAcrossAKill(i -> q + "-" + i, Source.TOPIC_THROUGH_DURABLE_SUBSCRIPTION);
        assertThat(f.repeats()).isZero();
        // What an operator does once the bridge is removed for good (the bridge never deletes it; while it runs, it would
        // declare the queue again):
        closeResources();
        rabbit.ctl("delete_queue", q + ".bridge." + q);
        assertThat(rabbit.ctl("list_queues", "name")).doesNotContain(q + ".bridge." + q);
    }

    /** F's deliveries before the kill, and its repeated deliveries in all. */
    private record Forwarded(int beforeKill, int repeats) {
    }

    /** Where the bridge reads from RabbitMQ. */
    private enum Source {
        /** /queue/q. */
        QUEUE,
        /** /topic/q, from the durable queue q.fedbridge bound to it, made by the test (destinationMap). */
        TOPIC_THROUGH_MAPPED_QUEUE,
        /** /topic/q, through the bridge's own durable subscription (the queue q.bridge.q). */
        TOPIC_THROUGH_DURABLE_SUBSCRIPTION
    }

    /**
     * Sends KILL_COUNT persistent messages into RabbitMQ and forwards them to F across a kill -9: from {@code source}.
     */
    private Forwarded forwardFromRabbitMqAcrossAKill(java.util.function.IntFunction<String> amqpMessageId, Source source) throws Exception {
        boolean topic = source != Source.QUEUE;
        String destination = (topic ? "/topic/" : "/queue/") + q;
        String rabbitQueue = switch (source) {
            case QUEUE -> q;
            case TOPIC_THROUGH_MAPPED_QUEUE -> q + ".fedbridge";
            case TOPIC_THROUGH_DURABLE_SUBSCRIPTION -> q + ".bridge." + q;
        };
        String local = switch (source) {
            case QUEUE -> peer();
            case TOPIC_THROUGH_MAPPED_QUEUE -> peer() + "&destinationMap=" + destination + "=/amq/queue/" + rabbitQueue;
            case TOPIC_THROUGH_DURABLE_SUBSCRIPTION -> peer() + "&durableSubscriptionName=" + q + ".bridge";
        };
        String connector = "static:(" + fed.vmUri() + ")?staticallyIncludedDestinations=" + destination
                + "&heartBeat=1000&initialReconnectDelay=100&maxReconnectDelay=500&prefetchSize=" + WINDOW;
        if (source == Source.TOPIC_THROUGH_DURABLE_SUBSCRIPTION) {
            // The bridge's first run makes its subscription; everything below is published while it is away.
            NetworkConnector first = NetworkConnector.start(connector, NetworkConnector.Local.of(local, null, "rabbit", List.of()));
            try {
                await("the bridge's durable subscription queue").atMost(WAIT).until(() -> rabbit.ctl("list_queues", "name", "durable")
                        .lines().anyMatch(l -> l.trim().matches(java.util.regex.Pattern.quote(rabbitQueue) + "\\s+true")));
            } finally {
                first.close();
            }
        }
        StompConnection producer = connectRabbit();
        CompletableFuture<?>[] sent = new CompletableFuture<?>[KILL_COUNT];
        for (int i = 0; i < KILL_COUNT; i++) {
            Message.Builder m = Message.builder(destination).body("a" + i).persistent(true);
            String id = amqpMessageId.apply(i);
            if (id != null) {
                m.header("amqp-message-id", id);
            }
            sent[i] = producer.send(m.build());
        }
        CompletableFuture.allOf(sent).get();
        producer.close();
        // RabbitMQ's record of the queue on disk before the kill (RabbitMqServer.syncDefinitions): without it a kill -9
        // within moments of the queue's declaration loses the queue and all 5,000 receipted messages (seen in CI).
        rabbit.syncDefinitions();
        Deliveries onFed = new Deliveries(RECOVERY_WAIT);
        connect(fed, "tcp").subscribeAndWait(clientIndividual(destination), onFed.acking(), WAIT);
        if (source == Source.TOPIC_THROUGH_DURABLE_SUBSCRIPTION) {
            assertThat(rabbit.messageCount(rabbitQueue)).as("kept for the bridge while it was away").isEqualTo(KILL_COUNT);
        }
        NetworkConnector nc = NetworkConnector.start(connector, NetworkConnector.Local.of(local, null, "rabbit", List.of()));
        resources.add(0, nc);

        // Killed as soon as forwarding has begun: on a quiet machine the whole flow crosses in a fraction of a second.
        await("forwarding begun").atMost(WAIT).pollInterval(Duration.ofMillis(1)).until(() -> onFed.deliveries("a") >= 1);
        rabbit.kill();
        int beforeKill = onFed.deliveries("a");
        assertThat(beforeKill).as("the kill came in the middle of the flow").isLessThan(KILL_COUNT);
        rabbit.startAfterKill();

        int repeats;
        try {
            repeats = onFed.awaitAtLeastOnce("a", KILL_COUNT);
        } catch (AssertionError e) {
            // Which side holds them: RabbitMQ's count, the bridge's state and counters, F's queue and the node's log.
            throw new AssertionError(e.getMessage() + "; RabbitMQ holds " + rabbit.messageCount(rabbitQueue) + " in " + rabbitQueue
                    + "; bridge " + nc.stats() + "; link " + nc.links() + "; F " + fed.queue(destination) + "; node log:\n" + rabbit.logTail(), e);
        }
        await("acknowledged on RabbitMQ").atMost(RECOVERY_WAIT).until(() -> rabbit.messageCount(rabbitQueue) == 0);
        await("no late repeat").during(Duration.ofMillis(500)).atMost(WAIT).until(() -> onFed.deliveries("a") == KILL_COUNT + repeats);
        System.out.printf("RabbitMQ -> fedbridge across a kill (%s, %s): %d of %d delivered twice (%d before the kill), %d dropped by F%n",
                source, amqpMessageId.apply(0) == null ? "no amqp-message-id" : "amqp-message-id", repeats, KILL_COUNT, beforeKill,
                fed.duplicatesDropped());
        return new Forwarded(beforeKill, repeats);
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
        return RABBIT.guestUri();
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
