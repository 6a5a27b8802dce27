package io.fedbridge.broker.integration;

import static org.assertj.core.api.Assertions.assertThat;

import io.fedbridge.core.AckMode;
import io.fedbridge.core.ClientConfig;
import io.fedbridge.core.ConnectionClosedException;
import io.fedbridge.core.Message;
import io.fedbridge.core.ReceivedMessage;
import io.fedbridge.core.StompCommand;
import io.fedbridge.core.StompConnection;
import io.fedbridge.core.StompFrame;
import io.fedbridge.core.StompHeaders;
import io.fedbridge.core.SubscriptionRequest;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntConsumer;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import io.fedbridge.broker.testing.ChildBroker;

/**
 * Kills (SIGKILL) a broker running in a child JVM at random points while clients stream persistent sends and acks
 * at it, restarts it on the same data directory, and checks the broker's promise: a persistent SEND that was
 * receipted is delivered exactly once and in order per destination, an ACK that was receipted is never undone, and a
 * delivery left unacknowledged is redelivered.
 */
class BrokerCrashIT extends BrokerTestSupport {

    private static final List<String> QUEUES = List.of("/queue/crash.0", "/queue/crash.1", "/queue/crash.2");
    private static final String SEQ = "seq";
    private static final String FENCE = "fence";
    private static final int KILLS = 4;
    /** Sends awaiting their receipt at once. */
    private static final int WINDOW = 200;
    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final byte[] BODY = new byte[256];

    @TempDir
    Path tmp;

    /** What the test knows of one destination's messages. Thread-safe. */
    private static final class Ledger {
        final AtomicLong lastSeq = new AtomicLong();
        // Every seq a SEND was written for, receipted or not.
        final Set<Long> sent = ConcurrentHashMap.newKeySet();
        final Set<Long> receipted = ConcurrentHashMap.newKeySet();
    }

    /** One MESSAGE as the test saw it; {@code run} counts broker starts on the data directory. */
    private record Delivery(long seq, int redeliveryCount, int run, String messageId) {
    }

    @Test
    void shouldDeliverEveryReceiptedSendExactlyOnceInOrderAfterRepeatedKill9() throws Exception {
        Path data = tmp.resolve("data");
        Map<String, Ledger> ledgers = ledgers();
        for (int run = 1; run <= KILLS; run++) {
            // Killed once 100-3000 sends are receipted (early kills hit the broker while its JIT is cold and its first
            // segment is being preallocated, when its writer lags most). Odd runs: by the I/O thread that takes that
            // receipt, while the broker is busy receipting (a receipt sent before its message is written shows here).
            // Even runs: by the producer 0-WINDOW sends later, anywhere in the broker's cycle of reading, writing,
            // forcing and receipting (un-receipted sends then often survive: they must arrive at most once, in order).
            int killAfter = ThreadLocalRandom.current().nextInt(100, 3001);
            int thenSends = ThreadLocalRandom.current().nextInt(WINDOW);
            boolean onReceipt = run % 2 == 1;
            AtomicInteger sentPastKillPoint = new AtomicInteger();
            try (ChildBroker broker = ChildBroker.start(data, tmp.resolve("broker-" + run + ".log"))) {
                produceUntilBrokerDies(connect(client(broker)), ledgers, receipted -> {
                    if (onReceipt && receipted == killAfter) {
                        broker.kill();
                    }
                }, receipted -> {
                    if (!onReceipt && receipted >= killAfter && sentPastKillPoint.getAndIncrement() == thenSends) {
                        broker.kill();
                    }
                });
            }
        }

        Map<String, List<Delivery>> delivered;
        try (ChildBroker broker = ChildBroker.start(data, tmp.resolve("broker-final.log"))) {
            delivered = drain(broker, KILLS + 1);
        }

        for (String q : QUEUES) {
            Ledger l = ledgers.get(q);
            List<Long> seqs = delivered.get(q).stream().map(Delivery::seq).toList();
            assertStrictlyIncreasing(q + " after the last restart", delivered.get(q));
            assertThat(missing(l.receipted, seqs)).as("receipted sends to %s never delivered", q).isEmpty();
            assertThat(missing(new HashSet<>(seqs), l.sent)).as("messages on %s the test never sent", q).isEmpty();
        }
        assertThat(ledgers.values().stream().mapToInt(l -> l.receipted.size()).sum()).as("receipted sends")
                .isGreaterThanOrEqualTo(KILLS * 100);
    }

    @Test
    void shouldNeverRedeliverAReceiptedAckButRedeliverTheUnackedAfterRepeatedKill9() throws Exception {
        Path data = tmp.resolve("data");
        Map<String, Ledger> ledgers = ledgers();
        Map<String, List<Delivery>> delivered = new LinkedHashMap<>();
        // seq -> the run whose broker receipted its ACK.
        Map<String, Map<Long, Integer>> ackReceipted = new LinkedHashMap<>();
        // Seqs whose ACK was sent but never receipted: the kill came first, so they may or may not come back.
        Map<String, Set<Long>> ackInDoubt = new LinkedHashMap<>();
        // seq -> the run in which the consumer deliberately left it unacknowledged (once per seq).
        Map<String, Map<Long, Integer>> leftUnacked = new LinkedHashMap<>();
        List<String> violations = new CopyOnWriteArrayList<>();
        for (String q : QUEUES) {
            delivered.put(q, new CopyOnWriteArrayList<>());
            ackReceipted.put(q, new ConcurrentHashMap<>());
            ackInDoubt.put(q, ConcurrentHashMap.newKeySet());
            leftUnacked.put(q, new ConcurrentHashMap<>());
        }

        for (int run = 1; run <= KILLS; run++) {
            int thisRun = run;
            int killAfter = ThreadLocalRandom.current().nextInt(100, 1501);
            AtomicInteger acks = new AtomicInteger();
            // Armed once both clients are connected and subscribed, so that acking a recovered backlog cannot kill
            // the broker before the run has begun.
            AtomicBoolean armed = new AtomicBoolean();
            try (ChildBroker broker = ChildBroker.start(data, tmp.resolve("broker-" + run + ".log"))) {
                StompConnection producer = connect(client(broker));
                StompConnection consumer = connect(client(broker));
                for (String q : QUEUES) {
                    consumer.subscribeAndWait(SubscriptionRequest.builder(q).ackMode(AckMode.CLIENT_INDIVIDUAL).build(), m -> {
                        long seq = seq(m);
                        delivered.get(q).add(new Delivery(seq, m.redeliveryCount(), thisRun, m.messageId()));
                        // One message in ten stays unacknowledged (inflight) until the kill, on its first delivery only.
                        if (seq % 10 == 7 && leftUnacked.get(q).putIfAbsent(seq, thisRun) == null) {
                            return;
                        }
                        ackInDoubt.get(q).add(seq);
                        CompletableFuture<Void> ack;
                        try {
                            ack = ack(consumer, m);
                        } catch (ConnectionClosedException e) {
                            return; // the broker is gone
                        }
                        ack.thenRun(() -> {
                            ackInDoubt.get(q).remove(seq);
                            if (ackReceipted.get(q).put(seq, thisRun) != null) {
                                violations.add("second receipted ACK of " + q + " " + seq + " in run " + thisRun);
                            }
                            if (acks.incrementAndGet() >= killAfter && armed.get()) {
                                broker.kill();
                            }
                        });
                    }, WAIT);
                }
                armed.set(true);
                produceUntilBrokerDies(producer, ledgers, receipted -> { }, receipted -> { });
                assertThat(acks.get()).as("receipted ACKs before the kill").isGreaterThanOrEqualTo(killAfter);
            }
        }

        try (ChildBroker broker = ChildBroker.start(data, tmp.resolve("broker-final.log"))) {
            drain(broker, KILLS + 1).forEach((q, l) -> delivered.get(q).addAll(l));
        }
        assertThat(violations).isEmpty();

        for (String q : QUEUES) {
            Ledger l = ledgers.get(q);
            List<Delivery> all = delivered.get(q);
            for (int run = 1; run <= KILLS + 1; run++) {
                int r = run;
                assertStrictlyIncreasing(q + " in run " + run, all.stream().filter(d -> d.run() == r).toList());
            }
            Map<Long, Integer> acked = ackReceipted.get(q);
            List<Delivery> afterReceiptedAck = all.stream()
                    .filter(d -> acked.containsKey(d.seq()) && d.run() > acked.get(d.seq())).toList();
            assertThat(afterReceiptedAck).as("deliveries on %s after their ACK was receipted", q).isEmpty();

            Set<Long> settled = new HashSet<>(acked.keySet());
            settled.addAll(ackInDoubt.get(q));
            all.stream().filter(d -> d.run() == KILLS + 1).forEach(d -> settled.add(d.seq()));
            assertThat(missing(l.receipted, settled)).as("receipted sends to %s never delivered and acknowledged", q).isEmpty();
            assertThat(missing(all.stream().map(Delivery::seq).collect(Collectors.toSet()), l.sent))
                    .as("messages on %s the test never sent", q).isEmpty();

            List<String> notRedelivered = new ArrayList<>();
            leftUnacked.get(q).forEach((seq, run) -> {
                if (all.stream().noneMatch(d -> d.seq() == seq && d.run() > run)) {
                    notRedelivered.add(seq + "@" + run);
                }
            });
            assertThat(leftUnacked.get(q)).as("messages on %s left unacknowledged", q).isNotEmpty();
            assertThat(notRedelivered).as("unacknowledged deliveries (seq@run) on %s never redelivered", q).isEmpty();
        }
    }

    @Test
    void shouldCountADeliveryCutShortByKill9AsARedelivery() throws Exception {
        Path data = tmp.resolve("data");
        String q = QUEUES.get(0);
        SubscriptionRequest request = SubscriptionRequest.builder(q).ackMode(AckMode.CLIENT_INDIVIDUAL).build();
        try (ChildBroker broker = ChildBroker.start(data, tmp.resolve("broker-1.log"))) {
            StompConnection c = connect(client(broker));
            c.send(message(q, 1)).get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
            ReceivedMessage first = c.subscribeAndWait(request, null, WAIT).receive(WAIT);
            assertThat(first).as("first delivery").isNotNull();
            assertThat(first.redeliveryCount()).isZero();
            // A receipted persistent SEND after the delivery: whatever the broker wrote to its store before sending
            // the MESSAGE (even a best-effort record, the journal writes in order) is now on disk.
            c.send(message(QUEUES.get(1), 1)).get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
            broker.kill();
        }
        try (ChildBroker broker = ChildBroker.start(data, tmp.resolve("broker-2.log"))) {
            ReceivedMessage again = connect(client(broker)).subscribeAndWait(request, null, WAIT).receive(WAIT);
            assertThat(again).as("redelivery after the kill").isNotNull();
            assertThat(seq(again)).isEqualTo(1);
            assertThat(again.redeliveryCount()).as("redelivery-count of a message delivered, never acknowledged, before a kill -9")
                    .isGreaterThanOrEqualTo(1);
            assertThat(again.header(StompHeaders.REDELIVERED)).isEqualTo("true");
        }
    }

    /**
     * A bridge resends every forward whose receipt it did not see, and a broker that restarts after kill -9 must
     * still recognise each federation id it had accepted, though its dedupe log commits only every second. The ids of
     * messages already consumed, and whether a local consumer took them, come back from the journal's records.
     */
    @Test
    void shouldRecogniseFederationIdsOfConsumedMessagesAfterKill9() throws Exception {
        Path data = tmp.resolve("data");
        String q = QUEUES.get(0);
        int n = 40;
        SubscriptionRequest request = SubscriptionRequest.builder(q).ackMode(AckMode.CLIENT_INDIVIDUAL).build();
        try (ChildBroker broker = ChildBroker.start(data, tmp.resolve("broker-1.log"))) {
            StompConnection c = connect(client(broker));
            var subscription = c.subscribeAndWait(request, null, WAIT);
            for (int i = 1; i <= n; i++) {
                c.sendForReceipt(forwarded(q, i, false)).get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
                ReceivedMessage m = subscription.receive(WAIT);
                assertThat(m).as("delivery of %s", i).isNotNull();
                ack(c, m).get(WAIT.toMillis(), TimeUnit.MILLISECONDS); // the removal is durable: consumed here
            }
            broker.kill(); // well within the dedupe log's commit interval for the last ids
        }
        try (ChildBroker broker = ChildBroker.start(data, tmp.resolve("broker-2.log"))) {
            StompConnection c = connect(client(broker));
            var subscription = c.subscribeAndWait(request, null, WAIT);
            for (int i = 1; i <= n; i++) {
                // the resend of an unreceipted forward, and a replay of a copy another broker held
                c.sendForReceipt(forwarded(q, i, false)).get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
                c.sendForReceipt(forwarded(q, i, true)).get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
            }
            c.send(Message.builder(q).persistent(true).header(FENCE, "after").body(BODY).build())
                    .get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
            ReceivedMessage first = subscription.receive(WAIT);
            assertThat(first).as("a delivery after the resends").isNotNull();
            assertThat(first.header(SEQ)).as("a resent or replayed copy of message %s, consumed before the kill -9,"
                    + " delivered again", first.header(SEQ)).isNull();
            assertThat(first.header(FENCE)).isEqualTo("after");
        }
    }

    /** A persistent SEND as a bridge forwards it: with a federation id, and a replay count if {@code replay}. */
    private static StompFrame forwarded(String queue, long seq, boolean replay) {
        StompHeaders h = StompHeaders.of(StompHeaders.DESTINATION, queue, StompHeaders.PERSISTENT, "true",
                io.fedbridge.core.FederationHeaders.FEDERATION_ID, "origin-broker:" + seq, SEQ, Long.toString(seq));
        if (replay) {
            h.set(io.fedbridge.core.FederationHeaders.REPLAYS, "1");
        }
        return new StompFrame(StompCommand.SEND, h, BODY);
    }

    private static Map<String, Ledger> ledgers() {
        Map<String, Ledger> m = new LinkedHashMap<>();
        QUEUES.forEach(q -> m.put(q, new Ledger()));
        return m;
    }

    private ClientConfig client(ChildBroker broker) {
        return ClientConfig.builder(broker.uri()).heartBeats(Duration.ZERO).build();
    }

    private static Message message(String queue, long seq) {
        return Message.builder(queue).persistent(true).header(SEQ, Long.toString(seq)).body(BODY).build();
    }

    private static long seq(ReceivedMessage m) {
        return Long.parseLong(m.header(SEQ));
    }

    /** ACK with a receipt: the future completes once the broker has made the removal durable. */
    private static CompletableFuture<Void> ack(StompConnection c, ReceivedMessage m) {
        return c.sendFrame(StompFrame.of(StompCommand.ACK, StompHeaders.ID, m.ackId()), true);
    }

    /**
     * Streams persistent sends round-robin over the queues, {@link #WINDOW} awaiting their receipt at once, until the
     * broker dies (something must kill it). {@code onReceipt} gets the number receipted so far on each receipt, on the
     * connection's I/O thread; {@code afterSend} gets it after each send, on the caller's thread.
     */
    private static void produceUntilBrokerDies(StompConnection c, Map<String, Ledger> ledgers, IntConsumer onReceipt,
                                               IntConsumer afterSend)
            throws InterruptedException {
        Semaphore window = new Semaphore(WINDOW);
        AtomicInteger receipted = new AtomicInteger();
        List<Throwable> failures = new CopyOnWriteArrayList<>();
        long deadline = System.nanoTime() + WAIT.toNanos();
        for (int i = 0; c.isConnected(); i++) {
            assertThat(window.tryAcquire(WAIT.toMillis(), TimeUnit.MILLISECONDS)).as("a receipt within %s", WAIT).isTrue();
            assertThat(System.nanoTime() - deadline).as("broker killed within %s", WAIT).isNegative();
            String q = QUEUES.get(i % QUEUES.size());
            Ledger l = ledgers.get(q);
            long seq = l.lastSeq.incrementAndGet();
            l.sent.add(seq);
            CompletableFuture<Void> f;
            try {
                f = c.send(message(q, seq));
            } catch (ConnectionClosedException e) {
                break;
            }
            f.whenComplete((v, e) -> {
                window.release();
                if (e == null) {
                    l.receipted.add(seq);
                    onReceipt.accept(receipted.incrementAndGet());
                } else if (!(unwrap(e) instanceof ConnectionClosedException)) {
                    failures.add(e);
                }
            });
            afterSend.accept(receipted.get());
        }
        assertThat(failures).as("sends refused by the broker").isEmpty();
        assertThat(c.closeFuture()).as("producer connection closed by the kill").succeedsWithin(WAIT);
    }

    /**
     * Sends a fence to each queue, then consumes every queue (CLIENT_INDIVIDUAL), acknowledging each message with a
     * receipt, until the fences arrive: everything stored before is then delivered.
     */
    private Map<String, List<Delivery>> drain(ChildBroker broker, int run) throws Exception {
        StompConnection c = connect(client(broker));
        for (String q : QUEUES) {
            c.send(Message.builder(q).persistent(true).header(FENCE, "true").build()).get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        }
        Map<String, List<Delivery>> delivered = new LinkedHashMap<>();
        List<CompletableFuture<Void>> fences = new ArrayList<>();
        List<CompletableFuture<Void>> acks = new CopyOnWriteArrayList<>();
        for (String q : QUEUES) {
            List<Delivery> l = Collections.synchronizedList(new ArrayList<>());
            CompletableFuture<Void> fence = new CompletableFuture<>();
            delivered.put(q, l);
            fences.add(fence);
            c.subscribeAndWait(SubscriptionRequest.builder(q).ackMode(AckMode.CLIENT_INDIVIDUAL).build(), m -> {
                acks.add(ack(c, m));
                if (m.header(FENCE) != null) {
                    fence.complete(null);
                } else {
                    l.add(new Delivery(seq(m), m.redeliveryCount(), run, m.messageId()));
                }
            }, WAIT);
        }
        assertThat(CompletableFuture.allOf(fences.toArray(CompletableFuture[]::new)))
                .as("every queue drained up to its fence").succeedsWithin(WAIT);
        assertThat(CompletableFuture.allOf(acks.toArray(CompletableFuture[]::new))).as("every ACK receipted").succeedsWithin(WAIT);
        return delivered;
    }

    private static void assertStrictlyIncreasing(String what, List<Delivery> deliveries) {
        for (int i = 1; i < deliveries.size(); i++) {
            if (deliveries.get(i).seq() <= deliveries.get(i - 1).seq()) {
                long seq = deliveries.get(i).seq();
                throw new AssertionError("seqs on " + what + " must be strictly increasing, but delivery #" + i + " is " + seq
                        + " after " + deliveries.get(i - 1).seq() + "; around it: "
                        + deliveries.subList(Math.max(0, i - 3), Math.min(deliveries.size(), i + 3)) + "; every delivery of " + seq
                        + " there: " + deliveries.stream().filter(d -> d.seq() == seq).toList());
            }
        }
    }

    /** The elements of {@code expected} not in {@code actual}, sorted. */
    private static TreeSet<Long> missing(Set<Long> expected, Collection<Long> actual) {
        TreeSet<Long> m = new TreeSet<>(expected);
        m.removeAll(actual instanceof Set<Long> s ? s : new HashSet<>(actual));
        return m;
    }

    private static Throwable unwrap(Throwable e) {
        return e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
    }
}
