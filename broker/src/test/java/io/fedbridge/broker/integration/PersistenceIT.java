package io.fedbridge.broker.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fedbridge.broker.Broker;
import io.fedbridge.broker.BrokerConfig;
import io.fedbridge.broker.BrokerException;
import io.fedbridge.core.AckMode;
import io.fedbridge.core.ClientConfig;
import io.fedbridge.core.FederationHeaders;
import io.fedbridge.core.Message;
import io.fedbridge.core.ReceivedMessage;
import io.fedbridge.core.StompConnection;
import io.fedbridge.core.Subscription;
import io.fedbridge.core.SubscriptionRequest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A broker with a data directory keeps persistent messages and durable subscriptions across restarts. */
class PersistenceIT extends BrokerTestSupport {

    private static final Duration WAIT = Duration.ofSeconds(5);

    @TempDir
    Path data;

    private Broker start(String name) {
        return Broker.start(BrokerConfig.builder(name).listen("tcp://127.0.0.1:0").dataDirectory(data).build());
    }

    /** Announces itself as a federation link: several tests here send ids and replays as a bridge would. */
    private StompConnection client(Broker b, String clientId) {
        return connect(ClientConfig.builder(b.connectUris().get(0)).heartBeats(Duration.ZERO).clientId(clientId)
                .connectHeader(io.fedbridge.core.FederationHeaders.FEDERATE, "true").build());
    }

    @Test
    void shouldStillRecogniseAConsumedMessagesFederationIdAfterARestart() throws Exception {
        try (Broker b = start("dedupe-1")) {
            StompConnection p = client(b, null);
            Subscription s = client(b, null).subscribeAndWait(SubscriptionRequest.of("/queue/once"), null, WAIT);
            for (int i = 0; i < 50; i++) {
                p.send(Message.builder("/queue/once").body("m" + i).persistent(true)
                        .header(FederationHeaders.FEDERATION_ID, "origin:" + i).build()).get();
            }
            for (int i = 0; i < 50; i++) {
                assertThat(s.receive(WAIT)).isNotNull(); // consumed: gone from the journal, known only to the window
            }
        }
        try (Broker b = start("dedupe-2")) {
            Subscription s = client(b, null).subscribeAndWait(SubscriptionRequest.of("/queue/once"), null, WAIT);
            StompConnection p = client(b, null);
            for (int i = 0; i < 50; i++) { // a bridge resending after the restart
                p.send(Message.builder("/queue/once").body("again").persistent(true)
                        .header(FederationHeaders.FEDERATION_ID, "origin:" + i).build()).get();
            }
            p.send(Message.builder("/queue/once").body("new").persistent(true).header(FederationHeaders.FEDERATION_ID, "origin:50").build()).get();
            assertThat(s.receive(WAIT).bodyAsString()).isEqualTo("new");
            assertThat(b.duplicatesDropped()).isEqualTo(50);
        }
    }

    @Test
    void shouldRecoverUnacknowledgedPersistentMessagesInOrderWithHeadersAndRedeliveryCounts() throws Exception {
        String id;
        try (Broker b = start("p1")) {
            id = b.id();
            StompConnection p = client(b, null);
            List<CompletableFuture<Void>> sends = new ArrayList<>();
            for (int i = 0; i < 500; i++) {
                sends.add(p.send(Message.builder("/queue/keep").body("m" + i).persistent(true).header("seq", Integer.toString(i)).build()));
            }
            p.send(Message.of("/queue/keep", "not persistent")).get();
            CompletableFuture.allOf(sends.toArray(CompletableFuture[]::new)).get();
            // Consume and ack the first 100; take the next one without acking (redelivery count 1 after restart).
            StompConnection c = client(b, null);
            Subscription s = c.subscribeAndWait(SubscriptionRequest.builder("/queue/keep").ackMode(AckMode.CLIENT_INDIVIDUAL).prefetch(101).build(), null, WAIT);
            for (int i = 0; i < 100; i++) {
                s.receive(WAIT).ack();
            }
            assertThat(s.receive(WAIT).bodyAsString()).isEqualTo("m100");
            c.send(Message.of("/queue/fence", "fence")).get(); // acks before this are processed
            c.close();
            p.close();
        }
        try (Broker b = start("p1")) {
            assertThat(b.id()).as("the broker id survives restarts").isEqualTo(id);
            Subscription s = client(b, null).subscribeAndWait(SubscriptionRequest.of("/queue/keep"), null, WAIT);
            ReceivedMessage first = s.receive(WAIT);
            assertThat(first.bodyAsString()).isEqualTo("m100");
            assertThat(first.redeliveryCount()).isEqualTo(1);
            assertThat(first.header("seq")).isEqualTo("100");
            assertThat(first.header("persistent")).isEqualTo("true");
            for (int i = 101; i < 500; i++) {
                assertThat(s.receive(WAIT).bodyAsString()).isEqualTo("m" + i);
            }
            assertThat(s.receive(Duration.ofMillis(300))).as("non-persistent messages do not survive").isNull();
        }
    }

    @Test
    void shouldKeepDurableSubscriptionsAndTheirBacklogAcrossARestart() throws Exception {
        Map<String, String> durable = Map.of("durable-subscription-name", "audit");
        try (Broker b = start("d1")) {
            StompConnection c = client(b, "app-1");
            Subscription s = c.subscribeAndWait(SubscriptionRequest.builder("/topic/events.>").selector("level = 'high'")
                    .header("durable-subscription-name", "audit").build(), null, WAIT);
            StompConnection p = client(b, null);
            p.send(Message.builder("/topic/events.a").body("seen").persistent(true).header("level", "high").build()).get();
            assertThat(s.receive(WAIT).bodyAsString()).isEqualTo("seen");
            c.close(); // durable: the subscription stays and collects while the client is away
            p.send(Message.builder("/topic/events.b").body("while-away-1").persistent(true).header("level", "high").build()).get();
            p.send(Message.builder("/topic/events.b").body("filtered").persistent(true).header("level", "low").build()).get();
            p.send(Message.builder("/topic/events.c").body("while-away-2").persistent(true).header("level", "high").build()).get();
        }
        try (Broker b = start("d1")) {
            StompConnection c = client(b, "app-1");
            Subscription s = c.subscribeAndWait(SubscriptionRequest.builder("/topic/events.>").selector("level = 'high'")
                    .header("durable-subscription-name", "audit").build(), null, WAIT);
            assertThat(s.receive(WAIT).bodyAsString()).isEqualTo("while-away-1");
            assertThat(s.receive(WAIT).bodyAsString()).isEqualTo("while-away-2");
            assertThat(s.receive(Duration.ofMillis(300))).isNull();
            // Explicit removal: UNSUBSCRIBE with the durable name.
            s.unsubscribe(durable);
            c.send(Message.of("/queue/fence", "fence")).get();
            client(b, null).send(Message.builder("/topic/events.d").body("after-removal").persistent(true).header("level", "high").build()).get();
        }
        try (Broker b = start("d1")) {
            assertThat(b.queues()).noneMatch(q -> q.name().startsWith("durable:"));
        }
    }

    @Test
    void shouldRefuseADurableSubscriptionWithoutClientId() {
        try (Broker b = start("d2")) {
            StompConnection c = client(b, null);
            assertThatThrownBy(() -> c.subscribeAndWait(SubscriptionRequest.builder("/topic/x")
                    .header("durable-subscription-name", "n").build(), null, WAIT))
                    .hasMessageContaining("needs a client-id");
        }
    }

    @Test
    void shouldAcceptActiveMqDurableSubscriptionHeaders() throws Exception {
        try (Broker b = start("d3")) {
            StompConnection c = client(b, "amq-client");
            Subscription s = c.subscribeAndWait(SubscriptionRequest.builder("/topic/amq")
                    .header("activemq.subscriptionName", "legacy").build(), null, WAIT);
            c.close();
            client(b, null).send(Message.builder("/topic/amq").body("kept").persistent(true).build()).get();
            Subscription again = client(b, "amq-client").subscribeAndWait(SubscriptionRequest.builder("/topic/amq")
                    .header("activemq.subscriptionName", "legacy").build(), null, WAIT);
            assertThat(again.receive(WAIT).bodyAsString()).isEqualTo("kept");
            assertThat(s.isActive()).isFalse();
        }
    }

    @Test
    void shouldFailToStartOnACorruptOrForeignDataDirectoryNamingTheProblem() throws Exception {
        Files.writeString(data.resolve("broker.id"), "not-an-id");
        assertThatThrownBy(() -> start("bad1")).isInstanceOf(BrokerException.class)
                .hasMessageContaining("broker.id").hasMessageContaining("not-an-id");
        Files.delete(data.resolve("broker.id"));
        Files.createDirectories(data.resolve("journal"));
        Files.writeString(data.resolve("journal").resolve("notes.txt"), "hello");
        assertThatThrownBy(() -> start("bad2")).isInstanceOf(BrokerException.class).hasMessageContaining("notes.txt");
    }

    @Test
    void shouldStartOverADamagedDedupeWindowKeepingItAsideAndItsMessages() throws Exception {
        try (Broker b = start("window-1")) {
            client(b, null).send(Message.builder("/queue/kept").body("m").persistent(true).build()).get();
        }
        // What a kill -9 left behind once (MapDB read past a chunk it never wrote): here, a file that is no MapDB file.
        Files.writeString(data.resolve("dedupe.db"), "damaged");
        try (Broker b = start("window-2")) {
            Subscription s = client(b, null).subscribeAndWait(SubscriptionRequest.of("/queue/kept"), null, WAIT);
            assertThat(s.receive(WAIT).bodyAsString()).as("the journal's messages are untouched").isEqualTo("m");
        }
        try (var files = Files.list(data)) {
            Path aside = files.filter(f -> f.getFileName().toString().startsWith("dedupe.db.damaged-")).findFirst().orElseThrow();
            assertThat(aside.resolve("dedupe.db")).as("kept for a post-mortem").exists();
        }
    }

    @Test
    void shouldStillRecogniseACopyOfALocallyConsumedMessageAfterARestart() throws Exception {
        try (Broker b = start("consumed-1")) {
            Subscription s = client(b, null).subscribeAndWait(SubscriptionRequest.of("/queue/taken"), null, WAIT);
            client(b, null).send(Message.builder("/queue/taken").body("first").persistent(true)
                    .header(FederationHeaders.FEDERATION_ID, "origin:1").build()).get();
            assertThat(s.receive(WAIT).bodyAsString()).isEqualTo("first");
        }
        try (Broker b = start("consumed-2")) {
            Subscription s = client(b, null).subscribeAndWait(SubscriptionRequest.of("/queue/taken"), null, WAIT);
            StompConnection peer = client(b, null);
            // another broker's copy, replayed here (a replay count makes its dedupe key new)
            peer.send(Message.builder("/queue/taken").body("copy").persistent(true).header(FederationHeaders.FEDERATION_ID, "origin:1")
                    .header(FederationHeaders.BROKER_PATH, "other").header(FederationHeaders.REPLAYS, "1").build()).get();
            peer.send(Message.builder("/queue/taken").body("fence").persistent(true).build()).get();
            assertThat(s.receive(WAIT).bodyAsString()).isEqualTo("fence");
            assertThat(b.duplicatesDropped()).isEqualTo(1);
        }
    }

    @Test
    void shouldFailToStartWhenTheDataDirectoryCannotBeCreated() throws Exception {
        // A plain file where the directory should be: fails for every user, root included.
        Path file = data.resolve("a-file");
        Files.writeString(file, "x");
        assertThatThrownBy(() -> Broker.start(BrokerConfig.builder("nodir").dataDirectory(file.resolve("sub")).build()))
                .isInstanceOf(BrokerException.class).hasMessageContaining("cannot use data directory").hasMessageContaining("a-file");
    }

    @Test
    void shouldNotLetTwoBrokersShareADataDirectory() {
        try (Broker b = start("lock1")) {
            assertThatThrownBy(() -> start("lock2")).isInstanceOf(BrokerException.class).hasMessageContaining(data.toString());
        }
    }

    @Test
    void shouldEnqueuePipelinedPersistentSendsInTheOrderTheyWereSent() throws Exception {
        try (Broker b = start("order")) {
            Subscription s = client(b, null).subscribeAndWait(SubscriptionRequest.of("/queue/ordered"), null, WAIT);
            StompConnection p = client(b, null);
            List<CompletableFuture<Void>> sends = new ArrayList<>();
            for (int i = 0; i < 2000; i++) {
                // persistent and not, interleaved: stores complete at their own pace, the queue keeps send order
                sends.add(p.send(Message.builder("/queue/ordered").body("m" + i).persistent(i % 3 != 0).build()));
            }
            CompletableFuture.allOf(sends.toArray(CompletableFuture[]::new)).get();
            for (int i = 0; i < 2000; i++) {
                assertThat(s.receive(WAIT).bodyAsString()).isEqualTo("m" + i);
            }
        }
    }
}
