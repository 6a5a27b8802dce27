package io.fedbridge.failover.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fedbridge.core.AckMode;
import io.fedbridge.core.FederationHeaders;
import io.fedbridge.core.Message;
import io.fedbridge.core.SubscriptionRequest;
import io.fedbridge.failover.FailoverClient;
import io.fedbridge.failover.FailoverMessage;
import io.fedbridge.failover.FailoverSubscription;
import io.fedbridge.failover.FailoverTransaction;
import io.fedbridge.failover.SendReceipt;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.activemq.broker.BrokerService;
import org.apache.activemq.broker.TransportConnector;
import org.junit.jupiter.api.Test;

/**
 * The failover client against ActiveMQ Classic's STOMP connector (embedded, non-persistent): everything that needs no
 * federation extension works, and failing over between two ActiveMQ brokers restores subscriptions and flushes what
 * was buffered. ActiveMQ keeps the {@code fedbridge-id} header but neither deduplicates on it nor vouches for it, so
 * the consuming client does not trust it either: a resent copy is handed out again (at-least-once).
 */
class ActiveMqFailoverIT extends FailoverTestSupport {

    private static final AtomicInteger NAMES = new AtomicInteger();
    private static final Duration NOTHING_MORE = Duration.ofMillis(300);

    /** An embedded ActiveMQ broker with a STOMP connector; {@link #uri} is its tcp:// address. */
    private static final class ActiveMq implements AutoCloseable {
        final BrokerService service;
        final String uri;

        ActiveMq(java.nio.file.Path data) throws Exception {
            service = new BrokerService();
            service.setBrokerName("amq-fo-" + NAMES.incrementAndGet());
            service.setPersistent(false);
            service.setUseJmx(false);
            service.setUseShutdownHook(false);
            service.setDataDirectoryFile(data.toFile());
            service.setTmpDataDirectory(data.resolve("tmp").toFile());
            TransportConnector stomp = service.addConnector("stomp://127.0.0.1:0?transport.tcpNoDelay=true");
            service.start();
            service.waitUntilStarted();
            uri = "tcp://127.0.0.1:" + stomp.getConnectUri().getPort();
        }

        @Override
        public void close() {
            if (!service.isStopped()) {
                try {
                    service.stop();
                } catch (Exception e) {
                    throw new IllegalStateException("ActiveMQ " + service.getBrokerName() + " did not stop", e);
                }
                service.waitUntilStopped();
            }
        }
    }

    private ActiveMq activeMq() throws Exception {
        return track(new ActiveMq(tmp.resolve("amq-" + NAMES.incrementAndGet())));
    }

    @Test
    void shouldSendReceiveAcknowledgeAndCommitAgainstActiveMq() throws Exception {
        ActiveMq amq = activeMq();
        FailoverClient client = connect(ordered(amq.uri).build());
        assertThat(client.connectedBrokerId()).as("not a fedbridge broker").isNull();

        FailoverSubscription pull = client.subscribe(SubscriptionRequest.builder("/queue/amq.in").ackMode(AckMode.CLIENT).build());
        List<CompletableFuture<SendReceipt>> receipts = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            receipts.add(client.sendAsync(persistent("/queue/amq.in", "m" + i)));
        }
        assertThat(CompletableFuture.allOf(receipts.toArray(CompletableFuture[]::new))).succeedsWithin(WAIT);
        List<FailoverMessage> got = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            got.add(pull.receive(WAIT));
        }
        assertThat(got).extracting(FailoverMessage::bodyAsString).containsExactly("m0", "m1", "m2");
        assertThat(got.get(0).federationId()).as("ActiveMQ keeps the fedbridge-id").isEqualTo(receipts.get(0).join().federationId());

        FailoverTransaction tx = client.begin();
        tx.send(persistent("/queue/amq.out", "result"));
        got.get(2).ack(tx); // cumulative: m0..m2
        tx.commit();

        List<String> out = new CopyOnWriteArrayList<>();
        client.subscribe(SubscriptionRequest.of("/queue/amq.out"), m -> out.add(m.bodyAsString()));
        await("the committed send arrives").atMost(WAIT).until(() -> out.equals(List.of("result")));
        pull.close();
        FailoverSubscription again = client.subscribe(SubscriptionRequest.builder("/queue/amq.in").ackMode(AckMode.CLIENT).build());
        assertThat(again.receive(NOTHING_MORE)).as("all three acknowledged in the committed transaction").isNull();
    }

    @Test
    void shouldFailOverFromOneActiveMqToAnotherRestoringSubscriptionsAndFlushingBufferedSends() throws Exception {
        ActiveMq first = activeMq();
        ActiveMq second = activeMq();
        String uri = "failover:(" + first.uri + "," + second.uri + ")?randomize=false&initialReconnectDelay=10"
                + "&maxReconnectDelay=100&heartBeatSend=0&heartBeatReceive=0";
        FailoverClient consumer = connect(uri);
        FailoverClient producer = connect(uri);
        List<String> got = new CopyOnWriteArrayList<>();
        consumer.subscribe(SubscriptionRequest.builder("/queue/amq.failover").ackMode(AckMode.CLIENT_INDIVIDUAL).build(), m -> {
            got.add(m.bodyAsString());
            m.ack();
        });
        producer.send(persistent("/queue/amq.failover", "before"));
        await("first message").atMost(WAIT).until(() -> got.equals(List.of("before")));

        first.close();
        List<CompletableFuture<SendReceipt>> receipts = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            receipts.add(producer.sendAsync(persistent("/queue/amq.failover", "after" + i)));
        }

        assertThat(CompletableFuture.allOf(receipts.toArray(CompletableFuture[]::new))).succeedsWithin(WAIT);
        assertThat(receipts).allMatch(r -> r.join().brokerUri().equals(second.uri));
        await("every message after the failover").atMost(WAIT).until(() -> got.size() == 21);
        assertThat(got.subList(1, 21)).containsExactlyInAnyOrderElementsOf(
                java.util.stream.IntStream.range(0, 20).mapToObj(i -> "after" + i).toList());
        assertThat(consumer.connectedUri()).isEqualTo(second.uri);
    }

    @Test
    void shouldHandOutAResentCopyAgainSinceActiveMqDoesNotVouchForFedbridgeIds() throws Exception {
        ActiveMq amq = activeMq();
        FailoverClient client = connect(ordered(amq.uri).build());
        FailoverSubscription s = client.subscribe(SubscriptionRequest.builder("/queue/amq.dup").ackMode(AckMode.CLIENT_INDIVIDUAL).build());
        Message m = Message.builder("/queue/amq.dup").body("same").header(FederationHeaders.FEDERATION_ID, "app:7").build();

        assertThat(client.send(m).duplicate()).isFalse();
        assertThat(client.send(m).duplicate()).as("ActiveMQ does not know fedbridge-id").isFalse();

        FailoverMessage first = s.receive(WAIT);
        assertThat(first.federationId()).isEqualTo("app:7");
        first.ack();
        FailoverMessage second = s.receive(WAIT);
        assertThat(second).as("a fedbridge-id any client could have set is not trusted to drop a message").isNotNull();
        assertThat(second.federationId()).isEqualTo("app:7");
        second.ack();
        assertThat(client.stats().redeliveriesDropped()).isZero();
    }
}
