package io.fedbridge.benchmarks;

import io.fedbridge.benchmarks.ScenarioReport.Aim;
import io.fedbridge.benchmarks.ScenarioReport.Metric;
import io.fedbridge.benchmarks.ScenarioReport.Sample;
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
 * Topic fan-out over a bridge: a producer on broker A publishes non-persistent messages to {@code /topic/bench}, and
 * {@code --subscribers} identical subscribers (one connection each, no selector) listen on broker B. Reports
 * messages in per second, deliveries per second (messages × subscribers) and the wire copies per message: how many
 * copies of each message A's bridge sent to B, from A's own counters — fedbridge: {@code BridgeStats.forwarded}
 * (messages sent to the target), ActiveMQ: the network bridge's dequeue counter (messages sent to the remote broker
 * and acknowledged locally). With conduit subscriptions (both products' default) identical subscribers should cost
 * one copy.
 */
@Command(name = "fanout", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Topic fan-out over a bridge: producer on A, identical subscribers on B; deliveries/s and wire",
                "copies per message, fedbridge vs ActiveMQ Classic's conduit subscriptions."})
public final class FanoutCommand extends ComparisonCommand {

    static final String TOPIC = "/topic/bench";

    @Option(names = "--messages", description = "Messages published per run (default ${DEFAULT-VALUE}).")
    int messages = 50_000;

    @Option(names = "--subscribers", description = "Identical subscribers on B, one connection each (default ${DEFAULT-VALUE}).")
    int subscribers = 10;

    private static final Metric DELIVERIES = new Metric("deliveries", "deliveries/s", Unit.RATE, true);
    private static final Metric MSGS = new Metric("msgs", "msg/s in", Unit.RATE, true);
    private static final Metric COPIES = new Metric("copies", "copies/msg", Unit.RATIO, false);

    @Override
    protected String name() {
        return "fanout";
    }

    @Override
    protected void validateOptions() {
        if (messages < 1 || subscribers < 1) {
            throw new CommandLine.ParameterException(spec.commandLine(), "messages and subscribers must be >= 1, but were "
                    + messages + " and " + subscribers);
        }
    }

    @Override
    protected void describe(List<Target> ts) {
        report.setup("message", size + "-byte body, non-persistent, topic " + TOPIC + ", producer connection on A, " + subscribers
                + " subscriber connections on B (ack=" + ack + ", prefetch " + prefetch + ", no selector); the same client for every target (see client)");
        report.setup("fedbridge", "brokers on tcp://127.0.0.1:0, no data directory, A with networkConnector"
                + " static:(tcp://127.0.0.1:PORT_B), defaults (conduitSubscriptions=true)");
        report.setup("ActiveMQ", Target.ACTIVEMQ.title + " embedded, non-persistent, STOMP " + ActiveMqBrokerMain.CONNECTOR
                + " for the clients, OpenWire for the bridge, advisories on, JMX off; A with networkConnector"
                + " static:(tcp://127.0.0.1:OPENWIRE_PORT_B), defaults (conduitSubscriptions=true)");
        report.scenario(new Scenario("fanout", String.format(Locale.ROOT, "Topic A -> B, %d identical subscribers on B, %,d msgs",
                subscribers, messages), String.format(Locale.ROOT, "topic A->B, %d subscribers on B", subscribers),
                DELIVERIES, List.of(MSGS, COPIES), List.of(DELIVERIES, COPIES), true));
        report.aim(new Aim("wire copies per message over the bridge, no more than ActiveMQ's conduit", "fanout", COPIES.key(), 1, true));
        report.note("(copies/msg: fedbridge = A's BridgeStats.forwarded, ActiveMQ = A's network bridge dequeue counter (sent to B"
                + " and acked), during the run / messages published; deliveries/s = messages x subscribers / first send on A ->"
                + " last receive on B; brokers us/msg per message published)");
        report.footnote(footnote(size + " B non-persistent bodies, one topic, " + subscribers + " identical subscribers on the"
                + " peer, conduit subscriptions (both defaults)"));
    }

    @Override
    protected void execute(List<Target> ts) throws IOException {
        for (Target t : ts) {
            try {
                withClient(startChain(t, List.of("A", "B"), false, 1), TOPIC, subscribers);
                awaitDemand(topology(t));
            } catch (BenchmarkException e) {
                fail(t, "start A -> B", e);
            }
        }
        onEveryLiveTarget(ts, "warm-up", topo -> warmUp(topo, "throughput " + Math.min(messages, 10_000) + " false"));
        runInterleaved(ts, "fanout", this::fanoutRun);
    }

    private Sample fanoutRun(Topology topo) {
        ChildJvm a = topo.brokers().get(0);
        long before = forwarded(a);
        Sample s = measure(topo, "throughput " + messages + " false", kv -> {
            Map<String, Double> m = new HashMap<>();
            m.put(MSGS.key(), rate(kv, "messages"));
            m.put(DELIVERIES.key(), rate(kv, "expected"));
            return m;
        });
        // The counters move when the bridge's forward is confirmed, which may trail the last delivery a little.
        long after = forwarded(a);
        long deadline = System.nanoTime() + 2_000_000_000L;
        while (after - before < messages && System.nanoTime() < deadline) {
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
            after = forwarded(a);
        }
        Map<String, Double> values = new HashMap<>(s.values());
        values.put(COPIES.key(), (after - before) / (double) messages);
        return new Sample(values, s.expected(), s.received(), s.brokerMicros(), s.clientMicros(), s.others());
    }

    private static long forwarded(ChildJvm broker) {
        return Long.parseLong(stats(broker).get("forwarded"));
    }
}
