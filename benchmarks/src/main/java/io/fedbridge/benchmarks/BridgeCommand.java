package io.fedbridge.benchmarks;

import io.fedbridge.benchmarks.ScenarioReport.Aim;
import io.fedbridge.benchmarks.ScenarioReport.Metric;
import io.fedbridge.benchmarks.ScenarioReport.Scenario;
import io.fedbridge.benchmarks.ScenarioReport.Unit;
import java.io.IOException;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Forwarding over bridges: producer on broker A, consumer on broker B, A bridging to B (a network connector on A),
 * each broker and the client in its own JVM; then a chain A → B → C (networkTTL=2 on both products), consumer on C.
 * Both brokers of a pair have a store (fedbridge: a data directory, durability SYNC; ActiveMQ: KahaDB), so the same
 * brokers carry the non-persistent and the persistent scenarios; the chain has none (non-persistent only).
 *
 * <ul>
 *   <li>{@code throughput}: non-persistent, N−1 sends without receipt and a fenced last one; msg/s first send →
 *       last receive on B.</li>
 *   <li>{@code persistent}: persistent, one producer with up to {@code --window} receipts outstanding.</li>
 *   <li>{@code latency} / {@code latency-persistent}: a fixed rate ({@code --rate}); receive on B − send on A.</li>
 *   <li>{@code chain}: non-persistent throughput over two bridges.</li>
 * </ul>
 * Before measuring, the client sends probes until one arrives on the consumer's broker: demand has crossed the
 * bridge(s).
 */
@Command(name = "bridge", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Forwarding over bridges, A -> B (and A -> B -> C): throughput non-persistent and persistent with",
                "sends in flight, latency at a fixed rate, fedbridge vs an ActiveMQ Classic network of brokers."})
public final class BridgeCommand extends ComparisonCommand {

    static final String QUEUE = "/queue/bench";
    private static final List<String> ALL = List.of("throughput", "persistent", "latency", "latency-persistent", "chain");

    @Option(names = "--messages", description = "Messages per non-persistent throughput run, pair and chain (default ${DEFAULT-VALUE}).")
    int messages = 100_000;

    @Option(names = "--persistent-messages", description = "Messages per persistent run (default ${DEFAULT-VALUE}).")
    int persistentMessages = 10_000;

    @Option(names = "--window", description = "Receipts outstanding in the persistent scenario (default ${DEFAULT-VALUE}).")
    int window = 200;

    @Option(names = "--rate", description = "Messages/s of the latency scenarios (default ${DEFAULT-VALUE}).")
    int rate = 1000;

    @Option(names = "--latency-seconds", description = "Recorded seconds per latency run (default ${DEFAULT-VALUE}).")
    int latencySeconds = 20;

    @Option(names = "--preroll-seconds", description = "Unrecorded seconds at the same rate before each latency run (default ${DEFAULT-VALUE}).")
    int prerollSeconds = 1;

    @Option(names = "--latency-warmup-seconds", description = {"Before each latency scenario, every target runs at its rate this"
            + " long, unrecorded (default ${DEFAULT-VALUE}; 0 = none):", "what the throughput warm-up leaves unsettled showed as"
            + " a first run with several times the p99 of the later ones."})
    int latencyWarmupSeconds = 20;

    @Option(names = "--no-stores", description = {"The A -> B pair without stores (by default it has fedbridge data directories and"
            + " KahaDB);", "for the non-persistent scenarios only (throughput, latency, chain)."})
    boolean noStores;

    @Option(names = "--scenarios", split = ",", description = "Any of throughput, persistent, latency, latency-persistent, chain"
            + " (default ${DEFAULT-VALUE}).")
    List<String> scenarios = ALL;

    private static final Metric MSGS = new Metric("msgs", "msg/s", Unit.RATE, true);
    private static final Metric P50 = new Metric("p50", "p50 ms", Unit.MILLIS, false);
    private static final Metric P90 = new Metric("p90", "p90 ms", Unit.MILLIS, false);
    private static final Metric P99 = new Metric("p99", "p99 ms", Unit.MILLIS, false);
    private static final Metric P999 = new Metric("p999", "p99.9 ms", Unit.MILLIS, false);
    private static final Metric MAX = new Metric("max", "max ms", Unit.MILLIS, false);
    private static final Metric RATE = new Metric("rate", "rate/s", Unit.RATE, true);

    @Override
    protected String name() {
        return "bridge";
    }

    @Override
    protected boolean allowsRelay() {
        return true;
    }

    @Override
    protected void validateOptions() {
        if (messages < 1 || persistentMessages < 1 || window < 1 || rate < 1 || latencySeconds < 1 || prerollSeconds < 0
                || latencyWarmupSeconds < 0
                || scenarios.isEmpty() || !ALL.containsAll(scenarios)) {
            throw new CommandLine.ParameterException(spec.commandLine(), "messages, persistent-messages, window, rate and"
                    + " latency-seconds must be >= 1, preroll-seconds and latency-warmup-seconds >= 0, scenarios any of " + ALL + ", but scenarios were " + scenarios);
        }
        if (noStores && any("persistent", "latency-persistent")) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--no-stores leaves nothing durable: scenarios must then be"
                    + " among throughput, latency, chain, but were " + scenarios);
        }
    }

    private boolean any(String... keys) {
        for (String k : keys) {
            if (scenarios.contains(k)) {
                return true;
            }
        }
        return false;
    }

    @Override
    protected void describe(List<Target> ts) {
        report.setup("message", size + "-byte body, queue " + QUEUE + ", producer connection on A, one consumer connection on B"
                + " (C for the chain), ack=" + ack + ", prefetch " + prefetch + "; the same client for every target (see client)");
        report.setup("fedbridge", "brokers on tcp://127.0.0.1:0, A with networkConnector static:(tcp://127.0.0.1:PORT_B)"
                + " (defaults: conduit, networkTTL 1, prefetchSize 1000); pair " + (!noStores ? "with data directories (durability SYNC)"
                : "WITHOUT data directories (--no-stores)") + ";"
                + " chain A->B->C with networkTTL=2 on both connectors, no data directories");
        report.setup("ActiveMQ", Target.ACTIVEMQ.title + " embedded: STOMP connector " + ActiveMqBrokerMain.CONNECTOR
                + " for the clients, OpenWire connector " + ActiveMqBrokerMain.OPENWIRE + ", advisories on, JMX off;"
                + " A with networkConnector static:(tcp://127.0.0.1:OPENWIRE_PORT_B), defaults otherwise (conduit,"
                + " networkTTL 1, prefetch 1000); pair " + (!noStores ? "persistent (KahaDB, default durability) in fresh temp dirs"
                : "non-persistent (--no-stores)") + ";"
                + " chain networkTTL=2 on both connectors, non-persistent brokers");
        if (ts.stream().anyMatch(Target::isSecured)) {
            report.setup("security", "fedbridge-secured and fedbridge-tls: the same brokers with PBKDF2 logins for the client"
                    + " (read,write) and the bridge (read,write,federate), authorization rules checked on every SEND and SUBSCRIBE,"
                    + " the federation right on every forward; fedbridge-tls also puts every connection, the bridge's included,"
                    + " on ssl:// (JDK TLS, EC P-256 key made by keytool)");
        }
        if (any("latency", "latency-persistent")) {
            report.setup("latency", String.format(Locale.ROOT, "%d s recorded per run after %d s unrecorded; before each latency"
                    + " scenario every target runs %d s at %,d msg/s, unrecorded", latencySeconds, prerollSeconds, latencyWarmupSeconds, rate));
        }
        if (scenarios.contains("throughput")) {
            report.scenario(new Scenario("throughput", String.format(Locale.ROOT, "A -> B, non-persistent throughput, %,d msgs",
                    messages), "queue A->B, non-persistent", MSGS, List.of(), List.of(MSGS), true));
            report.aim(new Aim("A -> B non-persistent forwarded throughput, >= 3x ActiveMQ", "throughput", MSGS.key(), 3));
        }
        if (scenarios.contains("persistent")) {
            report.scenario(new Scenario("persistent", String.format(Locale.ROOT, "A -> B, persistent, 1 producer with up to %d"
                    + " receipts outstanding, %,d msgs", window, persistentMessages), "queue A->B, persistent, " + window
                    + " sends in flight", MSGS, List.of(), List.of(MSGS), true));
            report.aim(new Aim("A -> B persistent forwarded throughput with sends in flight, >= 10x ActiveMQ", "persistent", MSGS.key(), 10));
        }
        if (scenarios.contains("latency")) {
            report.scenario(new Scenario("latency", String.format(Locale.ROOT, "A -> B latency @ %,d msg/s, non-persistent,"
                    + " send on A -> receive on B", rate), String.format(Locale.ROOT, "A->B @ %,d msg/s, non-persistent", rate),
                    P99, List.of(P50, P90, P999, MAX, RATE), List.of(P50, P99), true));
            report.aim(new Aim(String.format(Locale.ROOT, "A -> B p99 at %,d msg/s non-persistent, at most half ActiveMQ's", rate),
                    "latency", P99.key(), 0.5, true));
        }
        if (scenarios.contains("latency-persistent")) {
            report.scenario(new Scenario("latency-persistent", String.format(Locale.ROOT, "A -> B latency @ %,d msg/s, persistent"
                    + " (receipts requested, not awaited), send on A -> receive on B", rate),
                    String.format(Locale.ROOT, "A->B @ %,d msg/s, persistent", rate), P99, List.of(P50, P90, P999, MAX, RATE),
                    List.of(P50, P99), true));
            report.aim(new Aim(String.format(Locale.ROOT, "A -> B p99 at %,d msg/s persistent, at most half ActiveMQ's", rate),
                    "latency-persistent", P99.key(), 0.5, true));
        }
        if (scenarios.contains("chain")) {
            report.scenario(new Scenario("chain", String.format(Locale.ROOT, "A -> B -> C (networkTTL=2), non-persistent"
                    + " throughput, %,d msgs", messages), "queue A->B->C, non-persistent", MSGS, List.of(), List.of(MSGS), true));
        }
        report.note("(msg/s = messages / first send on A -> last receive on B or C; brokers us/msg = CPU of all broker JVMs"
                + " together per message)");
        if (ts.contains(Target.RELAY)) {
            report.setup("relay", "StompRelay: the same Netty codec, no broker work, no store, no acks, driven by the same"
                    + " client mode. Throughput: one relay, producer and consumer on it (the relay ceiling). Latency"
                    + " (non-persistent): two relays chained, R1 passing every SEND over one connection to R2, producer on R1,"
                    + " consumer on R2: the same process hops as A -> B without any broker or bridge work (the latency floor)");
            for (String s : ALL) {
                if (scenarios.contains(s) && !s.equals("throughput") && !s.equals("latency")) {
                    report.skip(s, Target.RELAY);
                }
            }
        }
        report.footnote(footnote(size + " B bodies, one queue, producer on A, consumer on B (C), demand established before"
                + " measuring"));
    }

    @Override
    protected void execute(List<Target> ts) throws IOException {
        List<Target> brokers = ts.stream().filter(t -> t != Target.RELAY).toList();
        if (any("throughput", "persistent", "latency", "latency-persistent")) {
            for (Target t : ts) {
                try {
                    boolean relay = t == Target.RELAY;
                    if (relay && !scenarios.contains("throughput")) {
                        continue; // started as a chain for the latency below
                    }
                    withClient(startChain(t, List.of(relay ? "R" : "A", "B").subList(0, relay ? 1 : 2), !noStores && !relay, 1),
                            QUEUE, 1);
                    awaitDemand(topology(t));
                } catch (BenchmarkException e) {
                    fail(t, "start A -> B", e);
                }
            }
            onEveryLiveTarget(ts, "warm-up", topo -> {
                warmUp(topo, "throughput " + messages + " false"); // the measured size: JIT and heap settle for it
                if (scenarios.contains("persistent") && topo.target() != Target.RELAY) {
                    warmUp(topo, "window " + Math.min(persistentMessages, 2_000) + " " + window + " 1 true");
                }
            });
            if (scenarios.contains("throughput")) {
                runInterleaved(ts, "throughput", topo -> measure(topo, "throughput " + messages + " false",
                        kv -> Map.of(MSGS.key(), rate(kv, "messages"))));
            }
            if (ts.contains(Target.RELAY) && scenarios.contains("throughput")) {
                stop(Target.RELAY);
                double ceiling = report.median("throughput", Target.RELAY, MSGS.key());
                report.note(String.format(Locale.ROOT, "A -> B non-persistent forwarded throughput / relay ceiling (one hop, same"
                        + " client mode): fedbridge %.2f, ActiveMQ %.2f", report.median("throughput", Target.FEDBRIDGE, MSGS.key())
                        / ceiling, report.median("throughput", Target.ACTIVEMQ, MSGS.key()) / ceiling));
            }
            if (scenarios.contains("persistent")) {
                runInterleaved(brokers, "persistent", topo -> measure(topo, "window " + persistentMessages + " " + window + " 1 true",
                        kv -> Map.of(MSGS.key(), rate(kv, "messages"))));
            }
            if (ts.contains(Target.RELAY) && scenarios.contains("latency")) {
                try {
                    withClient(startChain(Target.RELAY, List.of("R1", "R2"), false, 1), QUEUE, 1);
                    awaitDemand(topology(Target.RELAY));
                    warmUp(topology(Target.RELAY), "throughput " + messages + " false"); // as warm as the brokers' JIT
                } catch (BenchmarkException e) {
                    fail(Target.RELAY, "start R1 -> R2", e);
                }
            }
            for (String s : List.of("latency", "latency-persistent")) {
                if (scenarios.contains(s)) {
                    boolean persistent = s.equals("latency-persistent");
                    List<Target> measured = persistent ? brokers : ts;
                    if (latencyWarmupSeconds > 0) {
                        onEveryLiveTarget(measured, s + " warm-up",
                                topo -> warmUpOnce(topo, "latency " + rate + " 1 " + latencyWarmupSeconds + " " + persistent));
                    }
                    runInterleaved(measured, s, topo -> measure(topo, "latency " + rate + " " + latencySeconds + " " + prerollSeconds + " "
                            + persistent, BridgeCommand::latencies));
                }
            }
            if (ts.contains(Target.RELAY) && scenarios.contains("latency")) {
                double floor = report.median("latency", Target.RELAY, P99.key());
                report.note(String.format(Locale.ROOT, "A -> B p99 at %,d msg/s, non-persistent, against the floor of two chained relays"
                        + " (%.3f ms, no broker work): fedbridge %.2fx, ActiveMQ %.2fx; half of ActiveMQ's p99 is %.2fx the floor", rate,
                        floor, report.median("latency", Target.FEDBRIDGE, P99.key()) / floor,
                        report.median("latency", Target.ACTIVEMQ, P99.key()) / floor,
                        report.median("latency", Target.ACTIVEMQ, P99.key()) / 2 / floor));
            }
            for (Target t : ts) {
                stop(t);
            }
        }
        if (scenarios.contains("chain")) {
            for (Target t : brokers) {
                try {
                    withClient(startChain(t, List.of("A", "B", "C"), false, 2), QUEUE, 1);
                    awaitDemand(topology(t));
                } catch (BenchmarkException e) {
                    fail(t, "start A -> B -> C", e);
                }
            }
            onEveryLiveTarget(brokers, "warm-up", topo -> warmUp(topo, "throughput " + messages + " false")); // the measured size
            runInterleaved(brokers, "chain", topo -> measure(topo, "throughput " + messages + " false",
                    kv -> Map.of(MSGS.key(), rate(kv, "messages"))));
            for (Target t : ts) {
                stop(t);
            }
        }
    }

    static Map<String, Double> latencies(Map<String, String> kv) {
        Map<String, Double> m = new HashMap<>();
        for (Metric x : List.of(P50, P90, P99, P999, MAX)) {
            m.put(x.key(), millis(kv, x.key()));
        }
        m.put(RATE.key(), Double.parseDouble(kv.get("rate")));
        return m;
    }
}
