package io.fedbridge.broker.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fedbridge.broker.Broker;
import io.fedbridge.core.AckMode;
import io.fedbridge.core.Message;
import io.fedbridge.core.ReceivedMessage;
import io.fedbridge.core.StompConnection;
import io.fedbridge.core.Subscription;
import io.fedbridge.core.SubscriptionRequest;
import io.fedbridge.core.Transaction;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/** Queues, topics, ack modes, prefetch, transactions and selectors, over TCP and over vm://. */
class MessagingSemanticsIT extends BrokerTestSupport {

    private static final Duration WAIT = Duration.ofSeconds(5);

    private static List<String> drain(Subscription s, int n) throws InterruptedException {
        List<String> bodies = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            ReceivedMessage m = s.receive(WAIT);
            assertThat(m).as("message %d of %d on %s", i + 1, n, s.destination()).isNotNull();
            bodies.add(m.bodyAsString());
        }
        return bodies;
    }

    private static void sendAll(StompConnection c, String dest, int n) {
        for (int i = 0; i < n; i++) {
            c.sendWithoutReceipt(Message.of(dest, "m" + i));
        }
        c.send(Message.of(dest, "fence")).join();
    }

    private static Subscription subscribe(StompConnection c, SubscriptionRequest r) {
        return c.subscribeAndWait(r, null, WAIT);
    }

    @OverBothTransports
    void shouldGiveEachQueueMessageToExactlyOneOfCompetingConsumersFairly(String transport) {
        Broker b = startBroker();
        Map<String, AtomicInteger> perConsumer = new ConcurrentHashMap<>();
        Set<String> seen = ConcurrentHashMap.newKeySet();
        AtomicInteger duplicates = new AtomicInteger();
        for (int i = 0; i < 3; i++) {
            String name = "c" + i;
            perConsumer.put(name, new AtomicInteger());
            connect(b, transport).subscribeAndWait(SubscriptionRequest.of("/queue/work"), m -> {
                perConsumer.get(name).incrementAndGet();
                if (!seen.add(m.bodyAsString())) {
                    duplicates.incrementAndGet();
                }
            }, WAIT);
        }
        StompConnection p = connect(b, transport);
        for (int i = 0; i < 3000; i++) {
            p.sendWithoutReceipt(Message.of("/queue/work", "m" + i));
        }
        await("all 3000 delivered").atMost(Duration.ofSeconds(10)).until(() -> seen.size() == 3000);
        assertThat(duplicates).hasValue(0);
        // Round-robin among equal-priority consumers with room: each gets a third.
        perConsumer.values().forEach(n -> assertThat(n.get()).isBetween(900, 1100));
    }

    @OverBothTransports
    void shouldPreferHigherPriorityConsumers(String transport) throws Exception {
        Broker b = startBroker();
        Subscription low = subscribe(connect(b, transport), SubscriptionRequest.builder("/queue/prio").header("consumer-priority", "1").build());
        Subscription high = subscribe(connect(b, transport), SubscriptionRequest.builder("/queue/prio").header("consumer-priority", "5").build());
        sendAll(connect(b, transport), "/queue/prio", 50);
        assertThat(drain(high, 51)).hasSize(51);
        assertThat(low.receive(Duration.ofMillis(200))).isNull();
    }

    @OverBothTransports
    void shouldDeliverHigherMessagePriorityFirst(String transport) throws Exception {
        Broker b = startBroker();
        StompConnection p = connect(b, transport);
        p.send(Message.builder("/queue/mp").body("low").priority(1).build()).join();
        p.send(Message.builder("/queue/mp").body("normal").build()).join();
        p.send(Message.builder("/queue/mp").body("high").priority(9).build()).join();
        Subscription s = subscribe(connect(b, transport), SubscriptionRequest.of("/queue/mp"));
        assertThat(drain(s, 3)).containsExactly("high", "normal", "low");
    }

    @OverBothTransports
    void shouldKeepQueueMessagesUntilAConsumerArrivesInOrder(String transport) throws Exception {
        Broker b = startBroker();
        sendAll(connect(b, transport), "/queue/later", 100);
        assertThat(b.queue("/queue/later").pending()).isEqualTo(101);
        Subscription s = subscribe(connect(b, transport), SubscriptionRequest.of("/queue/later"));
        List<String> got = drain(s, 101);
        for (int i = 0; i < 100; i++) {
            assertThat(got.get(i)).isEqualTo("m" + i);
        }
    }

    @OverBothTransports
    void shouldGiveEveryTopicSubscriptionACopyIncludingWildcards(String transport) throws Exception {
        Broker b = startBroker();
        Subscription exact1 = subscribe(connect(b, transport), SubscriptionRequest.of("/topic/prices.eu.sap"));
        Subscription exact2 = subscribe(connect(b, transport), SubscriptionRequest.of("/topic/prices.eu.sap"));
        Subscription oneLevel = subscribe(connect(b, transport), SubscriptionRequest.of("/topic/prices.*.sap"));
        Subscription rest = subscribe(connect(b, transport), SubscriptionRequest.of("/topic/prices.>"));
        Subscription other = subscribe(connect(b, transport), SubscriptionRequest.of("/topic/prices.us.*"));
        StompConnection p = connect(b, transport);
        p.send(Message.of("/topic/prices.eu.sap", "42")).join();
        p.send(Message.of("/topic/prices.eu.sap.extra", "deep")).join();
        assertThat(drain(exact1, 1)).containsExactly("42");
        assertThat(drain(exact2, 1)).containsExactly("42");
        assertThat(drain(oneLevel, 1)).containsExactly("42");
        assertThat(drain(rest, 2)).containsExactly("42", "deep");
        assertThat(other.receive(Duration.ofMillis(200))).isNull();
        assertThat(oneLevel.receive(Duration.ofMillis(100))).isNull();
        assertThat(b.memoryUsed()).as("delivered topic copies are released").isZero();
    }

    @OverBothTransports
    void shouldStopTopicDeliveryAfterUnsubscribe(String transport) throws Exception {
        Broker b = startBroker();
        StompConnection c = connect(b, transport);
        Subscription s = subscribe(c, SubscriptionRequest.of("/topic/news"));
        StompConnection p = connect(b, transport);
        p.send(Message.of("/topic/news", "one")).join();
        assertThat(drain(s, 1)).containsExactly("one");
        s.unsubscribe();
        Subscription again = subscribe(c, SubscriptionRequest.of("/topic/other"));
        p.send(Message.of("/topic/news", "two")).join();
        p.send(Message.of("/topic/other", "three")).join();
        assertThat(drain(again, 1)).containsExactly("three");
        assertThat(s.poll()).isNull();
    }

    @OverBothTransports
    void shouldAcknowledgeCumulativelyInClientMode(String transport) throws Exception {
        Broker b = startBroker();
        sendAll(connect(b, transport), "/queue/cum", 9);
        StompConnection c = connect(b, transport);
        Subscription s = subscribe(c, SubscriptionRequest.builder("/queue/cum").ackMode(AckMode.CLIENT).build());
        List<ReceivedMessage> got = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            got.add(s.receive(WAIT));
        }
        got.get(6).ack(); // acknowledges m0..m6
        await().atMost(WAIT).until(() -> b.queue("/queue/cum").inflight() == 3);
        c.close();
        Subscription s2 = subscribe(connect(b, transport), SubscriptionRequest.of("/queue/cum"));
        assertThat(drain(s2, 3)).containsExactly("m7", "m8", "fence");
    }

    @OverBothTransports
    void shouldRedeliverNackedAndUnackedMessagesWithARedeliveryCount(String transport) throws Exception {
        Broker b = startBroker();
        StompConnection p = connect(b, transport);
        p.send(Message.of("/queue/redo", "a")).join();
        p.send(Message.of("/queue/redo", "b")).join();
        StompConnection c = connect(b, transport);
        Subscription s = subscribe(c, SubscriptionRequest.builder("/queue/redo").ackMode(AckMode.CLIENT_INDIVIDUAL).build());
        ReceivedMessage a = s.receive(WAIT);
        ReceivedMessage bMsg = s.receive(WAIT);
        assertThat(a.redeliveryCount()).isZero();
        a.nack();
        ReceivedMessage a2 = s.receive(WAIT);
        assertThat(a2.bodyAsString()).isEqualTo("a");
        assertThat(a2.redeliveryCount()).isEqualTo(1);
        a2.ack();
        // b stays unacknowledged; the consumer disconnects without acking it.
        assertThat(bMsg.bodyAsString()).isEqualTo("b");
        c.close();
        Subscription s2 = subscribe(connect(b, transport), SubscriptionRequest.of("/queue/redo"));
        ReceivedMessage b2 = s2.receive(WAIT);
        assertThat(b2.bodyAsString()).isEqualTo("b");
        assertThat(b2.redeliveryCount()).isEqualTo(1);
        assertThat(b2.header("redelivered")).isEqualTo("true");
        assertThat(s2.receive(Duration.ofMillis(200))).as("a was acked, never comes back").isNull();
    }

    @OverBothTransports
    void shouldStopAtThePrefetchWindowAndResumeOnAck(String transport) throws Exception {
        Broker b = startBroker();
        sendAll(connect(b, transport), "/queue/window", 20);
        Subscription s = subscribe(connect(b, transport),
                SubscriptionRequest.builder("/queue/window").ackMode(AckMode.CLIENT_INDIVIDUAL).prefetch(5).build());
        List<ReceivedMessage> first = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            first.add(s.receive(WAIT));
        }
        assertThat(s.receive(Duration.ofMillis(300))).as("window of 5 is full").isNull();
        assertThat(b.queue("/queue/window").inflight()).isEqualTo(5);
        first.get(0).ack();
        first.get(1).ack();
        ReceivedMessage sixth = s.receive(WAIT);
        ReceivedMessage seventh = s.receive(WAIT);
        assertThat(sixth.bodyAsString()).isEqualTo("m5");
        assertThat(seventh.bodyAsString()).isEqualTo("m6");
        assertThat(s.receive(Duration.ofMillis(300))).isNull();
    }

    @OverBothTransports
    void shouldApplyTransactionalSendsAndAcksOnlyOnCommit(String transport) throws Exception {
        Broker b = startBroker();
        StompConnection p = connect(b, transport);
        Subscription s = subscribe(connect(b, transport), SubscriptionRequest.builder("/queue/tx").ackMode(AckMode.CLIENT_INDIVIDUAL).build());
        Transaction tx = p.begin();
        tx.send(Message.of("/queue/tx", "t1"));
        tx.send(Message.of("/queue/tx", "t2"));
        assertThat(s.receive(Duration.ofMillis(300))).as("nothing before commit").isNull();
        tx.commit().get();
        assertThat(drain(s, 2)).containsExactly("t1", "t2");

        Transaction aborted = p.begin();
        aborted.send(Message.of("/queue/tx", "never"));
        aborted.abort().get();
        p.send(Message.of("/queue/tx", "after-abort")).join();
        ReceivedMessage m = s.receive(WAIT);
        assertThat(m.bodyAsString()).isEqualTo("after-abort");
    }

    @OverBothTransports
    void shouldAcknowledgeInsideATransactionOnlyOnCommit(String transport) throws Exception {
        Broker b = startBroker();
        connect(b, transport).send(Message.of("/queue/txack", "x")).join();
        StompConnection c = connect(b, transport);
        Subscription s = subscribe(c, SubscriptionRequest.builder("/queue/txack").ackMode(AckMode.CLIENT_INDIVIDUAL).build());
        ReceivedMessage m = s.receive(WAIT);
        Transaction tx = c.begin();
        m.ack(tx);
        assertThat(b.queue("/queue/txack").inflight()).isEqualTo(1);
        tx.commit().get();
        assertThat(b.queue("/queue/txack").inflight()).isZero();
        assertThat(b.queue("/queue/txack").dequeued()).isEqualTo(1);
    }

    @OverBothTransports
    void shouldFilterWithSelectorsAndLeaveNonMatchingMessagesForOthers(String transport) throws Exception {
        Broker b = startBroker();
        Subscription big = subscribe(connect(b, transport), SubscriptionRequest.builder("/queue/orders").selector("amount > 100 AND region IN ('eu','us')").build());
        StompConnection p = connect(b, transport);
        p.send(Message.builder("/queue/orders").body("small").header("amount", "5").header("region", "eu").build()).join();
        p.send(Message.builder("/queue/orders").body("big-eu").header("amount", "500").header("region", "eu").build()).join();
        p.send(Message.builder("/queue/orders").body("big-apac").header("amount", "900").header("region", "apac").build()).join();
        assertThat(drain(big, 1)).containsExactly("big-eu");
        assertThat(big.receive(Duration.ofMillis(200))).isNull();
        Subscription rest = subscribe(connect(b, transport), SubscriptionRequest.of("/queue/orders"));
        assertThat(new HashSet<>(drain(rest, 2))).containsExactlyInAnyOrder("small", "big-apac");

        Subscription topicSel = subscribe(connect(b, transport), SubscriptionRequest.builder("/topic/t").selector("type LIKE 'a%'").build());
        p.send(Message.builder("/topic/t").body("no").header("type", "bee").build()).join();
        p.send(Message.builder("/topic/t").body("yes").header("type", "ant").build()).join();
        assertThat(drain(topicSel, 1)).containsExactly("yes");
    }

    @OverBothTransports
    void shouldDropExpiredMessages(String transport) throws Exception {
        Broker b = startBroker();
        StompConnection p = connect(b, transport);
        p.send(Message.builder("/queue/exp").body("stale").header("expires", Long.toString(System.currentTimeMillis() - 1000)).build()).join();
        p.send(Message.builder("/queue/exp").body("fresh").header("expires", Long.toString(System.currentTimeMillis() + 60_000)).build()).join();
        Subscription s = subscribe(connect(b, transport), SubscriptionRequest.of("/queue/exp"));
        assertThat(drain(s, 1)).containsExactly("fresh");
        assertThat(b.queue("/queue/exp").expired()).isEqualTo(1);
    }

    @OverBothTransports
    void shouldDeliverToListenersInOrder(String transport) {
        Broker b = startBroker();
        List<String> got = new CopyOnWriteArrayList<>();
        connect(b, transport).subscribeAndWait(SubscriptionRequest.of("/queue/ordered"), m -> got.add(m.bodyAsString()), WAIT);
        sendAll(connect(b, transport), "/queue/ordered", 500);
        await().atMost(Duration.ofSeconds(10)).until(() -> got.size() == 501);
        for (int i = 0; i < 500; i++) {
            assertThat(got.get(i)).isEqualTo("m" + i);
        }
    }
}
