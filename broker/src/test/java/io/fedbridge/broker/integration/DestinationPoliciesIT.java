package io.fedbridge.broker.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fedbridge.broker.Broker;
import io.fedbridge.broker.BrokerConfig;
import io.fedbridge.broker.DestinationPolicy;
import io.fedbridge.broker.LimitBehavior;
import io.fedbridge.core.AckMode;
import io.fedbridge.core.Message;
import io.fedbridge.core.ReceivedMessage;
import io.fedbridge.core.StompConnection;
import io.fedbridge.core.StompErrorException;
import io.fedbridge.core.Subscription;
import io.fedbridge.core.SubscriptionRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** Each destination policy and limit behaviour, and the dead-letter queue. */
class DestinationPoliciesIT extends BrokerTestSupport {

    private static final Duration WAIT = Duration.ofSeconds(5);

    private Broker brokerWith(DestinationPolicy... policies) {
        BrokerConfig.Builder b = BrokerConfig.builder("policies");
        for (DestinationPolicy p : policies) {
            b.policy(p);
        }
        return startBroker(b);
    }

    private static Throwable failureOf(CompletableFuture<Void> f) {
        try {
            f.get();
            throw new AssertionError("expected the send to be rejected");
        } catch (ExecutionException e) {
            return e.getCause();
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void shouldRejectTheNewestMessageWhenAQueueIsFull() throws Exception {
        Broker b = brokerWith(DestinationPolicy.builder("/queue/small.>").maxNumMsgs(3).build());
        StompConnection p = connect(b, "tcp");
        for (int i = 0; i < 3; i++) {
            p.send(Message.of("/queue/small.a", "m" + i)).get();
        }
        Throwable t = failureOf(p.send(Message.of("/queue/small.a", "too many")));
        assertThat(t).isInstanceOf(StompErrorException.class).hasMessageContaining("/queue/small.a is full")
                .hasMessageContaining("maxNumMsgs=3");
        assertThat(b.queue("/queue/small.a").pending()).isEqualTo(3);
        // Other destinations are not affected by that policy.
        StompConnection p2 = connect(b, "tcp");
        for (int i = 0; i < 10; i++) {
            p2.send(Message.of("/queue/other", "x")).get();
        }
    }

    @Test
    void shouldRejectMessagesLargerThanMaxBytesPerMsg() {
        Broker b = brokerWith(DestinationPolicy.builder("/queue/tiny").maxBytesPerMsg(10).build());
        StompConnection p = connect(b, "tcp");
        Throwable t = failureOf(p.send(Message.of("/queue/tiny", "this body is longer than ten bytes")));
        assertThat(t).hasMessageContaining("exceeds maxBytesPerMsg=10");
    }

    @Test
    void shouldRejectWhenTotalBytesWouldBeExceeded() throws Exception {
        Broker b = brokerWith(DestinationPolicy.builder("/queue/bytes").maxTotalMsgBytes(4000).build());
        StompConnection p = connect(b, "tcp");
        byte[] kib = new byte[1024];
        int accepted = 0;
        Throwable rejected = null;
        for (int i = 0; i < 10 && rejected == null; i++) {
            try {
                p.send(Message.builder("/queue/bytes").body(kib).build()).get();
                accepted++;
            } catch (ExecutionException e) {
                rejected = e.getCause();
            }
        }
        assertThat(accepted).isBetween(2, 3);
        assertThat(rejected).hasMessageContaining("maxTotalMsgBytes=4000");
    }

    @Test
    void shouldRemoveTheOldestToTheDeadLetterQueue() throws Exception {
        Broker b = brokerWith(DestinationPolicy.builder("/queue/ring").maxNumMsgs(3).limitBehavior(LimitBehavior.REMOVE_OLDEST).build());
        StompConnection p = connect(b, "tcp");
        for (int i = 0; i < 5; i++) {
            p.send(Message.of("/queue/ring", "m" + i)).get();
        }
        Subscription s = connect(b, "tcp").subscribeAndWait(SubscriptionRequest.of("/queue/ring"), null, WAIT);
        List<String> got = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            got.add(s.receive(WAIT).bodyAsString());
        }
        assertThat(got).containsExactly("m2", "m3", "m4");
        Subscription dlq = connect(b, "tcp").subscribeAndWait(SubscriptionRequest.of(DestinationPolicy.DLQ), null, WAIT);
        ReceivedMessage d0 = dlq.receive(WAIT);
        ReceivedMessage d1 = dlq.receive(WAIT);
        assertThat(List.of(d0.bodyAsString(), d1.bodyAsString())).containsExactly("m0", "m1");
        assertThat(d0.header("dlq-reason")).isEqualTo("removed-by-policy");
        assertThat(d0.header("dlq-original-destination")).isEqualTo("/queue/ring");
        assertThat(d0.header("dlq-broker")).isEqualTo("policies");
        assertThat(b.queue("/queue/ring").deadLettered()).isEqualTo(2);
    }

    @Test
    void shouldDropInsteadOfDeadLetteringWhenUseDmqIsOff() throws Exception {
        Broker b = brokerWith(DestinationPolicy.builder("/queue/drop").maxNumMsgs(1).limitBehavior(LimitBehavior.REMOVE_OLDEST).useDMQ(false).build());
        StompConnection p = connect(b, "tcp");
        p.send(Message.of("/queue/drop", "a")).get();
        p.send(Message.of("/queue/drop", "b")).get();
        assertThat(b.queue("/queue/drop").pending()).isEqualTo(1);
        assertThat(b.queue(DestinationPolicy.DLQ)).isNull();
    }

    @Test
    void shouldFlowControlTheProducerUntilThereIsRoom() throws Exception {
        Broker b = brokerWith(DestinationPolicy.builder("/queue/fc").maxNumMsgs(100).limitBehavior(LimitBehavior.FLOW_CONTROL).build());
        StompConnection p = connect(b, "tcp");
        AtomicInteger receipted = new AtomicInteger();
        List<CompletableFuture<Void>> sends = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            sends.add(p.send(Message.of("/queue/fc", "m" + i)).thenRun(receipted::incrementAndGet));
        }
        await("queue fills to its limit").atMost(WAIT).until(() -> b.queue("/queue/fc").pending() >= 100);
        await("the producer is held, nothing rejected").during(Duration.ofMillis(500)).atMost(WAIT)
                .until(() -> b.queue("/queue/fc").pending() <= 101 && receipted.get() < 300);
        AtomicInteger consumed = new AtomicInteger();
        connect(b, "tcp").subscribe(SubscriptionRequest.of("/queue/fc"), m -> consumed.incrementAndGet());
        CompletableFuture.allOf(sends.toArray(CompletableFuture[]::new)).get();
        await().atMost(WAIT).until(() -> consumed.get() == 300);
    }

    @Test
    void shouldLimitProducersPerDestination() throws Exception {
        Broker b = brokerWith(DestinationPolicy.builder("/queue/exclusive").maxNumProducers(1).build());
        StompConnection first = connect(b, "tcp");
        first.send(Message.of("/queue/exclusive", "ok")).get();
        StompConnection second = connect(b, "tcp");
        assertThat(failureOf(second.send(Message.of("/queue/exclusive", "no")))).hasMessageContaining("maxNumProducers=1");
        first.close();
        await("the slot frees when the first producer leaves").atMost(WAIT).untilAsserted(() ->
                connect(b, "tcp").send(Message.of("/queue/exclusive", "now ok")).get());
    }

    @Test
    void shouldKeepConsumersBeyondMaxNumActiveConsumersAsStandbys() throws Exception {
        Broker b = brokerWith(DestinationPolicy.builder("/queue/active").maxNumActiveConsumers(1).build());
        StompConnection c1 = connect(b, "tcp");
        Subscription active = c1.subscribeAndWait(SubscriptionRequest.of("/queue/active"), null, WAIT);
        Subscription standby = connect(b, "tcp").subscribeAndWait(SubscriptionRequest.of("/queue/active"), null, WAIT);
        StompConnection p = connect(b, "tcp");
        for (int i = 0; i < 10; i++) {
            p.send(Message.of("/queue/active", "m" + i)).get();
        }
        for (int i = 0; i < 10; i++) {
            assertThat(active.receive(WAIT)).isNotNull();
        }
        assertThat(standby.receive(Duration.ofMillis(200))).isNull();
        c1.close();
        p.send(Message.of("/queue/active", "after failover")).get();
        assertThat(standby.receive(WAIT).bodyAsString()).isEqualTo("after failover");
    }

    @Test
    void shouldCapPrefetchAtTheConsumerFlowLimit() throws Exception {
        Broker b = brokerWith(DestinationPolicy.builder("/queue/capped").consumerFlowLimit(3).build());
        StompConnection p = connect(b, "tcp");
        for (int i = 0; i < 10; i++) {
            p.send(Message.of("/queue/capped", "m" + i)).get();
        }
        Subscription s = connect(b, "tcp").subscribeAndWait(SubscriptionRequest.builder("/queue/capped")
                .ackMode(AckMode.CLIENT_INDIVIDUAL).prefetch(500).build(), null, WAIT);
        for (int i = 0; i < 3; i++) {
            assertThat(s.receive(WAIT)).isNotNull();
        }
        assertThat(s.receive(Duration.ofMillis(300))).isNull();
        assertThat(b.queue("/queue/capped").inflight()).isEqualTo(3);
    }

    @Test
    void shouldDeadLetterAfterMaxRedeliveries() throws Exception {
        Broker b = brokerWith(DestinationPolicy.builder("/queue/poison").maxRedeliveries(2).build());
        connect(b, "tcp").send(Message.of("/queue/poison", "bad")).get();
        Subscription s = connect(b, "tcp").subscribeAndWait(SubscriptionRequest.builder("/queue/poison")
                .ackMode(AckMode.CLIENT_INDIVIDUAL).build(), null, WAIT);
        for (int attempt = 0; attempt <= 2; attempt++) {
            ReceivedMessage m = s.receive(WAIT);
            assertThat(m.redeliveryCount()).isEqualTo(attempt);
            m.nack();
        }
        assertThat(s.receive(Duration.ofMillis(300))).as("given up after 2 redeliveries").isNull();
        Subscription dlq = connect(b, "tcp").subscribeAndWait(SubscriptionRequest.of(DestinationPolicy.DLQ), null, WAIT);
        ReceivedMessage dead = dlq.receive(WAIT);
        assertThat(dead.bodyAsString()).isEqualTo("bad");
        assertThat(dead.header("dlq-reason")).isEqualTo("max-redeliveries");
        assertThat(dead.header("redelivery-count")).isEqualTo("3");
    }

    @Test
    void shouldDeadLetterExpiredMessages() throws Exception {
        Broker b = startBroker();
        connect(b, "tcp").send(Message.builder("/queue/ttl").body("late")
                .header("expires", Long.toString(System.currentTimeMillis() - 1)).build()).get();
        connect(b, "tcp").subscribeAndWait(SubscriptionRequest.of("/queue/ttl"), null, WAIT);
        Subscription dlq = connect(b, "tcp").subscribeAndWait(SubscriptionRequest.of(DestinationPolicy.DLQ), null, WAIT);
        ReceivedMessage dead = dlq.receive(WAIT);
        assertThat(dead.bodyAsString()).isEqualTo("late");
        assertThat(dead.header("dlq-reason")).isEqualTo("expired");
        assertThat(dead.header("expires")).as("a dead letter does not expire again").isNull();
    }

    @Test
    void shouldPickTheMostSpecificPolicy() throws Exception {
        Broker b = brokerWith(
                DestinationPolicy.builder("/queue/a.>").maxNumMsgs(1).build(),
                DestinationPolicy.builder("/queue/a.b.>").maxNumMsgs(2).build(),
                DestinationPolicy.builder("/queue/a.b.c").maxNumMsgs(3).build());
        assertThat(acceptedUntilFull(b, "/queue/a.x")).isEqualTo(1);
        assertThat(acceptedUntilFull(b, "/queue/a.b.x")).isEqualTo(2);
        assertThat(acceptedUntilFull(b, "/queue/a.b.c")).isEqualTo(3);
    }

    private int acceptedUntilFull(Broker b, String dest) {
        int n = 0;
        while (n < 10) {
            StompConnection p = connect(b, "tcp");
            try {
                p.send(Message.of(dest, "x")).get();
                n++;
            } catch (Exception e) {
                return n;
            }
        }
        return n;
    }

    @Test
    void shouldRejectInvalidPolicyValuesNamingTheKey() {
        assertThatThrownBy(() -> DestinationPolicy.builder("/queue/x").maxNumMsgs(0).build())
                .hasMessage("maxNumMsgs must be -1 (unlimited) or >= 1, but was 0");
        assertThatThrownBy(() -> DestinationPolicy.builder("orders").build())
                .hasMessageContaining("pattern must be a destination");
        assertThatThrownBy(() -> BrokerConfig.builder("x").policy(DestinationPolicy.builder("/queue/a").build())
                .policy(DestinationPolicy.builder("/queue/a").build()).build())
                .hasMessageContaining("'/queue/a' appears twice");
    }
}
