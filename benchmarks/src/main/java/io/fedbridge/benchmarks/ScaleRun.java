package io.fedbridge.benchmarks;

import io.fedbridge.core.Message;
import io.fedbridge.core.StompConnection;
import io.fedbridge.core.Subscription;
import io.fedbridge.core.SubscriptionRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * One topology measured end to end ({@link Federation}): heap per broker; for consumers appearing on the first, a
 * middle and the last broker, the time until every other broker holds a network subscription for it (demand
 * everywhere) and, once it unsubscribes, until none does (no broker holds any network subscription); one message per broker to a queue and to a topic, each
 * delivered exactly once to the consumer (no loop, no copy); the heap of {@code remoteSubscriptions} consumers on
 * distinct queues per remote subscription; and the time for every broker to forget all demand of a broker that leaves.
 *
 * @param shape              the topology
 * @param brokers            its size
 * @param links              its bridges (duplex, one per edge)
 * @param ttl                the bridges' networkTTL
 * @param startMillis        start of every broker and bridge, until all are up
 * @param heapPerBroker      heap after full GC, per broker with its share of the bridges, bytes
 * @param threads            live threads of this JVM with the federation up
 * @param demandMillis       per consumer: time until every other broker holds its demand
 * @param withdrawMillis     per consumer: after its UNSUBSCRIBE, time until no broker holds its demand
 * @param queueDelivered     deliveries to the queue consumer of one message sent on each broker (N expected)
 * @param topicDelivered     deliveries to the topic subscriber of one message published on each broker (N expected)
 * @param copies             messages among those delivered more than once (0 expected)
 * @param heapPerRemoteSub   heap after full GC per network subscription ({@code remoteSubscriptions × (N-1)} of them),
 *                           the consumers' own cost on their broker included; bytes
 * @param leaveMillis        after the consumers' broker closes, time until no broker holds any demand
 */
record ScaleRun(Federation.Shape shape, int brokers, int links, int ttl, long startMillis, long heapPerBroker, int threads,
                List<Double> demandMillis, List<Double> withdrawMillis, int queueDelivered, int topicDelivered, int copies,
                double heapPerRemoteSub, int remoteSubscriptions, double leaveMillis) {

    boolean exactlyOnce() {
        return queueDelivered == brokers && topicDelivered == brokers && copies == 0;
    }

    double demandMax() {
        return demandMillis.stream().mapToDouble(Double::doubleValue).max().orElse(Double.NaN);
    }

    double withdrawMax() {
        return withdrawMillis.stream().mapToDouble(Double::doubleValue).max().orElse(Double.NaN);
    }

    static ScaleRun measure(Federation.Shape shape, int n, int ttl, int remoteSubscriptions, long seed, Duration timeout) throws Exception {
        long heap0 = Federation.settledHeap();
        long t0 = System.nanoTime();
        try (Federation f = Federation.start(shape, n, ttl, seed, timeout)) {
            long startMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
            long heapPerBroker = (Federation.settledHeap() - heap0) / n;
            int threads = Thread.activeCount();
            List<Double> demand = new ArrayList<>();
            List<Double> withdraw = new ArrayList<>();
            Set<Integer> origins = new LinkedHashSet<>(List.of(0, n / 2, n - 1));
            for (int origin : origins) {
                String queue = "/queue/scale.demand." + origin;
                try (StompConnection c = StompConnection.connect(f.broker(origin).connectUris().get(0))) {
                    long t = System.nanoTime();
                    Subscription s = c.subscribe(SubscriptionRequest.of(queue), m -> { });
                    f.await("demand for " + queue + " on every broker of the " + shape.label() + " of " + n, timeout,
                            () -> f.brokersWithoutConsumer(queue, origin) == 0);
                    demand.add((System.nanoTime() - t) / 1e6);
                    t = System.nanoTime();
                    s.unsubscribe();
                    f.await("demand for " + queue + " withdrawn from every broker", timeout,
                            () -> f.brokersWithConsumer(queue, origin) == 0 && f.networkSubscriptions() == 0);
                    withdraw.add((System.nanoTime() - t) / 1e6);
                }
            }
            int x = n / 2;
            try (StompConnection consumer = StompConnection.connect(f.broker(x).connectUris().get(0))) {
                int[] delivered = exactlyOnce(f, consumer, x, timeout);
                long subsBefore = 2L * (n - 1); // the queue consumer's and the topic subscriber's
                long heapBefore = Federation.settledHeap();
                for (int k = 0; k < remoteSubscriptions; k++) {
                    consumer.subscribe(SubscriptionRequest.of("/queue/scale.many." + k), m -> { });
                }
                long expected = subsBefore + (long) remoteSubscriptions * (n - 1);
                f.await(remoteSubscriptions + " consumers' demand on every broker", timeout.multipliedBy(4),
                        () -> f.networkSubscriptions() == expected);
                double perSub = (Federation.settledHeap() - heapBefore) / (double) ((long) remoteSubscriptions * (n - 1));
                long t = System.nanoTime();
                f.leave(x);
                f.await("every broker forgets the demand of broker " + x + " after it left", timeout,
                        () -> f.networkSubscriptions() == 0);
                double leave = (System.nanoTime() - t) / 1e6;
                return new ScaleRun(shape, n, f.edges().size(), f.ttl(), startMillis, heapPerBroker, threads, demand, withdraw,
                        delivered[0], delivered[1], delivered[2], perSub, remoteSubscriptions, leave);
            }
        }
    }

    /**
     * A queue consumer and a topic subscriber on broker {@code x}; once their demand is everywhere, one message to each
     * from every broker. Returns {queue deliveries, topic deliveries, messages delivered more than once} after a quiet
     * half second with none arriving.
     */
    private static int[] exactlyOnce(Federation f, StompConnection consumer, int x, Duration timeout) throws Exception {
        String queue = "/queue/scale.once";
        String topic = "/topic/scale.once";
        Map<String, AtomicInteger> seen = new ConcurrentHashMap<>();
        AtomicInteger queueCount = new AtomicInteger();
        AtomicInteger topicCount = new AtomicInteger();
        consumer.subscribe(SubscriptionRequest.of(queue), m -> {
            queueCount.incrementAndGet();
            seen.computeIfAbsent(m.bodyAsString(), k -> new AtomicInteger()).incrementAndGet();
        });
        consumer.subscribe(SubscriptionRequest.of(topic), m -> {
            topicCount.incrementAndGet();
            seen.computeIfAbsent(m.bodyAsString(), k -> new AtomicInteger()).incrementAndGet();
        });
        int n = f.size();
        f.await("queue and topic demand on every broker", timeout,
                () -> f.brokersWithoutConsumer(queue, x) == 0 && f.networkSubscriptions() == 2L * (n - 1));
        List<StompConnection> producers = new ArrayList<>();
        try {
            List<CompletableFuture<Void>> receipts = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                StompConnection p = StompConnection.connect(f.broker(i).connectUris().get(0));
                producers.add(p);
                receipts.add(p.send(Message.builder(queue).body("q" + i).build()));
                receipts.add(p.send(Message.builder(topic).body("t" + i).build()));
            }
            CompletableFuture.allOf(receipts.toArray(CompletableFuture[]::new)).get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            try {
                f.await("one message from every broker delivered", timeout, () -> queueCount.get() >= n && topicCount.get() >= n);
            } catch (BenchmarkException e) {
                throw new BenchmarkException(e.getMessage() + "; " + undelivered(f, seen, queue, x), e);
            }
            int last = -1;
            while (last != queueCount.get() + topicCount.get()) { // quiet for 0.5 s: no late copy
                last = queueCount.get() + topicCount.get();
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(500));
            }
        } finally {
            producers.forEach(StompConnection::close);
        }
        int copies = (int) seen.values().stream().filter(c -> c.get() > 1).count();
        return new int[] {queueCount.get(), topicCount.get(), copies};
    }

    /**
     * For a failed exactly-once check: the messages not delivered ({@code q<i>}/{@code t<i>}: to the queue/topic from
     * broker i), where each broker's copy of the queue stands, and the demand each broker's bridges hold. A queue
     * message still held shows as pending or inflight on its broker; a topic message that is nowhere was dropped.
     */
    private static String undelivered(Federation f, Map<String, AtomicInteger> seen, String queue, int x) {
        List<String> missing = new ArrayList<>();
        for (int i = 0; i < f.size(); i++) {
            for (String body : List.of("q" + i, "t" + i)) {
                if (!seen.containsKey(body)) {
                    missing.add(body);
                }
            }
        }
        StringBuilder b = new StringBuilder("undelivered to broker ").append(x).append(": ").append(missing)
                .append(" (q<i>/t<i>: queue/topic message from broker i); ").append(queue)
                .append(" per broker (pending/inflight/consumers), network subscriptions of its bridges:");
        for (int i = 0; i < f.size(); i++) {
            io.fedbridge.broker.DestinationStats s = f.broker(i).queue(queue);
            long subs = f.broker(i).bridges().stream().mapToLong(io.fedbridge.core.bridge.BridgeStats::networkSubscriptions).sum();
            b.append(' ').append(i).append('=').append(s == null ? "-" : s.pending() + "/" + s.inflight() + "/" + s.consumers())
                    .append(",subs ").append(subs);
        }
        return b.toString();
    }
}
