package io.fedbridge.broker.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fedbridge.broker.Broker;
import io.fedbridge.broker.BrokerConfig;
import io.fedbridge.broker.ResourceLimits;
import io.fedbridge.core.Message;
import io.fedbridge.core.StompConnection;
import io.fedbridge.core.Subscription;
import io.fedbridge.core.SubscriptionRequest;
import io.fedbridge.core.Transaction;
import java.time.Duration;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * Each resource limit, hit over real TCP: the offending connection gets one ERROR frame naming the limit and is
 * closed; a bystander connection on the same broker keeps sending and receiving.
 */
class ResourceLimitsIT extends BrokerTestSupport {

    private Broker broker;
    private StompConnection bystander;
    private Subscription bystanderSub;

    private void start(Consumer<ResourceLimits.Builder> limits) {
        start(BrokerConfig.builder("limits-" + System.nanoTime()).resourceLimits(limits));
    }

    private void start(BrokerConfig.Builder config) {
        broker = startBroker(config);
        bystander = connect(broker, "tcp");
        bystanderSub = bystander.subscribeAndWait(SubscriptionRequest.of("/queue/bystander"), null, Duration.ofSeconds(5));
    }

    @Test
    void shouldCloseAConnectionThatSendsNoConnectWithinTheTimeout() throws Exception {
        start(l -> l.connectAttemptTimeout(Duration.ofMillis(300)));
        RawStomp silent = raw(broker);
        RawStomp connected = raw(broker);
        connected.handshake();

        RawStomp.Frame error = silent.read();

        assertThat(error.command()).isEqualTo("ERROR");
        assertThat(error.header("message")).isEqualTo("no CONNECT within 300ms (connectAttemptTimeout)");
        assertThat(silent.isClosedByPeer()).isTrue();
        connected.write("SEND\ndestination:/queue/bystander\nreceipt:r\n\nfrom a connection past the deadline\0");
        assertThat(connected.read().command()).as("a connection that did CONNECT stays").isEqualTo("RECEIPT");
        assertThat(bystanderSub.receive(Duration.ofSeconds(5)).bodyAsString()).isEqualTo("from a connection past the deadline");
        assertBystanderStillWorks();
    }

    @Test
    void shouldRefuseASubscriptionBeyondMaxSubscriptionsPerConnection() throws Exception {
        start(l -> l.maxSubscriptionsPerConnection(3));
        RawStomp greedy = raw(broker);
        greedy.handshake();
        for (int i = 1; i <= 3; i++) {
            greedy.write("SUBSCRIBE\nid:" + i + "\ndestination:/topic/t" + i + "\nreceipt:s" + i + "\n\n\0");
            assertThat(greedy.read().command()).isEqualTo("RECEIPT");
        }

        greedy.write("SUBSCRIBE\nid:4\ndestination:/topic/t4\nreceipt:s4\n\n\0");

        RawStomp.Frame error = greedy.read();
        assertThat(error.command()).isEqualTo("ERROR");
        assertThat(error.header("message"))
                .isEqualTo("SUBSCRIBE rejected: connection already has 3 subscriptions (maxSubscriptionsPerConnection=3)");
        assertThat(error.header("receipt-id")).isEqualTo("s4");
        assertThat(greedy.isClosedByPeer()).isTrue();
        // per connection: the bystander may still open as many of its own
        bystander.subscribeAndWait(SubscriptionRequest.of("/topic/t1"), null, Duration.ofSeconds(5));
        bystander.subscribeAndWait(SubscriptionRequest.of("/topic/t2"), null, Duration.ofSeconds(5));
        assertBystanderStillWorks();
    }

    @Test
    void shouldRefuseABeginBeyondMaxTransactionsPerConnection() throws Exception {
        start(l -> l.maxTransactionsPerConnection(2));
        RawStomp greedy = raw(broker);
        greedy.handshake();
        greedy.write("BEGIN\ntransaction:t1\n\n\0BEGIN\ntransaction:t2\nreceipt:b2\n\n\0");
        assertThat(greedy.read().header("receipt-id")).isEqualTo("b2");

        greedy.write("BEGIN\ntransaction:t3\n\n\0");

        RawStomp.Frame error = greedy.read();
        assertThat(error.command()).isEqualTo("ERROR");
        assertThat(error.header("message"))
                .isEqualTo("BEGIN rejected: connection already has 2 open transactions (maxTransactionsPerConnection=2)");
        assertThat(greedy.isClosedByPeer()).isTrue();
        Transaction tx = bystander.begin();
        tx.send(Message.of("/queue/bystander", "in a transaction"));
        tx.commit().get();
        assertThat(bystanderSub.receive(Duration.ofSeconds(5)).bodyAsString()).isEqualTo("in a transaction");
        assertBystanderStillWorks();
    }

    @Test
    void shouldRefuseATransactionalSendThatWouldTakeMemoryOverTheLimitAndReleaseWhatTheTransactionHeld() throws Exception {
        start(BrokerConfig.builder("limits-tx-memory").memoryLimit(256 * 1024));
        RawStomp hoarder = raw(broker);
        hoarder.handshake();
        String body = "x".repeat(100 * 1024);
        hoarder.write("BEGIN\ntransaction:t1\n\n\0");
        hoarder.write("SEND\ndestination:/queue/hoard\ntransaction:t1\nreceipt:1\n\n" + body + "\0");
        assertThat(hoarder.read().header("receipt-id")).isEqualTo("1");
        hoarder.write("SEND\ndestination:/queue/hoard\ntransaction:t1\nreceipt:2\n\n" + body + "\0");
        assertThat(hoarder.read().header("receipt-id")).isEqualTo("2");
        assertThat(broker.memoryUsed()).as("an open transaction's messages count").isGreaterThan(200 * 1024);

        hoarder.write("SEND\ndestination:/queue/hoard\ntransaction:t1\nreceipt:3\n\n" + body + "\0");

        RawStomp.Frame error = hoarder.read();
        assertThat(error.command()).isEqualTo("ERROR");
        assertThat(error.header("message")).startsWith("SEND rejected: transaction 't1' would take the broker's memory "
                + "over memoryLimit=262144 bytes");
        assertThat(error.header("receipt-id")).isEqualTo("3");
        assertThat(hoarder.isClosedByPeer()).isTrue();
        await("the aborted transaction's bytes are released").atMost(Duration.ofSeconds(5))
                .until(() -> broker.memoryUsed() < 10 * 1024);
        assertThat(broker.queue("/queue/hoard")).as("nothing of it was delivered").isNull();
        Transaction tx = bystander.begin();
        tx.send(Message.of("/queue/bystander", "x".repeat(100 * 1024)));
        tx.commit().get();
        assertThat(bystanderSub.receive(Duration.ofSeconds(5)).body()).hasSize(100 * 1024);
        assertBystanderStillWorks();
    }

    @Test
    void shouldRefuseToCreateADestinationBeyondMaxDestinations() throws Exception {
        start(l -> l.maxDestinations(5));
        RawStomp creator = raw(broker);
        creator.handshake();
        int created = 0;
        RawStomp.Frame reply;
        do {
            created++;
            creator.write("SEND\ndestination:/queue/d" + created + "\nreceipt:" + created + "\n\nhello\0");
            reply = creator.read();
        } while (reply.command().equals("RECEIPT") && created < 10);

        assertThat(reply.command()).isEqualTo("ERROR");
        assertThat(reply.header("message")).isEqualTo("SEND rejected: cannot create /queue/d" + created
                + ": the broker already has 5 destinations (maxDestinations=5)");
        assertThat(creator.isClosedByPeer()).isTrue();
        assertThat(broker.queue("/queue/d" + created)).as("the refused one was not created").isNull();
        RawStomp subscriber = raw(broker);
        subscriber.handshake();
        subscriber.write("SUBSCRIBE\nid:1\ndestination:/topic/new\n\n\0");
        assertThat(subscriber.read().header("message")).isEqualTo("SUBSCRIBE rejected: cannot create /topic/new: "
                + "the broker already has 5 destinations (maxDestinations=5)");
        // existing destinations stay usable
        Subscription d1 = bystander.subscribeAndWait(SubscriptionRequest.of("/queue/d1"), null, Duration.ofSeconds(5));
        assertThat(d1.receive(Duration.ofSeconds(5)).bodyAsString()).isEqualTo("hello");
        assertBystanderStillWorks();
    }

    @Test
    void shouldRefuseADurableSubscriptionBeyondMaxDurableSubscriptionsPerClientId() throws Exception {
        start(l -> l.maxDurableSubscriptionsPerClientId(2));
        RawStomp collector = raw(broker);
        collector.write("CONNECT\naccept-version:1.2\nhost:localhost\nclient-id:c1\n\n\0");
        assertThat(collector.read().command()).isEqualTo("CONNECTED");
        for (String name : new String[] {"a", "b"}) {
            collector.write("SUBSCRIBE\nid:" + name + "\ndestination:/topic/news\ndurable-subscription-name:" + name
                    + "\nreceipt:" + name + "\n\n\0");
            assertThat(collector.read().command()).isEqualTo("RECEIPT");
        }

        collector.write("SUBSCRIBE\nid:c\ndestination:/topic/news\ndurable-subscription-name:c\n\n\0");

        RawStomp.Frame error = collector.read();
        assertThat(error.command()).isEqualTo("ERROR");
        assertThat(error.header("message")).isEqualTo("SUBSCRIBE rejected: client-id 'c1' already has 2 durable "
                + "subscriptions (maxDurableSubscriptionsPerClientId=2)");
        assertThat(collector.isClosedByPeer()).isTrue();
        // the two it has stay usable, and another client-id has a quota of its own
        RawStomp again = raw(broker);
        again.write("CONNECT\naccept-version:1.2\nhost:localhost\nclient-id:c1\n\n\0");
        assertThat(again.read().command()).isEqualTo("CONNECTED");
        again.write("SUBSCRIBE\nid:a\ndestination:/topic/news\ndurable-subscription-name:a\nreceipt:a\n\n\0");
        assertThat(again.read().command()).isEqualTo("RECEIPT");
        RawStomp other = raw(broker);
        other.write("CONNECT\naccept-version:1.2\nhost:localhost\nclient-id:c2\n\n\0");
        assertThat(other.read().command()).isEqualTo("CONNECTED");
        other.write("SUBSCRIBE\nid:c\ndestination:/topic/news\ndurable-subscription-name:c\nreceipt:c\n\n\0");
        assertThat(other.read().command()).isEqualTo("RECEIPT");
        assertBystanderStillWorks();
    }

    private void assertBystanderStillWorks() throws Exception {
        assertThat(bystander.isConnected()).isTrue();
        bystander.send(Message.of("/queue/bystander", "still here")).get();
        assertThat(bystanderSub.receive(Duration.ofSeconds(5)).bodyAsString()).isEqualTo("still here");
        try (StompConnection fresh = StompConnection.connect(broker.connectUris().get(0))) {
            assertThat(fresh.isConnected()).isTrue();
        }
    }
}
