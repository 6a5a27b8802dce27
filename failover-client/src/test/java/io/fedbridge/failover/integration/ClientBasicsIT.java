package io.fedbridge.failover.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fedbridge.broker.Broker;
import io.fedbridge.core.AckMode;
import io.fedbridge.core.FederationHeaders;
import io.fedbridge.core.Message;
import io.fedbridge.core.SubscriptionRequest;
import io.fedbridge.failover.FailoverClient;
import io.fedbridge.failover.FailoverEvent;
import io.fedbridge.failover.FailoverException;
import io.fedbridge.failover.FailoverMessage;
import io.fedbridge.failover.FailoverSubscription;
import io.fedbridge.failover.MessageRejectedException;
import io.fedbridge.failover.SendReceipt;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The client API against one fedbridge broker: sends, receipts, listeners, pulling, ack modes, errors. */
class ClientBasicsIT extends FailoverTestSupport {

    private static final Duration NOTHING_MORE = Duration.ofMillis(200);

    @Test
    void shouldSendWithReceiptAndPullWithTimeoutOverAPlainUri() throws Exception {
        Broker a = startBroker();
        FailoverClient client = connect(uri(a));
        FailoverSubscription s = client.subscribe(SubscriptionRequest.of("/queue/basics"));

        SendReceipt r = client.send(persistent("/queue/basics", "hello"));

        assertThat(r.brokerUri()).isEqualTo(uri(a));
        assertThat(r.duplicate()).isFalse();
        assertThat(r.resent()).isFalse();
        FailoverMessage m = s.receive(WAIT);
        assertThat(m.bodyAsString()).isEqualTo("hello");
        // The broker keeps a client's own id under the client's producer scope, so no other producer can collide with it.
        assertThat(m.federationId()).as("every send carries a fedbridge-id").endsWith(":" + r.federationId())
                .startsWith("p");
        assertThat(m.identity()).isEqualTo(m.federationId());
        assertThat(s.receive(NOTHING_MORE)).as("nothing more").isNull();
        assertThat(client.connectedUri()).isEqualTo(uri(a));
        assertThat(client.connectedBrokerId()).isEqualTo(a.id());
    }

    @Test
    void shouldCompleteAsyncSendsAndDeliverToAListenerInOrder() throws Exception {
        Broker a = startBroker();
        FailoverClient client = connect(uri(a));
        List<String> got = new CopyOnWriteArrayList<>();
        client.subscribe(SubscriptionRequest.of("/queue/async"), m -> got.add(m.bodyAsString()));

        List<CompletableFuture<SendReceipt>> receipts = new ArrayList<>();
        List<String> sent = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            sent.add("m" + i);
            // Not persistent: the broker reorders pipelined persistent sends (see the report); this checks the client.
            receipts.add(client.sendAsync(Message.of("/queue/async", "m" + i)));
        }

        assertThat(CompletableFuture.allOf(receipts.toArray(CompletableFuture[]::new))).succeedsWithin(WAIT);
        assertThat(receipts.stream().map(CompletableFuture::join).map(SendReceipt::federationId).distinct()).hasSize(200);
        await("200 messages delivered").atMost(WAIT).until(() -> got.size() == 200);
        assertThat(got).containsExactlyElementsOf(sent);
        assertThat(client.stats().pendingSends()).isZero();
    }

    @Test
    void shouldKeepTheFederationIdAMessageBringsSoThatTheBrokerDropsARepeat() throws Exception {
        Broker a = startBroker();
        FailoverClient client = connect(uri(a));
        FailoverSubscription s = client.subscribe(SubscriptionRequest.of("/queue/own-id"));
        Message m = Message.builder("/queue/own-id").body("once").persistent(true).header(FederationHeaders.FEDERATION_ID, "app:42").build();

        SendReceipt first = client.send(m);
        SendReceipt again = client.send(m);

        assertThat(first.federationId()).isEqualTo("app:42");
        assertThat(first.duplicate()).isFalse();
        assertThat(again.duplicate()).as("the broker already accepted app:42").isTrue();
        assertThat(s.receive(WAIT).bodyAsString()).isEqualTo("once");
        assertThat(s.receive(NOTHING_MORE)).isNull();
        assertThat(client.stats().duplicateReceipts()).isEqualTo(1);
    }

    @Test
    void shouldAcknowledgeCumulativelyInClientMode() throws Exception {
        Broker a = startBroker();
        FailoverClient producer = connect(uri(a));
        for (int i = 1; i <= 4; i++) {
            producer.send(persistent("/queue/client-ack", "m" + i));
        }
        FailoverClient consumer = connect(uri(a));
        FailoverSubscription s = consumer.subscribe(SubscriptionRequest.builder("/queue/client-ack").ackMode(AckMode.CLIENT).build());
        List<FailoverMessage> got = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            got.add(s.receive(WAIT));
        }

        got.get(2).ack(); // m1..m3
        s.close();

        FailoverSubscription again = consumer.subscribe(SubscriptionRequest.builder("/queue/client-ack").ackMode(AckMode.CLIENT).build());
        FailoverMessage back = again.receive(WAIT);
        assertThat(back.bodyAsString()).as("only the unacknowledged m4 comes back").isEqualTo("m4");
        back.ack();
        assertThat(again.receive(NOTHING_MORE)).isNull();
    }

    @Test
    void shouldAcknowledgeIndividuallyAndHandANackedMessageOutAgain() throws Exception {
        Broker a = startBroker();
        FailoverClient client = connect(uri(a));
        for (int i = 1; i <= 3; i++) {
            client.send(persistent("/queue/individual", "m" + i));
        }
        FailoverSubscription s = client.subscribe(SubscriptionRequest.builder("/queue/individual").ackMode(AckMode.CLIENT_INDIVIDUAL).build());
        FailoverMessage m1 = s.receive(WAIT);
        FailoverMessage m2 = s.receive(WAIT);
        FailoverMessage m3 = s.receive(WAIT);
        m1.ack();
        m3.ack();
        m2.nack();

        FailoverMessage back = s.receive(WAIT);
        assertThat(back.bodyAsString()).isEqualTo("m2");
        assertThat(back.redeliveryCount()).isGreaterThanOrEqualTo(1);
        back.ack();
        assertThat(s.receive(NOTHING_MORE)).isNull();
    }

    @Test
    void shouldAcknowledgeAutoModeWhenTheListenerReturnsAndRedeliverWhenItThrows() throws Exception {
        Broker a = startBroker();
        FailoverClient client = connect(uri(a));
        List<String> seen = new CopyOnWriteArrayList<>();
        client.subscribe(SubscriptionRequest.of("/queue/auto"), m -> {
            seen.add(m.bodyAsString() + "#" + m.redeliveryCount());
            if (m.redeliveryCount() == 0 && m.bodyAsString().equals("boom")) {
                throw new IllegalStateException("first try fails");
            }
        });

        client.send(persistent("/queue/auto", "fine"));
        client.send(persistent("/queue/auto", "boom"));

        await("the failed message comes back").atMost(WAIT).until(() -> seen.size() == 3);
        assertThat(seen).containsExactly("fine#0", "boom#0", "boom#1");
        await("everything acknowledged").atMost(WAIT).until(() -> a.queue("/queue/auto").pending() == 0);
    }

    @Test
    void shouldFailASendTheBrokerRejectsWithoutLosingTheOthers() throws Exception {
        Broker a = startBroker();
        FailoverClient client = connect(ordered(uri(a)).build());
        FailoverSubscription s = client.subscribe(SubscriptionRequest.of("/queue/after-error"));

        assertThatThrownBy(() -> client.send(persistent("/nowhere/x", "bad")))
                .isInstanceOf(MessageRejectedException.class)
                .hasMessageContaining(uri(a)).hasMessageContaining("/nowhere/x");

        client.send(persistent("/queue/after-error", "good"));
        assertThat(s.receive(WAIT).bodyAsString()).isEqualTo("good");
    }

    @Test
    void shouldGiveUpClearlyWhenThePlainUrisBrokerGoes() throws Exception {
        Broker a = startBroker();
        Events events = new Events();
        FailoverClient client = connect(io.fedbridge.failover.FailoverConfig.fromUri(uri(a)), events);
        FailoverSubscription s = client.subscribe(SubscriptionRequest.of("/queue/plain"));

        a.close();

        FailoverEvent.GaveUp gaveUp = events.await(FailoverEvent.GaveUp.class, e -> true);
        assertThat(gaveUp.failure()).hasMessageContaining("gave up").hasMessageContaining("maxReconnectAttempts=0");
        assertThatThrownBy(() -> client.send(persistent("/queue/plain", "x"))).isInstanceOf(FailoverException.class)
                .hasMessageContaining("gave up");
        assertThatThrownBy(() -> s.receive(WAIT)).isInstanceOf(FailoverException.class).hasMessageContaining("gave up");
        assertThat(client.isConnected()).isFalse();
    }

    @Test
    void shouldConfirmPendingSendsBeforeClosingAndRefuseSendsAfter() throws Exception {
        Broker a = startBroker();
        FailoverClient client = connect(uri(a));
        List<CompletableFuture<SendReceipt>> receipts = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            receipts.add(client.sendAsync(persistent("/queue/close", "m" + i)));
        }

        client.close();

        for (CompletableFuture<SendReceipt> r : receipts) {
            assertThat(r).succeedsWithin(1, TimeUnit.SECONDS);
        }
        assertThat(a.queue("/queue/close").pending()).isEqualTo(100);
        assertThatThrownBy(() -> client.send(persistent("/queue/close", "late"))).isInstanceOf(FailoverException.class)
                .hasMessageContaining("closed");
    }
}
