package io.fedbridge.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fedbridge.core.Message;
import io.fedbridge.core.StompConnection;
import io.fedbridge.core.Subscription;
import io.fedbridge.core.SubscriptionRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/**
 * In a ring of 8, broker 0 reaches broker 4 by two routes of 4 hops. When a consumer appears on broker 4, its demand
 * often reaches broker 0 first over the route that loses the tie, and moves to the other a few milliseconds later,
 * while broker 0's producer keeps sending. Moving must lose no topic message (the old route's subscription ends only
 * once the new one is in place, and what was dispatched to it before its end is still forwarded), and must not hold a
 * queue message back (what the old route never forwarded is not in doubt with its peer, so it is not kept for
 * inDoubtHold, 10 s).
 */
class DemandMoveTest {

    private static final int ROUNDS = 12;
    private static final Duration WAIT = Duration.ofSeconds(60);

    @Test
    void shouldLoseNoTopicMessageAndHoldNoQueueMessageWhenDemandMovesToAnotherRoute() throws Exception {
        List<String> problems = new ArrayList<>();
        try (Federation f = Federation.start(Federation.Shape.RING, 8, 0, 22, WAIT);
             StompConnection producer = StompConnection.connect(f.broker(0).connectUris().get(0));
             StompConnection consumer = StompConnection.connect(f.broker(4).connectUris().get(0))) {
            for (int round = 1; round <= ROUNDS; round++) {
                String topic = "/topic/move." + round;
                String queue = "/queue/move." + round;
                ConcurrentSkipListSet<Integer> topicGot = new ConcurrentSkipListSet<>();
                ConcurrentSkipListSet<Integer> queueGot = new ConcurrentSkipListSet<>();
                AtomicBoolean sending = new AtomicBoolean(true);
                AtomicInteger sent = new AtomicInteger();
                CompletableFuture<Void> publisher = CompletableFuture.runAsync(() -> {
                    while (sending.get()) {
                        String n = Integer.toString(sent.get() + 1);
                        CompletableFuture<Void> t = producer.send(Message.builder(topic).body(n).build());
                        CompletableFuture<Void> q = producer.send(Message.builder(queue).body(n).build());
                        t.join();
                        q.join();
                        sent.incrementAndGet();
                        LockSupport.parkNanos(200_000);
                    }
                });
                await().atMost(WAIT).until(() -> sent.get() >= 5);
                Subscription ts = consumer.subscribe(SubscriptionRequest.of(topic), m -> topicGot.add(Integer.parseInt(m.bodyAsString())));
                Subscription qs = consumer.subscribe(SubscriptionRequest.of(queue), m -> queueGot.add(Integer.parseInt(m.bodyAsString())));
                // demand arrives, and may move, while the producer goes on: the window in which messages got lost
                await().atMost(WAIT).until(() -> topicGot.size() >= 100);
                sending.set(false);
                publisher.get(WAIT.toSeconds(), TimeUnit.SECONDS);
                int total = sent.get();

                // queue: every message, and soon (not after an inDoubtHold of 10 s)
                long stopped = System.nanoTime();
                await().atMost(WAIT).until(() -> queueGot.size() >= total);
                long queueMillis = (System.nanoTime() - stopped) / 1_000_000;
                if (queueMillis > 6_000) {
                    problems.add("round " + round + ": the queue's last messages came " + queueMillis + " ms after the last send");
                }
                // topic: from the first message that reached the consumer on, every one
                int first = topicGot.first();
                await().atMost(Duration.ofSeconds(5)).until(() -> topicGot.size() >= total - first + 1 || topicGot.last() == total);
                List<Integer> gaps = new ArrayList<>();
                for (int n = first; n <= total; n++) {
                    if (!topicGot.contains(n)) {
                        gaps.add(n);
                    }
                }
                if (!gaps.isEmpty()) {
                    problems.add("round " + round + ": topic messages " + gaps + " of " + first + ".." + total + " lost");
                }
                ts.unsubscribe();
                qs.unsubscribe();
                await().atMost(WAIT).until(() -> f.networkSubscriptions() == 0);
            }
        }
        assertThat(problems).isEmpty();
    }
}
