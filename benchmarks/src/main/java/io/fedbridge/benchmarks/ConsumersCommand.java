package io.fedbridge.benchmarks;

import io.fedbridge.core.Message;
import io.fedbridge.core.StompConnection;
import io.fedbridge.core.Subscription;
import io.fedbridge.core.SubscriptionRequest;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Recorder;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code consumers}: many consumers on many destinations on broker B of a pair; broker A bridges to B and holds one
 * network subscription per consumer. Each broker is a child JVM so A's heap can be weighed alone, with
 * {@code jcmd PID GC.class_histogram} (which collects first) before and after the consumers arrive. Meanwhile a
 * producer on A sends to {@code /queue/flow} at a fixed rate and a consumer on B records each message's latency and
 * the longest gap between two arrivals: forwarding must not stall while consumers come and go.
 *
 * <p>Phases: (0) before any bridge, as many plain consumers on their own queues on A, weighed the same way: the
 * broker's share of a remote subscription; (1) the consumers subscribe on B as fast as the clients can ask; time until
 * A's queues hold a network consumer for each; (2) churn:
 * random consumers unsubscribe and subscribe again at {@code --churn-rate}; (3) A's bridge is removed and added again:
 * time for the new bridge to learn every consumer.
 */
@Command(name = "consumers", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Consumer scale: N consumers on N destinations on one broker of a bridged pair; time for the bridge",
                "to learn them, heap per remote subscription (jcmd class histogram), forwarding while consumers churn."})
public final class ConsumersCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = "--consumers", description = "consumers, each on its own queue (default ${DEFAULT-VALUE}).")
    int consumers = 10_000;

    @Option(names = "--connections", description = "client connections the consumers are spread over (default ${DEFAULT-VALUE}).")
    int connections = 10;

    @Option(names = "--rate", description = "msg/s of the forwarding probe A -> B (default ${DEFAULT-VALUE}).")
    int rate = 200;

    @Option(names = "--churn-seconds", description = "how long consumers come and go (default ${DEFAULT-VALUE}).")
    int churnSeconds = 10;

    @Option(names = "--churn-rate", description = "consumers that leave and come back per second (default ${DEFAULT-VALUE}).")
    int churnRate = 1_000;

    @Option(names = "--jvm-args", description = "options of both broker JVMs (default ${DEFAULT-VALUE}).")
    String jvmArgs = "-Xmx1g -XX:+UseSerialGC";

    @Option(names = "--timeout-seconds", description = "bound on each wait (default ${DEFAULT-VALUE}).")
    int timeoutSeconds = 120;

    @Option(names = "--log-dir", description = "broker logs (default: a new temporary directory).")
    Path logDir;

    @Option(names = "--report-dir", description = "where consumers.html and its SVG chart go (default ${DEFAULT-VALUE}).")
    Path reportDir = Path.of("consumers-report");

    @Option(names = "--classpath", description = "class path of the broker JVMs (default: this JVM's).")
    String classPath = System.getProperty("java.class.path");

    /** Seconds of the probe alone before the consumers arrive: the latency the machine gives it anyway. */
    private static final int QUIET_SECONDS = 5;

    /** What one run measured. Heap figures come from {@code jcmd GC.class_histogram} of broker A. */
    record Result(int consumers, double learnWhileArrivingMillis, double heldWhileArrivingMillis, double cpuArrivingMillis,
                  double learnNewBridgeMillis, double heldNewBridgeMillis, double cpuNewBridgeMillis, long heapBefore, long heapAfter,
                  long localConsumersHeap, List<String> topLocalClasses, List<String> topClasses, Phase quiet, Phase arriving,
                  Phase churn, long probeSent, long probeReceived) {

        double heapPerRemoteSubscription() {
            return (heapAfter - heapBefore) / (double) consumers;
        }

        /** What a plain consumer on its own queue costs the broker: the broker's share of a remote subscription. */
        double heapPerLocalConsumer() {
            return localConsumersHeap / (double) consumers;
        }
    }

    /** The forwarding probe during one phase: deliveries, latency percentiles (ms) and the longest gap between two. */
    record Phase(String name, long received, double p50, double p99, double max, double longestGapMillis) {
    }

    private Result result;

    Result result() {
        return result;
    }

    @Override
    public Integer call() throws Exception {
        if (consumers < 1 || connections < 1 || rate < 1) {
            throw new IllegalArgumentException("--consumers, --connections and --rate must be at least 1, but were "
                    + consumers + ", " + connections + ", " + rate);
        }
        Path logs = logDir != null ? Files.createDirectories(logDir) : Files.createTempDirectory("fedbridge-consumers-");
        List<String> jvm = Arrays.stream(jvmArgs.trim().split("\\s+")).filter(a -> !a.isEmpty()).toList();
        Duration timeout = Duration.ofSeconds(timeoutSeconds);
        List<AutoCloseable> open = new ArrayList<>();
        try {
            ChildJvm b = ChildJvm.start("consumers-B", jvm, classPath, FedbridgeBrokerMain.class, List.of("--name", "B"), logs);
            open.add(b);
            ChildJvm a = ChildJvm.start("consumers-A", jvm, classPath, FedbridgeBrokerMain.class, List.of("--name", "A"), logs);
            open.add(a);
            String uriB = b.awaitLine("READY ", timeout).split("\\s+")[0];
            String uriA = a.awaitLine("READY ", timeout).split("\\s+")[0];
            String bridge = "static:(" + uriB + ")";

            // What a consumer on its own queue costs broker A alone, before any bridge: the broker's share.
            Histogram bare = settledHistogram(a.pid());
            List<StompConnection> local = new ArrayList<>();
            for (int i = 0; i < connections; i++) {
                local.add(StompConnection.connect(uriA));
            }
            for (int k = 0; k < consumers; k++) {
                local.get(k % connections).subscribe(SubscriptionRequest.of("/queue/local." + k), m -> { });
            }
            awaitConsumers(a, consumers, timeout, consumers + " local consumers");
            Histogram withLocal = settledHistogram(a.pid());
            long brokerShare = withLocal.total() - bare.total();
            List<String> topLocal = withLocal.growthSince(bare, 25);
            local.forEach(StompConnection::close);
            awaitConsumers(a, 0, timeout, "the local consumers gone");

            a.send("connect " + bridge);
            a.awaitLine("CONNECTED", timeout);
            Probe probe = new Probe(uriA, uriB, rate);
            open.add(0, probe);
            awaitConsumers(a, 1, timeout, "the probe's demand");
            probe.phase("warm-up");
            await(() -> probe.received.get() >= rate, timeout, 20, "the probe's first second of messages");
            probe.phase("quiet");
            LockSupport.parkNanos(TimeUnit.SECONDS.toNanos(QUIET_SECONDS));
            // Weighing collects the whole heap (jcmd), a pause of its own: kept out of the phases reported.
            Phase quiet = probe.phase("weighing");
            Histogram heapBefore = settledHistogram(a.pid());

            List<StompConnection> clients = new ArrayList<>();
            for (int i = 0; i < connections; i++) {
                StompConnection c = StompConnection.connect(uriB);
                clients.add(c);
                open.add(0, c);
            }
            Subscription[] subs = new Subscription[consumers];
            probe.phase("arriving");
            long cpu0 = a.cpuNanos();
            long t0 = System.nanoTime();
            for (int k = 0; k < consumers; k++) {
                subs[k] = clients.get(k % connections).subscribe(SubscriptionRequest.of("/queue/many." + k), m -> { });
            }
            awaitSubscriptions(a, consumers + 1, timeout, consumers + " consumers' demand");
            double learnArriving = (System.nanoTime() - t0) / 1e6;
            awaitConsumers(a, consumers + 1, timeout, consumers + " consumers' demand");
            double heldArriving = (System.nanoTime() - t0) / 1e6;
            double cpuArriving = (a.cpuNanos() - cpu0) / 1e6;
            Phase arriving = probe.phase("weighing");
            Histogram heapAfter = settledHistogram(a.pid());
            List<String> top = heapAfter.growthSince(heapBefore, 25);
            probe.phase("churn");

            Random random = new Random(22);
            long period = TimeUnit.SECONDS.toNanos(1) / Math.max(1, churnRate);
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(churnSeconds);
            long next = System.nanoTime();
            while (System.nanoTime() < end) {
                int k = random.nextInt(consumers);
                subs[k].unsubscribe();
                subs[k] = clients.get(k % connections).subscribe(SubscriptionRequest.of("/queue/many." + k), m -> { });
                next += period;
                LockSupport.parkNanos(next - System.nanoTime());
            }
            awaitConsumers(a, consumers + 1, timeout, "demand after the churn");
            Phase churn = probe.phase("done");

            a.send("disconnect " + bridge);
            a.awaitLine("DISCONNECTED", timeout);
            awaitConsumers(a, 0, timeout, "the old bridge gone");
            long cpu1 = a.cpuNanos();
            long t1 = System.nanoTime();
            a.send("connect " + bridge);
            a.awaitLine("CONNECTED", timeout);
            awaitSubscriptions(a, consumers + 1, timeout, "a new bridge learning " + consumers + " consumers");
            double learnNew = (System.nanoTime() - t1) / 1e6;
            awaitConsumers(a, consumers + 1, timeout, "a new bridge learning " + consumers + " consumers");
            double heldNew = (System.nanoTime() - t1) / 1e6;
            double cpuNew = (a.cpuNanos() - cpu1) / 1e6;
            probe.stop();
            result = new Result(consumers, learnArriving, heldArriving, cpuArriving, learnNew, heldNew, cpuNew, heapBefore.total(), heapAfter.total(), brokerShare, topLocal, top, quiet, arriving, churn,
                    probe.sent.get(), probe.received.get());
        } finally {
            for (AutoCloseable c : open) {
                c.close();
            }
        }
        PrintWriter out = spec.commandLine().getOut();
        out.print(summary(result, this));
        out.println("report: " + writeReport(result, summary(result, this), reportDir).toAbsolutePath());
        out.flush();
        return 0;
    }

    static String summary(Result r, ConsumersCommand c) {
        StringBuilder b = new StringBuilder(String.format(Locale.ROOT, "Consumer scale: %,d consumers on %,d queues on broker B"
                        + " (%d connections); broker A bridges to B (child JVMs %s); probe %d msg/s A -> B%n%n",
                r.consumers(), r.consumers(), c.connections, c.jvmArgs, c.rate));
        b.append(String.format(Locale.ROOT, "| figure | value |%n|---|---|%n"));
        b.append(String.format(Locale.ROOT, "| consumers arriving: first SUBSCRIBE on B to the bridge subscribing all %,d on A"
                + " / A's queues holding them all (±0.5 s) | %.0f / %.0f ms |%n", r.consumers(), r.learnWhileArrivingMillis(),
                r.heldWhileArrivingMillis()));
        b.append(String.format(Locale.ROOT, "| new bridge: connect to the bridge subscribing all %,d on A / A's queues holding them"
                + " all (±0.5 s) | %.0f / %.0f ms |%n", r.consumers(), r.learnNewBridgeMillis(), r.heldNewBridgeMillis()));
        b.append(String.format(Locale.ROOT, "| CPU time of A (all threads) while the consumers arrive / while a new bridge learns them"
                + " | %.0f / %.0f ms |%n", r.cpuArrivingMillis(), r.cpuNewBridgeMillis()));
        b.append(String.format(Locale.ROOT, "| heap of A per remote subscription (jcmd GC.class_histogram, after - before) | %.0f B |%n",
                r.heapPerRemoteSubscription()));
        b.append(String.format(Locale.ROOT, "| of which the broker's (a plain consumer on its own queue, measured alone) | %.0f B |%n",
                r.heapPerLocalConsumer()));
        b.append(String.format(Locale.ROOT, "| of which the bridge's (the difference) | %.0f B |%n",
                r.heapPerRemoteSubscription() - r.heapPerLocalConsumer()));
        b.append(String.format(Locale.ROOT, "| heap of A before / after | %.1f / %.1f MiB |%n", r.heapBefore() / 1048576.0,
                r.heapAfter() / 1048576.0));
        for (Phase p : List.of(r.quiet(), r.arriving(), r.churn())) {
            b.append(String.format(Locale.ROOT, "| probe while %s: received, latency p50 / p99 / max, longest gap | %,d, %.1f / %.1f / %.1f ms, %.0f ms |%n",
                    p.name(), p.received(), p.p50(), p.p99(), p.max(), p.longestGapMillis()));
        }
        b.append(String.format(Locale.ROOT, "| probe sent / received (the bridge's restart included) | %,d / %,d |%n%n",
                r.probeSent(), r.probeReceived()));
        b.append("Largest heap growth on A by class with the remote subscriptions (bytes, instances):\n");
        r.topClasses().forEach(l -> b.append("  ").append(l).append('\n'));
        b.append("\nLargest heap growth on A by class with the plain local consumers, before any bridge (bytes, instances):\n");
        r.topLocalClasses().forEach(l -> b.append("  ").append(l).append('\n'));
        return b.append('\n').toString();
    }

    static Path writeReport(Result r, String summary, Path dir) throws IOException {
        Files.createDirectories(dir);
        String svg = SvgChart.bars("Consumer scale: " + r.consumers() + " consumers", "ms",
                List.of("learn (arriving)", "learn (new bridge)", "probe p99 quiet", "probe p99 arriving", "probe p99 churn",
                        "longest gap churn"),
                List.of(new SvgChart.Series("fedbridge", new double[0], new double[] {r.learnWhileArrivingMillis(),
                        r.learnNewBridgeMillis(), r.quiet().p99(), r.arriving().p99(), r.churn().p99(), r.churn().longestGapMillis()})));
        SvgChart.write(dir.resolve("consumers.svg"), svg);
        Path html = dir.resolve("consumers.html");
        Files.writeString(html, SvgChart.page("fedbridge consumer scale", List.<String[]>of(
                new String[] {"Figures", "<pre>" + SvgChart.esc(summary) + "</pre>", svg})), StandardCharsets.UTF_8);
        return html;
    }

    /**
     * Waits until broker A's queues have {@code expected} consumers in all (network subscriptions included). Counting
     * them walks every queue, so this polls twice a second, not to load the broker it measures.
     */
    private static void awaitConsumers(ChildJvm a, long expected, Duration timeout, String what) {
        await(() -> {
            a.send("consumers");
            return Long.parseLong(a.awaitLine("CONSUMERS ", timeout)) == expected;
        }, timeout, 500, what + " (" + expected + " consumers on A's queues)");
    }

    /** Waits until A's bridges hold {@code expected} network subscriptions (cheap to ask: every 20 ms). */
    private static void awaitSubscriptions(ChildJvm a, long expected, Duration timeout, String what) {
        await(() -> {
            a.send("stats");
            String stats = a.awaitLine("STATS ", timeout);
            for (String kv : stats.split("\\s+")) {
                if (kv.startsWith("networkSubscriptions=")) {
                    return Long.parseLong(kv.substring("networkSubscriptions=".length())) == expected;
                }
            }
            throw new BenchmarkException("broker stats without networkSubscriptions: " + stats);
        }, timeout, 20, what + " (" + expected + " network subscriptions of A's bridge)");
    }

    private static void await(java.util.function.BooleanSupplier done, Duration timeout, long pollMillis, String what) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!done.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new BenchmarkException(what + ": not within " + timeout.toSeconds() + " s");
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(pollMillis));
        }
    }

    /** A class histogram: bytes and instances by class name, and the total bytes. */
    record Histogram(long total, Map<String, long[]> byClass) {

        /** The {@code n} classes whose bytes grew most from {@code before} to this, as "bytes  instances  class". */
        List<String> growthSince(Histogram before, int n) {
            return byClass.entrySet().stream()
                    .map(e -> Map.entry(e.getKey(), new long[] {e.getValue()[0] - before.byClass.getOrDefault(e.getKey(), new long[2])[0],
                            e.getValue()[1] - before.byClass.getOrDefault(e.getKey(), new long[2])[1]}))
                    .sorted((x, y) -> Long.compare(y.getValue()[0], x.getValue()[0])).limit(n)
                    .map(e -> String.format(Locale.ROOT, "%,12d B %,9d  %s", e.getValue()[0], e.getValue()[1], e.getKey()))
                    .toList();
        }
    }

    /**
     * A histogram once the broker's passing work has settled (a backlog of management events being published, a
     * housekeeping pass): taken a second apart until the total no longer falls by more than 1 %, at most five times.
     */
    static Histogram settledHistogram(long pid) throws IOException, InterruptedException {
        Histogram h = histogram(pid);
        for (int i = 0; i < 4; i++) {
            LockSupport.parkNanos(TimeUnit.SECONDS.toNanos(1));
            Histogram next = histogram(pid);
            boolean settled = next.total() > h.total() * 0.99;
            h = next.total() < h.total() ? next : h;
            if (settled) {
                break;
            }
        }
        return h;
    }

    /** {@code jcmd PID GC.class_histogram}, which collects first: live objects only. */
    static Histogram histogram(long pid) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(jcmd(), Long.toString(pid), "GC.class_histogram").redirectErrorStream(true).start();
        String text = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(120, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new BenchmarkException("jcmd " + pid + " GC.class_histogram failed: " + text);
        }
        long total = -1;
        Map<String, long[]> byClass = new HashMap<>();
        for (String line : text.split("\n")) {
            String[] f = line.trim().split("\s+");
            if (f.length >= 3 && f[0].equals("Total")) {
                total = Long.parseLong(f[2]);
            } else if (f.length >= 4 && f[0].matches("\\d+:")) {
                byClass.merge(f[3], new long[] {Long.parseLong(f[2]), Long.parseLong(f[1])},
                        (x, y) -> new long[] {x[0] + y[0], x[1] + y[1]});
            }
        }
        if (total < 0) {
            throw new BenchmarkException("jcmd " + pid + " GC.class_histogram printed no Total line: " + text);
        }
        return new Histogram(total, byClass);
    }

    private static String jcmd() {
        Path beside = Path.of(ChildJvm.javaCommand()).resolveSibling("jcmd");
        return Files.isExecutable(beside) ? beside.toString() : "jcmd";
    }

    /** Non-persistent messages A -> B at a fixed rate; each body is its send {@code nanoTime}. */
    private static final class Probe implements AutoCloseable {
        final StompConnection producer;
        final StompConnection consumer;
        final AtomicLong sent = new AtomicLong();
        final AtomicLong received = new AtomicLong();
        final Recorder latency = new Recorder(3);
        volatile long lastArrival = System.nanoTime();
        volatile long longestGap;
        volatile boolean running = true;
        String phase = "start";
        long phaseReceived;
        final Thread pacer;

        Probe(String uriA, String uriB, int rate) {
            consumer = StompConnection.connect(uriB);
            consumer.subscribe(SubscriptionRequest.of("/queue/flow"), m -> {
                long now = System.nanoTime();
                latency.recordValue(Math.max(0, now - Long.parseLong(m.bodyAsString())) / 1000);
                longestGap = Math.max(longestGap, now - lastArrival);
                lastArrival = now;
                received.incrementAndGet();
            });
            producer = StompConnection.connect(uriA);
            pacer = new Thread(() -> {
                long period = TimeUnit.SECONDS.toNanos(1) / rate;
                long next = System.nanoTime();
                while (running) {
                    LockSupport.parkNanos(next - System.nanoTime());
                    producer.sendWithoutReceipt(Message.builder("/queue/flow").persistent(false)
                            .body(Long.toString(System.nanoTime())).build());
                    sent.incrementAndGet();
                    next += period;
                }
            }, "consumers-probe");
            pacer.setDaemon(true);
            pacer.start();
        }

        /** Ends the current phase (returning its figures) and starts {@code next}. */
        synchronized Phase phase(String next) {
            org.HdrHistogram.Histogram h = latency.getIntervalHistogram();
            long n = received.get();
            Phase p = new Phase(phase, n - phaseReceived, h.getValueAtPercentile(50) / 1000.0,
                    h.getValueAtPercentile(99) / 1000.0, h.getMaxValue() / 1000.0, longestGap / 1e6);
            phase = next;
            phaseReceived = n;
            longestGap = 0;
            lastArrival = System.nanoTime();
            return p;
        }

        void stop() {
            running = false;
        }

        @Override
        public void close() {
            running = false;
            producer.close();
            consumer.close();
        }
    }
}
