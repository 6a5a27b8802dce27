package io.fedbridge.failover.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fedbridge.broker.testing.RabbitMqExtension;
import io.fedbridge.core.AckMode;
import io.fedbridge.core.Message;
import io.fedbridge.core.SubscriptionRequest;
import io.fedbridge.failover.FailoverClient;
import io.fedbridge.failover.FailoverMessage;
import io.fedbridge.failover.FailoverSubscription;
import io.fedbridge.failover.SendReceipt;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The failover client against a real RabbitMQ node (its STOMP plugin; one node for the class, skipped with the reason
 * printed where the package is missing): plain and {@code failover:} URIs, with {@code host=/} (RabbitMQ's virtual
 * host) among the broker's own options. RabbitMQ does not deduplicate: a resend after a failover may be stored twice.
 */
class RabbitMqFailoverIT extends FailoverTestSupport {

    @RegisterExtension
    static final RabbitMqExtension RABBIT = new RabbitMqExtension();
    private static final AtomicInteger NAMES = new AtomicInteger();

    @Test
    void shouldSendAndReceiveQueueAndTopicMessagesAgainstRabbitMqWithAPlainUri() throws Exception {
        String q = "/queue/rfo" + NAMES.incrementAndGet();
        String t = "/topic/rfo" + NAMES.incrementAndGet();
        FailoverClient client = connect(RABBIT.guestUri());
        assertThat(client.connectedBrokerId()).as("not a fedbridge broker").isNull();
        FailoverSubscription queue = client.subscribe(SubscriptionRequest.builder(q).ackMode(AckMode.CLIENT_INDIVIDUAL).build());
        FailoverSubscription topic = client.subscribe(SubscriptionRequest.of(t));

        for (int i = 0; i < 3; i++) {
            client.send(persistent(q, "m" + i));
        }
        // RabbitMQ binds the topic subscription's queue to amq.topic as the SUBSCRIBE arrives: send until one lands.
        await("topic subscription bound").atMost(WAIT).until(() -> {
            client.send(Message.of(t, "n"));
            return topic.receive(java.time.Duration.ofMillis(200)) != null;
        });

        List<String> got = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            FailoverMessage m = queue.receive(WAIT);
            got.add(m.bodyAsString());
            m.ack();
        }
        assertThat(got).containsExactly("m0", "m1", "m2");
    }

    @Test
    void shouldResubscribeAndFlushBufferedSendsWhenRabbitMqComesBackAfterStopApp() throws Exception {
        String q = "/queue/rfo" + NAMES.incrementAndGet();
        String uri = "failover:(" + RABBIT.guestUri() + ")?randomize=false&initialReconnectDelay=10&maxReconnectDelay=200"
                + "&heartBeatSend=0&heartBeatReceive=0";
        FailoverClient consumer = connect(uri);
        FailoverClient producer = connect(uri);
        Set<String> got = ConcurrentHashMap.newKeySet();
        AtomicInteger deliveries = new AtomicInteger();
        consumer.subscribe(SubscriptionRequest.builder(q).ackMode(AckMode.CLIENT_INDIVIDUAL).build(), m -> {
            got.add(m.bodyAsString());
            deliveries.incrementAndGet();
            m.ack();
        });
        producer.send(persistent(q, "before"));
        await("first message").atMost(WAIT).until(() -> got.contains("before"));

        RABBIT.server().stopApp();
        List<CompletableFuture<SendReceipt>> receipts = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            receipts.add(producer.sendAsync(persistent(q, "after" + i))); // buffered while the node is down
        }
        RABBIT.server().startApp();

        assertThat(CompletableFuture.allOf(receipts.toArray(CompletableFuture[]::new))).succeedsWithin(WAIT);
        await("every message after the restart").atMost(WAIT).until(() ->
                got.containsAll(IntStream.range(0, 20).mapToObj(i -> "after" + i).toList()));
        // A send whose receipt the stop cut off is sent again, and RabbitMQ stores it again: at-least-once.
        System.out.printf("failover client -> RabbitMQ across stop_app: %d deliveries of 21 messages%n", deliveries.get());
        assertThat(deliveries.get()).isBetween(21, 21 + 20);
    }
}
