package io.fedbridge.benchmarks;

import io.fedbridge.benchmarks.ScenarioReport.Aim;
import io.fedbridge.benchmarks.ScenarioReport.Metric;
import io.fedbridge.benchmarks.ScenarioReport.Scenario;
import io.fedbridge.benchmarks.ScenarioReport.Unit;
import java.io.IOException;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Persistent messages through one broker with a store: fedbridge with a data directory (journal store, default
 * durability SYNC: a message is receipted once it is on disk) against ActiveMQ with KahaDB and its default
 * durability (a disk sync per journal write batch), both in a fresh temporary directory on the same file system.
 * 1 KiB persistent messages to {@code /queue/bench}, one consumer draining it ({@code ack:auto}).
 *
 * <ul>
 *   <li>{@code sync}: one producer waits for each receipt before the next send: msg/s and the per-send time
 *       (send → receipt) p50/p99.</li>
 *   <li>{@code window}: one producer keeps up to {@code --window} receipts outstanding.</li>
 *   <li>{@code producers}: {@code --producers} producers, each with up to {@code --window} receipts outstanding.</li>
 * </ul>
 */
@Command(name = "persistent", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Persistent messages through one broker with a store (fedbridge's journal vs ActiveMQ's KahaDB):",
                "sync sends (msg/s, send p50/p99) and sends with many receipts in flight (msg/s)."})
public final class PersistentCommand extends ComparisonCommand {

    static final String QUEUE = "/queue/bench";

    @Option(names = "--sync-messages", description = "Messages per run of the sync scenario (default ${DEFAULT-VALUE}).")
    int syncMessages = 3_000;

    @Option(names = "--window-messages", description = "Messages per run of the window and producers scenarios (default ${DEFAULT-VALUE}).")
    int windowMessages = 50_000;

    @Option(names = "--window", description = "Receipts outstanding per producer in the window and producers scenarios (default ${DEFAULT-VALUE}).")
    int window = 200;

    @Option(names = "--producers", description = "Producers of the producers scenario (default ${DEFAULT-VALUE}).")
    int producers = 4;

    @Option(names = "--scenarios", split = ",", description = "Any of sync, window, producers (default ${DEFAULT-VALUE}).")
    List<String> scenarios = List.of("sync", "window", "producers");

    private static final Metric MSGS = new Metric("msgs", "msg/s", Unit.RATE, true);
    private static final Metric SEND_P50 = new Metric("send_p50", "send p50 ms", Unit.MILLIS, false);
    private static final Metric SEND_P99 = new Metric("send_p99", "send p99 ms", Unit.MILLIS, false);
    private static final Metric SEND_P999 = new Metric("send_p999", "send p99.9 ms", Unit.MILLIS, false);

    @Override
    protected String name() {
        return "persistent";
    }

    @Override
    protected void validateOptions() {
        if (syncMessages < 1 || windowMessages < 1 || window < 1 || producers < 1
                || scenarios.isEmpty() || !List.of("sync", "window", "producers").containsAll(scenarios)) {
            throw new CommandLine.ParameterException(spec.commandLine(), "sync-messages, window-messages, window and producers must"
                    + " be >= 1, scenarios any of sync, window, producers, but were " + syncMessages + ", " + windowMessages + ", "
                    + window + ", " + producers + ", " + scenarios);
        }
    }

    @Override
    protected void describe(List<Target> ts) {
        report.setup("message", size + "-byte body, persistent, queue " + QUEUE + ", one consumer connection draining it"
                + " (ack=" + ack + ", prefetch " + prefetch + "); the same client for every target (see client)");
        report.setup("fedbridge", "broker with a data directory in a fresh temp dir (journal store, durability SYNC, the default),"
                + " tcp://127.0.0.1:0");
        report.setup("ActiveMQ", Target.ACTIVEMQ.title + " embedded, persistent (KahaDB, default durability: journal synced"
                + " per write batch) in a fresh temp dir, " + ActiveMqBrokerMain.CONNECTOR + ", JMX/advisories off");
        if (scenarios.contains("sync")) {
            report.scenario(new Scenario("sync", String.format(Locale.ROOT, "Sync sends: 1 producer waits for each receipt, %,d msgs",
                    syncMessages), "persistent, 1 producer, sync sends", MSGS, List.of(SEND_P50, SEND_P99, SEND_P999),
                    List.of(MSGS, SEND_P50, SEND_P99), true));
            report.aim(new Aim("persistent, waiting for each receipt, no slower than ActiveMQ", "sync", MSGS.key(), 1));
        }
        if (scenarios.contains("window")) {
            report.scenario(new Scenario("window", String.format(Locale.ROOT, "Sends in flight: 1 producer, up to %d receipts"
                    + " outstanding, %,d msgs", window, windowMessages), "persistent, 1 producer, " + window + " receipts in flight",
                    MSGS, List.of(), List.of(MSGS), true));
            report.aim(new Aim("persistent, 1 producer with " + window + " sends in flight, >= 5x ActiveMQ", "window", MSGS.key(), 5));
        }
        if (scenarios.contains("producers")) {
            report.scenario(new Scenario("producers", String.format(Locale.ROOT, "Sends in flight: %d producers, up to %d receipts"
                    + " outstanding each, %,d msgs", producers, window, windowMessages), "persistent, " + producers + " producers, "
                    + window + " receipts in flight each", MSGS, List.of(), List.of(MSGS), true));
            report.aim(new Aim("persistent, " + producers + " producers with " + window + " sends in flight each, >= 5x ActiveMQ",
                    "producers", MSGS.key(), 5));
        }
        report.note("(msg/s = messages / first send -> last receive; send p50/p99 = send -> receipt of each sync send)");
        report.footnote(footnote(size + " B persistent messages, one queue, one consumer; fedbridge journal (SYNC) vs KahaDB"
                + " (defaults), fresh temp dirs on the same disk"));
    }

    @Override
    protected void execute(List<Target> ts) throws IOException {
        for (Target t : ts) {
            try {
                ChildJvm broker = startChild(t, "broker", t.mainClass, brokerArgs("bench", dataDir(t.key), List.of()));
                Map<String, String> ready = awaitReady(broker);
                Topology topo = new Topology(t, List.of(broker), List.of(ready), null);
                register(topo);
                ChildJvm client = startClient(t, ready.get("uri"), ready.get("uri"), QUEUE, 1);
                topo = new Topology(t, topo.brokers(), topo.ready(), client);
                register(topo);
                progress.printf("[%s] broker pid %d at %s, client pid %d%n", t, broker.pid(), ready.get("uri"), client.pid());
            } catch (BenchmarkException e) {
                fail(t, "start", e);
            }
        }
        onEveryLiveTarget(ts, "warm-up", topo -> warmUp(topo, "window " + Math.min(windowMessages, 10_000) + " " + window + " 1 true"));
        if (scenarios.contains("sync")) {
            runInterleaved(ts, "sync", topo -> measure(topo, "sync " + syncMessages + " true", kv -> Map.of(
                    MSGS.key(), rate(kv, "messages"), SEND_P50.key(), millis(kv, "send_p50"),
                    SEND_P99.key(), millis(kv, "send_p99"), SEND_P999.key(), millis(kv, "send_p999"))));
        }
        if (scenarios.contains("window")) {
            runInterleaved(ts, "window", topo -> measure(topo, "window " + windowMessages + " " + window + " 1 true",
                    kv -> Map.of(MSGS.key(), rate(kv, "messages"))));
        }
        if (scenarios.contains("producers")) {
            runInterleaved(ts, "producers", topo -> measure(topo, "window " + windowMessages + " " + window + " " + producers + " true",
                    kv -> Map.of(MSGS.key(), rate(kv, "messages"))));
        }
    }
}
