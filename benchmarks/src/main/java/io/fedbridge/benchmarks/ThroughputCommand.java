package io.fedbridge.benchmarks;

import io.fedbridge.benchmarks.Results.LatencyRun;
import io.fedbridge.benchmarks.Results.ThroughputRun;
import io.fedbridge.core.AckMode;
import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Producer → broker → consumer, 1 KiB bodies, one queue, non-persistent, against fedbridge, ActiveMQ Classic
 * (STOMP connector, Nagle off) and a bare Netty STOMP relay (the wire ceiling), in one invocation.
 *
 * <p>Every broker and the load generator run in child JVMs with the same JVM options: per target one broker
 * JVM ({@link FedbridgeBrokerMain}, {@link ActiveMqBrokerMain}, {@link RelayMain}) and one client JVM
 * ({@link ClientMain}, fedbridge's own STOMP client for every target). This JVM only orchestrates. All
 * targets start up front and stay up; each client is warmed up, then the runs are interleaved (run 1 on every
 * target, then run 2, …) so that noise on a shared machine spreads over all targets. Medians are reported.
 */
@Command(name = "throughput", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Throughput (unbounded rate) and latency (fixed rate) of producer -> broker -> consumer,",
                "for fedbridge, ActiveMQ Classic's STOMP connector and a bare Netty STOMP relay."})
public final class ThroughputCommand implements Callable<Integer> {

    @Option(names = "--runs", description = "Measured runs per scenario and target; medians are reported (default ${DEFAULT-VALUE}).")
    int runs = 3;

    @Option(names = "--messages", description = "Messages per throughput run (default ${DEFAULT-VALUE}).")
    int messages = 500_000;

    @Option(names = "--warmup-messages", description = "Messages per warm-up round (default ${DEFAULT-VALUE}).")
    int warmupMessages = 100_000;

    @Option(names = "--warmup-seconds", description = {"Warm-up per target before measuring (default ${DEFAULT-VALUE}): rounds of",
            "--warmup-messages for at least this long, then until three rounds in a row agree within 10%%",
            "(the JIT has settled), at most twice this long."})
    int warmupSeconds = 10;

    @Option(names = "--size", description = "Body size in bytes (default ${DEFAULT-VALUE}).")
    int size = 1024;

    @Option(names = "--rate", description = "Messages/s of the latency scenario (default ${DEFAULT-VALUE}).")
    int rate = 1000;

    @Option(names = "--latency-seconds", description = "Recorded seconds per latency run (default ${DEFAULT-VALUE}).")
    int latencySeconds = 10;

    @Option(names = "--preroll-seconds", description = "Unrecorded seconds at the same rate before each latency run (default ${DEFAULT-VALUE}).")
    int prerollSeconds = 2;

    @Option(names = "--targets", split = ",", description = "Any of fedbridge, activemq, relay (default ${DEFAULT-VALUE}).")
    List<String> targets = List.of("fedbridge", "activemq", "relay");

    @Option(names = "--scenarios", split = ",", description = "Any of throughput, latency (default ${DEFAULT-VALUE}).")
    List<String> scenarios = List.of("throughput", "latency");

    @Option(names = "--client-mode", description = {"How the client writes (default ${DEFAULT-VALUE}): batched = fedbridge's",
            "StompConnection, a burst of frames per flush; per-frame = a blocking socket, one write per frame (needs",
            "--heart-beat-ms 0)."})
    String clientMode = "batched";

    @Option(names = "--ack", description = "Consumer ack mode: auto or client-individual (default ${DEFAULT-VALUE}).")
    String ack = "auto";

    @Option(names = "--prefetch", description = "Consumer prefetch, sent as prefetch-size and activemq.prefetchSize (default ${DEFAULT-VALUE}).")
    int prefetch = 1000;

    @Option(names = "--heart-beat-ms", description = {"STOMP heart-beat interval the client offers and asks for, 0 = none (default ${DEFAULT-VALUE}).",
            "Off by default: ActiveMQ may stay silent for up to twice the interval, which the client takes for a dead peer."})
    long heartBeatMillis = 0;

    @Option(names = "--stall-seconds", description = "A run that receives nothing for this long fails as stalled (default ${DEFAULT-VALUE}).")
    int stallSeconds = 15;

    @Option(names = "--max-other-cores", description = {"A run during which other processes on this machine used more CPU than",
            "this many cores is repeated, up to --retries times, after waiting for the machine to calm down (default ${DEFAULT-VALUE})."})
    double maxOtherCores = 0.3;

    @Option(names = "--retries", description = "Repeats of a run disturbed by other processes; 0 = no waiting, no repeats (default ${DEFAULT-VALUE}).")
    int retries = 2;

    @Option(names = "--jvm-args", description = "Options of every child JVM, brokers and client alike (default '${DEFAULT-VALUE}').")
    String jvmArgs = "-Xms1g -Xmx1g";

    @Option(names = "--jfr", description = "Record a JFR profile of every child JVM into the log directory.")
    boolean jfr;

    @Option(names = "--jfr-settings", description = "JFR settings for --jfr: profile, default or a .jfc file (default ${DEFAULT-VALUE}).")
    String jfrSettings = "profile";

    @Option(names = "--log-dir", description = "Where child JVM logs go (default: a new temporary directory).")
    Path logDir;

    @Option(names = "--classpath", hidden = true, description = "Class path of the child JVMs (default: this JVM's).")
    String classPath = System.getProperty("java.class.path");

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    private Report report;
    private final Map<Target, ChildJvm> brokers = new EnumMap<>(Target.class);
    private final Map<Target, ChildJvm> clients = new EnumMap<>(Target.class);
    /** Every child JVM started, so that their CPU is not counted as noise. */
    private final List<ChildJvm> children = new java.util.concurrent.CopyOnWriteArrayList<>();

    /** The report of the last execution, or null. */
    Report report() {
        return report;
    }

    @Override
    public Integer call() throws IOException {
        List<Target> ts = new ArrayList<>(new LinkedHashSet<>(targets.stream().map(Target::of).toList()));
        boolean doThroughput = scenarios.contains("throughput");
        boolean doLatency = scenarios.contains("latency");
        validate(doThroughput, doLatency);
        AckMode ackMode = AckMode.fromWire(ack);
        Path logs = logDir != null ? Files.createDirectories(logDir) : Files.createTempDirectory("fedbridge-bench-");
        List<String> jvm = Arrays.stream(jvmArgs.trim().split("\\s+")).filter(s -> !s.isEmpty()).toList();

        report = new Report(ts, runs);
        describeSetup(ts, jvm, logs, ackMode);
        PrintStream progress = System.err;

        try {
            for (Target t : ts) {
                try {
                    ChildJvm b = ChildJvm.start(t.key + "-broker", withJfr(jvm, logs, t.key + "-broker"), classPath,
                            t.mainClass, List.of(), logs);
                    brokers.put(t, b);
                    children.add(b);
                    String uri = b.awaitLine("READY ", Duration.ofSeconds(60)).split("\\s+")[0];
                    ChildJvm c = ChildJvm.start(t.key + "-client", withJfr(jvm, logs, t.key + "-client"), classPath, ClientMain.class,
                            List.of(uri, Integer.toString(size), ackMode.wireValue(), Integer.toString(prefetch),
                                    Long.toString(heartBeatMillis), Integer.toString(stallSeconds),
                                    LoadConnection.Mode.of(clientMode).key()), logs);
                    clients.put(t, c);
                    children.add(c);
                    String hello = c.awaitLine("READY ", Duration.ofSeconds(60));
                    progress.printf("[%s] broker pid %d at %s, client pid %d (%s)%n", t, b.pid(), uri, c.pid(), hello);
                } catch (BenchmarkException e) {
                    fail(t, e, progress);
                }
            }
            // Warm-up: JIT both sides, fill pools; not reported.
            for (Target t : ts) {
                if (report.hasFailed(t)) {
                    continue;
                }
                try {
                    warmUp(t, brokers.get(t), clients.get(t), progress);
                } catch (BenchmarkException e) {
                    fail(t, e, progress);
                }
            }
            if (doThroughput) {
                for (int r = 1; r <= runs; r++) {
                    for (Target t : ts) {
                        if (report.hasFailed(t)) {
                            continue;
                        }
                        try {
                            ChildJvm broker = brokers.get(t);
                            ChildJvm client = clients.get(t);
                            ThroughputRun run = undisturbed(() -> throughputRun(broker, client, messages),
                                    ThroughputRun::otherCores, t, progress);
                            report.add(t, run);
                            progress.printf(Locale.ROOT, "[%s] throughput run %d/%d: %s msg/s, %d/%d arrived, CPU per message:"
                                    + " broker %.1f us, client %.1f us; other processes %.2f cores%n", t, r, runs,
                                    Report.grouped(run.msgsPerSecond()), run.received(), run.sent(),
                                    run.brokerMicrosPerMessage(), run.clientMicrosPerMessage(), run.otherCores());
                        } catch (BenchmarkException e) {
                            fail(t, e, progress);
                        }
                    }
                }
            }
            if (doLatency) {
                for (int r = 1; r <= runs; r++) {
                    for (Target t : ts) {
                        if (report.hasFailed(t)) {
                            continue;
                        }
                        try {
                            ChildJvm broker = brokers.get(t);
                            ChildJvm client = clients.get(t);
                            LatencyRun run = undisturbed(() -> latencyRun(broker, client), LatencyRun::otherCores, t, progress);
                            report.add(t, run);
                            progress.printf(Locale.ROOT, "[%s] latency run %d/%d: p50 %s ms, p99 %s ms, p99.9 %s ms, %d/%d arrived,"
                                    + " other processes %.2f cores%n", t, r, runs, Report.ms(run.p50() / 1e6),
                                    Report.ms(run.p99() / 1e6), Report.ms(run.p999() / 1e6), run.received(), run.sent(),
                                    run.otherCores());
                        } catch (BenchmarkException e) {
                            fail(t, e, progress);
                        }
                    }
                }
            }
        } finally {
            for (Target t : ts) {
                stop(t);
            }
        }
        PrintWriter out = spec.commandLine().getOut();
        report.print(out, doThroughput, doLatency);
        return report.isComplete() ? 0 : 1;
    }

    /**
     * Runs throughput rounds for at least {@code warmupSeconds}, then until three rounds in a row agree within
     * 10% (the JIT has settled), for at most twice {@code warmupSeconds}.
     */
    private void warmUp(Target t, ChildJvm broker, ChildJvm client, PrintStream progress) {
        if (warmupMessages == 0 || warmupSeconds == 0) {
            return;
        }
        long start = System.nanoTime();
        long min = start + warmupSeconds * 1_000_000_000L;
        long max = start + 2 * warmupSeconds * 1_000_000_000L;
        List<Double> rates = new ArrayList<>();
        while (true) {
            ThroughputRun w = throughputRun(broker, client, warmupMessages);
            rates.add(w.msgsPerSecond());
            int n = rates.size();
            long now = System.nanoTime();
            boolean settled = n >= 3 && within10(rates.get(n - 3), rates.get(n - 2)) && within10(rates.get(n - 2), rates.get(n - 1));
            if (now >= max || now >= min && settled) {
                progress.printf(Locale.ROOT, "[%s] warm-up: %.0f s, %d rounds of %,d msgs, last %s msg/s%s%n", t,
                        (now - start) / 1e9, n, warmupMessages,
                        String.join(" ", rates.subList(Math.max(0, n - 3), n).stream().map(Report::grouped).toList()),
                        settled ? " (settled)" : " (not settled)");
                return;
            }
        }
    }

    private static boolean within10(double before, double now) {
        return Math.abs(now - before) <= 0.1 * before;
    }

    private List<String> withJfr(List<String> jvm, Path logs, String name) {
        if (!jfr) {
            return jvm;
        }
        List<String> l = new ArrayList<>(jvm);
        l.add("-XX:StartFlightRecording=filename=" + logs.resolve(name + ".jfr") + ",settings=" + jfrSettings + ",dumponexit=true");
        return l;
    }

    private ThroughputRun throughputRun(ChildJvm broker, ChildJvm client, int n) {
        long brokerCpu = broker.cpuNanos();
        long clientCpu = client.cpuNanos();
        MachineLoad.Mark start = MachineLoad.Mark.now(children);
        client.send("throughput " + n);
        ThroughputRun r = ThroughputRun.parse(client.awaitLine("RESULT throughput ", Duration.ofSeconds(180L + n / 1000)));
        double others = MachineLoad.Mark.now(children).otherCoresSince(start);
        return r.withCpu(brokerCpu < 0 ? -1 : broker.cpuNanos() - brokerCpu, clientCpu < 0 ? -1 : client.cpuNanos() - clientCpu,
                others);
    }

    /**
     * Runs {@code run} once the machine is quiet, and again (up to {@code retries} times) while other processes
     * took more than {@code maxOtherCores} during it. Returns the least disturbed attempt.
     */
    private <R> R undisturbed(java.util.function.Supplier<R> run, java.util.function.ToDoubleFunction<R> otherCores,
                              Target t, PrintStream progress) {
        if (retries == 0) {
            return run.get();
        }
        R best = null;
        double bestOthers = Double.POSITIVE_INFINITY;
        for (int attempt = 0; attempt <= retries; attempt++) {
            awaitQuiet(progress);
            R r = run.get();
            double others = otherCores.applyAsDouble(r);
            if (Double.isNaN(others) || others <= maxOtherCores) {
                return r;
            }
            if (others < bestOthers) {
                best = r;
                bestOthers = others;
            }
            if (attempt < retries) {
                progress.printf(Locale.ROOT, "[%s] other processes took %.2f cores during the run; repeating it%n", t, others);
            }
        }
        return best;
    }

    /** Waits (at most 30 s) until other processes use at most {@code maxOtherCores} over half a second. */
    private void awaitQuiet(PrintStream progress) {
        long deadline = System.nanoTime() + 30_000_000_000L;
        boolean said = false;
        while (System.nanoTime() < deadline) {
            MachineLoad.Mark a = MachineLoad.Mark.now(children);
            try {
                Thread.sleep(500);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            double others = MachineLoad.Mark.now(children).otherCoresSince(a);
            if (Double.isNaN(others) || others <= maxOtherCores) {
                return;
            }
            if (!said) {
                progress.printf(Locale.ROOT, "(other processes use %.2f cores; waiting up to 30 s for quiet)%n", others);
                said = true;
            }
        }
    }

    private LatencyRun latencyRun(ChildJvm broker, ChildJvm client) {
        MachineLoad.Mark start = MachineLoad.Mark.now(children);
        client.send("latency " + rate + " " + latencySeconds + " " + prerollSeconds);
        LatencyRun r = LatencyRun.parse(client.awaitLine("RESULT latency ", Duration.ofSeconds(latencySeconds + prerollSeconds + 120L)));
        return r.withOtherCores(MachineLoad.Mark.now(children).otherCoresSince(start));
    }

    private void fail(Target t, BenchmarkException e, PrintStream progress) {
        progress.printf("[%s] FAILED: %s%n", t, e.getMessage());
        report.fail(t, e.getMessage());
        stop(t);
    }

    /** Ends the target's client (quit), then its broker; idempotent. */
    private void stop(Target t) {
        ChildJvm c = clients.remove(t);
        if (c != null) {
            try {
                c.send("quit");
            } catch (BenchmarkException e) {
                // already gone
            }
            c.close();
        }
        ChildJvm b = brokers.remove(t);
        if (b != null) {
            b.close();
        }
    }

    private void validate(boolean doThroughput, boolean doLatency) {
        CommandLine cl = spec.commandLine();
        if (runs < 1 || messages < 1 || warmupMessages < 0 || warmupSeconds < 0 || size < 16 || rate < 1 || latencySeconds < 1
                || prerollSeconds < 0 || prefetch < 1 || heartBeatMillis < 0 || stallSeconds < 1 || retries < 0 || maxOtherCores < 0) {
            throw new CommandLine.ParameterException(cl, "runs, messages, rate, latency-seconds, prefetch and stall-seconds "
                    + "must be >= 1, warmup-messages, warmup-seconds, preroll-seconds, heart-beat-ms, retries and max-other-cores >= 0, size >= 16");
        }
        if (!doThroughput && !doLatency || !List.of("throughput", "latency").containsAll(scenarios)) {
            throw new CommandLine.ParameterException(cl, "scenarios must be throughput and/or latency, but was " + scenarios);
        }
        try {
            targets.forEach(Target::of);
            AckMode.fromWire(ack);
            LoadConnection.Mode.of(clientMode);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(cl, e.getMessage());
        }
        if (LoadConnection.Mode.of(clientMode) == LoadConnection.Mode.PER_FRAME && heartBeatMillis != 0) {
            throw new CommandLine.ParameterException(cl, "heart-beat-ms must be 0 with --client-mode per-frame (it sends no"
                    + " heart-beats), but was " + heartBeatMillis);
        }
        if (classPath == null || classPath.isBlank()) {
            throw new CommandLine.ParameterException(cl, "no class path for the child JVMs: run with java -jar or pass --classpath");
        }
    }

    private void describeSetup(List<Target> ts, List<String> jvm, Path logs, AckMode ackMode) {
        Runtime rt = Runtime.getRuntime();
        report.setup("date", ZonedDateTime.now().format(DateTimeFormatter.ISO_OFFSET_DATE_TIME));
        report.setup("JVM", System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version")
                + " (" + ChildJvm.javaCommand() + ")");
        report.setup("machine", rt.availableProcessors() + " cores, " + System.getProperty("os.name") + " "
                + System.getProperty("os.version") + " " + System.getProperty("os.arch") + ", load average at start "
                + MachineLoad.loadAverage());
        report.setup("child JVMs", String.join(" ", jvm) + (jfr ? "  (+ JFR profiling, see logs)" : "")
                + "; per target one broker JVM and one client JVM");
        report.setup("message", size + "-byte body, queue " + ClientMain.QUEUE + ", non-persistent, ack=" + ackMode.wireValue()
                + ", prefetch " + prefetch + ", heart-beats " + (heartBeatMillis == 0 ? "off" : heartBeatMillis + " ms")
                + ", one producer and one consumer connection, client mode " + LoadConnection.Mode.of(clientMode).key()
                + (LoadConnection.Mode.of(clientMode) == LoadConnection.Mode.PER_FRAME ? " (blocking sockets, one write(2) per frame)"
                : " (fedbridge's StompConnection, one flush per burst)"));
        report.setup("targets", String.join("; ", ts.stream().map(this::describe).toList()));
        report.label("throughput", String.format(Locale.ROOT, "throughput, %d B, %,d msgs", size, messages));
        report.label("latency", String.format(Locale.ROOT, "latency @ %,d msg/s", rate));
        report.setup("runs", runs + " per scenario and target, interleaved across targets; warm-up: rounds of "
                + String.format(Locale.ROOT, "%,d", warmupMessages) + " msgs per target for " + warmupSeconds + "-"
                + 2 * warmupSeconds + " s, until the rate settles; " + prerollSeconds
                + " s pre-roll per latency run of " + latencySeconds + " s");
        report.setup("noise", retries == 0 ? "runs are not repeated when other processes disturb them (--retries 0)"
                : String.format(Locale.ROOT, "a run during which other processes used > %.2f cores is repeated (up to %d times)"
                + " after waiting for quiet; 'others' columns show what remained", maxOtherCores, retries));
        report.setup("logs", logs.toString());
        report.label("footnote", String.format(Locale.ROOT, "%d B bodies, non-persistent queue, 1 producer + 1 consumer, "
                + "broker and client in separate JVMs (%s), Nagle off everywhere; median of %d runs; %d cores, %s %s; "
                + "`java -jar benchmarks/target/fedbridge-benchmarks.jar throughput`", size, String.join(" ", jvm), runs,
                rt.availableProcessors(), System.getProperty("java.vm.name"), System.getProperty("java.runtime.version")));
    }

    private String describe(Target t) {
        return switch (t) {
            case FEDBRIDGE -> "fedbridge broker, defaults, tcp://127.0.0.1:0";
            case ACTIVEMQ -> t.title + " embedded, " + ActiveMqBrokerMain.CONNECTOR
                    + ", persistence/JMX/advisories off";
            case RELAY -> "relay: Netty STOMP relay, same codec, no broker work";
            default -> throw new IllegalArgumentException("target must be fedbridge, activemq or relay for throughput (the"
                    + " fedbridge variants are for bridge, the HA pairs for ha, the foreign pairs for foreign), but was " + t);
        };
    }
}
