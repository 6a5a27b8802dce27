package io.fedbridge.broker.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fedbridge.broker.Broker;
import io.fedbridge.broker.DestinationStats;
import io.fedbridge.core.AckMode;
import io.fedbridge.core.Message;
import io.fedbridge.core.StompConnection;
import io.fedbridge.core.Subscription;
import io.fedbridge.core.SubscriptionRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * Message groups ({@code JMSXGroupID}) on a full mesh of three brokers over TCP: a producer on A, two consumers on each
 * of B and C. Every group is seen by one consumer at a time, in order; groups spread over the consumers of both
 * brokers; when a consumer leaves, its groups move once; {@code JMSXGroupSeq=-1} closes a group.
 */
class MessageGroupsIT extends BrokerTestSupport {

    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final String QUEUE = "/queue/grouped.orders";
    private static final int GROUPS = 20;
    private static final int PER_GROUP = 30;
    /** Groups 0 to CLOSED-1 send their last message with JMSXGroupSeq=-1. */
    private static final int CLOSED = 5;

    record Got(String consumer, String group, int seq) {
    }

    private final List<Got> got = new CopyOnWriteArrayList<>();

    private void consume(Broker b, String name, int leaveAfter, CompletableFuture<Void> left) {
        StompConnection c = connect(b, "tcp");
        AtomicBoolean active = new AtomicBoolean(true);
        AtomicReference<Subscription> sub = new AtomicReference<>();
        sub.set(c.subscribeAndWait(SubscriptionRequest.builder(QUEUE).ackMode(AckMode.CLIENT_INDIVIDUAL).prefetch(5).build(), m -> {
            if (!active.get()) {
                return; // handed out after it left: the broker gives it to the group's next consumer
            }
            got.add(new Got(name, m.header("JMSXGroupID"), Integer.parseInt(m.bodyAsString())));
            m.ack();
            if (leaveAfter > 0 && got.stream().filter(g -> g.consumer().equals(name)).count() == leaveAfter) {
                active.set(false);
                sub.get().unsubscribe();
                left.complete(null);
            }
        }, WAIT));
    }

    @Test
    void shouldGiveEachGroupToOneConsumerOfTheFederationAtATimeInOrder() throws Exception {
        Broker[] b = startMesh("grp", c -> c, "duplex=true&networkTTL=2&initialReconnectDelay=50&maxReconnectDelay=300");
        CompletableFuture<Void> left = new CompletableFuture<>();
        consume(b[1], "B1", 40, left);
        consume(b[1], "B2", 0, null);
        consume(b[2], "C1", 0, null);
        consume(b[2], "C2", 0, null);
        await("A sees the consumers of B and C").atMost(WAIT).until(() -> {
            DestinationStats s = b[0].queue(QUEUE);
            return s != null && s.consumers() == 2; // one network subscription toward each
        });

        StompConnection producer = connect(b[0], "tcp");
        List<CompletableFuture<Void>> receipts = new ArrayList<>();
        for (int seq = 1; seq <= PER_GROUP; seq++) {
            for (int g = 0; g < GROUPS; g++) {
                Message.Builder m = Message.builder(QUEUE).header("JMSXGroupID", "g" + g).body(Integer.toString(seq)).persistent(true);
                if (seq == PER_GROUP && g < CLOSED) {
                    m.header("JMSXGroupSeq", "-1");
                }
                receipts.add(producer.send(m.build()));
            }
            CompletableFuture.allOf(receipts.toArray(CompletableFuture[]::new)).get();
            receipts.clear();
        }
        await("every message consumed").atMost(WAIT).until(() -> got.size() >= GROUPS * PER_GROUP);
        assertThat(left).isDone();
        assertThat(got).hasSize(GROUPS * PER_GROUP);

        Map<String, String> owners = new LinkedHashMap<>();
        for (int g = 0; g < GROUPS; g++) {
            String group = "g" + g;
            List<Got> mine = got.stream().filter(x -> x.group().equals(group)).toList();
            assertThat(mine.stream().map(Got::seq).toList()).as("group %s: in order, nothing lost or duplicated", group)
                    .isEqualTo(IntStream.rangeClosed(1, PER_GROUP).boxed().toList());
            List<String> consumers = mine.stream().map(Got::consumer).distinct().toList();
            // one consumer at a time: a run of one, then (if B1 left while owning it) a run of the one it moved to
            assertThat(mine.stream().map(Got::consumer).toList()).as("group %s, consumer by consumer", group)
                    .isEqualTo(runs(mine, consumers));
            assertThat(consumers).as("group %s moves at most once, only away from B1", group)
                    .satisfiesAnyOf(l -> assertThat(l).hasSize(1), l -> assertThat(l).hasSize(2).first().isEqualTo("B1"));
            owners.put(group, consumers.get(consumers.size() - 1));
        }
        assertThat(owners.values().stream().map(o -> o.charAt(0)).distinct()).as("groups on both brokers").hasSize(2);
        assertThat(owners.values().stream().distinct().count()).as("groups spread over the consumers").isGreaterThanOrEqualTo(3);

        DestinationStats onA = b[0].queue(QUEUE);
        assertThat(onA.groups()).as("groups still open on A (JMSXGroupSeq=-1 closed %d)", CLOSED).isEqualTo(GROUPS - CLOSED);
        assertThat(onA.groupAssignments()).as("A gave each group to a route once").isEqualTo(GROUPS);
    }

    /** The consumers of {@code mine} in the order of their first message, each repeated for all of its messages. */
    private static List<String> runs(List<Got> mine, List<String> consumers) {
        List<String> l = new ArrayList<>();
        for (String c : consumers) {
            mine.stream().filter(x -> x.consumer().equals(c)).forEach(x -> l.add(c));
        }
        return l;
    }
}
