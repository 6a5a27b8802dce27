package io.fedbridge.benchmarks;

import io.fedbridge.benchmarks.ScenarioReport.Sample;
import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.stream.Stream;
import picocli.CommandLine;
import picocli.CommandLine.Option;

/**
 * What the {@code throughput}, {@code persistent}, {@code bridge}, {@code fanout}, {@code jms} and {@code ha} benchmarks share: fedbridge and
 * ActiveMQ Classic side by side in one invocation, every broker and the load generator ({@link LoadClientMain}) in
 * child JVMs with the same options, warm-up, then runs interleaved across targets (run 1 on every target, then run
 * 2, …) so that noise on a shared machine spreads over all of them, runs repeated while other processes disturb
 * them, medians reported by a {@link ScenarioReport}.
 *
 * <p>Every child JVM is reaped: each topology is stopped in a {@code finally}, {@link ChildJvm} destroys what is
 * left from a shutdown hook, and the temporary data directories are deleted at the end.
 */
abstract class ComparisonCommand implements Callable<Integer> {

    @Option(names = "--runs", description = "Measured runs per scenario and target; medians are reported (default ${DEFAULT-VALUE}).")
    int runs = 3;

    @Option(names = "--size", description = "Body size in bytes (default ${DEFAULT-VALUE}).")
    int size = 1024;

    @Option(names = "--prefetch", description = "Consumer prefetch, sent as prefetch-size and activemq.prefetchSize (default ${DEFAULT-VALUE}).")
    int prefetch = 1000;

    @Option(names = "--client-mode", description = {"How the load client writes (default ${DEFAULT-VALUE}): batched = fedbridge's",
            "StompConnection, a burst of frames per flush; per-frame = a blocking socket, one write and flush per frame",
            "(SEND, ACK), as stomp.py, stomp.js, Spring's STOMP client and one-at-a-time JMS producers do; spring = Spring",
            "Framework's own STOMP client (ReactorNettyTcpStompClient), the same per-frame load from a client not fedbridge's."})
    String clientMode = "batched";

    @Option(names = "--ack", description = "Consumer ack mode: auto or client-individual, one ACK frame per message (default ${DEFAULT-VALUE}).")
    String ack = "auto";

    @Option(names = "--targets", split = ",", description = "Any of fedbridge, fedbridge-secured, fedbridge-tls, fedbridge-metrics (bridge only),"
            + " activemq, relay (no store, no bridge: non-persistent throughput and latency only; bridge measures its latency"
            + " over two relays chained) (default ${DEFAULT-VALUE}).")
    List<String> targets = List.of("fedbridge", "activemq");

    @Option(names = "--warmup-seconds", description = {"Warm-up per target and topology (default ${DEFAULT-VALUE}): rounds for at",
            "least this long, then until three rounds in a row agree within 10%%, at most twice this long. With 5 s,",
            "the first measured throughput run of both products was 10-30%% slower than the later ones (JIT)."})
    int warmupSeconds = 15;

    @Option(names = "--stall-seconds", description = "A run that receives nothing for this long fails as stalled (default ${DEFAULT-VALUE}).")
    int stallSeconds = 20;

    @Option(names = "--max-other-cores", description = {"A run during which other processes on this machine used more CPU than",
            "this many cores is repeated, up to --retries times, after waiting for the machine to calm down (default ${DEFAULT-VALUE})."})
    double maxOtherCores = 0.3;

    @Option(names = "--retries", description = "Repeats of a run disturbed by other processes; 0 = no waiting, no repeats (default ${DEFAULT-VALUE}).")
    int retries = 2;

    @Option(names = "--jvm-args", description = "Options of every child JVM, brokers and clients alike (default '${DEFAULT-VALUE}').")
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

    /** A target's brokers (in start order) and its load generator. */
    record Topology(Target target, List<ChildJvm> brokers, List<Map<String, String>> ready, ChildJvm client) {
    }

    protected ScenarioReport report;
    protected final PrintStream progress = System.err;
    protected Path logs;
    protected List<String> jvm;
    private Path dataRoot;
    private String childClassPath;
    private final Map<Target, Topology> live = new EnumMap<>(Target.class);
    private final List<ChildJvm> started = new CopyOnWriteArrayList<>();
    /** Every child JVM started, so that their CPU is not counted as noise. */
    protected final List<ChildJvm> children = new CopyOnWriteArrayList<>();

    /** The report of the last execution, or null. */
    ScenarioReport report() {
        return report;
    }

    /** The command's name, as in its {@code @Command}. */
    protected abstract String name();

    /** Whether the relay ceiling may be a target (a single hop, non-persistent, no acks). */
    protected boolean allowsRelay() {
        return false;
    }

    /** Whether {@code t} may be one of this command's targets (the relay is checked on its own). */
    protected boolean acceptsTarget(Target t) {
        boolean ha = name().equals("ha");
        return !t.isForeign() && (ha == (t == Target.FEDBRIDGE_HA || t == Target.ARTEMIS_HA) || ha && t == Target.FEDBRIDGE);
    }

    /** The targets {@link #acceptsTarget} accepts, for the error message. */
    protected String targetRule() {
        return name().equals("ha") ? "fedbridge-ha, fedbridge, artemis-ha" : "fedbridge variants and activemq";
    }

    /** Extra option checks; throw a {@link CommandLine.ParameterException}. */
    protected abstract void validateOptions();

    /** Declares scenarios and aims and adds setup lines. */
    protected abstract void describe(List<Target> ts);

    /** Starts the topologies, measures, stops them. */
    protected abstract void execute(List<Target> ts) throws IOException;

    @Override
    public Integer call() throws IOException {
        List<Target> ts = new ArrayList<>(new LinkedHashSet<>(targets.stream().map(Target::of).toList()));
        validate(ts);
        logs = logDir != null ? Files.createDirectories(logDir) : Files.createTempDirectory("fedbridge-bench-");
        jvm = Arrays.stream(jvmArgs.trim().split("\\s+")).filter(s -> !s.isEmpty()).toList();
        childClassPath = privateCopy(classPath);
        newReport(ts);
        describeCommonSetup(ts);
        describe(ts);
        setup("logs", logs.toString());
        try {
            execute(ts);
        } finally {
            for (Target t : List.copyOf(live.keySet())) {
                stop(t);
            }
            for (ChildJvm c : started) {
                c.close();
            }
            deleteData();
        }
        return printReport(spec.commandLine().getOut());
    }

    /** Creates the command's report; a {@link ScenarioReport} unless the command keeps its own. */
    protected void newReport(List<Target> ts) {
        report = new ScenarioReport(name(), ts, runs);
    }

    /** A line of the report's setup section. */
    protected void setup(String key, String value) {
        report.setup(key, value);
    }

    /** Prints the report and returns the exit code: 0 only if every run of every target completed. */
    protected int printReport(PrintWriter out) throws IOException {
        report.print(out);
        out.println("charts: " + report.writeCharts(logs).toAbsolutePath());
        return report.isComplete() ? 0 : 1;
    }

    /**
     * Children load classes from a copy of the benchmark jar in the log directory: a rebuild of
     * {@code benchmarks/target} during a run (someone else's {@code mvn install}) would otherwise break every child
     * JVM's class loading half way. A class path of directories (tests) is used as it is.
     */
    private String privateCopy(String cp) throws IOException {
        Path jar = Path.of(cp);
        if (!cp.endsWith(".jar") || cp.contains(java.io.File.pathSeparator) || !Files.isRegularFile(jar)) {
            return cp;
        }
        Path copy = logs.resolve("children-" + jar.getFileName());
        Files.copy(jar, copy, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        return copy.toString();
    }

    private void validate(List<Target> ts) {
        CommandLine cl = spec.commandLine();
        if (runs < 1 || size < 16 || prefetch < 1 || warmupSeconds < 0 || stallSeconds < 1 || retries < 0 || maxOtherCores < 0) {
            throw new CommandLine.ParameterException(cl, "runs, prefetch and stall-seconds must be >= 1, warmup-seconds, retries"
                    + " and max-other-cores >= 0, size >= 16");
        }
        try {
            LoadConnection.Mode.of(clientMode);
            io.fedbridge.core.AckMode a = io.fedbridge.core.AckMode.fromWire(ack);
            if (a == io.fedbridge.core.AckMode.CLIENT) {
                throw new IllegalArgumentException("ack must be auto or client-individual, but was " + ack);
            }
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(cl, e.getMessage());
        }
        if (ts.contains(Target.RELAY) && !allowsRelay()) {
            throw new CommandLine.ParameterException(cl, "targets must be fedbridge and/or activemq (the relay has no store"
                    + " and no bridges), but was " + targets);
        }
        for (Target t : ts) {
            if (!acceptsTarget(t)) {
                throw new CommandLine.ParameterException(cl, "targets of the " + name() + " benchmark must be " + targetRule()
                        + ", but was " + t);
            }
        }
        if (classPath == null || classPath.isBlank()) {
            throw new CommandLine.ParameterException(cl, "no class path for the child JVMs: run with java -jar or pass --classpath");
        }
        validateOptions();
    }

    private void describeCommonSetup(List<Target> ts) {
        Runtime rt = Runtime.getRuntime();
        setup("date", ZonedDateTime.now().format(DateTimeFormatter.ISO_OFFSET_DATE_TIME));
        setup("JVM", System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version")
                + " (" + ChildJvm.javaCommand() + ")");
        setup("machine", rt.availableProcessors() + " cores, " + System.getProperty("os.name") + " "
                + System.getProperty("os.version") + " " + System.getProperty("os.arch") + ", load average at start "
                + MachineLoad.loadAverage());
        setup("child JVMs", String.join(" ", jvm) + (jfr ? "  (+ JFR profiling, see logs)" : "")
                + "; every broker and the load generator in its own JVM");
        setup("client", "load client mode " + LoadConnection.Mode.of(clientMode).key() + " (--client-mode), consumers ack="
                + ack + switch (LoadConnection.Mode.of(clientMode)) {
                    case PER_FRAME -> "; per-frame: blocking sockets, one write(2) per frame, no batching across frames";
                    case SPRING -> "; spring: Spring Framework's STOMP client (ReactorNettyTcpStompClient "
                            + org.springframework.core.SpringVersion.getVersion() + "), one write and flush per frame";
                    case BATCHED -> "; batched: fedbridge's StompConnection, one flush per burst of frames";
                });
        setup("targets", String.join(", ", ts.stream().map(t -> t.title).toList()));
        setup("runs", runs + " per scenario and target, interleaved across targets; warm-up " + warmupSeconds + "-"
                + 2 * warmupSeconds + " s per target and topology");
        setup("noise", retries == 0 ? "runs are not repeated when other processes disturb them (--retries 0)"
                : String.format(Locale.ROOT, "a run during which other processes used > %.2f cores is repeated (up to %d times)"
                + " after waiting for quiet; 'others' columns show what remained", maxOtherCores, retries));
    }

    /** The footnote under the Markdown table. */
    protected String footnote(String what) {
        Runtime rt = Runtime.getRuntime();
        return String.format(Locale.ROOT, "%s; each broker and the client in its own JVM (%s), Nagle off everywhere; median of %d"
                + " runs; %d cores, %s %s; `java -jar benchmarks/target/fedbridge-benchmarks.jar %s`", what, String.join(" ", jvm),
                runs, rt.availableProcessors(), System.getProperty("java.vm.name"), System.getProperty("java.runtime.version"), name());
    }

    // ---------------------------------------------------------------- children

    /** A new, empty data directory for one broker; all are deleted when the command ends. */
    protected Path dataDir(String name) throws IOException {
        if (dataRoot == null) {
            dataRoot = Files.createTempDirectory("fedbridge-bench-data-");
        }
        return Files.createDirectories(dataRoot.resolve(name + "-" + System.nanoTime()));
    }

    private void deleteData() {
        if (dataRoot == null) {
            return;
        }
        try (Stream<Path> s = Files.walk(dataRoot)) {
            s.sorted(Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.deleteIfExists(p);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        } catch (IOException | UncheckedIOException e) {
            progress.println("could not delete " + dataRoot + ": " + e);
        }
    }

    /** Starts a child JVM (broker or client) of {@code t}. */
    protected ChildJvm startChild(Target t, String name, Class<?> main, List<String> args) {
        try {
            String n = t.key + "-" + name;
            ChildJvm c = ChildJvm.start(n, withJfr(n), childClassPath, main, args, logs);
            started.add(c);
            children.add(c);
            return c;
        } catch (IOException e) {
            throw new BenchmarkException("could not start " + t.key + " " + name + ": " + e, e);
        }
    }

    /** Stops one child now (quit, stdin closed, destroyed if need be). */
    protected void stopChild(ChildJvm c) {
        try {
            c.send("quit");
        } catch (BenchmarkException e) {
            // already gone
        }
        c.close();
        started.remove(c);
        children.remove(c);
    }

    /** Waits for {@code READY URI key=value …}: the map holds {@code uri} and every key. */
    protected static Map<String, String> awaitReady(ChildJvm c) {
        String line = c.awaitLine("READY ", Duration.ofSeconds(90));
        Map<String, String> m = new HashMap<>(Results.keyValues(line));
        m.put("uri", line.split("\\s+")[0]);
        return m;
    }

    private List<String> withJfr(String name) {
        if (!jfr) {
            return jvm;
        }
        List<String> l = new ArrayList<>(jvm);
        // samples attributed to the line being run, not to the nearest safepoint (inlined code shows as itself)
        l.add("-XX:+UnlockDiagnosticVMOptions");
        l.add("-XX:+DebugNonSafepoints");
        l.add("-XX:StartFlightRecording=filename=" + logs.resolve(name + ".jfr") + ",settings=" + jfrSettings + ",dumponexit=true");
        return l;
    }

    /** The broker child's arguments common to both products. */
    protected static List<String> brokerArgs(String name, Path data, List<String> networkConnectors) {
        List<String> a = new ArrayList<>(List.of("--name", name));
        if (data != null) {
            a.add("--data");
            a.add(data.toString());
        }
        for (String nc : networkConnectors) {
            a.add("--network-connector");
            a.add(nc);
        }
        return a;
    }

    /**
     * Starts the brokers {@code names[0] → names[1] → …}, each bridging to the next with a network connector, last
     * first (so that each connector finds its peer up), and registers them as {@code t}'s topology (no client yet).
     * fedbridge: {@code static:(tcp://127.0.0.1:PORT)[?networkTTL=N]} to the peer's STOMP listener. ActiveMQ: every
     * broker with advisories on and an OpenWire connector, {@code static:(tcp://127.0.0.1:OPENWIRE_PORT)} to the
     * peer's, networkTTL set on the connector; otherwise its defaults (conduit subscriptions, …).
     */
    protected Topology startChain(Target t, List<String> names, boolean persistent, int networkTtl) throws IOException {
        List<ChildJvm> brokers = new ArrayList<>();
        List<Map<String, String>> ready = new ArrayList<>();
        String next = null;
        for (int i = names.size() - 1; i >= 0; i--) {
            String name = names.get(i);
            List<String> connectors = new ArrayList<>();
            if (next != null) {
                List<String> options = new ArrayList<>();
                if (t.isFedbridge() && networkTtl > 1) {
                    options.add("networkTTL=" + networkTtl);
                }
                if (t.isSecured()) {
                    options.add(BenchSecurity.bridgeOptions());
                }
                connectors.add("static:(" + next + (t.isTls() ? "?" + BenchSecurity.trustOptions(logs) : "") + ")"
                        + (options.isEmpty() ? "" : "?" + String.join("&", options)));
            }
            List<String> args = new ArrayList<>(brokerArgs(name, persistent ? dataDir(t.key + "-" + name) : null, connectors));
            if (t.isSecured()) {
                args.addAll(BenchSecurity.brokerArgs(t.isTls(), logs));
            }
            if (t == Target.FEDBRIDGE_METRICS) {
                args.add("--metrics");
            }
            if (t == Target.ACTIVEMQ) {
                args.addAll(List.of("--openwire", "--advisories"));
                if (networkTtl > 1 && next != null) {
                    args.addAll(List.of("--network-ttl", Integer.toString(networkTtl)));
                }
            }
            ChildJvm b = startChild(t, "broker-" + name, t.mainClass, args);
            brokers.add(0, b);
            register(new Topology(t, List.copyOf(brokers), List.copyOf(ready), null));
            Map<String, String> r = awaitReady(b);
            ready.add(0, r);
            next = t == Target.ACTIVEMQ ? r.get("openwire") : r.get("uri");
            progress.printf("[%s] broker %s pid %d at %s%s%n", t, name, b.pid(), r.get("uri"),
                    connectors.isEmpty() ? "" : ", network connector " + connectors.get(0));
        }
        Topology topo = new Topology(t, List.copyOf(brokers), List.copyOf(ready), null);
        register(topo);
        return topo;
    }

    /** Adds the load generator to {@code topo}: producer on its first broker, consumers on its last. */
    protected Topology withClient(Topology topo, String destination, int subscribers) {
        ChildJvm client = startClient(topo.target(), clientUri(topo, 0), clientUri(topo, topo.ready().size() - 1), destination,
                subscribers);
        Topology withClient = new Topology(topo.target(), topo.brokers(), topo.ready(), client);
        register(withClient);
        progress.printf("[%s] client pid %d: producer on %s, %d subscriber(s) of %s on %s%n", topo.target(), client.pid(),
                topo.ready().get(0).get("uri"), subscribers, destination, topo.ready().get(topo.ready().size() - 1).get("uri"));
        return withClient;
    }

    /** The URI the load client uses for broker {@code i} of {@code topo}: with the login and trust a secured one needs. */
    private String clientUri(Topology topo, int i) throws BenchmarkException {
        String uri = topo.ready().get(i).get("uri");
        Target t = topo.target();
        if (!t.isSecured()) {
            return uri;
        }
        try {
            return uri + "?" + BenchSecurity.clientOptions() + (t.isTls() ? "&" + BenchSecurity.trustOptions(logs) : "");
        } catch (IOException e) {
            throw new BenchmarkException("cannot prepare the TLS trust store in " + logs + ": " + e.getMessage());
        }
    }

    /** The load generator of {@code t}: producers on one broker, SUBSCRIBERS consumers on another. */
    protected ChildJvm startClient(Target t, String producerUri, String consumerUri, String destination, int subscribers) {
        List<String> args = new ArrayList<>(List.of(producerUri, consumerUri, destination, Integer.toString(subscribers),
                Integer.toString(size), Integer.toString(prefetch), Integer.toString(stallSeconds),
                LoadConnection.Mode.of(clientMode).key(), ack));
        if (t.consumesFromArtemis()) {
            args.add("artemis");
        }
        ChildJvm c = startChild(t, "client", LoadClientMain.class, args);
        try {
            c.awaitLine("READY ", Duration.ofSeconds(90));
        } catch (BenchmarkException e) {
            stopChild(c);
            throw e;
        }
        return c;
    }

    protected void register(Topology topo) {
        live.put(topo.target(), topo);
    }

    protected Topology topology(Target t) {
        return live.get(t);
    }

    protected boolean isLive(Target t) {
        return live.containsKey(t);
    }

    /** Ends the target's topology: client first (quit), then its brokers, last started first; idempotent. */
    protected void stop(Target t) {
        Topology topo = live.remove(t);
        if (topo == null) {
            return;
        }
        if (topo.client() != null) {
            stopChild(topo.client());
        }
        List<ChildJvm> bs = new ArrayList<>(topo.brokers());
        java.util.Collections.reverse(bs);
        for (ChildJvm b : bs) {
            b.close();
            started.remove(b);
            children.remove(b);
        }
    }

    protected void fail(Target t, String scenario, BenchmarkException e) {
        progress.printf("[%s] %s FAILED: %s%n", t, scenario, e.getMessage());
        report.fail(t, scenario + ": " + e.getMessage());
        stop(t);
    }

    /** Sends one command to the client, asks a broker JVM for its {@code STATS} line. */
    protected static Map<String, String> stats(ChildJvm broker) {
        broker.send("stats");
        return Results.keyValues(broker.awaitLine("STATS ", Duration.ofSeconds(30)));
    }

    // ---------------------------------------------------------------- measuring

    /**
     * Runs one client command on {@code topo} and turns its {@code RESULT} line into a sample: {@code metrics} maps
     * its key/values to the scenario's figures; CPU per message is per {@code messages} sent.
     */
    protected Sample measure(Topology topo, String command, Function<Map<String, String>, Map<String, Double>> metrics) {
        long[] brokerCpu = topo.brokers().stream().mapToLong(ChildJvm::cpuNanos).toArray();
        long clientCpu = topo.client().cpuNanos();
        MachineLoad.Mark start = MachineLoad.Mark.now(children);
        topo.client().send(command);
        String line = topo.client().awaitLine("RESULT ", Duration.ofSeconds(600));
        double others = MachineLoad.Mark.now(children).otherCoresSince(start);
        long brokerNanos = 0;
        for (int i = 0; i < brokerCpu.length; i++) {
            long now = topo.brokers().get(i).cpuNanos();
            brokerNanos = brokerCpu[i] < 0 || now < 0 || brokerNanos < 0 ? -1 : brokerNanos + now - brokerCpu[i];
        }
        long clientNow = topo.client().cpuNanos();
        Map<String, String> kv = Results.keyValues(line);
        long messages = Long.parseLong(kv.get("messages"));
        return new Sample(metrics.apply(kv), Long.parseLong(kv.get("expected")), Long.parseLong(kv.get("received")),
                brokerNanos < 0 ? Double.NaN : brokerNanos / 1e3 / messages,
                clientCpu < 0 || clientNow < 0 ? Double.NaN : (clientNow - clientCpu) / 1e3 / messages, others);
    }

    /** msg/s (messages per producer-side message) over first send → last receive. */
    protected static double rate(Map<String, String> kv, String countKey) {
        return Double.parseDouble(kv.get(countKey)) * 1e9 / Double.parseDouble(kv.get("elapsedNanos"));
    }

    protected static double millis(Map<String, String> kv, String key) {
        return Double.parseDouble(kv.get(key)) / 1e6;
    }

    /** Has the client wait until every subscriber receives a probe: demand has crossed every bridge. */
    protected void awaitDemand(Topology topo) {
        topo.client().send("ready 60");
        String line = topo.client().awaitLine("RESULT ready ", Duration.ofSeconds(90));
        progress.printf("[%s] demand in place (%s)%n", topo.target(), line);
    }

    /**
     * Runs {@code command} rounds for at least {@code --warmup-seconds}, then until three rounds in a row agree
     * within 10% (by {@code elapsedNanos}), at most twice as long.
     */
    protected void warmUp(Topology topo, String command) {
        if (warmupSeconds == 0) {
            return;
        }
        long start = System.nanoTime();
        long min = start + warmupSeconds * 1_000_000_000L;
        long max = start + 2L * warmupSeconds * 1_000_000_000L;
        List<Double> rates = new ArrayList<>();
        while (true) {
            topo.client().send(command);
            Map<String, String> kv = Results.keyValues(topo.client().awaitLine("RESULT ", Duration.ofSeconds(600)));
            rates.add(rate(kv, "messages"));
            int n = rates.size();
            long now = System.nanoTime();
            boolean settled = n >= 3 && within10(rates.get(n - 3), rates.get(n - 2)) && within10(rates.get(n - 2), rates.get(n - 1));
            if (now >= max || now >= min && settled) {
                progress.printf(Locale.ROOT, "[%s] warm-up '%s': %.0f s, %d rounds, last %s msg/s%s%n", topo.target(), command,
                        (now - start) / 1e9, n, String.join(" ", rates.subList(Math.max(0, n - 3), n).stream().map(Report::grouped).toList()),
                        settled ? " (settled)" : " (not settled)");
                return;
            }
        }
    }

    /** Runs {@code warmUp} on every live target; one that fails is stopped and reported as failing {@code step}. */
    protected void onEveryLiveTarget(List<Target> ts, String step, java.util.function.Consumer<Topology> warmUp) {
        for (Target t : ts) {
            if (isLive(t)) {
                try {
                    warmUp.accept(topology(t));
                } catch (BenchmarkException e) {
                    fail(t, step, e);
                }
            }
        }
    }

    /**
     * Runs {@code command} once and ignores its result: for a fixed-rate scenario, whose code paths (a message at a time,
     * event loops waking for each) a throughput warm-up does not settle. Without it, the first measured run of both
     * products had a p99 several times their later runs'.
     */
    protected void warmUpOnce(Topology topo, String command) {
        long start = System.nanoTime();
        topo.client().send(command);
        topo.client().awaitLine("RESULT ", Duration.ofSeconds(600));
        progress.printf(Locale.ROOT, "[%s] warm-up '%s': %.0f s%n", topo.target(), command, (System.nanoTime() - start) / 1e9);
    }

    private static boolean within10(double before, double now) {
        return Math.abs(now - before) <= 0.1 * before;
    }

    /**
     * Measures {@code scenario} {@code --runs} times on every live target, interleaved; a target that fails is
     * stopped and reported, the others go on.
     */
    protected void runInterleaved(List<Target> ts, String scenario, Function<Topology, Sample> run) {
        for (int r = 1; r <= runs; r++) {
            for (Target t : ts) {
                if (!isLive(t)) {
                    continue;
                }
                Topology topo = topology(t);
                try {
                    Sample s = undisturbed(() -> run.apply(topo), t);
                    report.add(scenario, t, s);
                    progress.printf(Locale.ROOT, "[%s] %s run %d/%d: %s; %d/%d arrived; brokers %.1f us/msg, client %.1f us/msg;"
                            + " other processes %.2f cores%n", t, scenario, r, runs, s.values(), s.received(), s.expected(),
                            s.brokerMicros(), s.clientMicros(), s.others());
                } catch (BenchmarkException | NumberFormatException | NullPointerException e) {
                    fail(t, scenario, e instanceof BenchmarkException b ? b : new BenchmarkException(e.toString(), e));
                }
            }
        }
    }

    /**
     * Runs {@code run} once the machine is quiet, and again (up to {@code retries} times) while other processes took
     * more than {@code maxOtherCores} during it. Returns the least disturbed attempt.
     */
    protected Sample undisturbed(Supplier<Sample> run, Target t) {
        return undisturbed(run, Sample::others, t);
    }

    /** The same for any kind of run result, {@code others} telling the cores other processes took during it. */
    protected <R> R undisturbed(Supplier<R> run, java.util.function.ToDoubleFunction<R> others, Target t) {
        if (retries == 0) {
            return run.get();
        }
        R best = null;
        double bestOthers = Double.POSITIVE_INFINITY;
        for (int attempt = 0; attempt <= retries; attempt++) {
            awaitQuiet();
            R r = run.get();
            double o = others.applyAsDouble(r);
            if (Double.isNaN(o) || o <= maxOtherCores) {
                return r;
            }
            if (best == null || o < bestOthers) {
                best = r;
                bestOthers = o;
            }
            if (attempt < retries) {
                progress.printf(Locale.ROOT, "[%s] other processes took %.2f cores during the run; repeating it%n", t, o);
            }
        }
        return best;
    }

    /** Waits (at most 30 s) until other processes use at most {@code maxOtherCores} over half a second. */
    protected void awaitQuiet() {
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
}
