package io.fedbridge.benchmarks;

import io.fedbridge.core.AckMode;
import io.fedbridge.core.ClientConfig;
import io.fedbridge.core.Message;
import io.fedbridge.core.StompConnection;
import io.fedbridge.core.Subscription;
import io.fedbridge.core.SubscriptionRequest;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;

/**
 * Child JVM: the load generator. One producer connection and one consumer connection, the same client code whatever
 * the target: fedbridge's own {@link StompConnection} (MODE {@code batched}), {@link PerFrameConnection}, one
 * write per frame ({@code per-frame}, heart-beats off), or Spring's STOMP client ({@code spring}). Producer
 * and consumer share this JVM, so send timestamps ({@link System#nanoTime()}) are comparable.
 *
 * <p>Arguments: {@code URI SIZE ACK PREFETCH HEARTBEAT_MS STALL_SECONDS MODE}. Connects, prints {@code READY}, then
 * executes commands read from stdin, answering each with one {@code RESULT key=value …} line (or {@code ERROR …}):
 * <ul>
 *   <li>{@code throughput N}: the consumer subscribes; the producer sends N−1 messages without receipt and the
 *       N-th with a receipt (the fence: the broker has taken every one); the run ends at the N-th receive.
 *       {@code elapsedNanos} is first send → last receive.</li>
 *   <li>{@code latency RATE SECONDS PREROLL_SECONDS}: sends at a fixed rate, first PREROLL seconds unrecorded,
 *       then SECONDS recorded; each body carries its send time, the consumer records receive − send in an
 *       HdrHistogram (ns).</li>
 * </ul>
 * EOF on stdin or {@code quit} closes both connections and exits. A run that receives nothing for STALL_SECONDS
 * ends the JVM with an {@code ERROR … stalled} line.
 *
 * <p>Body layout: bytes 0-7 send nanoTime (latency), byte 8 phase (0 = pre-roll, 1 = measured), bytes 9-12
 * run number; the rest is filler up to SIZE. Messages of another run are ignored and counted as stray.
 */
public final class ClientMain {

    static final String QUEUE = "/queue/bench";
    private static final int HEADER_BYTES = 13;

    private final String uri;
    private final int size;
    private final AckMode ackMode;
    private final int prefetch;
    private final Duration heartBeat;
    private final Duration stallTimeout;
    private final LoadConnection.Mode mode;
    private StompConnection producer;
    private StompConnection consumer;
    /** The connections of the per-frame and spring modes (one write per frame), instead of the two above. */
    private LoadConnection unbatchedProducer;
    private LoadConnection unbatchedConsumer;
    private int runNumber;
    /** Messages received in the current run, watched for progress; null between runs. */
    private volatile AtomicLong watched;
    private volatile String watchedRun = "";

    private ClientMain(String uri, int size, AckMode ackMode, int prefetch, Duration heartBeat, Duration stallTimeout,
                       LoadConnection.Mode mode) {
        if (size < HEADER_BYTES) {
            throw new IllegalArgumentException("size must be at least " + HEADER_BYTES + " bytes, but was " + size);
        }
        this.uri = uri;
        this.size = size;
        this.ackMode = ackMode;
        this.prefetch = prefetch;
        this.heartBeat = heartBeat;
        this.stallTimeout = stallTimeout;
        this.mode = mode;
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 7) {
            System.out.println("ERROR usage: ClientMain URI SIZE ACK PREFETCH HEARTBEAT_MS STALL_SECONDS MODE");
            System.exit(2);
        }
        ClientMain client = new ClientMain(args[0], Integer.parseInt(args[1]), AckMode.fromWire(args[2]),
                Integer.parseInt(args[3]), Duration.ofMillis(Long.parseLong(args[4])), Duration.ofSeconds(Long.parseLong(args[5])),
                LoadConnection.Mode.of(args[6]));
        int code = client.run();
        System.exit(code);
    }

    /**
     * Ends this JVM with an {@code ERROR} line when a run stops making progress: no message received for the
     * stall timeout. A blocked producer cannot report this itself, so a watchdog thread does.
     */
    private void startWatchdog() {
        Thread t = new Thread(() -> {
            long last = -1;
            long since = System.nanoTime();
            while (true) {
                try {
                    Thread.sleep(250);
                } catch (InterruptedException e) {
                    return;
                }
                AtomicLong w = watched;
                long now = System.nanoTime();
                long v = w == null ? -1 : w.get();
                if (w == null || v != last) {
                    last = v;
                    since = now;
                } else if (now - since > stallTimeout.toNanos()) {
                    answer("ERROR " + watchedRun + " stalled: " + v + " messages received, none for "
                            + stallTimeout.toSeconds() + " s (producer blocked or deliveries not flushed)");
                    Runtime.getRuntime().halt(3);
                }
            }
        }, "bench-watchdog");
        t.setDaemon(true);
        t.start();
    }

    private void watch(String run, AtomicLong received) {
        watchedRun = run;
        watched = received;
    }

    private int run() throws Exception {
        startWatchdog();
        if (mode != LoadConnection.Mode.BATCHED) {
            unbatchedConsumer = LoadConnection.connect(mode, uri);
            unbatchedProducer = LoadConnection.connect(mode, uri);
        } else {
            ClientConfig config = ClientConfig.builder(uri).heartBeats(heartBeat).build();
            consumer = StompConnection.connect(config);
            producer = StompConnection.connect(config);
        }
        try {
            System.out.println("READY " + uri + " server=" + (consumer != null ? consumer.connectedHeaders().get("server", "?")
                    : unbatchedConsumer.server()) + " version=" + (consumer != null ? consumer.version() : "1.2") + " mode=" + mode.key());
            System.out.flush();
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            String line;
            while ((line = in.readLine()) != null) {
                String[] p = line.trim().split("\\s+");
                try {
                    switch (p[0]) {
                        case "throughput" -> answer(throughput(Integer.parseInt(p[1])));
                        case "latency" -> answer(latency(Integer.parseInt(p[1]), Integer.parseInt(p[2]), Integer.parseInt(p[3])));
                        case "quit" -> {
                            return 0;
                        }
                        default -> answer("ERROR unknown command '" + line + "'");
                    }
                } catch (Exception e) {
                    System.err.println("command failed: " + e); // the parent reads the ERROR line; stderr goes to the log
                    answer("ERROR " + p[0] + " failed: " + e);
                }
            }
            return 0;
        } finally {
            for (AutoCloseable c : new AutoCloseable[] {producer, consumer, unbatchedProducer, unbatchedConsumer}) {
                closeQuietly(c);
            }
        }
    }

    private static void answer(String line) {
        System.out.println(line);
        System.out.flush();
    }

    private static void closeQuietly(AutoCloseable c) {
        if (c == null) {
            return;
        }
        try {
            c.close();
        } catch (Exception e) {
            System.err.println("close failed: " + e);
        }
    }

    // ---------------------------------------------------------------- throughput

    private String throughput(int messages) throws InterruptedException {
        if (messages < 1) {
            throw new IllegalArgumentException("messages must be >= 1, but was " + messages);
        }
        int run = ++runNumber;
        Counter counter = new Counter(run, messages);
        Runnable unsubscribe = subscribe(counter::onMessage);
        watch("throughput run " + run + " (" + messages + " messages)", counter.received);
        try {
            byte[] body = body(run, (byte) 0, 0);
            Message m = Message.builder(QUEUE).body(body).persistent(false).build();
            long start = System.nanoTime();
            if (producer != null) {
                for (int i = 1; i < messages; i++) {
                    producer.sendWithoutReceipt(m);
                }
                producer.send(m).get(5, TimeUnit.MINUTES);
            } else {
                for (int i = 1; i < messages; i++) {
                    unbatchedProducer.sendWithoutReceipt(QUEUE, body, false);
                }
                unbatchedProducer.send(QUEUE, body, false).get(5, TimeUnit.MINUTES);
            }
            long fenced = System.nanoTime();
            boolean all = counter.done.await(timeoutSeconds(messages), TimeUnit.SECONDS);
            long end = all ? counter.lastNanos : System.nanoTime();
            return "RESULT throughput run=" + run + " sent=" + messages + " received=" + counter.received.get()
                    + " stray=" + counter.stray.get() + " elapsedNanos=" + (end - start) + " sendNanos=" + (fenced - start);
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            throw new IllegalStateException("no receipt for the fence of run " + run + ": " + e, e);
        } finally {
            watched = null;
            unsubscribe.run();
        }
    }

    private static long timeoutSeconds(int messages) {
        return 60 + messages / 2000;
    }

    /** Counts the messages of one throughput run; runs on the consumer connection's dispatch thread. */
    private final class Counter {
        final int run;
        final int expected;
        final AtomicLong received = new AtomicLong();
        final AtomicLong stray = new AtomicLong();
        final CountDownLatch done = new CountDownLatch(1);
        volatile long lastNanos;

        Counter(int run, int expected) {
            this.run = run;
            this.expected = expected;
        }

        void onMessage(byte[] b, Runnable ack) {
            if (b.length < HEADER_BYTES || ByteBuffer.wrap(b).getInt(9) != run) {
                stray.incrementAndGet();
                ack.run();
                return;
            }
            ack.run();
            if (received.incrementAndGet() == expected) {
                lastNanos = System.nanoTime();
                done.countDown();
            }
        }
    }

    // ---------------------------------------------------------------- latency

    private String latency(int rate, int seconds, int prerollSeconds) throws InterruptedException {
        if (rate < 1 || seconds < 1 || prerollSeconds < 0) {
            throw new IllegalArgumentException("rate and seconds must be >= 1 and preroll >= 0, but were "
                    + rate + ", " + seconds + ", " + prerollSeconds);
        }
        int run = ++runNumber;
        long preroll = (long) rate * prerollSeconds;
        long measured = (long) rate * seconds;
        Recorder rec = new Recorder(run, preroll + measured);
        Runnable unsubscribe = subscribe(rec::onMessage);
        watch("latency run " + run + " (" + rate + " msg/s)", rec.received);
        try {
            long interval = 1_000_000_000L / rate;
            long start = System.nanoTime() + 1_000_000;
            long sent = 0;
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
                byte phase = i < preroll ? (byte) 0 : (byte) 1;
                if (producer != null) {
                    producer.sendWithoutReceipt(Message.builder(QUEUE).body(body(run, phase, System.nanoTime()))
                            .persistent(false).build());
                } else {
                    unbatchedProducer.sendWithoutReceipt(QUEUE, body(run, phase, System.nanoTime()), false);
                }
                sent++;
            }
            long sendEnd = System.nanoTime();
            boolean all = rec.done.await(60, TimeUnit.SECONDS);
            Histogram h = rec.histogram;
            double achievedRate = measured * 1e9 / Math.max(1, sendEnd - (start + preroll * interval));
            synchronized (rec) {
                return "RESULT latency run=" + run + " sent=" + sent + " received=" + rec.received.get()
                        + " stray=" + rec.stray.get() + " complete=" + all + " measured=" + h.getTotalCount()
                        + " p50=" + h.getValueAtPercentile(50) + " p90=" + h.getValueAtPercentile(90)
                        + " p99=" + h.getValueAtPercentile(99) + " p999=" + h.getValueAtPercentile(99.9)
                        + " max=" + h.getMaxValue() + " mean=" + (long) h.getMean()
                        + " rate=" + Math.round(achievedRate) + " lateSends=" + lateSends;
            }
        } finally {
            watched = null;
            unsubscribe.run();
        }
    }

    /** Records the latency of measured messages; runs on the consumer connection's dispatch thread. */
    private static final class Recorder {
        final int run;
        final long expected;
        final Histogram histogram = new Histogram(TimeUnit.SECONDS.toNanos(60), 3);
        final AtomicLong received = new AtomicLong();
        final AtomicLong stray = new AtomicLong();
        final CountDownLatch done = new CountDownLatch(1);

        Recorder(int run, long expected) {
            this.run = run;
            this.expected = expected;
        }

        void onMessage(byte[] b, Runnable ack) {
            long now = System.nanoTime();
            ByteBuffer buf = ByteBuffer.wrap(b);
            if (b.length < HEADER_BYTES || buf.getInt(9) != run) {
                stray.incrementAndGet();
                ack.run();
                return;
            }
            if (b[8] == 1) {
                synchronized (this) {
                    histogram.recordValue(Math.min(now - buf.getLong(0), histogram.getHighestTrackableValue()));
                }
            }
            ack.run();
            if (received.incrementAndGet() == expected) {
                done.countDown();
            }
        }
    }

    // ---------------------------------------------------------------- shared

    /** Subscribes; returns what unsubscribes. Batched: the listener runs on the connection's dispatch thread, as before. */
    private Runnable subscribe(LoadConnection.Listener listener) {
        if (consumer == null) {
            return unbatchedConsumer.subscribe(QUEUE, ackMode, prefetch, listener);
        }
        SubscriptionRequest req = SubscriptionRequest.builder(QUEUE).ackMode(ackMode).prefetch(prefetch)
                .header("activemq.prefetchSize", Integer.toString(prefetch)).build();
        Subscription sub = consumer.subscribeAndWait(req, m -> listener.onMessage(m.body(), m::ack), Duration.ofSeconds(30));
        return sub::unsubscribe;
    }

    private byte[] body(int run, byte phase, long nanos) {
        byte[] b = new byte[size];
        Arrays.fill(b, HEADER_BYTES, size, (byte) 'x');
        ByteBuffer.wrap(b).putLong(0, nanos).put(8, phase).putInt(9, run);
        return b;
    }
}
