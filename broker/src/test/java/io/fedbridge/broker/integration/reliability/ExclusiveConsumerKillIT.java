package io.fedbridge.broker.integration.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fedbridge.broker.Broker;
import io.fedbridge.broker.BrokerConfig;
import io.fedbridge.broker.DestinationStats;
import io.fedbridge.broker.cluster.DestinationDefinition;
import io.fedbridge.broker.management.ManagementDestinations;
import io.fedbridge.broker.testing.ChildBroker;
import io.fedbridge.core.AckMode;
import io.fedbridge.core.ClientConfig;
import io.fedbridge.core.Message;
import io.fedbridge.core.ReceivedMessage;
import io.fedbridge.core.StompConnection;
import io.fedbridge.core.Subscription;
import io.fedbridge.core.SubscriptionRequest;
import io.fedbridge.core.bridge.BridgeState;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The federation-wide exclusive consumer when its broker dies: three brokers in a full mesh over TCP, the active
 * consumer on C (a child JVM), a backup on B, producers on A and B. C is killed with SIGKILL; the backup on B takes
 * over, and the consumers together see each producer's messages once, in order, one consumer at a time.
 */
class ExclusiveConsumerKillIT {

    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final String QUEUE = "/queue/exclusive.kill";
    private static final String LINK = "duplex=true&networkTTL=2&initialReconnectDelay=100&maxReconnectDelay=500&heartBeat=1000";
    private static final int BEFORE = 150;
    private static final int AFTER = 150;

    @TempDir
    Path tmp;

    /** Closed last-in first-out after each test: clients before the brokers they talk to. */
    private final Deque<AutoCloseable> resources = new ArrayDeque<>();

    record Got(String consumer, String producer, int seq) {
    }

    private final List<Got> got = new CopyOnWriteArrayList<>();

    @AfterEach
    void closeResources() throws Exception {
        Exception first = null;
        while (!resources.isEmpty()) {
            try {
                resources.pop().close();
            } catch (Exception e) {
                first = first == null ? e : first;
            }
        }
        if (first != null) {
            throw first;
        }
    }

    private <T extends AutoCloseable> T track(T resource) {
        resources.push(resource);
        return resource;
    }

    private StompConnection connect(String uri) {
        return track(StompConnection.connect(ClientConfig.builder(uri).heartBeats(Duration.ZERO).build()));
    }

    private void consume(String uri, String name) {
        connect(uri).subscribeAndWait(SubscriptionRequest.builder(QUEUE).ackMode(AckMode.CLIENT_INDIVIDUAL).prefetch(10).build(),
                m -> {
                    String[] body = m.bodyAsString().split("/");
                    got.add(new Got(name, body[0], Integer.parseInt(body[1])));
                    m.ack();
                }, WAIT);
    }

    /** Defines the queue on {@code uri}'s broker through the management API (C runs in a child JVM). */
    private void define(String uri) throws Exception {
        StompConnection c = connect(uri);
        Subscription replies = c.subscribeAndWait(SubscriptionRequest.of("/temp-queue/replies"), null, WAIT);
        c.send(Message.builder(ManagementDestinations.REQUESTS).header("reply-to", "/temp-queue/replies")
                .body("{\"op\":\"invoke\",\"type\":\"definition\",\"name\":\"" + QUEUE + "\",\"method\":\"define\","
                        + "\"arguments\":{\"maxNumActiveConsumers\":\"1\",\"maxNumBackupConsumers\":\"1\"}}").build())
                .get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        ReceivedMessage answer = replies.receive(WAIT);
        assertThat(answer).as("answer to define").isNotNull();
        assertThat(answer.header(ManagementDestinations.STATUS)).as(answer.bodyAsString()).isEqualTo("ok");
    }

    private static void send(StompConnection producer, String name, int from, int to) throws Exception {
        List<CompletableFuture<Void>> receipts = new ArrayList<>();
        for (int i = from; i <= to; i++) {
            receipts.add(producer.send(Message.builder(QUEUE).body(name + "/" + i).persistent(true).build()));
        }
        CompletableFuture.allOf(receipts.toArray(CompletableFuture[]::new)).get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
    }

    @Test
    void shouldHandOverToABackupOnAnotherBrokerWhenTheActiveConsumersBrokerIsKilled() throws Exception {
        ChildBroker c = track(ChildBroker.start("C", tmp.resolve("C"), 0, null, tmp.resolve("logs")));
        Broker b = track(Broker.start(BrokerConfig.builder("B").listen("tcp://127.0.0.1:0").ioThreads(1)
                .dataDirectory(tmp.resolve("B")).networkConnector("static:(" + c.uri() + ")?" + LINK).build()));
        Broker a = track(Broker.start(BrokerConfig.builder("A").listen("tcp://127.0.0.1:0").ioThreads(1)
                .dataDirectory(tmp.resolve("A"))
                .networkConnector("static:(" + b.connectUris().get(0) + "," + c.uri() + ")?" + LINK).build()));
        await("A's two bridges and B's one up").atMost(WAIT).until(() ->
                a.bridges().stream().filter(s -> s.state() == BridgeState.UP).count() == 2
                        && b.bridges().stream().filter(s -> s.state() == BridgeState.UP).count() == 1);
        define(c.uri());
        for (Broker x : List.of(a, b)) {
            await("the definition made on C reaches " + x.name()).atMost(WAIT).until(() ->
                    x.cluster().definition(QUEUE).filter(DestinationDefinition::isDefined).isPresent());
        }

        consume(c.uri(), "W@C");
        awaitConsumers(List.of(a, b), 1);
        consume(b.connectUris().get(0), "Y@B");
        awaitConsumers(List.of(a, b), 2);

        StompConnection onA = connect(a.connectUris().get(0));
        StompConnection onB = connect(b.connectUris().get(0));
        send(onA, "A", 1, BEFORE);
        send(onB, "B", 1, BEFORE); // B's own consumer is a backup: these go to C too
        await("W on C consumed the first " + 2 * BEFORE).atMost(WAIT).until(() -> got.size() >= 2 * BEFORE);
        assertThat(got).as("only the active consumer receives").allMatch(g -> g.consumer().equals("W@C"));

        c.killAndReap();
        // the first ones may still take the dead broker's route
        send(onA, "A", BEFORE + 1, BEFORE + AFTER);
        send(onB, "B", BEFORE + 1, BEFORE + AFTER);
        await("the backup on B consumed the rest").atMost(WAIT).until(() -> got.size() >= 2 * (BEFORE + AFTER));

        for (String p : List.of("A", "B")) {
            assertThat(got.stream().filter(g -> g.producer().equals(p)).map(Got::seq).toList())
                    .as("%s's messages across the kill: nothing lost, duplicated or reordered", p)
                    .isEqualTo(IntStream.rangeClosed(1, BEFORE + AFTER).boxed().toList());
        }
        assertThat(got).hasSize(2 * (BEFORE + AFTER));
        assertThat(got.subList(2 * BEFORE, got.size())).as("the backup on B took over").allMatch(g -> g.consumer().equals("Y@B"));
        DestinationStats statsOnB = b.queue(QUEUE);
        assertThat(statsOnB.consumers()).as("B's consumers of %s once C's are gone", QUEUE).isEqualTo(1);
    }

    private static void awaitConsumers(List<Broker> brokers, int n) {
        for (Broker x : brokers) {
            await(x.name() + " knows " + n + " consumer(s) of " + QUEUE).atMost(WAIT).until(() -> {
                DestinationStats s = x.queue(QUEUE);
                return s != null && s.consumers() == n;
            });
        }
    }
}
