package io.fedbridge.benchmarks;

import io.fedbridge.benchmarks.Results.LatencyRun;
import io.fedbridge.benchmarks.Results.ThroughputRun;
import io.fedbridge.core.AckMode;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Producer → broker → consumer, 1 KiB bodies, one queue, non-persistent, against fedbridge, ActiveMQ Classic
 * (STOMP connector, Nagle off) and a bare Netty STOMP relay (the wire ceiling), in one invocation.
 *
 * <p>On the shared comparison base ({@link ComparisonCommand}: options, child JVMs, warm-up rule, interleaving,
 * repeating disturbed runs, reaping), with a client and a report of its own: per target one broker JVM
 * ({@link FedbridgeBrokerMain}, {@link ActiveMqBrokerMain}, {@link RelayMain}) and one client JVM ({@link ClientMain},
 * fedbridge's own STOMP client for every target), and a {@link Report} with the relay column and CPU per message.
 * All targets start up front and stay up; each client is warmed up, then the runs are interleaved (run 1 on every
 * target, then run 2, …) so that noise on a shared machine spreads over all targets. Medians are reported.
 */
@Command(name = "throughput", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Throughput (unbounded rate) and latency (fixed rate) of producer -> broker -> consumer,",
                "for fedbridge, ActiveMQ Classic's STOMP connector and a bare Netty STOMP relay."})
public final class ThroughputCommand extends ComparisonCommand {

    @Option(names = "--messages", description = "Messages per throughput run (default ${DEFAULT-VALUE}).")
    int messages = 500_000;

    @Option(names = "--warmup-messages", description = "Messages per warm-up round (default ${DEFAULT-VALUE}).")
    int warmupMessages = 100_000;

    @Option(names = "--rate", description = "Messages/s of the latency scenario (default ${DEFAULT-VALUE}).")
    int rate = 1000;

    @Option(names = "--latency-seconds", description = "Recorded seconds per latency run (default ${DEFAULT-VALUE}).")
    int latencySeconds = 10;

    @Option(names = "--preroll-seconds", description = "Unrecorded seconds at the same rate before each latency run (default ${DEFAULT-VALUE}).")
    int prerollSeconds = 2;

    @Option(names = "--scenarios", split = ",", description = "Any of throughput, latency (default ${DEFAULT-VALUE}).")
    List<String> scenarios = List.of("throughput", "latency");

    @Option(names = "--heart-beat-ms", description = {"STOMP heart-beat interval the client offers and asks for, 0 = none (default ${DEFAULT-VALUE}).",
            "Off by default: ActiveMQ may stay silent for up to twice the interval, which the client takes for a dead peer."})
    long heartBeatMillis = 0;

    private Report throughputReport;
    private final Map<Target, ChildJvm> brokers = new java.util.EnumMap<>(Target.class);
    private final Map<Target, ChildJvm> clients = new java.util.EnumMap<>(Target.class);

    public ThroughputCommand() {
        // This command's defaults, where they differ from the other comparisons'.
        targets = List.of("fedbridge", "activemq", "relay");
        warmupSeconds = 10;
        stallSeconds = 15;
    }

    /** The report of the last execution, or null. */
    Report throughputReport() {
        return throughputReport;
    }

    @Override
    protected String name() {
        return "throughput";
    }

    @Override
    protected boolean allowsRelay() {
        return true;
    }

    @Override
    protected void newReport(List<Target> ts) {
        throughputReport = new Report(ts, runs);
    }

    @Override
    protected void setup(String key, String value) {
        throughputReport.setup(key, value);
    }

    @Override
    protected int printReport(PrintWriter out) {
        throughputReport.print(out, scenarios.contains("throughput"), scenarios.contains("latency"));
        return throughputReport.isComplete() ? 0 : 1;
    }

    @Override
    protected void validateOptions() {
        CommandLine cl = spec.commandLine();
        if (messages < 1 || warmupMessages < 0 || rate < 1 || latencySeconds < 1 || prerollSeconds < 0 || heartBeatMillis < 0) {
            throw new CommandLine.ParameterException(cl, "messages, rate and latency-seconds must be >= 1, warmup-messages,"
                    + " preroll-seconds and heart-beat-ms >= 0");
        }
        if (scenarios.isEmpty() || !List.of("throughput", "latency").containsAll(scenarios)) {
            throw new CommandLine.ParameterException(cl, "scenarios must be throughput and/or latency, but was " + scenarios);
        }
        for (String t : targets) {
            Target target = Target.of(t);
            if (target != Target.FEDBRIDGE && target != Target.ACTIVEMQ && target != Target.RELAY) {
                throw new CommandLine.ParameterException(cl, "targets of the throughput benchmark must be fedbridge, activemq"
                        + " or relay (the fedbridge variants are for bridge, the HA pairs for ha), but was " + t);
            }
        }
        if (LoadConnection.Mode.of(clientMode) != LoadConnection.Mode.BATCHED && heartBeatMillis != 0) {
            throw new CommandLine.ParameterException(cl, "heart-beat-ms must be 0 with --client-mode " + clientMode
                    + " (its connections send no heart-beats), but was " + heartBeatMillis);
        }
    }

    @Override
    protected void describe(List<Target> ts) {
        Runtime rt = Runtime.getRuntime();
        AckMode ackMode = AckMode.fromWire(ack);
        setup("child JVMs", String.join(" ", jvm) + (jfr ? "  (+ JFR profiling, see logs)" : "")
                + "; per target one broker JVM and one client JVM");
        setup("message", size + "-byte body, queue " + ClientMain.QUEUE + ", non-persistent, ack=" + ackMode.wireValue()
                + ", prefetch " + prefetch + ", heart-beats " + (heartBeatMillis == 0 ? "off" : heartBeatMillis + " ms")
                + ", one producer and one consumer connection");
        setup("targets", String.join("; ", ts.stream().map(ThroughputCommand::describe).toList()));
        throughputReport.label("throughput", String.format(Locale.ROOT, "throughput, %d B, %,d msgs", size, messages));
        throughputReport.label("latency", String.format(Locale.ROOT, "latency @ %,d msg/s", rate));
        setup("runs", runs + " per scenario and target, interleaved across targets; warm-up: rounds of "
                + String.format(Locale.ROOT, "%,d", warmupMessages) + " msgs per target for " + warmupSeconds + "-"
                + 2 * warmupSeconds + " s, until the rate settles; " + prerollSeconds
                + " s pre-roll per latency run of " + latencySeconds + " s");
        throughputReport.label("footnote", String.format(Locale.ROOT, "%d B bodies, non-persistent queue, 1 producer + 1 consumer, "
                + "broker and client in separate JVMs (%s), Nagle off everywhere; median of %d runs; %d cores, %s %s; "
                + "`java -jar benchmarks/target/fedbridge-benchmarks.jar throughput`", size, String.join(" ", jvm), runs,
                rt.availableProcessors(), System.getProperty("java.vm.name"), System.getProperty("java.runtime.version")));
    }

    private static String describe(Target t) {
        return switch (t) {
            case FEDBRIDGE -> "fedbridge broker, defaults, tcp://127.0.0.1:0";
            case ACTIVEMQ -> t.title + " embedded, " + ActiveMqBrokerMain.CONNECTOR + ", persistence/JMX/advisories off";
            case RELAY -> "relay: Netty STOMP relay, same codec, no broker work";
            default -> throw new IllegalArgumentException("target must be fedbridge, activemq or relay, but was " + t);
        };
    }

    @Override
    protected void execute(List<Target> ts) {
        boolean doThroughput = scenarios.contains("throughput");
        boolean doLatency = scenarios.contains("latency");
        AckMode ackMode = AckMode.fromWire(ack);
        for (Target t : ts) {
            try {
                ChildJvm b = startChild(t, "broker", t.mainClass, List.of());
                brokers.put(t, b);
                String uri = b.awaitLine("READY ", Duration.ofSeconds(60)).split("\\s+")[0];
                ChildJvm c = startChild(t, "client", ClientMain.class, List.of(uri, Integer.toString(size),
                        ackMode.wireValue(), Integer.toString(prefetch), Long.toString(heartBeatMillis),
                        Integer.toString(stallSeconds), LoadConnection.Mode.of(clientMode).key()));
                clients.put(t, c);
                register(new Topology(t, List.of(b), List.of(Map.of("uri", uri)), c));
                String hello = c.awaitLine("READY ", Duration.ofSeconds(60));
                progress.printf("[%s] broker pid %d at %s, client pid %d (%s)%n", t, b.pid(), uri, c.pid(), hello);
            } catch (BenchmarkException e) {
                fail(t, e);
            }
        }
        // Warm-up: JIT both sides, fill pools; not reported.
        for (Target t : ts) {
            if (!throughputReport.hasFailed(t)) {
                try {
                    warmUp(t, brokers.get(t), clients.get(t), progress);
                } catch (BenchmarkException e) {
                    fail(t, e);
                }
            }
        }
        if (doThroughput) {
            for (int r = 1; r <= runs; r++) {
                for (Target t : ts) {
                    if (throughputReport.hasFailed(t)) {
                        continue;
                    }
                    try {
                        ChildJvm broker = brokers.get(t);
                        ChildJvm client = clients.get(t);
                        ThroughputRun run = undisturbed(() -> throughputRun(broker, client, messages), ThroughputRun::otherCores, t);
                        throughputReport.add(t, run);
                        progress.printf(Locale.ROOT, "[%s] throughput run %d/%d: %s msg/s, %d/%d arrived, CPU per message:"
                                + " broker %.1f us, client %.1f us; other processes %.2f cores%n", t, r, runs,
                                Report.grouped(run.msgsPerSecond()), run.received(), run.sent(),
                                run.brokerMicrosPerMessage(), run.clientMicrosPerMessage(), run.otherCores());
                    } catch (BenchmarkException e) {
                        fail(t, e);
                    }
                }
            }
        }
        if (doLatency) {
            for (int r = 1; r <= runs; r++) {
                for (Target t : ts) {
                    if (throughputReport.hasFailed(t)) {
                        continue;
                    }
                    try {
                        ChildJvm client = clients.get(t);
                        LatencyRun run = undisturbed(() -> latencyRun(client), LatencyRun::otherCores, t);
                        throughputReport.add(t, run);
                        progress.printf(Locale.ROOT, "[%s] latency run %d/%d: p50 %s ms, p99 %s ms, p99.9 %s ms, %d/%d arrived,"
                                + " other processes %.2f cores%n", t, r, runs, Report.ms(run.p50() / 1e6),
                                Report.ms(run.p99() / 1e6), Report.ms(run.p999() / 1e6), run.received(), run.sent(),
                                run.otherCores());
                    } catch (BenchmarkException e) {
                        fail(t, e);
                    }
                }
            }
        }
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

    private LatencyRun latencyRun(ChildJvm client) {
        MachineLoad.Mark start = MachineLoad.Mark.now(children);
        client.send("latency " + rate + " " + latencySeconds + " " + prerollSeconds);
        LatencyRun r = LatencyRun.parse(client.awaitLine("RESULT latency ", Duration.ofSeconds(latencySeconds + prerollSeconds + 120L)));
        return r.withOtherCores(MachineLoad.Mark.now(children).otherCoresSince(start));
    }

    private void fail(Target t, BenchmarkException e) {
        progress.printf("[%s] FAILED: %s%n", t, e.getMessage());
        throughputReport.fail(t, e.getMessage());
        brokers.remove(t);
        clients.remove(t);
        stop(t);
    }
}
