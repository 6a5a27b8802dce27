package io.fedbridge.broker.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fedbridge.broker.Broker;
import io.fedbridge.broker.DestinationPolicy;
import io.fedbridge.broker.DestinationStats;
import io.fedbridge.core.AckMode;
import io.fedbridge.core.FederationHeaders;
import io.fedbridge.core.Message;
import io.fedbridge.core.StompConnection;
import io.fedbridge.core.Subscription;
import io.fedbridge.core.SubscriptionRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * A queue with {@code maxNumActiveConsumers=1} on a full mesh of three brokers over TCP: one consumer in the whole
 * federation receives, the others wait as backups (at most {@code maxNumBackupConsumers}), and when the active one
 * leaves a backup on another broker takes over with nothing lost, duplicated or out of order.
 */
class ExclusiveConsumerIT extends BrokerTestSupport {

    static final Duration WAIT = Duration.ofSeconds(30);
    static final String QUEUE = "/queue/exclusive.orders";
    static final String LINK = "duplex=true&networkTTL=2&initialReconnectDelay=50&maxReconnectDelay=300&heartBeat=1000";

    /** One delivery: who got which sequence number, when. */
    record Got(String consumer, String producer, int seq) {
    }

    private final List<Got> got = new CopyOnWriteArrayList<>();

    private Broker[] mesh(DestinationPolicy policy) {
        return startMesh("ex", c -> c.policy(policy), LINK);
    }

    private static void awaitConsumers(Broker[] mesh, int n) {
        for (Broker b : mesh) {
            await(b.name() + " knows " + n + " consumer(s) of " + QUEUE).atMost(WAIT).until(() -> {
                DestinationStats s = b.queue(QUEUE);
                return s != null && s.consumers() == n;
            });
        }
    }

    private Subscription consume(Broker b, String name, AtomicBoolean active, int leaveAfter, CompletableFuture<Void> left) {
        StompConnection c = connect(b, "tcp");
        AtomicReference<Subscription> sub = new AtomicReference<>();
        sub.set(c.subscribeAndWait(SubscriptionRequest.builder(QUEUE).ackMode(AckMode.CLIENT_INDIVIDUAL).prefetch(20).build(), m -> {
            if (!active.get()) {
                return; // handed out after we left: the broker gives it to the next consumer
            }
            String[] body = m.bodyAsString().split("/");
            got.add(new Got(name, body[0], Integer.parseInt(body[1])));
            m.ack();
            if (leaveAfter > 0 && got.stream().filter(g -> g.consumer().equals(name)).count() == leaveAfter) {
                active.set(false);
                sub.get().unsubscribe(); // on the listener's thread: nothing after this one is taken
                left.complete(null);
            }
        }, WAIT));
        return sub.get();
    }

    @Test
    void shouldDeliverToOneConsumerInTheFederationAndHandOverInOrderToABackupOnAnotherBroker() throws Exception {
        Broker[] b = mesh(DestinationPolicy.builder(QUEUE).maxNumActiveConsumers(1).maxNumBackupConsumers(1).build());
        int total = 600;
        CompletableFuture<Void> wLeft = new CompletableFuture<>();
        consume(b[2], "W@C", new AtomicBoolean(true), 200, wLeft);
        awaitConsumers(b, 1);
        consume(b[1], "Y@B", new AtomicBoolean(true), 0, null);
        awaitConsumers(b, 2);

        // A third consumer anywhere is beyond maxNumActiveConsumers + maxNumBackupConsumers.
        RawStomp third = raw(b[0]);
        third.handshake();
        third.write("SUBSCRIBE\nid:1\ndestination:" + QUEUE + "\nack:client-individual\nreceipt:r1\n\n\0");
        RawStomp.Frame refused = third.read();
        assertThat(refused.command()).isEqualTo("ERROR");
        assertThat(refused.header("message")).contains(QUEUE).contains("maxNumActiveConsumers=1")
                .contains("maxNumBackupConsumers=1").contains("has 2 already");

        // One producer on each broker: the one consumer gets all of them, each producer's messages in order.
        List<CompletableFuture<Void>> producers = new ArrayList<>();
        for (Broker x : b) {
            StompConnection producer = connect(x, "tcp");
            String p = x.name();
            producers.add(CompletableFuture.runAsync(() -> send(producer, p, total / 3)));
        }
        CompletableFuture.allOf(producers.toArray(CompletableFuture[]::new)).get();
        await("every message consumed").atMost(WAIT).until(() -> got.size() >= total / 3 * 3);
        assertThat(wLeft).isDone();

        for (Broker x : b) {
            assertThat(got.stream().filter(g -> g.producer().equals(x.name())).map(Got::seq).toList())
                    .as("%s's messages over the handover: nothing lost, duplicated or reordered", x.name())
                    .isEqualTo(java.util.stream.IntStream.rangeClosed(1, total / 3).boxed().toList());
        }
        assertThat(got).hasSize(total / 3 * 3);
        assertThat(got.stream().map(Got::consumer).distinct().toList()).as("W alone, then Y alone").containsExactly("W@C", "Y@B");
        assertThat(got.stream().filter(g -> g.consumer().equals("W@C")).count()).isEqualTo(200);
    }

    private static void send(StompConnection producer, String name, int n) {
        List<CompletableFuture<Void>> receipts = new ArrayList<>();
        try {
            for (int i = 1; i <= n; i++) {
                receipts.add(producer.send(Message.builder(QUEUE).body(name + "/" + i).persistent(true).build()));
                if (i % 50 == 0) {
                    CompletableFuture.allOf(receipts.toArray(CompletableFuture[]::new)).get();
                    receipts.clear();
                }
            }
            CompletableFuture.allOf(receipts.toArray(CompletableFuture[]::new)).get();
        } catch (Exception e) {
            throw new IllegalStateException("producer on " + name + " failed", e);
        }
    }

    /**
     * The handover hold: a local consumer takes over from a remote one, and messages the old one's broker passes on
     * arrive after newer ones; the broker holds delivery for a moment and puts them back in their origin's order.
     */
    @Test
    void shouldPutMessagesBackInTheirOriginsOrderWhenALocalConsumerTakesOverFromARemoteOne() throws Exception {
        Broker b = startBroker(io.fedbridge.broker.BrokerConfig.builder("hold")
                .policy(DestinationPolicy.builder(QUEUE).maxNumActiveConsumers(1).build()));
        StompConnection bridge = link(b);
        Subscription remote = bridge.subscribeAndWait(SubscriptionRequest.builder(QUEUE).ackMode(AckMode.CLIENT)
                .header(FederationHeaders.NETWORK_CONSUMER, "true").header(FederationHeaders.ORIGIN_CONSUMER, "X/s/1")
                .header(FederationHeaders.CONSUMER_RANK, "0000000000001/X/s/1").build(), m -> { }, WAIT);
        List<String> local = new CopyOnWriteArrayList<>();
        connect(b, "tcp").subscribeAndWait(SubscriptionRequest.of(QUEUE), m -> local.add(m.bodyAsString()), WAIT);

        remote.unsubscribe(); // the remote consumer (rank 1, the active one) leaves: ours takes over
        List<CompletableFuture<Void>> sent = new ArrayList<>();
        for (int seq : new int[] {7, 5, 6}) { // 5 and 6 come late, passed on by the old consumer's broker
            sent.add(bridge.send(Message.builder(QUEUE).header(FederationHeaders.FEDERATION_ID, "X:ID-X-1-" + seq)
                    .header(FederationHeaders.BROKER_PATH, "X").body(Integer.toString(seq)).build()));
        }
        CompletableFuture.allOf(sent.toArray(CompletableFuture[]::new)).get();
        await("the new active consumer got all three").atMost(WAIT).until(() -> local.size() == 3);
        assertThat(local).containsExactly("5", "6", "7");
    }

    @Test
    void shouldRefuseARankFromAnOrdinaryClient() throws Exception {
        Broker[] b = mesh(DestinationPolicy.builder(QUEUE).maxNumActiveConsumers(1).build());
        RawStomp forger = raw(b[0]);
        forger.handshake();
        forger.write("SUBSCRIBE\nid:1\ndestination:" + QUEUE + "\n" + FederationHeaders.CONSUMER_RANK
                + ":0000000000000/first\nreceipt:r1\n\n\0");
        RawStomp.Frame refused = forger.read();
        assertThat(refused.command()).isEqualTo("ERROR");
        assertThat(refused.header("message")).contains(FederationHeaders.CONSUMER_RANK).contains("federation's bridges only");
    }

    @Test
    void shouldStoreAMessageAnOrdinaryClientMarksBorrowedAsItsOwnFirstDelivery() throws Exception {
        Broker b = startBroker(io.fedbridge.broker.BrokerConfig.builder("lender")
                .policy(DestinationPolicy.builder(QUEUE).maxNumActiveConsumers(1).build()));
        RawStomp forger = raw(b);
        forger.handshake();
        // Lent messages wait only for a local consumer and are never stored: as its own, this one is kept and receipted.
        forger.write("SEND\ndestination:" + QUEUE + "\n" + FederationHeaders.BORROWED + ":0\n" + FederationHeaders.BROKER_PATH
                + ":elsewhere\n" + FederationHeaders.REDELIVERIES + ":3\npersistent:true\nreceipt:r1\n\nforged\0");
        RawStomp.Frame receipt = forger.read();
        assertThat(receipt.command()).isEqualTo("RECEIPT");
        assertThat(receipt.header(FederationHeaders.BORROWED)).isNull();
        assertThat(b.queue(QUEUE).pending()).as("kept in the queue with no consumer").isEqualTo(1);
        Subscription s = connect(b, "tcp").subscribeAndWait(SubscriptionRequest.of(QUEUE), null, WAIT);
        io.fedbridge.core.ReceivedMessage m = s.receive(WAIT);
        assertThat(m.bodyAsString()).isEqualTo("forged");
        assertThat(m.header(FederationHeaders.BORROWED)).isNull();
        assertThat(m.header("redelivered")).as("a first delivery").isNull();
    }
}
