package io.fedbridge.benchmarks;

import io.fedbridge.core.Message;
import io.fedbridge.core.SubscriptionRequest;
import io.fedbridge.failover.FailoverClient;
import jakarta.jms.Connection;
import jakarta.jms.DeliveryMode;
import jakarta.jms.MessageProducer;
import jakarta.jms.Session;
import jakarta.jms.TextMessage;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongConsumer;
import org.apache.activemq.ActiveMQConnectionFactory;

/**
 * Child JVM of the {@code failover} benchmark: one producer and one consumer on the same failover URI, in this JVM,
 * on {@code /queue/failover} ({@code failover} for JMS), non-persistent unless asked, at a fixed rate. Each body is the send's
 * {@code System.nanoTime()}.
 *
 * <p>Arguments: {@code fedbridge|activemq URI [RATE [PERSISTENT]]} (PERSISTENT {@code true}: persistent messages,
 * receipted; default false). fedbridge uses {@link FailoverClient} (its STOMP failover client, also what the
 * {@code ha} benchmark points at Artemis' STOMP acceptors); ActiveMQ uses its OpenWire failover transport through {@link ActiveMQConnectionFactory}, one connection,
 * a session for the consumer and one for the producer. Prints {@code READY} once the first message came back.
 *
 * <p>Commands on stdin: {@code KILLED} (the parent just SIGKILLed the broker we are connected to): the client notes
 * {@code nanoTime} on reading it, then prints {@code FIRST_AFTER <ms>}: the time from then until its consumer
 * receives the first message whose send time is later. {@code count} answers {@code COUNT received=N duplicates=D}: the
 * messages received so far, and how many of them had been received before. Exits when stdin closes.
 */
public final class FailoverClientMain {

    static final String QUEUE = "failover";

    /** nanoTime of the last KILLED, or Long.MAX_VALUE when not waiting. */
    private static volatile long killedAt = Long.MAX_VALUE;
    private static final CountDownLatch FIRST = new CountDownLatch(1);
    /** Send times of every message received, to count the ones received twice. */
    private static final java.util.Set<Long> SEEN = java.util.concurrent.ConcurrentHashMap.newKeySet();
    private static final java.util.concurrent.atomic.AtomicLong RECEIVED = new java.util.concurrent.atomic.AtomicLong();
    private static final java.util.concurrent.atomic.AtomicLong DUPLICATES = new java.util.concurrent.atomic.AtomicLong();

    private FailoverClientMain() {
    }

    public static void main(String[] args) throws Exception {
        String product = args[0];
        String uri = args[1];
        int rate = args.length > 2 ? Integer.parseInt(args[2]) : 1000;
        boolean persistent = args.length > 3 && Boolean.parseBoolean(args[3]);
        LongConsumer received = FailoverClientMain::received;
        Sender sender;
        AutoCloseable closer;
        if (product.equals("fedbridge")) {
            FailoverClient client = FailoverClient.connect(uri);
            client.subscribe(SubscriptionRequest.builder("/queue/" + QUEUE).build(),
                    m -> received.accept(Long.parseLong(m.bodyAsString())));
            sender = () -> client.sendAsync(Message.builder("/queue/" + QUEUE).persistent(persistent)
                    .body(Long.toString(System.nanoTime())).build());
            closer = client;
        } else {
            ActiveMQConnectionFactory factory = new ActiveMQConnectionFactory(uri);
            factory.setWatchTopicAdvisories(false);
            Connection connection = factory.createConnection();
            Session consumerSession = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            consumerSession.createConsumer(consumerSession.createQueue(QUEUE))
                    .setMessageListener(m -> {
                        try {
                            received.accept(Long.parseLong(((TextMessage) m).getText()));
                        } catch (Exception e) {
                            System.err.println("bad message: " + e);
                        }
                    });
            connection.start();
            Session producerSession = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            MessageProducer producer = producerSession.createProducer(producerSession.createQueue(QUEUE));
            producer.setDeliveryMode(persistent ? DeliveryMode.PERSISTENT : DeliveryMode.NON_PERSISTENT);
            sender = () -> producer.send(producerSession.createTextMessage(Long.toString(System.nanoTime())));
            closer = connection;
        }
        Thread pacer = new Thread(() -> pace(sender, rate), "failover-bench-sender");
        pacer.setDaemon(true);
        pacer.start();
        if (!FIRST.await(60, TimeUnit.SECONDS)) {
            System.out.println("ERROR no message came back within 60 s");
            System.exit(1);
        }
        ChildProtocol.ready(uri);
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        try {
            String line;
            while ((line = in.readLine()) != null) {
                if (line.trim().equals("KILLED")) {
                    killedAt = System.nanoTime();
                } else if (line.trim().equals("count")) {
                    System.out.println("COUNT received=" + RECEIVED.get() + " duplicates=" + DUPLICATES.get());
                    System.out.flush();
                }
            }
        } catch (IOException e) {
            // EOF
        }
        try {
            closer.close();
        } catch (Exception e) {
            System.err.println("close: " + e);
        }
        System.exit(0);
    }

    private static void received(long sentNanos) {
        long now = System.nanoTime();
        FIRST.countDown();
        RECEIVED.incrementAndGet();
        if (!SEEN.add(sentNanos)) {
            DUPLICATES.incrementAndGet();
        }
        long k = killedAt;
        if (sentNanos > k) {
            killedAt = Long.MAX_VALUE;
            System.out.println("FIRST_AFTER " + String.format(java.util.Locale.ROOT, "%.3f", (now - k) / 1e6));
            System.out.flush();
        }
    }

    /** Sends at a fixed rate; slots missed while a send blocked (during a failover) are skipped, not made up. */
    private static void pace(Sender sender, int rate) {
        long period = 1_000_000_000L / rate;
        long next = System.nanoTime();
        while (true) {
            long wait = next - System.nanoTime();
            if (wait > 0) {
                LockSupport.parkNanos(wait);
                continue;
            }
            try {
                sender.send();
            } catch (Exception e) {
                System.err.println("send failed: " + e);
            }
            next = Math.max(next + period, System.nanoTime() - period);
        }
    }

    @FunctionalInterface
    private interface Sender {
        void send() throws Exception;
    }
}
