package io.fedbridge.benchmarks;

import io.fedbridge.benchmarks.ScenarioReport.Aim;
import io.fedbridge.benchmarks.ScenarioReport.Metric;
import io.fedbridge.benchmarks.ScenarioReport.Scenario;
import io.fedbridge.benchmarks.ScenarioReport.Unit;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * JMS producer → consumer across one bridge: producer connection on broker A, consumer connection on broker B, A
 * bridging to B, each product through its own JMS client ({@link JmsLoadClientMain}): fedbridge-jms on fedbridge's
 * STOMP listeners, ActiveMQ's OpenWire JMS client on an ActiveMQ Classic network of brokers. Both pairs have a store
 * (fedbridge data directories, KahaDB).
 * <ul>
 *   <li>{@code throughput}: NON_PERSISTENT sends, the last one PERSISTENT as a fence; msg/s first send → last receive.</li>
 *   <li>{@code persistent}: PERSISTENT sends, each synchronous (JMS's default for both clients).</li>
 *   <li>{@code latency}: NON_PERSISTENT at a fixed rate; receive on B − send on A.</li>
 * </ul>
 */
@Command(name = "jms", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"JMS producer -> consumer across one bridge: fedbridge-jms on fedbridge vs ActiveMQ's OpenWire JMS client",
                "on an ActiveMQ Classic network of brokers."})
public final class JmsCommand extends ComparisonCommand {

    static final String QUEUE = "bench.jms";
    private static final List<String> ALL = List.of("throughput", "persistent", "latency");

    @Option(names = "--messages", description = "Messages per throughput run (default ${DEFAULT-VALUE}).")
    int messages = 50_000;

    @Option(names = "--persistent-messages", description = "Messages per persistent run (default ${DEFAULT-VALUE}).")
    int persistentMessages = 2_000;

    @Option(names = "--rate", description = "Messages/s of the latency scenario (default ${DEFAULT-VALUE}).")
    int rate = 1000;

    @Option(names = "--latency-seconds", description = "Recorded seconds per latency run (default ${DEFAULT-VALUE}).")
    int latencySeconds = 10;

    @Option(names = "--preroll-seconds", description = "Unrecorded seconds at the same rate before each latency run (default ${DEFAULT-VALUE}).")
    int prerollSeconds = 1;

    @Option(names = "--scenarios", split = ",", description = "Any of throughput, persistent, latency (default ${DEFAULT-VALUE}).")
    List<String> scenarios = ALL;

    private static final Metric MSGS = new Metric("msgs", "msg/s", Unit.RATE, true);
    private static final Metric P50 = new Metric("p50", "p50 ms", Unit.MILLIS, false);
    private static final Metric P90 = new Metric("p90", "p90 ms", Unit.MILLIS, false);
    private static final Metric P99 = new Metric("p99", "p99 ms", Unit.MILLIS, false);
    private static final Metric P999 = new Metric("p999", "p99.9 ms", Unit.MILLIS, false);
    private static final Metric MAX = new Metric("max", "max ms", Unit.MILLIS, false);
    private static final Metric RATE = new Metric("rate", "rate/s", Unit.RATE, true);

    /**
     * A longer warm-up than the other commands': with 10 s, the JMS client's C2 compiler thread used more CPU than all its
     * other threads together in the measured rounds, and after 28 s still a fifth of the client's CPU.
     */
    public JmsCommand() {
        warmupSeconds = 30;
    }

    @Override
    protected String name() {
        return "jms";
    }

    @Override
    protected void validateOptions() {
        if (messages < 1 || persistentMessages < 1 || rate < 1 || latencySeconds < 1 || prerollSeconds < 0
                || scenarios.isEmpty() || !ALL.containsAll(scenarios)) {
            throw new CommandLine.ParameterException(spec.commandLine(), "messages, persistent-messages, rate and latency-seconds"
                    + " must be >= 1, preroll-seconds >= 0, scenarios any of " + ALL + ", but scenarios were " + scenarios);
        }
    }

    @Override
    protected void describe(List<Target> ts) {
        report.setup("message", size + "-byte BytesMessage, queue " + QUEUE + ", producer connection on A, consumer connection"
                + " on B, AUTO_ACKNOWLEDGE with a MessageListener, prefetch " + prefetch);
        report.setup("fedbridge", "fedbridge-jms (FedbridgeConnectionFactory on tcp://) to brokers with data directories,"
                + " A with networkConnector static:(tcp://127.0.0.1:PORT_B)");
        report.setup("ActiveMQ", Target.ACTIVEMQ.title + " with its own JMS client (ActiveMQConnectionFactory, OpenWire),"
                + " KahaDB, A with networkConnector static:(tcp://127.0.0.1:OPENWIRE_PORT_B), defaults otherwise");
        if (scenarios.contains("throughput")) {
            report.scenario(new Scenario("throughput", String.format(Locale.ROOT, "JMS A -> B, NON_PERSISTENT throughput, %,d msgs",
                    messages), "JMS A->B, non-persistent", MSGS, List.of(), List.of(MSGS), true));
            report.aim(new Aim("JMS A -> B non-persistent throughput, fedbridge-jms at least twice ActiveMQ's client (issue 23)",
                    "throughput", MSGS.key(), 2, true));
        }
        if (scenarios.contains("persistent")) {
            report.scenario(new Scenario("persistent", String.format(Locale.ROOT, "JMS A -> B, PERSISTENT synchronous sends, %,d"
                    + " msgs", persistentMessages), "JMS A->B, persistent, synchronous", MSGS, List.of(), List.of(MSGS), true));
        }
        if (scenarios.contains("latency")) {
            report.scenario(new Scenario("latency", String.format(Locale.ROOT, "JMS A -> B latency @ %,d msg/s, NON_PERSISTENT",
                    rate), String.format(Locale.ROOT, "JMS A->B @ %,d msg/s", rate), P99, List.of(P50, P90, P999, MAX, RATE),
                    List.of(P50, P99), true));
        }
        report.note("(msg/s = messages / first send on A -> last receive on B; brokers us/msg = CPU of both broker JVMs per message)");
        report.footnote(footnote(size + " B BytesMessages, one queue, JMS producer on A, JMS consumer on B, demand established"
                + " before measuring"));
    }

    @Override
    protected void execute(List<Target> ts) throws IOException {
        for (Target t : ts) {
            try {
                Topology brokers = startChain(t, List.of("A", "B"), true, 1);
                String key = t == Target.ACTIVEMQ ? "openwire" : "uri";
                ChildJvm client = startChild(t, "jms-client", JmsLoadClientMain.class, List.of(t.key,
                        brokers.ready().get(0).get(key), brokers.ready().get(1).get(key), QUEUE, Integer.toString(size),
                        Integer.toString(prefetch), Integer.toString(stallSeconds)));
                register(new Topology(t, brokers.brokers(), brokers.ready(), client));
                client.awaitLine("READY ", Duration.ofSeconds(90));
                awaitDemand(topology(t));
            } catch (BenchmarkException e) {
                fail(t, "start A -> B", e);
            }
        }
        onEveryLiveTarget(ts, "warm-up", topo -> warmUp(topo, "throughput " + messages + " false"));
        if (scenarios.contains("throughput")) {
            runInterleaved(ts, "throughput", topo -> measure(topo, "throughput " + messages + " false",
                    kv -> Map.of(MSGS.key(), rate(kv, "messages"))));
        }
        if (scenarios.contains("persistent")) {
            // its own code path (a receipt per send, a thread woken per message), which the non-persistent rounds do not warm
            onEveryLiveTarget(ts, "persistent warm-up", topo -> warmUp(topo, "throughput " + persistentMessages + " true"));
            runInterleaved(ts, "persistent", topo -> measure(topo, "throughput " + persistentMessages + " true",
                    kv -> Map.of(MSGS.key(), rate(kv, "messages"))));
        }
        if (scenarios.contains("latency")) {
            runInterleaved(ts, "latency", topo -> measure(topo, "latency " + rate + " " + latencySeconds + " " + prerollSeconds
                    + " false", BridgeCommand::latencies));
        }
        for (Target t : ts) {
            stop(t);
        }
    }

}
