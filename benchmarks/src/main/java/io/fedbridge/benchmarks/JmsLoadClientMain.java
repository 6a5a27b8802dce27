package io.fedbridge.benchmarks;

import io.fedbridge.jms.FedbridgeConnectionFactory;
import io.fedbridge.jms.FedbridgeJmsConfig;
import jakarta.jms.BytesMessage;
import jakarta.jms.Connection;
import jakarta.jms.ConnectionFactory;
import jakarta.jms.DeliveryMode;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import jakarta.jms.MessageProducer;
import jakarta.jms.Session;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;

/**
 * Child JVM: the JMS load generator of the {@code jms} benchmark. One producer connection to broker A and one
 * consumer connection to broker B, each product through its own JMS client: fedbridge-jms
 * ({@link FedbridgeConnectionFactory} on the STOMP listener) or ActiveMQ's ({@code ActiveMQConnectionFactory} on the
 * OpenWire connector). AUTO_ACKNOWLEDGE, a MessageListener on the consumer; both in this JVM, so send timestamps are
 * comparable.
 *
 * <p>Arguments: {@code KIND PRODUCER_URI CONSUMER_URI QUEUE SIZE PREFETCH STALL_SECONDS} with KIND {@code fedbridge} or
 * {@code activemq}, QUEUE a plain name. Prints {@code READY}, then answers each command read from stdin with one
 * {@code RESULT …} line (or {@code ERROR …}), in {@link LoadClientMain}'s format:
 * <ul>
 *   <li>{@code ready SECONDS}: probes until one arrives (demand crossed the bridge).</li>
 *   <li>{@code throughput N PERSISTENT}: N sends, the last one PERSISTENT (a synchronous send in both clients: the
 *       fence); ends at the N-th receive.</li>
 *   <li>{@code latency RATE SECONDS PREROLL PERSISTENT}: a fixed rate, receive − send into an HdrHistogram.</li>
 * </ul>
 * Body layout: bytes 0-7 send nanoTime, byte 8 phase (1 = measured), bytes 9-12 run number, filler up to SIZE.
 */
public final class JmsLoadClientMain {

    private static final int HEADER_BYTES = 13;

    private final String kind;
    private final String producerUri;
    private final String consumerUri;
    private final String queue;
    private final int size;
    private final int prefetch;
    private final long stallNanos;
    private Connection producerConnection;
    private Connection consumerConnection;
    private Session producerSession;
    private MessageProducer producer;
    private volatile Run current;
    private int runNumber;

    private JmsLoadClientMain(String[] a) {
        this.kind = a[0];
        this.producerUri = a[1];
        this.consumerUri = a[2];
        this.queue = a[3];
        this.size = Integer.parseInt(a[4]);
        this.prefetch = Integer.parseInt(a[5]);
        this.stallNanos = TimeUnit.SECONDS.toNanos(Long.parseLong(a[6]));
        if (size < HEADER_BYTES || !(kind.equals("fedbridge") || kind.equals("activemq"))) {
            throw new IllegalArgumentException("KIND must be fedbridge or activemq and SIZE >= " + HEADER_BYTES
                    + ", but were " + kind + " and " + size);
        }
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 7) {
            System.out.println("ERROR usage: JmsLoadClientMain KIND PRODUCER_URI CONSUMER_URI QUEUE SIZE PREFETCH STALL_SECONDS");
            System.exit(2);
        }
        System.exit(new JmsLoadClientMain(args).run());
    }

    private ConnectionFactory factory(String uri) {
        if (kind.equals("fedbridge")) {
            return new FedbridgeConnectionFactory(FedbridgeJmsConfig.builder(uri).prefetch(prefetch).build());
        }
        org.apache.activemq.ActiveMQConnectionFactory f = new org.apache.activemq.ActiveMQConnectionFactory(uri);
        f.getPrefetchPolicy().setQueuePrefetch(prefetch);
        return f;
    }

    private int run() throws Exception {
        try {
            producerConnection = factory(producerUri).createConnection();
            producerSession = producerConnection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            producer = producerSession.createProducer(producerSession.createQueue(queue));
            consumerConnection = factory(consumerUri).createConnection();
            Session consumerSession = consumerConnection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            consumerSession.createConsumer(consumerSession.createQueue(queue)).setMessageListener(this::onMessage);
            consumerConnection.start();
            answer("READY producer=" + producerUri + " consumer=" + consumerUri + " client=" + kind);
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            String line;
            while ((line = in.readLine()) != null) {
                String[] p = line.trim().split("\\s+");
                try {
                    switch (p[0]) {
                        case "ready" -> answer(ready(Integer.parseInt(p[1])));
                        case "throughput" -> answer(throughput(Integer.parseInt(p[1]), Boolean.parseBoolean(p[2])));
                        case "latency" -> answer(latency(Integer.parseInt(p[1]), Integer.parseInt(p[2]), Integer.parseInt(p[3]),
                                Boolean.parseBoolean(p[4])));
                        case "quit" -> {
                            return 0;
                        }
                        default -> answer("ERROR unknown command '" + line + "'");
                    }
                } catch (Exception e) {
                    System.err.println("command failed: " + e);
                    answer("ERROR " + p[0] + " failed: " + e);
                } finally {
                    current = null;
                }
            }
            return 0;
        } finally {
            for (Connection c : new Connection[] {producerConnection, consumerConnection}) {
                if (c != null) {
                    try {
                        c.close();
                    } catch (JMSException e) {
                        System.err.println("close failed: " + e);
                    }
                }
            }
        }
    }

    private void onMessage(Message m) {
        long now = System.nanoTime();
        Run r = current;
        if (r == null) {
            return;
        }
        try {
            BytesMessage b = (BytesMessage) m;
            byte[] body = new byte[(int) b.getBodyLength()];
            b.readBytes(body);
            r.onMessage(body, now);
        } catch (JMSException e) {
            System.err.println("receive failed: " + e);
        }
    }

    private static void answer(String line) {
        System.out.println(line);
        System.out.flush();
    }

    private BytesMessage message(int run, byte phase, long nanos) throws JMSException {
        byte[] b = new byte[size];
        Arrays.fill(b, HEADER_BYTES, size, (byte) 'x');
        ByteBuffer.wrap(b).putLong(0, nanos).put(8, phase).putInt(9, run);
        BytesMessage m = producerSession.createBytesMessage();
        m.writeBytes(b);
        return m;
    }

    private void send(BytesMessage m, boolean persistent) throws JMSException {
        producer.send(m, persistent ? DeliveryMode.PERSISTENT : DeliveryMode.NON_PERSISTENT, 4, 0);
    }

    private String ready(int seconds) throws Exception {
        Run r = begin(1, false);
        long start = System.nanoTime();
        int probes = 0;
        while (System.nanoTime() - start < TimeUnit.SECONDS.toNanos(seconds)) {
            send(message(r.number, (byte) 0, System.nanoTime()), false);
            probes++;
            if (r.done.await(100, TimeUnit.MILLISECONDS)) {
                return "RESULT ready probes=" + probes + " millis=" + (System.nanoTime() - start) / 1_000_000;
            }
        }
        throw new IllegalStateException("demand did not reach the producer's broker within " + seconds + " s");
    }

    private String throughput(int n, boolean persistent) throws Exception {
        Run r = begin(n, false);
        BytesMessage m = message(r.number, (byte) 0, 0);
        long start = System.nanoTime();
        for (int i = 1; i < n; i++) {
            send(m, persistent);
        }
        send(m, true);
        return r.finish(start, System.nanoTime(), "");
    }

    private String latency(int rate, int seconds, int prerollSeconds, boolean persistent) throws Exception {
        long preroll = (long) rate * prerollSeconds;
        long measured = (long) rate * seconds;
        Run r = begin(preroll + measured, true);
        long interval = 1_000_000_000L / rate;
        long start = System.nanoTime() + 1_000_000;
        long lateSends = 0;
        for (long i = 0; i < preroll + measured; i++) {
            long due = start + i * interval;
            long now;
            while ((now = System.nanoTime()) < due) {
                LockSupport.parkNanos(due - now);
            }
            if (now - due > 1_000_000) {
                lateSends++;
            }
            send(message(r.number, i < preroll ? (byte) 0 : (byte) 1, System.nanoTime()), persistent);
        }
        long sendEnd = System.nanoTime();
        double achieved = measured * 1e9 / Math.max(1, sendEnd - (start + preroll * interval));
        String result = r.finish(start, sendEnd, "rate=" + Math.round(achieved) + " lateSends=" + lateSends);
        Histogram h = r.histogram;
        synchronized (h) {
            return result + " measured=" + h.getTotalCount() + " p50=" + h.getValueAtPercentile(50) + " p90="
                    + h.getValueAtPercentile(90) + " p99=" + h.getValueAtPercentile(99) + " p999="
                    + h.getValueAtPercentile(99.9) + " max=" + h.getMaxValue();
        }
    }

    private Run begin(long expected, boolean latency) {
        Run r = new Run(++runNumber, expected, latency);
        current = r;
        return r;
    }

    /** One run: counts what the consumer receives (on the JMS client's delivery thread). */
    private final class Run {
        final int number;
        final long expected;
        final AtomicLong received = new AtomicLong();
        final AtomicLong stray = new AtomicLong();
        final AtomicLong lastNanos = new AtomicLong();
        final CountDownLatch done = new CountDownLatch(1);
        final Histogram histogram;

        Run(int number, long expected, boolean latency) {
            this.number = number;
            this.expected = expected;
            this.histogram = latency ? new Histogram(TimeUnit.SECONDS.toNanos(60), 3) : null;
        }

        void onMessage(byte[] b, long now) {
            ByteBuffer buf = ByteBuffer.wrap(b);
            if (b.length < HEADER_BYTES || buf.getInt(9) != number) {
                stray.incrementAndGet();
                return;
            }
            if (histogram != null && b[8] == 1) {
                synchronized (histogram) {
                    histogram.recordValue(Math.min(Math.max(0, now - buf.getLong(0)), histogram.getHighestTrackableValue()));
                }
            }
            lastNanos.set(now);
            if (received.incrementAndGet() == expected) {
                done.countDown();
            }
        }

        /** Waits for every delivery, failing after STALL_SECONDS without progress, then the RESULT line. */
        String finish(long start, long sent, String extra) throws InterruptedException {
            long seen = -1;
            long since = System.nanoTime();
            while (!done.await(250, TimeUnit.MILLISECONDS)) {
                long now = System.nanoTime();
                if (received.get() != seen) {
                    seen = received.get();
                    since = now;
                } else if (now - since > stallNanos) {
                    break;
                }
            }
            boolean all = done.getCount() == 0;
            long end = all ? lastNanos.get() : System.nanoTime();
            return "RESULT run=" + number + " messages=" + expected + " expected=" + expected + " received=" + received.get()
                    + " stray=" + stray.get() + " complete=" + all + " elapsedNanos=" + (end - start) + " sendNanos="
                    + (sent - start) + (extra.isEmpty() ? "" : " " + extra);
        }
    }
}
