package io.fedbridge.broker.integration.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import io.fedbridge.core.AckMode;
import io.fedbridge.core.ConnectionClosedException;
import io.fedbridge.core.Message;
import io.fedbridge.core.ReceivedMessage;
import io.fedbridge.core.StompConnection;
import io.fedbridge.core.Subscription;
import io.fedbridge.core.SubscriptionRequest;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What a test knows of one queue's messages, each carrying a {@code seq} header: which seqs were sent, which sends the
 * broker receipted (durable), and how often each seq reached the consuming application. Also sends (pipelined, a
 * window of receipts outstanding) and consumes (CLIENT_INDIVIDUAL) for it. Thread-safe.
 */
final class SeqLedger {

    static final String SEQ = "seq";

    private final String queue;
    private final byte[] body;
    private final Set<Long> sent = ConcurrentHashMap.newKeySet();
    private final Set<Long> receipted = ConcurrentHashMap.newKeySet();
    private final Map<Long, AtomicInteger> delivered = new ConcurrentHashMap<>();
    private final AtomicInteger deliveries = new AtomicInteger();
    private final List<Throwable> sendFailures = new CopyOnWriteArrayList<>();

    SeqLedger(String queue, int bodyBytes) {
        this.queue = queue;
        this.body = new byte[bodyBytes];
    }

    String queue() {
        return queue;
    }

    /**
     * Sends seqs {@code from..to} (inclusive) as persistent messages with receipts, at most {@code window} awaiting
     * their receipt at once; returns once the last is written (not receipted).
     */
    void send(StompConnection c, long from, long to, Semaphore window, Duration receiptWait) throws InterruptedException {
        for (long seq = from; seq <= to; seq++) {
            assertThat(window.tryAcquire(receiptWait.toMillis(), TimeUnit.MILLISECONDS))
                    .as("a receipt within %s (seq %d, %d receipted so far)", receiptWait, seq, receipted.size()).isTrue();
            long s = seq;
            sent.add(s);
            CompletableFuture<Void> f;
            try {
                f = c.send(Message.builder(queue).persistent(true).header(SEQ, Long.toString(s)).body(body).build());
            } catch (RuntimeException e) {
                window.release();
                sendFailures.add(e);
                throw e;
            }
            f.whenComplete((v, e) -> {
                window.release();
                if (e == null) {
                    receipted.add(s);
                } else {
                    sendFailures.add(e instanceof CompletionException && e.getCause() != null ? e.getCause() : e);
                }
            });
        }
    }

    /**
     * Subscribes the consuming application: CLIENT_INDIVIDUAL, every message counted by seq, then acknowledged.
     */
    Subscription consume(StompConnection c, Duration wait) {
        return c.subscribeAndWait(SubscriptionRequest.builder(queue).ackMode(AckMode.CLIENT_INDIVIDUAL).build(), m -> {
            delivered(m);
            try {
                m.ack();
            } catch (ConnectionClosedException e) {
                // the consumer is going away; the broker redelivers
            }
        }, wait);
    }

    void delivered(ReceivedMessage m) {
        String seq = m.header(SEQ);
        if (seq == null) {
            return; // not one of ours
        }
        deliveries.incrementAndGet();
        delivered.computeIfAbsent(Long.parseLong(seq), k -> new AtomicInteger()).incrementAndGet();
    }

    int sentCount() {
        return sent.size();
    }

    int receiptedCount() {
        return receipted.size();
    }

    /** Deliveries to the application, duplicates included. */
    int deliveries() {
        return deliveries.get();
    }

    int distinctDelivered() {
        return delivered.size();
    }

    boolean allReceiptedDelivered() {
        return delivered.keySet().containsAll(receipted);
    }

    /** Receipted seqs the application has not seen (yet), sorted. */
    TreeSet<Long> receiptedNotDelivered() {
        TreeSet<Long> m = new TreeSet<>(receipted);
        m.removeAll(delivered.keySet());
        return m;
    }

    /** seq -> deliveries, for every seq the application saw more than once. */
    SortedMap<Long, Integer> deliveredMoreThanOnce() {
        SortedMap<Long, Integer> m = new TreeMap<>();
        delivered.forEach((seq, n) -> {
            if (n.get() > 1) {
                m.put(seq, n.get());
            }
        });
        return m;
    }

    /**
     * Checks the federation's promise: every receipted send reached the application, exactly once, and nothing
     * reached it that was never sent; and no send was refused.
     */
    void assertEveryReceiptedSendDeliveredExactlyOnce() {
        assertThat(sendFailures).as("sends to %s refused or failed", queue).isEmpty();
        assertThat(receiptedNotDelivered()).as("receipted sends to %s never delivered", queue).isEmpty();
        assertThat(deliveredMoreThanOnce()).as("seqs on %s delivered more than once (seq=deliveries)", queue).isEmpty();
        TreeSet<Long> neverSent = new TreeSet<>(delivered.keySet());
        neverSent.removeAll(sent);
        assertThat(neverSent).as("seqs on %s delivered but never sent", queue).isEmpty();
    }

    @Override
    public String toString() {
        return queue + ": sent " + sent.size() + ", receipted " + receipted.size() + ", delivered " + delivered.size()
                + " distinct in " + deliveries.get() + " deliveries";
    }
}
