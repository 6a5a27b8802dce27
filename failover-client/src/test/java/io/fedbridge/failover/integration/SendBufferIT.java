package io.fedbridge.failover.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fedbridge.broker.Broker;
import io.fedbridge.core.FederationHeaders;
import io.fedbridge.core.Message;
import io.fedbridge.core.SubscriptionRequest;
import io.fedbridge.failover.FailoverClient;
import io.fedbridge.failover.FailoverConfig;
import io.fedbridge.failover.FailoverSubscription;
import io.fedbridge.failover.FailoverTimeoutException;
import io.fedbridge.failover.SendReceipt;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** While no broker is connected sends wait in a bounded buffer for up to {@code timeout}; none is ever dropped silently. */
class SendBufferIT extends FailoverTestSupport {

    private static final Duration SHORT = Duration.ofMillis(300);

    @Test
    void shouldBufferSendsWhileDisconnectedAndDeliverThemInOrderOnReconnect() throws Exception {
        Broker a = startBroker();
        FailoverClient client = connect(ordered(uri(a)).timeout(WAIT).build());
        FailoverSubscription s = client.subscribe(SubscriptionRequest.of("/queue/buffered"));
        a.close();
        await("disconnected").atMost(WAIT).until(() -> !client.isConnected());

        List<CompletableFuture<SendReceipt>> receipts = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            receipts.add(client.sendAsync(Message.of("/queue/buffered", "m" + i)));
        }
        assertThat(receipts).noneMatch(CompletableFuture::isDone);
        assertThat(client.stats().pendingSends()).isEqualTo(50);

        restart(a);

        assertThat(CompletableFuture.allOf(receipts.toArray(CompletableFuture[]::new))).succeedsWithin(WAIT);
        assertThat(receipts).noneMatch(r -> r.join().resent());
        for (int i = 0; i < 50; i++) {
            assertThat(s.receive(WAIT).bodyAsString()).isEqualTo("m" + i);
        }
    }

    @Test
    void shouldFailABufferedSendAfterTheTimeoutSayingItWasNeverSent() throws Exception {
        Broker a = startBroker();
        FailoverClient client = connect(ordered(uri(a)).timeout(SHORT).build());
        a.close();
        await("disconnected").atMost(WAIT).until(() -> !client.isConnected());

        long start = System.nanoTime();
        CompletableFuture<SendReceipt> r = client.sendAsync(persistent("/queue/timeout", "late"));

        assertThat(r).failsWithin(WAIT).withThrowableOfType(ExecutionException.class)
                .havingCause().isInstanceOf(FailoverTimeoutException.class)
                .withMessageContaining("/queue/timeout").withMessageContaining(uri(a))
                .withMessageContaining("within PT0.3S (timeout)").withMessageContaining("never sent");
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(SHORT);
        FailoverTimeoutException e = (FailoverTimeoutException) unwrap(r);
        assertThat(e.isInDoubt()).isFalse();
        assertThat(client.stats().pendingSends()).isZero();
        assertThatThrownBy(() -> client.send(persistent("/queue/timeout", "sync"))).isInstanceOf(FailoverTimeoutException.class);
    }

    @Test
    void shouldFailASendInFlightAtTheFailureAsInDoubtAfterTheTimeout() throws Exception {
        FakeStompServer silent = fake();
        silent.receiptSends = false;
        FailoverClient client = connect(ordered(silent.uri()).timeout(SHORT).build());
        CompletableFuture<SendReceipt> r = client.sendAsync(persistent("/queue/doubt", "x"));
        FakeStompServer.Frame sent = silent.next("SEND", WAIT);

        silent.close();

        assertThat(r).failsWithin(WAIT);
        FailoverTimeoutException e = (FailoverTimeoutException) unwrap(r);
        assertThat(e.isInDoubt()).isTrue();
        assertThat(e.federationId()).isEqualTo(sent.header(FederationHeaders.FEDERATION_ID));
        assertThat(e).hasMessageContaining("may have been accepted").hasMessageContaining(e.federationId());
    }

    @Test
    void shouldMakeSendersWaitWhileTheBufferIsFullThenFailWithoutDroppingTheOthers() throws Exception {
        FakeStompServer slow = fake();
        slow.receiptSends = false;
        FailoverClient client = connect(ordered(slow.uri()).maxCacheSize(1000).timeout(SHORT)
                .nested("closeTimeout", "100ms").build());
        List<CompletableFuture<SendReceipt>> accepted = new ArrayList<>();
        byte[] body = new byte[200];
        for (int i = 0; i < 3; i++) {
            accepted.add(client.sendAsync(Message.builder("/queue/full").body(body).build()));
        }

        long start = System.nanoTime();
        assertThatThrownBy(() -> client.sendAsync(Message.builder("/queue/full").body(body).build()))
                .isInstanceOf(FailoverTimeoutException.class)
                .hasMessageContaining("send buffer stayed full").hasMessageContaining("maxCacheSize=1000")
                .hasMessageContaining("never sent");
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(SHORT);
        assertThat(accepted).as("the sends already buffered are kept").noneMatch(CompletableFuture::isDone);
        assertThat(client.stats().pendingSends()).isEqualTo(3);
        assertThat(slow.frames("SEND")).hasSize(3);
    }

    @Test
    void shouldMakeRoomAsReceiptsArrive() throws Exception {
        Broker a = startBroker();
        FailoverClient client = connect(ordered(uri(a)).maxCacheSize(2000).timeout(WAIT).build());
        List<CompletableFuture<SendReceipt>> receipts = new ArrayList<>();
        byte[] body = new byte[500];
        for (int i = 0; i < 100; i++) {
            receipts.add(client.sendAsync(Message.builder("/queue/room").body(body).persistent(true).build()));
        }
        assertThat(CompletableFuture.allOf(receipts.toArray(CompletableFuture[]::new))).succeedsWithin(WAIT);
        assertThat(a.queue("/queue/room").pending()).isEqualTo(100);
    }

    @Test
    void shouldWaitForeverWithTimeoutMinusOne() throws Exception {
        Broker a = startBroker();
        FailoverClient client = connect(FailoverConfig.fromUri("failover:(" + uri(a)
                + ")?timeout=-1&initialReconnectDelay=10&maxReconnectDelay=100&heartBeatSend=0&heartBeatReceive=0"));
        assertThat(client.config().waitsForever()).isTrue();
        a.close();
        await("disconnected").atMost(WAIT).until(() -> !client.isConnected());
        CompletableFuture<SendReceipt> r = client.sendAsync(persistent("/queue/forever", "patient"));

        await("still waiting after well over any default").during(Duration.ofSeconds(1)).atMost(WAIT)
                .until(() -> !r.isDone());

        Broker again = restart(a);
        assertThat(r).succeedsWithin(WAIT);
        assertThat(again.queue("/queue/forever").pending()).isEqualTo(1);
    }

    @Test
    void shouldFailConnectAfterTheTimeoutWhenNoBrokerIsReachable() throws Exception {
        String uri = refusingUri();

        long start = System.nanoTime();
        assertThatThrownBy(() -> connect(ordered(uri).timeout(Duration.ofMillis(700)).nested("connectTimeout", "700ms").build()))
                .isInstanceOf(FailoverTimeoutException.class)
                .hasMessageContaining(uri).hasMessageContaining("within PT0.7S (timeout)").hasMessageContaining("Connection refused");
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isBetween(Duration.ofMillis(700), WAIT);
    }

    private static Throwable unwrap(CompletableFuture<?> f) {
        try {
            f.get(0, TimeUnit.MILLISECONDS);
            throw new AssertionError("completed normally");
        } catch (ExecutionException | CompletionException e) {
            return e.getCause();
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }
}
