package io.fedbridge.broker.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fedbridge.broker.Broker;
import io.fedbridge.broker.BrokerConfig;
import io.fedbridge.broker.StoredMessage;
import io.fedbridge.core.AckMode;
import io.fedbridge.core.FederationHeaders;
import io.fedbridge.core.Message;
import io.fedbridge.core.ReceivedMessage;
import io.fedbridge.core.StompConnection;
import io.fedbridge.core.Subscription;
import io.fedbridge.core.SubscriptionRequest;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A persistent message whose only taker is a bridge to a fedbridge broker is forwarded while it is being stored (the
 * peer stores it before its receipt, and its dedupe drops the producer's resend should this broker die first), so
 * one fsync, not two, lies on the forwarding path. A local consumer still gets a message only once it is stored, and
 * the producer's receipt always waits for the write.
 */
class ForwardWhileStoringIT extends BrokerTestSupport {

    private static final Duration WAIT = Duration.ofSeconds(10);

    /** A store whose writes complete only when the test says so. */
    private static final class GatedStore extends StubMessageStore {
        final List<CompletableFuture<Void>> writes = new CopyOnWriteArrayList<>();

        @Override
        public CompletableFuture<Void> add(String key, StoredMessage message) {
            CompletableFuture<Void> f = new CompletableFuture<>();
            writes.add(f);
            return f;
        }

        void completeAll() {
            writes.forEach(f -> f.complete(null));
        }
    }

    private static SubscriptionRequest bridgeTo(String destination, String peer) {
        return SubscriptionRequest.builder(destination).ackMode(AckMode.CLIENT_INDIVIDUAL)
                .header(FederationHeaders.NETWORK_CONSUMER, "true").header(FederationHeaders.EXCLUDE_BROKER, peer).build();
    }

    private Broker start(GatedStore store) {
        Broker b = Broker.start(BrokerConfig.builder("gated-" + System.nanoTime()).listen("tcp://127.0.0.1:0").build(), store);
        resources.add(b);
        return b;
    }

    @Test
    void shouldForwardToAPeerWhileTheWriteIsUnderWayAndReceiptOnlyAfterIt() throws Exception {
        GatedStore store = new GatedStore();
        Broker b = start(store);
        Subscription forwarding = link(b).subscribeAndWait(bridgeTo("/queue/fwd", "peer-x"), null, WAIT);
        CompletableFuture<Void> send = link(b).send(Message.builder("/queue/fwd").persistent(true).body("m1").build());

        ReceivedMessage m = forwarding.receive(WAIT);
        assertThat(m).as("forwarded before the write completed").isNotNull();
        assertThat(m.bodyAsString()).isEqualTo("m1");
        assertThat(store.writes).hasSize(1);
        assertThat(send).as("the producer's receipt waits for the write").isNotDone();
        m.ack();

        store.completeAll();
        send.get(10, TimeUnit.SECONDS);
        await().atMost(WAIT).until(() -> b.queue("/queue/fwd").inflight() == 0 && b.queue("/queue/fwd").pending() == 0);
    }

    @Test
    void shouldGiveALocalConsumerOnlyStoredMessages() throws Exception {
        GatedStore store = new GatedStore();
        Broker b = start(store);
        List<String> local = new CopyOnWriteArrayList<>();
        link(b).subscribeAndWait(SubscriptionRequest.of("/queue/held"), msg -> local.add(msg.bodyAsString()), WAIT);
        // A bridge is attached too, at its lower priority: the local consumer is still the one preferred.
        Subscription forwarding = link(b).subscribeAndWait(bridgeTo("/queue/held", "peer-x"), null, WAIT);
        CompletableFuture<Void> send = link(b).send(Message.builder("/queue/held").persistent(true).body("m1").build());

        await("the write is under way").atMost(WAIT).until(() -> store.writes.size() == 1);
        await("nobody gets it before the write completes").during(Duration.ofMillis(300)).atMost(WAIT).until(local::isEmpty);
        assertThat(forwarding.receive(Duration.ofMillis(50))).as("not the bridge either: the local consumer comes first").isNull();

        store.completeAll();
        send.get(10, TimeUnit.SECONDS);
        await().atMost(WAIT).until(() -> local.contains("m1"));
        assertThat(forwarding.receive(Duration.ofMillis(100))).isNull();
    }

    @Test
    void shouldWaitForTheWriteBeforeABridgeToABrokerWithoutDedupe() throws Exception {
        GatedStore store = new GatedStore();
        Broker b = start(store);
        // A network subscription that names no peer broker (a foreign broker's bridge, say): nothing there drops a
        // resend, so it gets only stored messages.
        SubscriptionRequest foreign = SubscriptionRequest.builder("/queue/foreign").ackMode(AckMode.CLIENT_INDIVIDUAL)
                .header(FederationHeaders.NETWORK_CONSUMER, "true").build();
        Subscription forwarding = link(b).subscribeAndWait(foreign, null, WAIT);
        CompletableFuture<Void> send = link(b).send(Message.builder("/queue/foreign").persistent(true).body("m1").build());
        await("the write is under way").atMost(WAIT).until(() -> store.writes.size() == 1);
        assertThat(forwarding.receive(Duration.ofMillis(300))).isNull();
        store.completeAll();
        send.get(10, TimeUnit.SECONDS);
        assertThat(forwarding.receive(WAIT).bodyAsString()).isEqualTo("m1");
    }
}
