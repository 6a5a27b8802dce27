package io.fedbridge.benchmarks;

import io.fedbridge.core.AckMode;
import io.fedbridge.core.StompConnection;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;

/**
 * Child JVM: the load generator of the {@code persistent}, {@code bridge} and {@code fanout} benchmarks, the same
 * client code whatever the target: fedbridge's own {@link StompConnection} or a per-frame blocking client
 * ({@link LoadConnection.Mode}). Producers connect to one broker, consumers to another (or the
 * same one): over a bridge, producer → A → B → consumers. Producers and consumers share this JVM, so send
 * timestamps ({@link System#nanoTime()}) are comparable.
 *
 * <p>Arguments: {@code PRODUCER_URI CONSUMER_URI DESTINATION SUBSCRIBERS SIZE PREFETCH STALL_SECONDS MODE ACK}. MODE is
 * {@code batched}, {@code per-frame} or {@code spring} ({@link LoadConnection.Mode}), ACK the subscriptions' ack mode ({@code auto} or
 * {@code client-individual}: one ACK frame per message). Opens one
 * producer connection and SUBSCRIBERS consumer connections, each with one subscription to
 * DESTINATION that stays for the life of the JVM (so a bridge's demand does not come and go between runs), prints
 * {@code READY}, then executes commands read from stdin, answering each with one {@code RESULT …} line (or
 * {@code ERROR …}). PERSISTENT is {@code true} or {@code false}, the messages' {@code persistent} header.
 * <ul>
 *   <li>{@code ready SECONDS}: sends a probe every 100 ms until every subscriber has received one: demand has
 *       crossed the bridges. Probes that arrive later are counted as stray by the next run.</li>
 *   <li>{@code throughput N PERSISTENT}: N−1 sends without receipt, the N-th with one (the fence); ends when every
 *       subscriber has received N.</li>
 *   <li>{@code window N WINDOW PRODUCERS PERSISTENT}: PRODUCERS connections (one thread each) share N sends, each
 *       with a receipt, at most WINDOW receipts outstanding per producer.</li>
 *   <li>{@code sync N PERSISTENT}: one producer, each send waits for its receipt; the per-send time (send → receipt)
 *       goes into an HdrHistogram.</li>
 *   <li>{@code latency RATE SECONDS PREROLL PERSISTENT}: a fixed rate, PREROLL seconds unrecorded, then SECONDS
 *       recorded; the consumer records receive − send. Persistent messages ask for a receipt (not waited for
 *       before the next send; all are awaited at the end), non-persistent ones do not.</li>
 * </ul>
 * {@code elapsedNanos} is always first send → the last subscriber's last receive. EOF on stdin or {@code quit}
 * closes every connection and exits. A run that receives nothing for STALL_SECONDS ends the JVM with an
 * {@code ERROR … stalled} line.
 *
 * <p>Body layout as {@link ClientMain}: bytes 0-7 send nanoTime, byte 8 phase (0 = pre-roll, 1 = measured), bytes
 * 9-12 run number, filler up to SIZE. Messages of another run are ignored and counted as stray.
 */
public final class LoadClientMain {

    /**
     * Diagnostics: where to write per-message latency traces (a first line {@code # start-epoch-us N}, then per
     * message: us since the run's start, latency us), or null.
     */
    private static final String TRACE = System.getProperty("fedbridge.bench.trace");

    private static final int HEADER_BYTES = 13;

    private final String producerUri;
    private final String consumerUri;
    private final String destination;
    private final int subscribers;
    private final int size;
    private final int prefetch;
    private final Duration stallTimeout;
    private final LoadConnection.Mode mode;
    private final AckMode ack;
    private final List<LoadConnection> producers = new ArrayList<>();
    private final List<LoadConnection> consumers = new ArrayList<>();
    private final AtomicLong strayBetweenRuns = new AtomicLong();
    private volatile Run current;
    private int runNumber;

    private LoadClientMain(String[] a) {
        this.producerUri = a[0];
        this.consumerUri = a[1];
        this.destination = a[2];
        this.subscribers = Integer.parseInt(a[3]);
        this.size = Integer.parseInt(a[4]);
        this.prefetch = Integer.parseInt(a[5]);
        this.stallTimeout = Duration.ofSeconds(Long.parseLong(a[6]));
        this.mode = LoadConnection.Mode.of(a[7]);
        this.ack = AckMode.fromWire(a[8]);
        if (a.length > 9 && a[9].equals("artemis")) {
            LoadConnection.ACTIVEMQ_PREFETCH.set(false);
        }
        if (size < HEADER_BYTES || subscribers < 1) {
            throw new IllegalArgumentException("size must be >= " + HEADER_BYTES + " and subscribers >= 1, but were "
                    + size + " and " + subscribers);
        }
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 9 && !(args.length == 10 && args[9].equals("artemis"))) {
            System.out.println("ERROR usage: LoadClientMain PRODUCER_URI CONSUMER_URI DESTINATION SUBSCRIBERS SIZE PREFETCH STALL_SECONDS"
                    + " MODE ACK [artemis]");
            System.exit(2);
        }
        System.exit(new LoadClientMain(args).run());
    }

    private int run() throws Exception {
        startWatchdog();
        try {
            producer(0);
            for (int i = 0; i < subscribers; i++) {
                LoadConnection c = LoadConnection.connect(mode, consumerUri);
                consumers.add(c);
                int index = i;
                // The 'ready' probe, not a receipt, tells when the subscription is in place.
                c.subscribe(destination, ack, prefetch, (body, ackIt) -> onMessage(index, body, ackIt));
            }
            answer("READY producer=" + producerUri + " consumer=" + consumerUri + " server="
                    + consumers.get(0).server() + " subscribers=" + subscribers + " mode=" + mode.key() + " ack=" + ack.wireValue());
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            String line;
            while ((line = in.readLine()) != null) {
                String[] p = line.trim().split("\\s+");
                try {
                    switch (p[0]) {
                        case "ready" -> answer(ready(Integer.parseInt(p[1])));
                        case "throughput" -> answer(throughput(Integer.parseInt(p[1]), Boolean.parseBoolean(p[2])));
                        case "window" -> answer(window(Integer.parseInt(p[1]), Integer.parseInt(p[2]), Integer.parseInt(p[3]),
                                Boolean.parseBoolean(p[4])));
                        case "sync" -> answer(sync(Integer.parseInt(p[1]), Boolean.parseBoolean(p[2])));
                        case "latency" -> answer(latency(Integer.parseInt(p[1]), Integer.parseInt(p[2]), Integer.parseInt(p[3]),
                                Boolean.parseBoolean(p[4])));
                        case "quit" -> {
                            return 0;
                        }
                        default -> answer("ERROR unknown command '" + line + "'");
                    }
                } catch (Exception e) {
                    System.err.println("command failed: " + e); // the parent reads the ERROR line; stderr goes to the log
                    answer("ERROR " + p[0] + " failed: " + e);
                } finally {
                    current = null;
                }
            }
            return 0;
        } finally {
            for (LoadConnection c : producers) {
                closeQuietly(c);
            }
            for (LoadConnection c : consumers) {
                closeQuietly(c);
            }
        }
    }

    private LoadConnection producer(int i) {
        while (producers.size() <= i) {
            producers.add(LoadConnection.connect(mode, producerUri));
        }
        return producers.get(i);
    }

    private void onMessage(int subscriber, byte[] body, Runnable ackIt) {
        long now = System.nanoTime();
        Run r = current;
        if (r == null || !r.onMessage(subscriber, body, now)) {
            if (r == null) {
                strayBetweenRuns.incrementAndGet();
            }
        }
        ackIt.run();
    }

    /** Ends this JVM with an {@code ERROR} line when a run receives nothing for the stall timeout. */
    private void startWatchdog() {
        Thread t = new Thread(() -> {
            long last = -1;
            Run lastRun = null;
            long since = System.nanoTime();
            while (true) {
                try {
                    Thread.sleep(250);
                } catch (InterruptedException e) {
                    return;
                }
                Run r = current;
                long now = System.nanoTime();
                long v = r == null ? -1 : r.received.get() + r.stray.get();
                if (r == null || r.probe || r != lastRun || v != last) {
                    last = v;
                    lastRun = r;
                    since = now;
                } else if (now - since > stallTimeout.toNanos()) {
                    answer("ERROR " + r.what + " stalled: " + r.received.get() + " of " + r.expectedTotal()
                            + " deliveries received, none for " + stallTimeout.toSeconds() + " s");
                    Runtime.getRuntime().halt(3);
                }
            }
        }, "bench-watchdog");
        t.setDaemon(true);
        t.start();
    }

    private static void answer(String line) {
        System.out.println(line);
        System.out.flush();
    }

    private static void closeQuietly(LoadConnection c) {
        try {
            c.close();
        } catch (RuntimeException e) {
            System.err.println("close failed: " + e);
        }
    }

    // ---------------------------------------------------------------- commands

    private String ready(int seconds) throws InterruptedException {
        Run r = begin("ready", 1, false);
        long start = System.nanoTime();
        long deadline = start + TimeUnit.SECONDS.toNanos(seconds);
        int probes = 0;
        while (System.nanoTime() < deadline) {
            producer(0).sendWithoutReceipt(destination, body(r.number, (byte) 0, System.nanoTime()), false);
            probes++;
            if (r.done.await(100, TimeUnit.MILLISECONDS)) {
                return "RESULT ready probes=" + probes + " millis=" + (System.nanoTime() - start) / 1_000_000;
            }
        }
        throw new IllegalStateException("demand did not reach the producer's broker within " + seconds + " s: "
                + r.received.get() + " of " + subscribers + " subscribers got a probe");
    }

    private String throughput(int n, boolean persistent) throws Exception {
        Run r = begin("throughput " + n, n, false);
        byte[] m = body(r.number, (byte) 0, 0);
        LoadConnection p = producer(0);
        long start = System.nanoTime();
        for (int i = 1; i < n; i++) {
            p.sendWithoutReceipt(destination, m, persistent);
        }
        await(p.send(destination, m, persistent), "the fence of " + r.what);
        long sent = System.nanoTime();
        return r.finish(start, sent, "");
    }

    private String window(int n, int window, int producerCount, boolean persistent) throws Exception {
        Run r = begin("window " + n + "x" + window + "x" + producerCount, n, false);
        for (int i = 0; i < producerCount; i++) {
            producer(i);
        }
        byte[] m = body(r.number, (byte) 0, 0);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        CountDownLatch gate = new CountDownLatch(1);
        List<Thread> threads = new ArrayList<>();
        for (int k = 0; k < producerCount; k++) {
            LoadConnection p = producer(k);
            int count = n / producerCount + (k < n % producerCount ? 1 : 0);
            Thread t = new Thread(() -> {
                Semaphore permits = new Semaphore(window);
                try {
                    gate.await();
                    for (int i = 0; i < count && failure.get() == null; i++) {
                        permits.acquire();
                        p.send(destination, m, persistent).whenComplete((v, e) -> {
                            if (e != null) {
                                failure.compareAndSet(null, e);
                            }
                            permits.release();
                        });
                    }
                    if (!permits.tryAcquire(window, 5, TimeUnit.MINUTES)) {
                        failure.compareAndSet(null, new TimeoutException("receipts outstanding after 5 minutes"));
                    }
                } catch (InterruptedException e) {
                    failure.compareAndSet(null, e);
                } catch (RuntimeException e) {
                    failure.compareAndSet(null, e);
                }
            }, "bench-producer-" + k);
            threads.add(t);
            t.start();
        }
        long start = System.nanoTime();
        gate.countDown();
        for (Thread t : threads) {
            t.join();
        }
        long sent = System.nanoTime();
        if (failure.get() != null) {
            throw new IllegalStateException(r.what + ": a send failed: " + failure.get(), failure.get());
        }
        return r.finish(start, sent, "");
    }

    private String sync(int n, boolean persistent) throws Exception {
        Run r = begin("sync " + n, n, false);
        byte[] m = body(r.number, (byte) 0, 0);
        Histogram h = new Histogram(TimeUnit.SECONDS.toNanos(60), 3);
        LoadConnection p = producer(0);
        long start = System.nanoTime();
        for (int i = 0; i < n; i++) {
            long t0 = System.nanoTime();
            await(p.send(destination, m, persistent), r.what + ", send " + (i + 1));
            h.recordValue(Math.min(System.nanoTime() - t0, h.getHighestTrackableValue()));
        }
        long sent = System.nanoTime();
        return r.finish(start, sent, percentiles("send", h));
    }

    private String latency(int rate, int seconds, int prerollSeconds, boolean persistent) throws Exception {
        long preroll = (long) rate * prerollSeconds;
        long measured = (long) rate * seconds;
        Run r = begin("latency " + rate + "/s", preroll + measured, true);
        LoadConnection p = producer(0);
        AtomicLong receipted = new AtomicLong();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Histogram receipts = new Histogram(TimeUnit.SECONDS.toNanos(60), 3);
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
            long sentAt = System.nanoTime();
            byte[] m = body(r.number, i < preroll ? (byte) 0 : (byte) 1, sentAt);
            if (persistent) {
                boolean record = i >= preroll;
                p.send(destination, m, persistent).whenComplete((v, e) -> {
                    if (e != null) {
                        failure.compareAndSet(null, e);
                    } else if (record) {
                        synchronized (receipts) {
                            receipts.recordValue(Math.min(System.nanoTime() - sentAt, receipts.getHighestTrackableValue()));
                        }
                    }
                    receipted.incrementAndGet();
                });
            } else {
                p.sendWithoutReceipt(destination, m, false);
            }
        }
        long sendEnd = System.nanoTime();
        long total = preroll + measured;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (persistent && receipted.get() < total && System.nanoTime() < deadline) {
            Thread.sleep(1);
        }
        if (failure.get() != null) {
            throw new IllegalStateException(r.what + ": a send failed: " + failure.get(), failure.get());
        }
        double achieved = measured * 1e9 / Math.max(1, sendEnd - (start + preroll * interval));
        String extra = "rate=" + Math.round(achieved) + " lateSends=" + lateSends;
        if (persistent) {
            synchronized (receipts) {
                extra += " " + percentiles("receipt", receipts); // send -> receipt of each measured message
            }
        }
        String result = r.finish(start, sendEnd, extra);
        synchronized (r.histogram) {
            return result + " measured=" + r.histogram.getTotalCount() + " " + percentiles("", r.histogram);
        }
    }

    // ---------------------------------------------------------------- shared

    private Run begin(String what, long expectedEach, boolean latency) {
        Run r = new Run(++runNumber, what, expectedEach, subscribers, latency);
        current = r;
        return r;
    }

    private byte[] body(int run, byte phase, long nanos) {
        byte[] b = new byte[size];
        Arrays.fill(b, HEADER_BYTES, size, (byte) 'x');
        ByteBuffer.wrap(b).putLong(0, nanos).put(8, phase).putInt(9, run);
        return b;
    }

    private static void await(CompletableFuture<Void> f, String what) throws InterruptedException {
        try {
            f.get(5, TimeUnit.MINUTES);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("no receipt for " + what + ": " + e, e);
        }
    }

    /** {@code p50=… p90=… p99=… p999=… max=…} in nanoseconds, each key prefixed. */
    private static String percentiles(String prefix, Histogram h) {
        String k = prefix.isEmpty() ? "" : prefix + "_";
        return k + "p50=" + h.getValueAtPercentile(50) + " " + k + "p90=" + h.getValueAtPercentile(90) + " " + k + "p99="
                + h.getValueAtPercentile(99) + " " + k + "p999=" + h.getValueAtPercentile(99.9) + " " + k + "max=" + h.getMaxValue();
    }

    /** One run: counts what each subscriber receives; runs on the consumer connections' I/O threads. */
    private final class Run {
        final int number;
        final String what;
        final long expectedEach;
        final AtomicLongArray perSubscriber;
        final AtomicLong received = new AtomicLong();
        final AtomicLong stray = new AtomicLong();
        final AtomicLong lastNanos = new AtomicLong();
        final CountDownLatch done;
        final Histogram histogram;
        /** With -Dfedbridge.bench.trace=PREFIX: each measured message's send time and latency, written at the end. */
        private final long[] trace = TRACE == null ? null : new long[2 * 200_000];
        private int traced;
        /** Probes wait for demand, bounded by their own timeout; the watchdog leaves them alone. */
        final boolean probe;

        Run(int number, String what, long expectedEach, int subscribers, boolean latency) {
            this.number = number;
            this.what = what + " (run " + number + ")";
            this.expectedEach = expectedEach;
            this.perSubscriber = new AtomicLongArray(subscribers);
            this.done = new CountDownLatch(subscribers);
            this.histogram = latency ? new Histogram(TimeUnit.SECONDS.toNanos(60), 3) : null;
            this.probe = what.equals("ready");
        }

        long expectedTotal() {
            return expectedEach * perSubscriber.length();
        }

        /** False for a message of another run. */
        boolean onMessage(int subscriber, byte[] b, long now) {
            ByteBuffer buf = ByteBuffer.wrap(b);
            if (b.length < HEADER_BYTES || buf.getInt(9) != number) {
                stray.incrementAndGet();
                return false;
            }
            if (histogram != null && b[8] == 1) {
                synchronized (histogram) {
                    histogram.recordValue(Math.min(Math.max(0, now - buf.getLong(0)), histogram.getHighestTrackableValue()));
                    if (TRACE != null && traced < trace.length / 2) {
                        trace[2 * traced] = buf.getLong(0);
                        trace[2 * traced + 1] = now - buf.getLong(0);
                        traced++;
                    }
                }
            }
            received.incrementAndGet();
            if (perSubscriber.incrementAndGet(subscriber) == expectedEach) {
                lastNanos.accumulateAndGet(now, Math::max);
                done.countDown();
            }
            return true;
        }

        /** Waits for every delivery (bounded), then the RESULT line. */
        String finish(long start, long sent, String extra) throws InterruptedException {
            long timeout = 60 + expectedTotal() / 2000;
            boolean all = done.await(timeout, TimeUnit.SECONDS);
            if (TRACE != null && histogram != null) {
                synchronized (histogram) {
                    try (java.io.PrintWriter w = new java.io.PrintWriter(java.nio.file.Files.newBufferedWriter(
                            java.nio.file.Path.of(TRACE + "-run" + number + ".txt")))) {
                        long startEpochMicros = System.currentTimeMillis() * 1000 - (System.nanoTime() - start) / 1000;
                        w.println("# start-epoch-us " + startEpochMicros);
                        for (int i = 0; i < traced; i++) {
                            w.println((trace[2 * i] - start) / 1000 + " " + trace[2 * i + 1] / 1000);
                        }
                    } catch (java.io.IOException e) {
                        System.err.println("trace: " + e);
                    }
                }
            }
            long end = all ? lastNanos.get() : System.nanoTime();
            return "RESULT run=" + number + " messages=" + expectedEach + " expected=" + expectedTotal() + " received="
                    + received.get() + " stray=" + stray.get() + " complete=" + all + " elapsedNanos=" + (end - start)
                    + " sendNanos=" + (sent - start) + (extra.isEmpty() ? "" : " " + extra);
        }
    }
}
