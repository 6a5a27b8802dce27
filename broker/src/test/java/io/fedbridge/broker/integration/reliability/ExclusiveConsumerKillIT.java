package io.fedbridge.broker.integration.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fedbridge.broker.Broker;
import io.fedbridge.broker.BrokerConfig;
import io.fedbridge.broker.DestinationStats;
import io.fedbridge.broker.cluster.DestinationDefinition;
import io.fedbridge.broker.management.ManagementDestinations;
import io.fedbridge.broker.testing.ChildBroker;
import io.fedbridge.core.AckMode;
import io.fedbridge.core.ClientConfig;
import io.fedbridge.core.Message;
import io.fedbridge.core.ReceivedMessage;
import io.fedbridge.core.StompCommand;
import io.fedbridge.core.StompFrame;
import io.fedbridge.core.StompHeaders;
import io.fedbridge.core.StompConnection;
import io.fedbridge.core.Subscription;
import io.fedbridge.core.SubscriptionRequest;
import io.fedbridge.core.bridge.BridgeState;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The federation-wide exclusive consumer when its broker dies: three brokers in a full mesh over TCP, the active
 * consumer W on C (a child JVM), a backup Y on B, producers on A and B. W acknowledges slowly (each ACK with a receipt,
 * only as far as a gate allows), so at the kill C holds messages W received and did not acknowledge, messages waiting
 * for W, and acknowledgements on their way; the producers are still sending. C is killed with SIGKILL; Y on B takes
 * over. Nothing is lost, nothing W's receipted ACK made final comes again, only messages whose ACK receipt W did not get
 * come twice (the second time flagged redelivered), each producer's messages arrive in order, and one consumer
 * receives at a time (docs/cluster.md, forwarding without ownership transfer).
 */
class ExclusiveConsumerKillIT {

    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final String QUEUE = "/queue/exclusive.kill";
    private static final String LINK = "duplex=true&networkTTL=2&initialReconnectDelay=100&maxReconnectDelay=500&heartBeat=1000";
    private static final int BEFORE = 150;
    private static final int AFTER = 150;
    private static final int ACKED_BEFORE_KILL = 100;

    @TempDir
    Path tmp;

    /** Closed last-in first-out after each test: clients before the brokers they talk to. */
    private final Deque<AutoCloseable> resources = new ArrayDeque<>();

    record Got(String consumer, String producer, int seq, boolean redelivered) {
    }

    /** Every delivery to either consumer, in the order they happened. */
    private final List<Got> got = new CopyOnWriteArrayList<>();
    /** W's messages whose ACK's receipt came back: final, never to be delivered again. */
    private final Set<String> confirmed = ConcurrentHashMap.newKeySet();
    /** How many of its messages W may acknowledge so far. */
    private final Semaphore ackPermits = new Semaphore(ACKED_BEFORE_KILL);
    /** ACKs W sent. */
    private final AtomicInteger acksSent = new AtomicInteger();

    @AfterEach
    void closeResources() throws Exception {
        Exception first = null;
        while (!resources.isEmpty()) {
            try {
                resources.pop().close();
            } catch (Exception e) {
                first = first == null ? e : first;
            }
        }
        if (first != null) {
            throw first;
        }
    }

    private <T extends AutoCloseable> T track(T resource) {
        resources.push(resource);
        return resource;
    }

    private StompConnection connect(String uri) {
        return track(StompConnection.connect(ClientConfig.builder(uri).heartBeats(Duration.ZERO).build()));
    }

    private Got record(String consumer, ReceivedMessage m) {
        String[] body = m.bodyAsString().split("/");
        Got g = new Got(consumer, body[0], Integer.parseInt(body[1]), "true".equals(m.header("redelivered")));
        got.add(g);
        return g;
    }

    /** Y: acknowledges each message at once. */
    private void consume(String uri, String name) {
        connect(uri).subscribeAndWait(SubscriptionRequest.builder(QUEUE).ackMode(AckMode.CLIENT_INDIVIDUAL).prefetch(10).build(),
                m -> {
                    record(name, m);
                    m.ack();
                }, WAIT);
    }

    /** W: a worker thread acknowledges in delivery order, each ACK with a receipt, as far as {@link #ackPermits} allow. */
    private void consumeSlowly(String uri, String name) {
        StompConnection c = connect(uri);
        LinkedBlockingQueue<Map.Entry<Got, ReceivedMessage>> received = new LinkedBlockingQueue<>();
        c.subscribeAndWait(SubscriptionRequest.builder(QUEUE).ackMode(AckMode.CLIENT_INDIVIDUAL).prefetch(10).build(),
                m -> received.add(Map.entry(record(name, m), m)), WAIT);
        ExecutorService acker = Executors.newSingleThreadExecutor();
        track(acker::shutdownNow);
        acker.execute(() -> {
            try {
                while (!Thread.currentThread().isInterrupted()) {
                    Map.Entry<Got, ReceivedMessage> next = received.take();
                    ackPermits.acquire();
                    StompHeaders h = new StompHeaders();
                    h.add(StompHeaders.ID, next.getValue().ackId());
                    Got g = next.getKey();
                    c.sendForReceipt(new StompFrame(StompCommand.ACK, h))
                            .thenRun(() -> confirmed.add(g.producer() + "/" + g.seq()));
                    acksSent.incrementAndGet();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (RuntimeException e) {
                // C is gone: W's connection with it
            }
        });
    }

    /** Defines the queue on {@code uri}'s broker through the management API (C runs in a child JVM). */
    private void define(String uri) throws Exception {
        StompConnection c = connect(uri);
        Subscription replies = c.subscribeAndWait(SubscriptionRequest.of("/temp-queue/replies"), null, WAIT);
        c.send(Message.builder(ManagementDestinations.REQUESTS).header("reply-to", "/temp-queue/replies")
                .body("{\"op\":\"invoke\",\"type\":\"definition\",\"name\":\"" + QUEUE + "\",\"method\":\"define\","
                        + "\"arguments\":{\"maxNumActiveConsumers\":\"1\",\"maxNumBackupConsumers\":\"1\"}}").build())
                .get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        ReceivedMessage answer = replies.receive(WAIT);
        assertThat(answer).as("answer to define").isNotNull();
        assertThat(answer.header(ManagementDestinations.STATUS)).as(answer.bodyAsString()).isEqualTo("ok");
    }

    private static void send(StompConnection producer, String name, int from, int to) throws Exception {
        List<CompletableFuture<Void>> receipts = new ArrayList<>();
        for (int i = from; i <= to; i++) {
            receipts.add(producer.send(Message.builder(QUEUE).body(name + "/" + i).persistent(true).build()));
        }
        CompletableFuture.allOf(receipts.toArray(CompletableFuture[]::new)).get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
    }

    @Test
    void shouldHandOverToABackupOnAnotherBrokerWhenTheActiveConsumersBrokerIsKilled() throws Exception {
        ChildBroker c = track(ChildBroker.start("C", tmp.resolve("C"), 0, null, tmp.resolve("logs")));
        Broker b = track(Broker.start(BrokerConfig.builder("B").listen("tcp://127.0.0.1:0").ioThreads(1)
                .dataDirectory(tmp.resolve("B")).networkConnector("static:(" + c.uri() + ")?" + LINK).build()));
        Broker a = track(Broker.start(BrokerConfig.builder("A").listen("tcp://127.0.0.1:0").ioThreads(1)
                .dataDirectory(tmp.resolve("A"))
                .networkConnector("static:(" + b.connectUris().get(0) + "," + c.uri() + ")?" + LINK).build()));
        await("A's two bridges and B's one up").atMost(WAIT).until(() ->
                a.bridges().stream().filter(s -> s.state() == BridgeState.UP).count() == 2
                        && b.bridges().stream().filter(s -> s.state() == BridgeState.UP).count() == 1);
        define(c.uri());
        for (Broker x : List.of(a, b)) {
            await("the definition made on C reaches " + x.name()).atMost(WAIT).until(() ->
                    x.cluster().definition(QUEUE).filter(DestinationDefinition::isDefined).isPresent());
        }

        consumeSlowly(c.uri(), "W@C");
        awaitConsumers(List.of(a, b), 1);
        consume(b.connectUris().get(0), "Y@B");
        awaitConsumers(List.of(a, b), 2);

        StompConnection onA = connect(a.connectUris().get(0));
        StompConnection onB = connect(b.connectUris().get(0));
        send(onA, "A", 1, BEFORE);
        send(onB, "B", 1, BEFORE); // B's own consumer is a backup: these go to C too
        await("W on C acknowledged " + ACKED_BEFORE_KILL + " (receipted) and holds more").atMost(WAIT).until(() ->
                confirmed.size() >= ACKED_BEFORE_KILL && got.size() >= ACKED_BEFORE_KILL + 10);
        assertThat(got).as("only the active consumer receives").allMatch(g -> g.consumer().equals("W@C"));

        // The producers keep sending across the kill, and W is acknowledging when it comes.
        ExecutorService producers = Executors.newFixedThreadPool(2);
        track(producers::shutdownNow);
        Future<?> fromA = producers.submit(() -> {
            send(onA, "A", BEFORE + 1, BEFORE + AFTER);
            return null;
        });
        Future<?> fromB = producers.submit(() -> {
            send(onB, "B", BEFORE + 1, BEFORE + AFTER);
            return null;
        });
        ackPermits.release(20);
        await("W acknowledging again").atMost(WAIT).until(() -> acksSent.get() >= ACKED_BEFORE_KILL + 10);
        int gotByW = got.size();
        c.killAndReap(); // with some of W's ACKs on their way to the sources
        int total = 2 * (BEFORE + AFTER);
        fromA.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        fromB.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        await("every receipted message delivered").atMost(WAIT).until(() ->
                got.stream().map(g -> g.producer() + "/" + g.seq()).distinct().count() == total
                        && lastSeq("Y@B", "A") == BEFORE + AFTER && lastSeq("Y@B", "B") == BEFORE + AFTER);

        List<Got> all = List.copyOf(got);
        int firstOfY = IntStream.range(0, all.size()).filter(i -> all.get(i).consumer().equals("Y@B")).findFirst().orElseThrow();
        assertThat(firstOfY).as("nothing reached Y before C was killed").isGreaterThanOrEqualTo(gotByW);
        assertThat(all.subList(firstOfY, all.size())).as("one consumer at a time: W received nothing once Y began")
                .allMatch(g -> g.consumer().equals("Y@B"));
        for (String p : List.of("A", "B")) {
            List<Integer> byW = seqs(all, "W@C", p);
            List<Integer> byY = seqs(all, "Y@B", p);
            assertThat(byW).as("%s's messages to W: the first ones, in order, once", p)
                    .isEqualTo(IntStream.rangeClosed(1, byW.size()).boxed().toList());
            assertThat(byY).as("%s's messages to Y: in order, once, through the last", p).isNotEmpty()
                    .isEqualTo(IntStream.rangeClosed(byY.get(0), BEFORE + AFTER).boxed().toList());
            assertThat(byY.get(0)).as("%s's messages: nothing lost between W and Y", p).isLessThanOrEqualTo(byW.size() + 1);
            for (Got g : all.subList(firstOfY, all.size())) {
                if (g.producer().equals(p) && g.seq() <= byW.size()) {
                    assertThat(confirmed).as("%s came twice: only if W's ACK was not confirmed", g).doesNotContain(p + "/" + g.seq());
                    assertThat(g.redelivered()).as("%s's second delivery is flagged redelivered", g).isTrue();
                }
            }
        }
        long twice = all.stream().map(g -> g.producer() + "/" + g.seq()).count() - total;
        System.out.printf("ExclusiveConsumerKillIT: W received %d, acknowledged %d, %d of them confirmed; delivered twice: %d%n",
                firstOfY, acksSent.get(), confirmed.size(), twice); // the figures of a run, for the report
        DestinationStats statsOnB = b.queue(QUEUE);
        assertThat(statsOnB.consumers()).as("B's consumers of %s once C's are gone", QUEUE).isEqualTo(1);
    }

    private int lastSeq(String consumer, String producer) {
        List<Integer> l = seqs(got, consumer, producer);
        return l.isEmpty() ? 0 : l.get(l.size() - 1);
    }

    private static List<Integer> seqs(List<Got> all, String consumer, String producer) {
        return all.stream().filter(g -> g.consumer().equals(consumer) && g.producer().equals(producer)).map(Got::seq).toList();
    }

    private static void awaitConsumers(List<Broker> brokers, int n) {
        for (Broker x : brokers) {
            await(x.name() + " knows " + n + " consumer(s) of " + QUEUE).atMost(WAIT).until(() -> {
                DestinationStats s = x.queue(QUEUE);
                return s != null && s.consumers() == n;
            });
        }
    }
}
