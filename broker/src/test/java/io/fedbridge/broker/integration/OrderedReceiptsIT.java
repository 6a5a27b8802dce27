package io.fedbridge.broker.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fedbridge.broker.Broker;
import io.fedbridge.broker.BrokerConfig;
import io.fedbridge.broker.StoredMessage;
import io.fedbridge.broker.store.StoreException;
import io.fedbridge.core.FederationHeaders;
import io.fedbridge.core.StompCommand;
import io.fedbridge.core.StompConnection;
import io.fedbridge.core.StompFrame;
import io.fedbridge.core.StompHeaders;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A bridge asks for a receipt on some forwards only and takes it as covering every forward before it: the broker
 * must then receipt forwarded SENDs in order, each only once everything forwarded before it was accepted.
 */
class OrderedReceiptsIT extends BrokerTestSupport {

    private static final Duration WAIT = Duration.ofSeconds(10);

    /** A store whose writes complete when the test says so. */
    private static final class GatedStore extends StubMessageStore {
        final List<CompletableFuture<Void>> adds = new ArrayList<>();

        @Override
        public synchronized CompletableFuture<Void> add(String key, StoredMessage message) {
            CompletableFuture<Void> f = new CompletableFuture<>();
            adds.add(f);
            return f;
        }

        synchronized int pendingAdds() {
            return adds.size();
        }

        synchronized CompletableFuture<Void> add(int i) {
            return adds.get(i);
        }
    }

    private Broker gated(String name, GatedStore store) {
        Broker b = Broker.start(BrokerConfig.builder(name).listen("tcp://127.0.0.1:0").build(), store);
        resources.add(b);
        return b;
    }

    private static StompFrame forwarded(String destination, String fedId, boolean persistent) {
        return new StompFrame(StompCommand.SEND, StompHeaders.of(StompHeaders.DESTINATION, destination,
                StompHeaders.PERSISTENT, Boolean.toString(persistent), FederationHeaders.BROKER_PATH, "peer-broker",
                FederationHeaders.FEDERATION_ID, fedId), "body".getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }

    private static StompFrame receiptOnly() {
        return StompFrame.of(StompCommand.SEND, FederationHeaders.RECEIPT_ONLY, "true");
    }

    @Test
    void shouldSayItReceiptsForwardedSendsInOrder() throws Exception {
        Broker b = startBroker(BrokerConfig.builder("ordered-hello"));
        StompConnection c = link(b);
        assertThat(c.connectedHeaders().get(FederationHeaders.ORDERED_RECEIPTS)).isEqualTo("true");
    }

    @Test
    void shouldHoldAReceiptBackUntilEveryEarlierForwardWasStoredEvenOnAnotherQueue() throws Exception {
        GatedStore store = new GatedStore();
        Broker b = gated("ordered-gate", store);
        StompConnection bridge = link(b);

        bridge.sendFrame(forwarded("/queue/durable", "peer:1", true), false); // no receipt asked for
        CompletableFuture<StompFrame> later = bridge.sendForReceipt(forwarded("/queue/volatile", "peer:2", false));
        CompletableFuture<StompFrame> settle = bridge.sendForReceipt(receiptOnly());
        await().atMost(WAIT).until(() -> store.pendingAdds() == 1 && b.queue("/queue/volatile").pending() == 1);

        await("no receipt while the first forward is not stored").during(Duration.ofMillis(300)).atMost(WAIT)
                .until(() -> !later.isDone() && !settle.isDone());
        store.add(0).complete(null);

        assertThat(later.get(10, TimeUnit.SECONDS).header(FederationHeaders.DUPLICATES)).isEqualTo("0");
        settle.get(10, TimeUnit.SECONDS);
        assertThat(b.queue("/queue/durable").pending()).isEqualTo(1);
    }

    @Test
    void shouldReceiptNothingForwardedAfterAForwardThatCouldNotBeStored() throws Exception {
        GatedStore store = new GatedStore();
        Broker b = gated("ordered-fail", store);
        StompConnection bridge = link(b);

        bridge.sendFrame(forwarded("/queue/durable", "peer:1", true), false);
        CompletableFuture<StompFrame> later = bridge.sendForReceipt(forwarded("/queue/volatile", "peer:2", false));
        await().atMost(WAIT).until(() -> store.pendingAdds() == 1);
        store.add(0).completeExceptionally(new StoreException("journal-0000000001.log: No space left on device"));

        assertThatThrownBy(() -> later.get(10, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                .as("the bridge must not take the later receipt as covering the lost forward");
        await().atMost(WAIT).until(() -> !bridge.isConnected());
    }

    @Test
    void shouldCountTheDuplicatesDroppedSinceThePreviousReceipt() throws Exception {
        Broker b = startBroker(BrokerConfig.builder("ordered-dups"));
        StompConnection bridge = link(b);

        bridge.sendFrame(forwarded("/queue/d", "peer:1", false), false);
        bridge.sendFrame(forwarded("/queue/d", "peer:1", false), false);
        bridge.sendFrame(forwarded("/queue/d", "peer:2", false), false);
        bridge.sendFrame(forwarded("/queue/d", "peer:2", false), false);
        StompFrame first = bridge.sendForReceipt(receiptOnly()).get(10, TimeUnit.SECONDS);
        StompFrame second = bridge.sendForReceipt(receiptOnly()).get(10, TimeUnit.SECONDS);

        assertThat(first.header(FederationHeaders.DUPLICATES)).isEqualTo("2");
        assertThat(second.header(FederationHeaders.DUPLICATES)).isEqualTo("0");
        assertThat(b.queue("/queue/d").pending()).as("a receipt-only SEND is not a message").isEqualTo(2);
    }
}
