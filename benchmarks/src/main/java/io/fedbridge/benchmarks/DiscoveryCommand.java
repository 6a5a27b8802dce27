package io.fedbridge.benchmarks;

import io.fedbridge.benchmarks.ScenarioReport.Metric;
import io.fedbridge.benchmarks.ScenarioReport.Sample;
import io.fedbridge.benchmarks.ScenarioReport.Scenario;
import io.fedbridge.benchmarks.ScenarioReport.Unit;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Multicast discovery: brokers A and B find each other on a multicast group and bridge both ways; then a third
 * broker C starts, and the benchmark measures how long, from the moment C's broker is started (inside its JVM, after
 * the JVM itself is up), until C's own bridges to A and B are up, and until every bridge to and from C is. Each run
 * uses a fresh random group address, port and group name on the loopback interface, and fresh brokers.
 *
 * <p>fedbridge: {@code multicast://239.255.X.Y:PORT?group=G&interface=lo&heartbeatInterval=100} as each broker's
 * network connector; a bridge is up in state {@code UP}. ActiveMQ: the same address and group with
 * {@code keepAliveInterval=100} and {@code networkInterface=lo}, as each broker's network connector and as its
 * OpenWire connector's discovery URI (how ActiveMQ advertises a broker); a bridge is up once it knows the remote
 * broker's name. Both sides poll their bridges every millisecond.
 */
@Command(name = "discovery", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Multicast discovery: time from the start of a third broker until its bridges are up,",
                "fedbridge vs ActiveMQ Classic's multicast discovery, on the loopback interface."})
public final class DiscoveryCommand extends ComparisonCommand {

    static final String PROVIDER = "io.fedbridge.discovery.multicast.MulticastDiscoveryAgentProvider";

    @Option(names = "--heartbeat-ms", description = "fedbridge heartbeatInterval and ActiveMQ keepAliveInterval, ms (default ${DEFAULT-VALUE}).")
    int heartbeatMillis = 100;

    private static final Metric OWN = new Metric("own", "C's bridges up ms", Unit.MILLIS, false);
    private static final Metric ALL = new Metric("all", "all bridges up ms", Unit.MILLIS, false);
    private static final Metric STARTING = new Metric("starting", "C's start ms", Unit.MILLIS, false);
    private static final Metric AFTER = new Metric("after", "after start ms", Unit.MILLIS, false);

    @Override
    protected String name() {
        return "discovery";
    }

    @Override
    protected void validateOptions() {
        if (heartbeatMillis < 10) {
            throw new CommandLine.ParameterException(spec.commandLine(), "heartbeat-ms must be >= 10, but was " + heartbeatMillis);
        }
    }

    static boolean multicastAvailable() {
        try {
            Class.forName(PROVIDER, false, DiscoveryCommand.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException e) {
            return false;
        }
    }

    @Override
    protected void describe(List<Target> ts) {
        report.setup("topology", "brokers A and B (bridged both ways by discovery), then C; each broker in its own JVM;"
                + " time measured inside C's JVM from just before the broker starts, against the wall clock of A, B and C");
        report.setup("fedbridge", "multicast://239.255.X.Y:PORT?group=<random>&interface=lo&heartbeatInterval=" + heartbeatMillis
                + " as each broker's network connector, no data directory; 'up' = BridgeState.UP");
        report.setup("ActiveMQ", Target.ACTIVEMQ.title + " embedded, multicast://239.255.X.Y:PORT?group=<random>&keepAliveInterval="
                + heartbeatMillis + "&networkInterface=lo&joinNetworkInterface=lo as network connector and as the OpenWire connector's discoveryUri,"
                + " advisories on, non-persistent, JMX off; 'up' = the bridge knows the remote broker's name");
        report.scenario(new Scenario("discovery", "Third broker joins: start of C -> bridges up", "third broker joins (multicast)",
                ALL, List.of(OWN, STARTING, AFTER), List.of(ALL, STARTING, AFTER), false));
        report.note("(no aim was set for discovery; ratio all bridges up fedbridge / ActiveMQ: see the Markdown table)");
        report.note("(C's bridges: C -> A and C -> B up, as C sees them; all: also A -> C and B -> C, as A and B see them;"
                + " both from the start of C's broker, JVM start-up excluded; C's start: the broker's own start call"
                + " (Broker.start / BrokerService.start + waitUntilStarted); after start: all bridges up - C's start)");
        report.footnote(footnote("multicast on the loopback interface, heartbeat " + heartbeatMillis + " ms, random group per run,"
                + " three fresh brokers per run"));
    }

    @Override
    protected void execute(List<Target> ts) throws IOException {
        if (!multicastAvailable()) {
            report.note("SKIPPED: " + PROVIDER + " is not on the class path");
            return;
        }
        for (int r = 1; r <= runs; r++) {
            for (Target t : ts) {
                try {
                    Sample s = undisturbed(() -> joinRun(t), t);
                    report.add("discovery", t, s);
                    progress.printf(Locale.ROOT, "[%s] discovery run %d/%d: %s; other processes %.2f cores%n", t, r, runs, s.values(),
                            s.others());
                } catch (BenchmarkException | NumberFormatException | NullPointerException e) {
                    report.fail(t, "discovery run " + r + ": " + e.getMessage());
                    progress.printf("[%s] discovery run %d FAILED: %s%n", t, r, e.getMessage());
                } finally {
                    stop(t);
                }
            }
        }
    }

    private String uri(Target t) {
        ThreadLocalRandom rnd = ThreadLocalRandom.current();
        String group = "bench-" + Long.toString(rnd.nextLong() & Long.MAX_VALUE, 36);
        String base = "multicast://239.255." + rnd.nextInt(1, 255) + "." + rnd.nextInt(1, 255) + ":" + rnd.nextInt(20_000, 40_000)
                + "?group=" + group;
        return t == Target.FEDBRIDGE ? base + "&interface=lo&heartbeatInterval=" + heartbeatMillis
                : base + "&keepAliveInterval=" + heartbeatMillis + "&networkInterface=lo&joinNetworkInterface=lo";
    }

    private ChildJvm startBroker(Target t, String name, String uri, List<ChildJvm> brokers) {
        List<String> args = new ArrayList<>(List.of("--name", name, "--network-connector", uri, "--watch-bridges"));
        if (t == Target.ACTIVEMQ) {
            args.addAll(List.of("--advisories", "--discovery", uri));
        }
        ChildJvm b = startChild(t, "broker-" + name, t.mainClass, args);
        brokers.add(b);
        register(new Topology(t, List.copyOf(brokers), List.of(), null));
        return b;
    }

    /** One run: A and B up and bridged, then C; returns the times until C's bridges, and all, are up. */
    private Sample joinRun(Target t) {
        stop(t);
        String uri = uri(t);
        List<ChildJvm> brokers = new ArrayList<>();
        ChildJvm a = startBroker(t, "A", uri, brokers);
        ChildJvm b = startBroker(t, "B", uri, brokers);
        awaitReady(a);
        awaitReady(b);
        awaitUp(List.of(a, b), 1, 30);
        MachineLoad.Mark start = MachineLoad.Mark.now(children);
        ChildJvm c = startBroker(t, "C", uri, brokers);
        Map<String, String> ready = awaitReady(c);
        long startMicros = Long.parseLong(ready.get("startMicros"));
        long startedMicros = Long.parseLong(ready.get("startedMicros"));
        List<Map<String, String>> stats = awaitUp(List.of(a, b, c), 2, 60);
        long own = Long.parseLong(stats.get(2).get("upChangedMicros")) - startMicros;
        long all = 0;
        for (Map<String, String> s : stats) {
            all = Math.max(all, Long.parseLong(s.get("upChangedMicros")) - startMicros);
        }
        double others = MachineLoad.Mark.now(children).otherCoresSince(start);
        stop(t);
        long starting = startedMicros - startMicros;
        return new Sample(Map.of(OWN.key(), own / 1e3, ALL.key(), all / 1e3, STARTING.key(), starting / 1e3,
                AFTER.key(), (all - starting) / 1e3), 0, 0, Double.NaN, Double.NaN, others);
    }

    /**
     * Polls the brokers' {@code STATS} until each has {@code n} bridges up, then checks that this holds half a second
     * later (no bridge flapped); returns the last stats of each.
     */
    private List<Map<String, String>> awaitUp(List<ChildJvm> brokers, int n, int seconds) {
        long deadline = System.nanoTime() + seconds * 1_000_000_000L;
        boolean confirming = false;
        while (true) {
            List<Map<String, String>> stats = brokers.stream().map(ComparisonCommand::stats).toList();
            boolean up = stats.stream().allMatch(s -> Integer.parseInt(s.get("watchedUp")) == n);
            if (up && confirming) {
                return stats;
            }
            if (System.nanoTime() > deadline) {
                throw new BenchmarkException("bridges not up within " + seconds + " s: wanted " + n + " per broker, have "
                        + stats.stream().map(s -> s.get("watchedUp") + " (of " + s.get("bridges") + ")").toList());
            }
            confirming = up;
            try {
                Thread.sleep(up ? 500 : 20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new BenchmarkException("interrupted", e);
            }
        }
    }
}
