package io.fedbridge.samples.failover;

import io.fedbridge.broker.Broker;
import io.fedbridge.broker.BrokerConfig;
import io.fedbridge.core.AckMode;
import io.fedbridge.core.Message;
import io.fedbridge.core.SubscriptionRequest;
import io.fedbridge.failover.FailoverClient;
import io.fedbridge.failover.FailoverConfig;
import io.fedbridge.failover.FailoverEvent;
import io.fedbridge.failover.FailoverStats;
import io.fedbridge.failover.SendReceipt;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A client on a {@code failover:} URI: it sends and consumes orders on the first broker, that broker goes away, and
 * the client carries on at the second one by itself, with its subscription restored.
 *
 * <pre>
 * java -cp samples/target/fedbridge.jar io.fedbridge.samples.failover.FailoverClientSample
 * </pre>
 *
 * <p>Two brokers in this JVM, "east" and "west", stand in for a federation; the client code is the same against
 * brokers anywhere: {@code failover:(tcp://east:61613,tcp://west:61613)?randomize=false}.
 */
public final class FailoverClientSample {

    static final String ORDERS = "/queue/orders";
    static final int ORDERS_PER_BROKER = 5;
    static final Duration WAIT = Duration.ofSeconds(10);

    /**
     * What happened.
     *
     * @param firstBroker the broker the client used first
     * @param lastBroker  the broker it used at the end
     * @param received    the orders the application received, in order
     * @param duplicates  orders handed to the application more than once
     * @param receipts    the brokers' receipts of the sends
     * @param events      the client's connection events, as text
     * @param stats       the client's counters at the end
     */
    public record Outcome(String firstBroker, String lastBroker, List<String> received, int duplicates,
                          List<SendReceipt> receipts, List<String> events, FailoverStats stats) {
    }

    private FailoverClientSample() {
    }

    public static void main(String[] args) throws InterruptedException {
        Outcome o = run();
        o.events().forEach(e -> System.out.println("event: " + e));
        System.out.println("first on " + o.firstBroker() + ", then on " + o.lastBroker());
        System.out.println("received " + o.received().size() + " orders, " + o.duplicates() + " twice: " + o.received());
        System.out.println("client: " + o.stats());
    }

    /** Starts both brokers, runs the client across the failover, stops everything. */
    public static Outcome run() throws InterruptedException {
        // east is stopped halfway through, so it is closed by hand (Broker.close() is idempotent).
        Broker east = Broker.start(BrokerConfig.builder("east").listen("tcp://127.0.0.1:0").build());
        try (Broker west = Broker.start(BrokerConfig.builder("west").listen("tcp://127.0.0.1:0").build())) {
            // randomize=false: east first. A lost connection is retried after 50 ms, backing off up to 1 s; a send waits
            // at most 10 s for a connection.
            String uri = "failover:(" + east.connectUris().get(0) + "," + west.connectUris().get(0) + ")"
                    + "?randomize=false&initialReconnectDelay=50&maxReconnectDelay=1000&timeout=10000";
            List<String> events = new CopyOnWriteArrayList<>();
            try (FailoverClient client = FailoverClient.connect(FailoverConfig.fromUri(uri), e -> events.add(describe(e)))) {
                List<String> received = new CopyOnWriteArrayList<>();
                Set<String> distinct = ConcurrentHashMap.newKeySet();
                AtomicInteger duplicates = new AtomicInteger();
                Semaphore arrived = new Semaphore(0);
                client.subscribe(SubscriptionRequest.builder(ORDERS).ackMode(AckMode.CLIENT_INDIVIDUAL).build(), m -> {
                    received.add(m.bodyAsString());
                    if (!distinct.add(m.bodyAsString())) {
                        duplicates.incrementAndGet();
                    }
                    m.ack();
                    arrived.release();
                });
                String firstBroker = client.connectedUri();
                List<SendReceipt> receipts = new ArrayList<>();

                sendOrders(client, 1, receipts);
                awaitOrders(arrived, "the orders sent to east");

                // The broker the client is connected to goes away. The next send waits until the client has moved
                // to west and re-subscribed there.
                east.close();
                sendOrders(client, ORDERS_PER_BROKER + 1, receipts);
                awaitOrders(arrived, "the orders sent after the failover");

                return new Outcome(firstBroker, client.connectedUri(), List.copyOf(received), duplicates.get(),
                        List.copyOf(receipts), List.copyOf(events), client.stats());
            }
        } finally {
            east.close();
        }
    }

    private static void sendOrders(FailoverClient client, int first, List<SendReceipt> receipts) {
        for (int i = first; i < first + ORDERS_PER_BROKER; i++) {
            // send() returns once the broker confirmed the order (with persistent:true, on disk if it has a data dir).
            receipts.add(client.send(Message.builder(ORDERS).body("order " + i).persistent(true).build()));
        }
    }

    private static void awaitOrders(Semaphore arrived, String what) throws InterruptedException {
        if (!arrived.tryAcquire(ORDERS_PER_BROKER, WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
            throw new IllegalStateException(what + " did not all arrive within " + WAIT.toSeconds() + " s");
        }
    }

    private static String describe(FailoverEvent event) {
        if (event instanceof FailoverEvent.Connected c) {
            return (c.reconnect() ? "reconnected to " : "connected to ") + c.uri()
                    + (c.reconnect() ? " after " + c.downtime().toMillis() + " ms, " + c.restoredSubscriptions()
                        + " subscription(s) restored, " + c.resentSends() + " send(s) resent" : "");
        }
        if (event instanceof FailoverEvent.ConnectionLost l) {
            return "lost " + l.uri() + ": " + l.cause();
        }
        return event.toString();
    }
}
