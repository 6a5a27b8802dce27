package io.fedbridge.failover.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fedbridge.broker.testing.EmbeddedArtemis;
import io.fedbridge.core.AckMode;
import io.fedbridge.core.Message;
import io.fedbridge.core.SubscriptionRequest;
import io.fedbridge.failover.FailoverClient;
import io.fedbridge.failover.FailoverMessage;
import io.fedbridge.failover.FailoverSubscription;
import io.fedbridge.failover.SendReceipt;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * The failover client against embedded Apache ActiveMQ Artemis servers, their STOMP acceptor set up for STOMP clients
 * ({@code anycastPrefix=/queue/;multicastPrefix=/topic/}, so fedbridge's names work as they are): plain and
 * {@code failover:} URIs. Artemis does not deduplicate on {@code fedbridge-id}: a resend after a failover may be stored
 * twice, unless the message carries Artemis' own duplicate id {@code _AMQ_DUPL_ID} and goes back to the same server.
 */
class ArtemisFailoverIT extends FailoverTestSupport {

    private static final AtomicInteger NAMES = new AtomicInteger();
    private static final Duration NOTHING_MORE = Duration.ofMillis(300);

    private EmbeddedArtemis artemis() throws Exception {
        int n = NAMES.incrementAndGet();
        return track(EmbeddedArtemis.startWithStompPrefixes(tmp.resolve("artemis-" + n), "artemis-fo-" + n));
    }

    @Test
    void shouldSendAndReceiveQueueAndTopicMessagesAgainstArtemisWithAPlainUri() throws Exception {
        EmbeddedArtemis artemis = artemis();
        FailoverClient client = connect(artemis.stompUri());
        assertThat(client.connectedBrokerId()).as("not a fedbridge broker").isNull();
        FailoverSubscription queue = client.subscribe(SubscriptionRequest.builder("/queue/art.in").ackMode(AckMode.CLIENT_INDIVIDUAL).build());
        FailoverSubscription topic = client.subscribe(SubscriptionRequest.of("/topic/art.news"));

        for (int i = 0; i < 3; i++) {
            client.send(persistent("/queue/art.in", "m" + i));
        }
        client.send(Message.of("/topic/art.news", "n"));

        List<String> got = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            FailoverMessage m = queue.receive(WAIT);
            got.add(m.bodyAsString());
            m.ack();
        }
        assertThat(got).containsExactly("m0", "m1", "m2");
        assertThat(artemis.server().locateQueue(org.apache.activemq.artemis.api.core.SimpleString.of("art.in")))
                .as("the anycast queue Artemis made for /queue/art.in").isNotNull();
        await("acknowledged on Artemis").atMost(WAIT).until(() -> artemis.messageCount("art.in") == 0);
        assertThat(topic.receive(WAIT).bodyAsString()).isEqualTo("n");
    }

    @Test
    void shouldFailOverFromOneArtemisToAnotherRestoringSubscriptionsAndFlushingBufferedSends() throws Exception {
        EmbeddedArtemis first = artemis();
        EmbeddedArtemis second = artemis();
        String uri = "failover:(" + first.stompUri() + "," + second.stompUri() + ")?randomize=false&initialReconnectDelay=10"
                + "&maxReconnectDelay=100&heartBeatSend=0&heartBeatReceive=0";
        FailoverClient consumer = connect(uri);
        FailoverClient producer = connect(uri);
        List<String> got = new CopyOnWriteArrayList<>();
        consumer.subscribe(SubscriptionRequest.builder("/queue/art.failover").ackMode(AckMode.CLIENT_INDIVIDUAL).build(), m -> {
            got.add(m.bodyAsString());
            m.ack();
        });
        producer.send(persistent("/queue/art.failover", "before"));
        await("first message").atMost(WAIT).until(() -> got.equals(List.of("before")));

        first.close();
        List<CompletableFuture<SendReceipt>> receipts = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            receipts.add(producer.sendAsync(persistent("/queue/art.failover", "after" + i)));
        }

        assertThat(CompletableFuture.allOf(receipts.toArray(CompletableFuture[]::new))).succeedsWithin(WAIT);
        assertThat(receipts).allMatch(r -> r.join().brokerUri().equals(second.stompUri()));
        await("every message after the failover").atMost(WAIT).until(() -> got.size() == 21);
        assertThat(got.subList(1, 21)).containsExactlyInAnyOrderElementsOf(IntStream.range(0, 20).mapToObj(i -> "after" + i).toList());
        assertThat(consumer.connectedUri()).isEqualTo(second.stompUri());
    }

    @Test
    void shouldStoreAResendTwiceUnlessItCarriesArtemisDuplicateId() throws Exception {
        EmbeddedArtemis artemis = artemis();
        FailoverClient client = connect(ordered(artemis.stompUri()).build());
        FailoverSubscription s = client.subscribe(SubscriptionRequest.builder("/queue/art.dup").ackMode(AckMode.CLIENT_INDIVIDUAL).build());
        Message plain = persistent("/queue/art.dup", "plain");
        Message withId = Message.builder("/queue/art.dup").body("with-id").persistent(true).header("_AMQ_DUPL_ID", "app-7").build();

        // What a resend after a lost receipt does: the same message again.
        client.send(plain);
        client.send(plain);
        client.send(withId);
        client.send(withId);

        List<String> got = new ArrayList<>();
        FailoverMessage m;
        while ((m = s.receive(got.size() < 3 ? WAIT : NOTHING_MORE)) != null) {
            got.add(m.bodyAsString());
            m.ack();
        }
        assertThat(got).as("fedbridge-id means nothing to Artemis; _AMQ_DUPL_ID does").containsExactly("plain", "plain", "with-id");
    }
}
