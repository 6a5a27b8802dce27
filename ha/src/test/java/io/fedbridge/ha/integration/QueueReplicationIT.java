package io.fedbridge.ha.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fedbridge.broker.Broker;
import io.fedbridge.broker.BrokerConfig;
import io.fedbridge.broker.DestinationPolicy;
import io.fedbridge.broker.internal.QueueReplicas;
import io.fedbridge.broker.management.BrokerManagement;
import io.fedbridge.broker.management.ManagementException;
import io.fedbridge.broker.security.SecurityConfig;
import io.fedbridge.core.AckMode;
import io.fedbridge.core.ClientConfig;
import io.fedbridge.core.FederationHeaders;
import io.fedbridge.core.StompCommand;
import io.fedbridge.core.StompFrame;
import io.fedbridge.core.StompHeaders;
import io.fedbridge.core.internal.FederationProof;
import io.fedbridge.core.Message;
import io.fedbridge.core.ReceivedMessage;
import io.fedbridge.core.StompConnection;
import io.fedbridge.core.SubscriptionRequest;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** One queue replicated between two brokers in no group: content, live adds and removes, restart, promotion. */
class QueueReplicationIT {

    static final Duration WAIT = Duration.ofSeconds(20);

    @TempDir
    Path dir;

    static Broker broker(String name, Path data) {
        return Broker.start(BrokerConfig.builder(name).listen("tcp://127.0.0.1:0").dataDirectory(data).build());
    }

    static List<CompletableFuture<Void>> send(StompConnection c, String queue, int from, int to) {
        List<CompletableFuture<Void>> receipts = new ArrayList<>();
        for (int i = from; i < to; i++) {
            receipts.add(c.send(Message.builder(queue).persistent(true).body("m" + i).build()));
        }
        return receipts;
    }

    static void allReceipted(List<CompletableFuture<Void>> receipts) throws Exception {
        CompletableFuture.allOf(receipts.toArray(CompletableFuture[]::new)).get(WAIT.toSeconds(), TimeUnit.SECONDS);
    }

    /** Takes and acknowledges {@code n} messages; returns their bodies. */
    static List<String> consume(StompConnection c, String queue, int n) throws Exception {
        LinkedBlockingQueue<ReceivedMessage> got = new LinkedBlockingQueue<>();
        var sub = c.subscribe(SubscriptionRequest.builder(queue).ackMode(AckMode.CLIENT_INDIVIDUAL).prefetch(n).build(), got::add);
        List<String> bodies = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            ReceivedMessage m = got.poll(WAIT.toSeconds(), TimeUnit.SECONDS);
            assertThat(m).as("message %d of %d from %s", i, n, queue).isNotNull();
            bodies.add(m.bodyAsString());
            m.ack();
        }
        sub.close();
        return bodies;
    }

    static Map<String, Object> replica(Broker b, String queue) {
        return b.management().replicas().stream().filter(m -> queue.equals(m.get("destination"))).findFirst().orElse(Map.of());
    }

    static void awaitReplica(Broker b, String queue, String state, int messages) {
        await("replica " + queue + " on " + b.name() + " " + state + " with " + messages + " messages").atMost(WAIT)
                .until(() -> {
                    Map<String, Object> r = replica(b, queue);
                    return state.equals(r.get("state")) && Integer.valueOf(messages).equals(r.get("messages"));
                });
    }

    /**
     * Promotes {@code q} on {@code local} once the replica has seen its source's link drop (until then it is refused:
     * the source might still be live), and connects to it; {@code local} is closed if that fails.
     */
    private static StompConnection promoteOnceTheSourceIsGone(Broker local, String q) {
        try {
            await("the replica of " + q + " sees its source gone").atMost(WAIT)
                    .until(() -> Boolean.FALSE.equals(replica(local, q).get("connected")));
            Map<String, Object> promoted = local.management().promoteReplica(q, false);
            assertThat(promoted).containsEntry("promoted", true).containsEntry("messages", 120);
            return StompConnection.connect(local.connectUris().get(0));
        } catch (RuntimeException | Error e) {
            local.close();
            throw e;
        }
    }

    @Test
    void shouldCopyContentAddsAndRemovesSurviveARestartAndPromoteInOrder() throws Exception {
        String q = "/queue/orders";
        Broker source = broker("S", dir.resolve("S"));
        Broker first = broker("L", dir.resolve("L"));
        Broker local;
        try (StompConnection producer = StompConnection.connect(source.connectUris().get(0))) {
            allReceipted(send(producer, q, 0, 100));
            Map<String, Object> started = first.management().replicateQueue(q, source.connectUris().get(0));
            assertThat(started).containsEntry("destination", q);
            awaitReplica(first, q, "ready", 100);

            // Live: more sends and receipted dequeues on the source.
            allReceipted(send(producer, q, 100, 150));
            assertThat(consume(producer, q, 30)).first().isEqualTo("m0");
            awaitReplica(first, q, "ready", 120);

            // The replica is read-only.
            try (StompConnection client = StompConnection.connect(first.connectUris().get(0))) {
                assertThatThrownBy(() -> client.send(Message.builder(q).body("x").build()).get(10, TimeUnit.SECONDS))
                        .hasMessageContaining(q + " on broker L is a read-only replica of the queue on tcp://127.0.0.1:");
            }
            try (StompConnection client = StompConnection.connect(first.connectUris().get(0))) {
                assertThatThrownBy(() -> client.subscribeAndWait(SubscriptionRequest.builder(q).build(), m -> { },
                        Duration.ofSeconds(10)))
                        .hasMessageContaining("SUBSCRIBE refused: " + q + " on broker L is a read-only replica");
            }
            assertThatThrownBy(() -> first.management().purgeQueue(q)).isInstanceOf(ManagementException.class)
                    .hasMessageContaining("cannot purge " + q + " on broker L: it is a read-only replica");

            // The replica's broker restarts; meanwhile the source changes. It resumes from its journal and reconciles.
            first.close();
            assertThat(consume(producer, q, 10)).first().isEqualTo("m30");
            allReceipted(send(producer, q, 150, 160));
            local = broker("L", dir.resolve("L"));
            awaitReplica(local, q, "ready", 120);

            assertThatThrownBy(() -> local.management().promoteReplica(q, false)).isInstanceOf(ManagementException.class)
                    .hasMessageContaining("still follows the live queue on");
        }
        source.close();
        try (StompConnection c = promoteOnceTheSourceIsGone(local, q)) {
            List<String> expected = new ArrayList<>();
            for (int i = 40; i < 160; i++) {
                expected.add("m" + i);
            }
            assertThat(consume(c, q, 120)).containsExactlyElementsOf(expected);
            allReceipted(send(c, q, 1000, 1001)); // an ordinary queue now
        } finally {
            local.close();
        }
        // Promoted stays promoted across a restart.
        try (Broker again = broker("L", dir.resolve("L"))) {
            assertThat(again.management().replicas()).isEmpty();
            assertThat(again.queueReplicas().isReplica(q)).isFalse();
            assertThat(again.queue(q).pending()).isEqualTo(1);
        }
    }

    @Test
    void shouldKeepItsCopyWhenAnotherBrokerAnswersAtTheSourcesAddress() throws Exception {
        Broker source = broker("S", dir.resolve("S"));
        String uri = source.connectUris().get(0);
        try (Broker local = broker("L", dir.resolve("L"))) {
            try (StompConnection producer = StompConnection.connect(uri)) {
                allReceipted(send(producer, "/queue/kept", 0, 10));
            }
            local.management().replicateQueue("/queue/kept", uri);
            awaitReplica(local, "/queue/kept", "ready", 10);
            source.close();
            // A fresh broker (new data, new id, sequences from 1 again) on the same port.
            try (Broker impostor = Broker.start(BrokerConfig.builder("S").listen(uri).dataDirectory(dir.resolve("S2")).build());
                 StompConnection producer = StompConnection.connect(uri)) {
                allReceipted(send(producer, "/queue/kept", 100, 105));
                await("the replica refuses to follow another broker").atMost(WAIT).until(() ->
                        String.valueOf(replica(local, "/queue/kept").get("lastError")).contains(" is another broker now (id "));
                assertThat(replica(local, "/queue/kept")).containsEntry("messages", 10).containsEntry("connected", false);
                assertThat(local.management().promoteReplica("/queue/kept", false)).containsEntry("messages", 10);
            }
        } finally {
            source.close();
        }
    }

    @Test
    void shouldHoldTheSourcesReceiptUntilAReadyReplicaStoredTheMessage() throws Exception {
        try (Broker source = broker("S", dir.resolve("S"));
             StompConnection producer = StompConnection.connect(source.connectUris().get(0));
             StompConnection replica = StompConnection.connect(ClientConfig.builder(source.connectUris().get(0))
                     .connectHeader(FederationHeaders.FEDERATE, FederationProof.create(null, java.time.Clock.systemUTC()))
                     .connectHeader(QueueReplicas.SOURCE_HEADER, "/queue/x").connectHeader("fedbridge-ha-member", "fake").build())) {
            LinkedBlockingQueue<ReceivedMessage> records = new LinkedBlockingQueue<>();
            replica.subscribeOnIoThread(SubscriptionRequest.builder("/fedbridge.ha/queue/x").build(), records::add);
            ReceivedMessage caughtUp = records.poll(WAIT.toSeconds(), TimeUnit.SECONDS);
            assertThat(caughtUp).isNotNull();
            assertThat(caughtUp.header("ha-op")).isEqualTo("caught-up");
            ackRecords(replica, caughtUp.header("ha-index"), 1); // READY once the source has read this ACK

            // Until the source has read that ACK, a receipt does not wait for the replica: send until one does.
            CompletableFuture<Void> receipt = null;
            ReceivedMessage add = null;
            int acked = 1;
            long deadline = System.nanoTime() + WAIT.toNanos();
            while (System.nanoTime() < deadline) {
                CompletableFuture<Void> sent = producer.send(Message.builder("/queue/x").persistent(true).body("a" + acked).build());
                receipt = sent;
                add = records.poll(WAIT.toSeconds(), TimeUnit.SECONDS);
                assertThat(add).isNotNull();
                try {
                    await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(2)).until(() -> !sent.isDone());
                    break; // it waits for the replica
                } catch (org.awaitility.core.ConditionTimeoutException e) {
                    sent.get(10, TimeUnit.SECONDS); // receipted before the source took the replica as READY
                    ackRecords(replica, add.header("ha-index"), ++acked);
                }
            }
            assertThat(receipt.isDone()).as("the receipt waits for the replica").isFalse();
            ackRecords(replica, add.header("ha-index"), acked + 1);
            receipt.get(10, TimeUnit.SECONDS);
        }
    }

    private static void ackRecords(StompConnection replica, String index, int count) {
        StompHeaders h = new StompHeaders();
        h.add(StompHeaders.ID, Integer.toString(count));
        h.add("ha-index", index);
        h.add("ha-count", Integer.toString(count));
        replica.sendFrame(new StompFrame(StompCommand.ACK, h), false);
    }

    @Test
    void shouldRefuseTheStreamToAnOrdinaryClient() throws Exception {
        try (Broker source = Broker.start(BrokerConfig.builder("S").listen("tcp://127.0.0.1:0")
                .security(SecurityConfig.builder().federationSecret("a-secret-of-at-least-16-chars").build()).build());
             Broker local = broker("L", dir.resolve("L"))) {
            ClientConfig noRight = ClientConfig.builder(source.connectUris().get(0))
                    .connectHeader(QueueReplicas.SOURCE_HEADER, "/queue/orders").build();
            assertThatThrownBy(() -> StompConnection.connect(noRight))
                    .hasMessageContaining("fedbridge-queue-replica needs a link that holds the federation right");
            // L has no (or another) federation secret: its replica's link is refused, and replicate says so.
            assertThatThrownBy(() -> local.management().replicateQueue("/queue/orders", source.connectUris().get(0)))
                    .isInstanceOf(ManagementException.class)
                    .hasMessageContaining("cannot replicate /queue/orders from tcp://127.0.0.1:")
                    .hasMessageContaining("federation link refused");
            assertThat(local.management().replicas()).isEmpty();
            assertThat(source.management().queue("/queue/orders")).isNull();
        }
    }

    @Test
    void shouldStartAReplicaFromItsPolicyKey() throws Exception {
        try (Broker source = broker("S", dir.resolve("S"));
             StompConnection producer = StompConnection.connect(source.connectUris().get(0))) {
            allReceipted(send(producer, "/queue/conf", 0, 5));
            DestinationPolicy replica = DestinationPolicy.builder("/queue/conf").replicateFrom(source.connectUris().get(0)).build();
            try (Broker local = Broker.start(BrokerConfig.builder("L").listen("tcp://127.0.0.1:0").dataDirectory(dir.resolve("L"))
                    .policy(replica).build())) {
                awaitReplica(local, "/queue/conf", "ready", 5);
            }
            assertThatThrownBy(() -> Broker.start(BrokerConfig.builder("M").listen("tcp://127.0.0.1:0").policy(replica).build()))
                    .hasMessageContaining("broker M: replicateFrom on /queue/conf: it needs a data directory (data = ...)");
            try (Broker full = broker("N", dir.resolve("N"));
                 StompConnection c = StompConnection.connect(full.connectUris().get(0))) {
                allReceipted(send(c, "/queue/conf", 0, 1));
            }
            assertThatThrownBy(() -> Broker.start(BrokerConfig.builder("N").listen("tcp://127.0.0.1:0")
                    .dataDirectory(dir.resolve("N")).policy(replica).build()))
                    .hasMessageContaining("broker N: replicateFrom on /queue/conf: queue /queue/conf on broker N already holds "
                            + "1 message(s); a replica starts empty");
        }
    }

    @Test
    void shouldNameBadArguments() {
        try (Broker memory = Broker.start(BrokerConfig.builder("M").listen("tcp://127.0.0.1:0").build());
             Broker local = broker("L", dir.resolve("L"))) {
            BrokerManagement m = local.management();
            assertThatThrownBy(() -> m.replicateQueue("/topic/x", "tcp://127.0.0.1:1"))
                    .hasMessage("queue must be a queue such as /queue/orders, but was '/topic/x'");
            assertThatThrownBy(() -> m.replicateQueue("/queue/x", "failover:(tcp://a:1,tcp://b:2)"))
                    .hasMessageContaining("from must be the source broker's URI");
            assertThatThrownBy(() -> m.promoteReplica("/queue/x", false)).hasMessage("queue /queue/x on broker L is not a replica");
            assertThatThrownBy(() -> memory.management().replicateQueue("/queue/x", local.connectUris().get(0)))
                    .hasMessageContaining("it has no data directory");
        }
    }
}
