package io.fedbridge.broker.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fedbridge.broker.Broker;
import io.fedbridge.broker.BrokerConfig;
import io.fedbridge.broker.management.ManagementDestinations;
import io.fedbridge.core.AckMode;
import io.fedbridge.core.Message;
import io.fedbridge.core.ReceivedMessage;
import io.fedbridge.core.StompConnection;
import io.fedbridge.core.Subscription;
import io.fedbridge.core.SubscriptionRequest;
import io.fedbridge.core.bridge.BridgeState;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The management API over STOMP, against real brokers over TCP: JSON requests to /queue/fedbridge.management answered
 * on the reply-to, and what its methods change is what clients then observe.
 */
class ManagementIT extends BrokerTestSupport {

    private static final Duration WAIT = Duration.ofSeconds(10);
    private static final ObjectMapper JSON = new ObjectMapper();
    private final Map<StompConnection, Subscription> replies = new HashMap<>();

    private JsonNode request(StompConnection c, String json) throws Exception {
        Subscription s = replies.get(c);
        if (s == null) {
            s = c.subscribeAndWait(SubscriptionRequest.of("/temp-queue/replies"), null, WAIT);
            replies.put(c, s);
        }
        String correlation = UUID.randomUUID().toString();
        c.send(Message.builder(ManagementDestinations.REQUESTS).header("reply-to", "/temp-queue/replies")
                .header(ManagementDestinations.CORRELATION_ID, correlation).body(json).build()).get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        ReceivedMessage m = s.receive(WAIT);
        assertThat(m).as("answer to " + json).isNotNull();
        assertThat(m.header(ManagementDestinations.CORRELATION_ID)).isEqualTo(correlation);
        JsonNode answer = JSON.readTree(m.body());
        assertThat(m.header(ManagementDestinations.STATUS)).isEqualTo(answer.path("status").asText());
        return answer;
    }

    private static JsonNode ok(JsonNode answer) {
        assertThat(answer.path("status").asText()).as(answer.toString()).isEqualTo("ok");
        return answer;
    }

    private void send(StompConnection c, String destination, int n) throws Exception {
        for (int i = 1; i <= n; i++) {
            c.send(Message.builder(destination).header("seq", Integer.toString(i)).body("m" + i).build()).get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        }
    }

    @Test
    void shouldListQueuesAndNameAMissingOneInTheError() throws Exception {
        Broker a = startBroker();
        StompConnection admin = connect(a, "tcp");
        send(admin, "/queue/orders", 3);
        JsonNode answer = ok(request(admin, "{\"version\":1,\"op\":\"get\",\"type\":\"queue\",\"name\":\"/queue/orders\"}"));
        JsonNode q = answer.path("objects").get(0);
        assertThat(q.path("destination").asText()).isEqualTo("/queue/orders");
        assertThat(q.path("pending").asInt()).isEqualTo(3);
        assertThat(q.path("enqueued").asLong()).isEqualTo(3);
        assertThat(q.path("timestamp").asLong()).isPositive();
        assertThat(answer.path("broker").asText()).isEqualTo(a.name());

        JsonNode missing = request(admin, "{\"op\":\"get\",\"type\":\"queue\",\"name\":\"/queue/nope\"}");
        assertThat(missing.path("status").asText()).isEqualTo("error");
        assertThat(missing.path("errorType").asText()).isEqualTo("not-found");
        assertThat(missing.path("error").asText()).isEqualTo("no queue /queue/nope on broker " + a.name());
        JsonNode purgeMissing = request(admin, "{\"op\":\"invoke\",\"type\":\"queue\",\"name\":\"/queue/nope\",\"method\":\"purge\"}");
        assertThat(purgeMissing.path("error").asText()).isEqualTo("no queue /queue/nope on broker " + a.name());

        assertThat(request(admin, "not json").path("error").asText()).contains("must be JSON");
        assertThat(request(admin, "{\"op\":\"fetch\"}").path("error").asText()).contains("op must be get or invoke, but was 'fetch'");
        assertThat(request(admin, "{\"op\":\"get\",\"type\":\"queues\"}").path("error").asText()).contains("type must be one of");
        assertThat(request(admin, "{\"op\":\"invoke\",\"type\":\"queue\",\"name\":\"/queue/orders\",\"method\":\"explode\"}")
                .path("error").asText()).contains("no method 'explode' on queue");
        assertThat(admin.isConnected()).as("bad requests are answered, the connection stays").isTrue();
        assertThat(a.queue(ManagementDestinations.REQUESTS)).as("requests are never queued").isNull();
    }

    @Test
    void shouldAnswerEveryObjectTypeAndASnapshot() throws Exception {
        Broker a = startBroker();
        StompConnection admin = connect(a, "tcp");
        admin.subscribeAndWait(SubscriptionRequest.of("/topic/prices"), null, WAIT);
        for (String type : List.of("broker", "listener", "connection", "consumer", "queue", "topic", "durable-subscription",
                "bridge", "discovery-agent")) {
            ok(request(admin, "{\"op\":\"get\",\"type\":\"" + type + "\"}"));
        }
        JsonNode broker = ok(request(admin, "{\"op\":\"get\",\"type\":\"broker\"}")).path("objects").get(0);
        assertThat(broker.path("name").asText()).isEqualTo(a.name());
        assertThat(broker.path("securityMode").asText()).isEqualTo("open");
        assertThat(broker.path("durability").asText()).isEqualTo("MEMORY");
        assertThat(broker.path("version").asText()).isNotBlank();
        JsonNode consumers = ok(request(admin, "{\"op\":\"get\",\"type\":\"consumer\"}")).path("objects");
        assertThat(consumers.findValuesAsText("destination")).contains("/topic/prices");
        JsonNode topics = ok(request(admin, "{\"op\":\"get\",\"type\":\"topic\",\"name\":\"/topic/prices\"}")).path("objects");
        assertThat(topics.get(0).path("consumers").asInt()).isEqualTo(1);
        JsonNode snapshot = ok(request(admin, "{\"op\":\"get\",\"type\":\"snapshot\"}")).path("objects").get(0);
        assertThat(snapshot.path("connections").size()).isGreaterThanOrEqualTo(1);
        assertThat(snapshot.path("listeners").findValuesAsText("scheme")).contains("tcp", "vm");
    }

    @Test
    void shouldPurgeSoThatAConsumerGetsOnlyLaterMessages() throws Exception {
        Broker a = startBroker();
        StompConnection admin = connect(a, "tcp");
        send(admin, "/queue/purge", 5);
        JsonNode r = ok(request(admin, "{\"op\":\"invoke\",\"type\":\"queue\",\"name\":\"/queue/purge\",\"method\":\"purge\"}"));
        assertThat(r.path("result").path("purged").asInt()).isEqualTo(5);
        admin.send(Message.of("/queue/purge", "after")).get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        Subscription s = connect(a, "tcp").subscribeAndWait(SubscriptionRequest.of("/queue/purge"), null, WAIT);
        assertThat(s.receive(WAIT).bodyAsString()).isEqualTo("after");
        assertThat(s.receive(Duration.ofMillis(200))).isNull();
    }

    @Test
    void shouldBrowseTheFirstMessagesWithHeadersAndLeaveThemQueued() throws Exception {
        Broker a = startBroker();
        StompConnection admin = connect(a, "tcp");
        send(admin, "/queue/browse", 4);
        JsonNode r = ok(request(admin, "{\"op\":\"invoke\",\"type\":\"queue\",\"name\":\"/queue/browse\",\"method\":\"browse\","
                + "\"arguments\":{\"count\":2}}"));
        JsonNode messages = r.path("result").path("messages");
        assertThat(messages.size()).isEqualTo(2);
        assertThat(messages.get(0).path("body").asText()).isEqualTo("m1");
        assertThat(messages.get(1).path("headers").path("seq").asText()).isEqualTo("2");
        assertThat(messages.get(0).path("messageId").asText()).isNotBlank();
        assertThat(a.queue("/queue/browse").pending()).isEqualTo(4);
    }

    @Test
    void shouldMoveMessagesToAnotherQueueWhereAConsumerReceivesThemInOrder() throws Exception {
        Broker a = startBroker();
        StompConnection admin = connect(a, "tcp");
        send(admin, "/queue/failed", 5);
        JsonNode r = ok(request(admin, "{\"op\":\"invoke\",\"type\":\"queue\",\"name\":\"/queue/failed\",\"method\":\"move\","
                + "\"arguments\":{\"to\":\"/queue/retry\",\"count\":3}}"));
        assertThat(r.path("result").path("moved").asInt()).isEqualTo(3);
        Subscription retry = connect(a, "tcp").subscribeAndWait(SubscriptionRequest.of("/queue/retry"), null, WAIT);
        List<String> got = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            got.add(retry.receive(WAIT).header("seq"));
        }
        assertThat(got).containsExactly("1", "2", "3");
        assertThat(a.queue("/queue/failed").pending()).isEqualTo(2);
        JsonNode bad = request(admin, "{\"op\":\"invoke\",\"type\":\"queue\",\"name\":\"/queue/failed\",\"method\":\"move\","
                + "\"arguments\":{\"to\":\"retry\"}}");
        assertThat(bad.path("error").asText()).contains("to must be a destination").contains("'retry'");
    }

    @Test
    void shouldCreateAndDeleteQueuesButNotOneWithConsumers() throws Exception {
        Broker a = startBroker();
        StompConnection admin = connect(a, "tcp");
        JsonNode created = ok(request(admin, "{\"op\":\"invoke\",\"type\":\"queue\",\"name\":\"/queue/new\",\"method\":\"create\"}"));
        assertThat(created.path("result").path("created").asBoolean()).isTrue();
        assertThat(a.queue("/queue/new")).isNotNull();
        send(admin, "/queue/new", 2);
        JsonNode deleted = ok(request(admin, "{\"op\":\"invoke\",\"type\":\"queue\",\"name\":\"/queue/new\",\"method\":\"delete\"}"));
        assertThat(deleted.path("result").path("purged").asInt()).isEqualTo(2);
        assertThat(a.queue("/queue/new")).isNull();

        connect(a, "tcp").subscribeAndWait(SubscriptionRequest.of("/queue/busy"), null, WAIT);
        JsonNode refused = request(admin, "{\"op\":\"invoke\",\"type\":\"queue\",\"name\":\"/queue/busy\",\"method\":\"delete\"}");
        assertThat(refused.path("error").asText()).contains("queue /queue/busy on broker " + a.name() + " has 1 consumer(s)");
        assertThat(request(admin, "{\"op\":\"invoke\",\"type\":\"queue\",\"name\":\"/topic/x\",\"method\":\"create\"}")
                .path("error").asText()).contains("must be a queue such as /queue/orders, but was '/topic/x'");
    }

    @Test
    void shouldCloseAConnectionWhoseClientThenSeesItClosed() throws Exception {
        Broker a = startBroker();
        StompConnection admin = connect(a, "tcp");
        StompConnection victim = connect(a, "tcp");
        JsonNode connections = ok(request(admin, "{\"op\":\"get\",\"type\":\"connection\",\"name\":\"" + victim.sessionId() + "\"}"));
        assertThat(connections.path("objects").get(0).path("user").asText()).isEqualTo("anonymous");
        ok(request(admin, "{\"op\":\"invoke\",\"type\":\"connection\",\"name\":\"" + victim.sessionId() + "\",\"method\":\"close\"}"));
        await("victim closed").atMost(WAIT).until(() -> !victim.isConnected());
        assertThat(victim.closeCause()).hasMessageContaining("closed by management request");
        assertThat(request(admin, "{\"op\":\"invoke\",\"type\":\"connection\",\"name\":\"" + victim.sessionId()
                + "\",\"method\":\"close\"}").path("error").asText()).isEqualTo("no connection " + victim.sessionId() + " on broker " + a.name());
    }

    @Test
    void shouldStartAndStopBridgesByAddingAndRemovingANetworkConnectorAndPublishLinkEvents() throws Exception {
        Broker a = startBroker();
        Broker b = startBroker();
        StompConnection admin = connect(a, "tcp");
        Subscription events = admin.subscribeAndWait(SubscriptionRequest.of(ManagementDestinations.EVENTS), null, WAIT);
        Subscription onB = connect(b, "tcp").subscribeAndWait(SubscriptionRequest.of("/queue/across"), null, WAIT);
        String connector = "static:(" + b.connectUris().get(0) + ")?heartBeat=0";
        ok(request(admin, "{\"op\":\"invoke\",\"type\":\"broker\",\"method\":\"addNetworkConnector\",\"arguments\":{\"uri\":\""
                + connector + "\"}}"));
        await("bridge up").atMost(WAIT).until(() -> a.bridges().stream().anyMatch(s -> s.state() == BridgeState.UP));
        assertThat(eventTypes(events, "link-up")).contains("link-up");
        JsonNode bridge = ok(request(admin, "{\"op\":\"get\",\"type\":\"bridge\"}")).path("objects").get(0);
        assertThat(bridge.path("peer").asText()).isEqualTo(b.connectUris().get(0));
        assertThat(bridge.path("state").asText()).isEqualTo("UP");
        await("demand from B").atMost(WAIT).until(() -> a.bridges().get(0).remoteConsumers() > 0);
        admin.send(Message.of("/queue/across", "hop")).get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        assertThat(onB.receive(WAIT).bodyAsString()).isEqualTo("hop");

        ok(request(admin, "{\"op\":\"invoke\",\"type\":\"broker\",\"method\":\"removeNetworkConnector\",\"arguments\":{\"uri\":\""
                + connector + "\"}}"));
        assertThat(a.networkConnectors()).isEmpty();
        assertThat(eventTypes(events, "link-down")).contains("link-down");
        admin.send(Message.of("/queue/across", "stays")).get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        assertThat(onB.receive(Duration.ofMillis(300))).as("no bridge: nothing reaches B").isNull();
        assertThat(request(admin, "{\"op\":\"invoke\",\"type\":\"broker\",\"method\":\"removeNetworkConnector\",\"arguments\":"
                + "{\"uri\":\"static:(tcp://127.0.0.1:1)\"}}").path("errorType").asText()).isEqualTo("not-found");
    }

    /** Reads events until one of {@code type}; returns the types seen. */
    private static List<String> eventTypes(Subscription events, String type) throws Exception {
        List<String> seen = new ArrayList<>();
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (!seen.contains(type) && System.nanoTime() < deadline) {
            ReceivedMessage m = events.receive(Duration.ofMillis(200));
            if (m != null) {
                JsonNode e = JSON.readTree(m.body());
                assertThat(m.header(ManagementDestinations.EVENT_TYPE)).isEqualTo(e.path("type").asText());
                seen.add(e.path("type").asText());
            }
        }
        return seen;
    }

    @Test
    void shouldPublishDestinationConsumerAndDeadLetterEvents() throws Exception {
        Broker a = startBroker(BrokerConfig.builder("events-" + System.nanoTime()).policy(io.fedbridge.broker.DestinationPolicy.builder("/queue/flaky")
                .maxRedeliveries(0).build()));
        StompConnection admin = connect(a, "tcp");
        Subscription events = admin.subscribeAndWait(SubscriptionRequest.of(ManagementDestinations.EVENTS), null, WAIT);
        StompConnection app = connect(a, "tcp");
        Subscription s = app.subscribeAndWait(SubscriptionRequest.builder("/queue/flaky").ackMode(AckMode.CLIENT_INDIVIDUAL).build(), null, WAIT);
        app.send(Message.of("/queue/flaky", "poison")).get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        ReceivedMessage m = s.receive(WAIT);
        m.nack();
        List<String> seen = eventTypes(events, "message-dead-lettered");
        assertThat(seen).contains("destination-created", "consumer-added", "message-dead-lettered");
    }

    @Test
    void shouldPurgeAndDeleteQueuesAndListConnectionsOverJmxToo() throws Exception {
        Broker a = startBroker();
        StompConnection c = connect(a, "tcp");
        send(c, "/queue/jmx", 3);
        var server = java.lang.management.ManagementFactory.getPlatformMBeanServer();
        var name = a.jmx().brokerName();
        assertThat((String[]) server.getAttribute(name, "Connections")).contains(c.sessionId());
        assertThat(server.invoke(name, "purgeQueue", new Object[] {"/queue/jmx"}, new String[] {"java.lang.String"})).isEqualTo(3);
        assertThat(a.queue("/queue/jmx").pending()).isZero();
        server.invoke(name, "deleteQueue", new Object[] {"/queue/jmx"}, new String[] {"java.lang.String"});
        assertThat(a.queue("/queue/jmx")).isNull();
        assertThat(org.assertj.core.api.Assertions.catchThrowable(() -> server.invoke(name, "purgeQueue", new Object[] {"/queue/jmx"},
                new String[] {"java.lang.String"}))).hasStackTraceContaining("no queue /queue/jmx on broker " + a.name());
    }

    @Test
    void shouldRefuseEveryClientsSendToTheEventsTopicOnAnOpenBroker() throws Exception {
        Broker a = startBroker();
        StompConnection c = connect(a, "tcp");
        var f = c.send(Message.of(ManagementDestinations.EVENTS, "{\"type\":\"link-down\"}"));
        assertThat(org.assertj.core.api.Assertions.catchThrowable(() -> f.get(WAIT.toMillis(), TimeUnit.MILLISECONDS)))
                .hasMessageContaining("published by the broker only");
    }

    @Test
    void shouldKeepEventsOffBridgesEvenForAWildcardSubscriberOnThePeer() throws Exception {
        Broker a = startBroker();
        Broker b = startBroker();
        a.addNetworkConnector("static:(" + b.connectUris().get(0) + ")?heartBeat=0&duplex=true");
        await("bridge up").atMost(WAIT).until(() -> a.bridges().stream().anyMatch(s -> s.state() == BridgeState.UP));
        Subscription everything = connect(b, "tcp").subscribeAndWait(SubscriptionRequest.of("/topic/>"), null, WAIT);
        Subscription eventsOnA = connect(a, "tcp").subscribeAndWait(SubscriptionRequest.of(ManagementDestinations.EVENTS), null, WAIT);
        await("demand for /topic/> on A").atMost(WAIT).until(() -> a.bridges().get(0).remoteConsumers() > 0);
        a.management().createQueue("/queue/noise");
        assertThat(eventTypes(eventsOnA, "destination-created")).contains("destination-created");
        connect(a, "tcp").send(Message.of("/topic/news", "real")).get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        List<String> fromA = new ArrayList<>();
        ReceivedMessage m;
        do {
            m = everything.receive(WAIT);
            assertThat(m).as("/topic/news reaches B").isNotNull();
            if (m.destination().equals(ManagementDestinations.EVENTS) && JSON.readTree(m.body()).path("broker").asText().equals(a.name())) {
                fromA.add(m.bodyAsString());
            }
        } while (!m.destination().equals("/topic/news"));
        assertThat(fromA).as("A's events stay on A").isEmpty();
        assertThat(a.bridges().get(0).state()).isEqualTo(BridgeState.UP);
    }

    /**
     * A promotion closes every connection of the member's backup broker, the requester's too: the answer must reach the
     * requester first. The gate here is the smallest member there is: its promotion closes the connections at once, on
     * the thread that answers.
     */
    @Test
    void shouldAnswerAPromotionBeforeThePromotionClosesTheRequestersConnection() throws Exception {
        java.util.concurrent.atomic.AtomicReference<Broker> broker = new java.util.concurrent.atomic.AtomicReference<>();
        java.util.concurrent.atomic.AtomicInteger promotions = new java.util.concurrent.atomic.AtomicInteger();
        io.fedbridge.broker.internal.HaGate gate = new io.fedbridge.broker.internal.HaGate() {
            @Override
            public String refuseClient(boolean adminRequest) {
                return null;
            }

            @Override
            public String primaryUri() {
                return null;
            }

            @Override
            public boolean isBackup() {
                return false;
            }

            @Override
            public String refuseBackup(io.fedbridge.core.StompHeaders connect, io.fedbridge.broker.security.Identity identity,
                    io.fedbridge.core.StompHeaders connected) {
                return "no backups here";
            }

            @Override
            public io.netty.channel.ChannelHandler newReplicationHandler(io.fedbridge.core.StompHeaders connect) {
                throw new UnsupportedOperationException();
            }

            @Override
            public Map<String, Object> status() {
                return Map.of("group", "g");
            }

            @Override
            public Promotion promote(boolean force) {
                return new Promotion(Map.of("promoting", true, "force", force), () -> {
                    promotions.incrementAndGet();
                    broker.get().closeConnections();
                });
            }
        };
        Broker b = Broker.start(BrokerConfig.builder("promoted-" + UUID.randomUUID().toString().substring(0, 8))
                .listen("tcp://127.0.0.1:0").build(), null, gate);
        resources.add(b);
        broker.set(b);
        for (int i = 0; i < 20; i++) {
            StompConnection c = connect(b, "tcp");
            JsonNode answer = ok(request(c, "{\"op\":\"invoke\",\"type\":\"ha\",\"method\":\"promote\",\"arguments\":{\"force\":true}}"));
            assertThat(answer.path("result").path("promoting").asBoolean()).isTrue();
            assertThat(answer.path("result").path("force").asBoolean()).isTrue();
            await("the promotion closes the requester's connection, after its answer").atMost(WAIT).until(() -> !c.isConnected());
            c.close();
            replies.remove(c);
        }
        assertThat(promotions).hasValue(20);
    }
}
