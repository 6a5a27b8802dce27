package io.fedbridge.benchmarks;

import io.fedbridge.benchmarks.ScenarioReport.Metric;
import io.fedbridge.benchmarks.ScenarioReport.Ratio;
import io.fedbridge.benchmarks.ScenarioReport.Sample;
import io.fedbridge.benchmarks.ScenarioReport.Scenario;
import io.fedbridge.benchmarks.ScenarioReport.Unit;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToDoubleFunction;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Forwarding to foreign brokers, and the foreign products' own forwarding, in one run: producer on broker A, consumer on
 * broker B, A forwarding {@code /queue/bench} to B over one link, every broker and the load client in its own process.
 *
 * <ul>
 *   <li>{@code fedbridge-artemis}: a fedbridge broker with one bridge (a static network connector) to an Artemis server's
 *       STOMP acceptor;</li>
 *   <li>{@code artemis-bridge}: two Artemis servers, the first with a core bridge to the second (Artemis' own);</li>
 *   <li>{@code fedbridge-rabbitmq}: a fedbridge broker with one bridge to a RabbitMQ node's STOMP plugin;</li>
 *   <li>{@code rabbitmq-shovel}: two RabbitMQ nodes, the first with a shovel to the second (RabbitMQ's own).</li>
 * </ul>
 * Scenarios as in {@code bridge}: {@code throughput} (non-persistent, N−1 sends without receipt and a fenced last one) and
 * {@code persistent} (one producer with up to {@code --window} receipts outstanding). Each run reports msg/s, the CPU per
 * message of A and of B, and the load client's CPU (per message and in cores), so that a client near one busy core
 * shows. Runs are interleaved across the four pairs. Where RabbitMQ cannot run (the package is missing) its two pairs
 * are skipped with the reason printed and the others measured.
 */
@Command(name = "foreign", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Forwarding over one link to a foreign broker (fedbridge -> Artemis, fedbridge -> RabbitMQ) beside the",
                "products' own forwarding (Artemis core bridge, RabbitMQ shovel): throughput non-persistent and persistent."})
public final class ForeignCommand extends ComparisonCommand {

    static final String QUEUE = "/queue/bench";
    private static final List<String> ALL = List.of("throughput", "persistent");
    private static final List<Target> TARGETS = List.of(Target.FEDBRIDGE_ARTEMIS, Target.ARTEMIS_BRIDGE, Target.FEDBRIDGE_RABBITMQ,
            Target.RABBITMQ_SHOVEL);

    @Option(names = "--messages", description = "Messages per non-persistent throughput run (default ${DEFAULT-VALUE}).")
    int messages = 20_000;

    @Option(names = "--persistent-messages", description = "Messages per persistent run (default ${DEFAULT-VALUE}).")
    int persistentMessages = 5_000;

    @Option(names = "--window", description = "Receipts outstanding in the persistent scenario (default ${DEFAULT-VALUE}).")
    int window = 200;

    @Option(names = "--scenarios", split = ",", description = "Any of throughput, persistent (default ${DEFAULT-VALUE}).")
    List<String> scenarios = ALL;

    @Option(names = "--erlang-busy-wait", description = {"Leave the RabbitMQ nodes' Erlang schedulers busy-waiting (Erlang's default);",
            "by default they are started with +sbwt none +sbwtdcpu none +sbwtdio none, RabbitMQ's advice for shared machines."})
    boolean erlangBusyWait;

    static final Metric MSGS = new Metric("msgs", "msg/s", Unit.RATE, true);
    static final Metric BROKERS_CPU = new Metric("brokers_us", "brokers us/msg", Unit.MICROS, false);
    static final Metric A_CPU = new Metric("a_us", "A us/msg", Unit.MICROS, false);
    static final Metric B_CPU = new Metric("b_us", "B us/msg", Unit.MICROS, false);
    static final Metric CLIENT_CORES = new Metric("client_cores", "client cores", Unit.RATIO, false);

    /** Why RabbitMQ cannot run here, or null; set by {@link #describe}. */
    private String rabbitMqUnavailable;

    public ForeignCommand() {
        targets = TARGETS.stream().map(t -> t.key).toList();
        clientMode = "per-frame";
    }

    @Override
    protected String name() {
        return "foreign";
    }

    @Override
    protected boolean acceptsTarget(Target t) {
        return t.isForeign();
    }

    @Override
    protected String targetRule() {
        return String.join(", ", TARGETS.stream().map(t -> t.key).toList());
    }

    @Override
    protected void validateOptions() {
        if (messages < 1 || persistentMessages < 1 || window < 1 || scenarios.isEmpty() || !ALL.containsAll(scenarios)) {
            throw new CommandLine.ParameterException(spec.commandLine(), "messages, persistent-messages and window must be >= 1,"
                    + " scenarios any of " + ALL + ", but were " + messages + ", " + persistentMessages + ", " + window + ", " + scenarios);
        }
    }

    /** A's network connector to B's STOMP URI (RabbitMQ's carries host=/ and the guest login): the one bridge. */
    static String connector(String peerStompUri) {
        return "static:(" + peerStompUri + ")?staticallyIncludedDestinations=" + QUEUE;
    }

    @Override
    protected void describe(List<Target> ts) {
        rabbitMqUnavailable = ts.stream().anyMatch(Target::needsRabbitMq) ? RabbitMqNodeMain.unavailableReason() : null;
        String artemis = "Artemis " + Target.version("artemis-server", "");
        String rabbit = "RabbitMQ " + (rabbitMqUnavailable == null ? RabbitMqNodeMain.version("rabbit") : "(not installed)");
        report.setup("message", size + "-byte body, queue " + QUEUE + " (Artemis: anycast queue bench; RabbitMQ: durable queue bench),"
                + " producer connection on A, one consumer connection on B, ack=" + ack + ", prefetch " + prefetch
                + "; the same load client for every pair (see client)");
        report.setup("fedbridge A", "fedbridge broker with a data directory (durability SYNC), one network connector "
                + connector("<B's STOMP URI>") + ", defaults otherwise (dialect auto: artemis or rabbitmq from B's CONNECTED,"
                + " prefetchSize 1000: forwards awaiting B's RECEIPT)");
        report.setup("Artemis", artemis + " embedded (ArtemisBrokerMain): persistent journal with Artemis' defaults (datasync on),"
                + " STOMP acceptor " + ArtemisBrokerMain.STOMP_OPTIONS + ", queue bench defined; the consumer without"
                + " activemq.prefetchSize (Artemis reads it as bytes)");
        report.setup("core bridge", "Artemis A -> Artemis B: core bridge from queue bench to B's address bench, confirmation window "
                + ArtemisBrokerMain.CONFIRMATION_WINDOW + " B (Artemis' documented default), duplicate detection on");
        report.setup("RabbitMQ", rabbitMqUnavailable != null ? "NOT MEASURED: " + rabbitMqUnavailable : rabbit
                + " nodes from Debian's package (RabbitMqNodeMain), each its own node name, ports and mnesia/log dirs, STOMP plugin"
                + " (the fedbridge bridge and the client connect with host=/ and guest); Erlang schedulers "
                + (erlangBusyWait ? "busy-waiting (Erlang's default)" : "without busy-wait (+sbwt none +sbwtdcpu none +sbwtdio none)")
                + "; CPU = the node's processes");
        report.setup("shovel", "RabbitMQ A -> RabbitMQ B: dynamic shovel " + RabbitMqNodeMain.shovelDefinition(0, 0)
                .replace(":0", ":PORT") + " (AMQP 0-9-1 listeners on loopback)");
        if (scenarios.contains("throughput")) {
            report.scenario(new Scenario("throughput", String.format(Locale.ROOT, "A -> B over one link, non-persistent, %,d msgs",
                    messages), "A->B non-persistent", MSGS, List.of(A_CPU, B_CPU, CLIENT_CORES), List.of(MSGS, BROKERS_CPU), true));
        }
        if (scenarios.contains("persistent")) {
            report.scenario(new Scenario("persistent", String.format(Locale.ROOT, "A -> B over one link, persistent, 1 producer"
                    + " with up to %d receipts outstanding, %,d msgs", window, persistentMessages), "A->B persistent, " + window
                    + " in flight", MSGS, List.of(A_CPU, B_CPU, CLIENT_CORES), List.of(MSGS, BROKERS_CPU), true));
        }
        List<Ratio> ratios = new ArrayList<>();
        if (ts.contains(Target.FEDBRIDGE_ARTEMIS) && ts.contains(Target.ARTEMIS_BRIDGE)) {
            ratios.add(new Ratio(Target.FEDBRIDGE_ARTEMIS, Target.ARTEMIS_BRIDGE, "fedbridge->Artemis / core bridge"));
        }
        if (ts.contains(Target.FEDBRIDGE_RABBITMQ) && ts.contains(Target.RABBITMQ_SHOVEL)) {
            ratios.add(new Ratio(Target.FEDBRIDGE_RABBITMQ, Target.RABBITMQ_SHOVEL, "fedbridge->RabbitMQ / shovel"));
        }
        report.markdownColumns(ts, ratios);
        report.note("(msg/s = messages / first send on A -> last receive on B; brokers us/msg = CPU of A and B together per message,"
                + " A and B us/msg each one's; client cores = the load client's CPU over the run: well under 1 means it was not"
                + " what limited the rate)");
        report.footnote(footnote(size + " B bodies, one queue, producer on A, consumer on B, one link A -> B; " + artemis + ", "
                + rabbit));
    }

    @Override
    protected void execute(List<Target> ts) throws IOException {
        List<Target> measured = new ArrayList<>(ts);
        if (rabbitMqUnavailable != null) {
            for (Target t : ts) {
                if (t.needsRabbitMq()) {
                    progress.printf("[%s] not measured: %s%n", t, rabbitMqUnavailable);
                    report.note(t.title + " not measured: " + rabbitMqUnavailable);
                    scenarios.forEach(s -> report.skip(s, t));
                    measured.remove(t);
                }
            }
        }
        for (Target t : measured) {
            try {
                withClient(startPair(t), QUEUE, 1);
                awaitDemand(topology(t));
            } catch (BenchmarkException e) {
                fail(t, "start A -> B", e);
            }
        }
        onEveryLiveTarget(measured, "warm-up", topo -> {
            if (scenarios.contains("throughput")) {
                warmUp(topo, throughputCommand());
            }
            if (scenarios.contains("persistent")) {
                warmUp(topo, "window " + Math.min(persistentMessages, 2_000) + " " + window + " 1 true");
            }
        });
        if (scenarios.contains("throughput")) {
            runInterleaved(measured, "throughput", topo -> measureEachBroker(topo, throughputCommand()));
        }
        if (scenarios.contains("persistent")) {
            runInterleaved(measured, "persistent", topo -> measureEachBroker(topo, "window " + persistentMessages + " " + window
                    + " 1 true"));
        }
        for (Target t : ts) {
            stop(t);
        }
        for (String s : scenarios) {
            report.section("Spread, " + s + " (median [min - max] over the runs; per-run ratios of the interleaved rounds)",
                    spread(s, measured));
        }
    }

    private String throughputCommand() {
        return "throughput " + messages + " false";
    }

    /** Starts B, then A forwarding to it, and registers them as {@code t}'s topology, A first. */
    private Topology startPair(Target t) throws IOException {
        boolean artemisB = t == Target.FEDBRIDGE_ARTEMIS || t == Target.ARTEMIS_BRIDGE;
        ChildJvm b = artemisB ? startChild(t, "broker-B", ArtemisBrokerMain.class, List.of("--name", "B", "--data",
                dataDir(t.key + "-B").toString())) : startRabbitMq(t, "B", List.of("--amqp"));
        register(new Topology(t, List.of(b), List.of(), null));
        Map<String, String> readyB = awaitReady(b);
        ChildJvm a = switch (t) {
            case FEDBRIDGE_ARTEMIS, FEDBRIDGE_RABBITMQ -> startChild(t, "broker-A", FedbridgeBrokerMain.class,
                    brokerArgs("A", dataDir(t.key + "-A"), List.of(connector(readyB.get("uri")))));
            case ARTEMIS_BRIDGE -> startChild(t, "broker-A", ArtemisBrokerMain.class, List.of("--name", "A", "--data",
                    dataDir(t.key + "-A").toString(), "--bridge-to", readyB.get("core")));
            case RABBITMQ_SHOVEL -> startRabbitMq(t, "A", List.of("--shovel-to", readyB.get("amqp")));
            default -> throw new BenchmarkException("the foreign benchmark cannot start " + t);
        };
        register(new Topology(t, List.of(a, b), List.of(), null));
        Map<String, String> readyA = awaitReady(a);
        progress.printf("[%s] A pid %d at %s, B pid %d at %s%n", t, a.pid(), readyA.get("uri"), b.pid(), readyB.get("uri"));
        Topology topo = new Topology(t, List.of(a, b), List.of(readyA, readyB), null);
        register(topo);
        return topo;
    }

    private ChildJvm startRabbitMq(Target t, String name, List<String> options) throws IOException {
        List<String> args = new ArrayList<>(List.of("--name", name, "--dir", dataDir(t.key + "-" + name).toString()));
        args.addAll(options);
        if (erlangBusyWait) {
            args.add("--busy-wait");
        }
        ChildJvm c = startChild(t, "broker-" + name, RabbitMqNodeMain.class, args);
        c.countDescendants(); // the node runs outside this JVM
        return c;
    }

    /** {@link #measure} plus the CPU per message of A and of B on their own, and the client's CPU in cores. */
    private Sample measureEachBroker(Topology topo, String command) {
        long[] before = topo.brokers().stream().mapToLong(ChildJvm::cpuNanos).toArray();
        double[] messagesAndSeconds = new double[2];
        Sample s = measure(topo, command, kv -> {
            messagesAndSeconds[0] = Double.parseDouble(kv.get("messages"));
            messagesAndSeconds[1] = Double.parseDouble(kv.get("elapsedNanos")) / 1e9;
            return Map.of(MSGS.key(), rate(kv, "messages"));
        });
        Map<String, Double> values = new HashMap<>(s.values());
        List<Metric> each = List.of(A_CPU, B_CPU);
        for (int i = 0; i < each.size(); i++) {
            long after = topo.brokers().get(i).cpuNanos();
            values.put(each.get(i).key(), before[i] < 0 || after < 0 ? Double.NaN : (after - before[i]) / 1e3 / messagesAndSeconds[0]);
        }
        values.put(BROKERS_CPU.key(), s.brokerMicros());
        // client CPU over first send -> last receive: the rate it kept up
        values.put(CLIENT_CORES.key(), s.clientMicros() * messagesAndSeconds[0] / 1e6 / messagesAndSeconds[1]);
        return new Sample(values, s.expected(), s.received(), s.brokerMicros(), s.clientMicros(), s.others());
    }

    /** Lines of the spread section of {@code scenario}: per target the median and range of each figure, then run ratios. */
    List<String> spread(String scenario, List<Target> ts) {
        Map<String, List<Sample>> all = report.samples(scenario);
        List<String> lines = new ArrayList<>();
        lines.add(String.format(Locale.ROOT, "%-22s %-30s %-22s %-22s %-20s %-18s %s", "target", "msg/s", "A us/msg", "B us/msg",
                "client us/msg", "client cores", "others"));
        for (Target t : ts) {
            List<Sample> l = all.getOrDefault(t.key, List.of());
            if (l.isEmpty()) {
                continue;
            }
            double median = Results.median(l, x -> x.get(MSGS.key()));
            double min = l.stream().mapToDouble(x -> x.get(MSGS.key())).min().orElse(Double.NaN);
            double max = l.stream().mapToDouble(x -> x.get(MSGS.key())).max().orElse(Double.NaN);
            lines.add(String.format(Locale.ROOT, "%-22s %-30s %-22s %-22s %-20s %-18s %s", t.title,
                    range(l, x -> x.get(MSGS.key()), Report::grouped) + String.format(Locale.ROOT, " ±%.0f%%", 50 * (max - min) / median),
                    range(l, x -> x.get(A_CPU.key()), Report::micros), range(l, x -> x.get(B_CPU.key()), Report::micros),
                    range(l, Sample::clientMicros, Report::micros), range(l, x -> x.get(CLIENT_CORES.key()), Report::cores),
                    "max " + Report.cores(l.stream().mapToDouble(Sample::others).max().orElse(Double.NaN))));
        }
        for (List<Target> pair : List.of(List.of(Target.FEDBRIDGE_ARTEMIS, Target.ARTEMIS_BRIDGE),
                List.of(Target.FEDBRIDGE_RABBITMQ, Target.RABBITMQ_SHOVEL))) {
            List<Sample> over = all.getOrDefault(pair.get(0).key, List.of());
            List<Sample> under = all.getOrDefault(pair.get(1).key, List.of());
            if (over.isEmpty() || under.isEmpty()) {
                continue;
            }
            List<String> ratios = new ArrayList<>();
            for (int i = 0; i < Math.min(over.size(), under.size()); i++) {
                ratios.add(Report.times(over.get(i).get(MSGS.key()) / under.get(i).get(MSGS.key())));
            }
            lines.add(String.format(Locale.ROOT, "%s / %s, msg/s per round: %s", pair.get(0).title, pair.get(1).title,
                    String.join(" ", ratios)));
        }
        return lines;
    }

    private static String range(List<Sample> l, ToDoubleFunction<Sample> f, java.util.function.DoubleFunction<String> format) {
        double[] v = l.stream().mapToDouble(f).sorted().toArray();
        return format.apply(Results.median(l, f)) + " [" + format.apply(v[0]) + " - " + format.apply(v[v.length - 1]) + "]";
    }
}
