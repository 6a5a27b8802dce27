package io.fedbridge.failover.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fedbridge.broker.Broker;
import io.fedbridge.core.FederationHeaders;
import io.fedbridge.core.Message;
import io.fedbridge.core.SubscriptionRequest;
import io.fedbridge.failover.FailoverClient;
import io.fedbridge.failover.FailoverSubscription;
import io.fedbridge.failover.MessageRejectedException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * {@code sendAsync(message, onFailure)} of NON_PERSISTENT messages to a broker with ordered receipts: while one receipt is
 * outstanding the next sends go without one, a later receipt (or an empty-transaction fence) confirms them, and a
 * refusal that answers no receipt fails them instead of resending them for ever.
 */
class PipelinedSendIT extends FailoverTestSupport {

    private static Message nonPersistent(String body) {
        return Message.builder("/queue/pipelined").body(body).persistent(false).build();
    }

    private static Map<String, String> orderedReceipts() {
        return Map.of(FederationHeaders.ORDERED_RECEIPTS, "true");
    }

    @Test
    void shouldAskForOneReceiptPerWindowWhileOneIsOutstandingAndConfirmEverySendAfterAFailover() throws Exception {
        FakeStompServer server = fake();
        server.connectedHeaders = orderedReceipts();
        server.receiptSends = false; // the first receipt stays outstanding
        FailoverClient client = connect(ordered(server.uri()).timeout(WAIT).build());
        List<Throwable> failures = new CopyOnWriteArrayList<>();
        for (int i = 0; i < 100; i++) {
            client.sendAsync(nonPersistent("m" + i), failures::add);
        }
        await("100 SENDs arrived").atMost(WAIT).until(() -> server.frames("SEND").size() == 100);
        List<FakeStompServer.Frame> sends = server.frames("SEND");
        assertThat(sends.stream().filter(f -> f.header("receipt") != null).map(FakeStompServer.Frame::body))
                .as("a receipt on the first and on the 65th only").containsExactly("m0", "m64");
        assertThat(client.stats().pendingSends()).isEqualTo(100);

        server.receiptSends = true;
        server.dropConnections();
        await("every send confirmed after the resend").atMost(WAIT).until(() -> client.stats().pendingSends() == 0);
        assertThat(failures).isEmpty();
        assertThat(server.frames("SEND")).hasSize(200);
    }

    @Test
    void shouldFailSendsWrittenWithoutAReceiptWhenTheBrokerRefusesOneAndNotResendThem() throws Exception {
        FakeStompServer server = fake();
        server.connectedHeaders = orderedReceipts();
        server.receiptSends = false;
        server.errorOn = f -> {
            boolean bad = "SEND".equals(f.command()) && "bad".equals(f.body());
            if (bad) {
                server.receiptSends = true; // from the next connection on
            }
            return bad;
        };
        FailoverClient client = connect(ordered(server.uri()).timeout(WAIT).build());
        List<Throwable> failures = new CopyOnWriteArrayList<>();
        client.sendAsync(nonPersistent("good"), failures::add); // its receipt stays outstanding
        client.sendAsync(nonPersistent("bad"), failures::add);   // so this one goes without one, and is refused

        await("the refused send failed").atMost(WAIT).until(() -> failures.size() == 1);
        assertThat(failures.get(0)).isInstanceOf(MessageRejectedException.class).hasMessageContaining("refused SEND")
                .hasMessageContaining("written without a receipt").hasMessageContaining("not resent");
        await("the other one confirmed on the next connection").atMost(WAIT).until(() -> client.stats().pendingSends() == 0);
        assertThat(server.frames("SEND").stream().filter(f -> f.body().equals("bad"))).hasSize(1);
        assertThat(server.frames("SEND").stream().filter(f -> f.body().equals("good"))).hasSize(2);
    }

    /**
     * 5,000 sends of 1 KiB outpace the broker, so the sender waits for the connection to drain while holding the
     * client's lock: receipts arriving meanwhile must not need that lock (they once did, and both threads waited for
     * ever).
     */
    @Test
    void shouldDeliverEveryPipelinedSendThroughAFedbridgeBrokerAndConfirmTheTailWithAFence() throws Exception {
        Broker broker = startBroker();
        FailoverClient client = connect(uri(broker));
        FailoverSubscription s = client.subscribe(SubscriptionRequest.of("/queue/pipelined"));
        List<Throwable> failures = new CopyOnWriteArrayList<>();
        String filler = "x".repeat(1024);
        int n = 5_000;
        java.util.concurrent.CompletableFuture<Void> sent = java.util.concurrent.CompletableFuture.runAsync(() -> {
            for (int i = 0; i < n; i++) {
                client.sendAsync(Message.builder("/queue/pipelined").body(i + " " + filler).persistent(false).build(),
                        failures::add);
            }
        });
        for (int i = 0; i < n; i++) {
            assertThat(s.receive(WAIT).bodyAsString()).startsWith(i + " ");
        }
        assertThat(sent).succeedsWithin(WAIT);
        await("every send confirmed").atMost(WAIT).until(() -> client.stats().pendingSends() == 0);
        assertThat(failures).isEmpty();
    }
}
