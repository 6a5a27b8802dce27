package io.fedbridge.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * Runs the documented benchmark commands end to end with tiny numbers: real child JVMs for every target (brokers
 * and client), every scenario, one run, no warm-up. Asserts only that the report is produced and that every message
 * sent arrived — never timings.
 */
class BenchmarkSmokeTest {

    @TempDir
    Path logs;

    @Test
    void shouldDeliverEveryMessageOnEveryTargetAndPrintTheReport() {
        runThroughput("batched");
    }

    @Test
    void shouldDeliverEveryMessageOfAPerFrameClientOnEveryTargetAndPrintTheReport() {
        runThroughput("per-frame");
    }

    private void runThroughput(String clientMode) {
        BenchmarkMain main = new BenchmarkMain();
        CommandLine cl = new CommandLine(main);
        StringWriter out = new StringWriter();
        cl.setOut(new PrintWriter(out));

        int code = cl.execute("throughput", "--runs", "1", "--messages", "2000", "--warmup-messages", "500",
                "--warmup-seconds", "1", "--rate", "200", "--latency-seconds", "1", "--preroll-seconds", "0",
                "--stall-seconds", "20", "--retries", "0", "--targets", "fedbridge,relay,activemq", "--client-mode", clientMode,
                "--jvm-args=-Xms64m -Xmx256m -XX:TieredStopAtLevel=1", "--log-dir", logs.resolve(clientMode).toString());

        ThroughputCommand cmd = cl.getSubcommands().get("throughput").getCommand();
        Report report = cmd.throughputReport();
        String printed = out.toString();
        assertThat(report.failures()).as("failures, printed:%n%s", printed).isEmpty();
        assertThat(report.throughputRuns()).allSatisfy((target, runs) -> assertThat(runs).as(target)
                .singleElement().satisfies(r -> assertThat(r.received()).isEqualTo(r.sent()).isEqualTo(2000)));
        assertThat(report.latencyRuns()).allSatisfy((target, runs) -> assertThat(runs).as(target)
                .singleElement().satisfies(r -> {
                    assertThat(r.received()).isEqualTo(r.sent()).isEqualTo(200);
                    assertThat(r.measured()).isEqualTo(200);
                }));
        assertThat(printed)
                .contains("| scenario | fedbridge | ActiveMQ", "| throughput, 1024 B", "| latency @ 200 msg/s, p99, ms")
                .contains("RESULT complete");
        assertThat(code).isZero();
    }

    private static final String SMALL_JVM = "--jvm-args=-Xms64m -Xmx256m -XX:TieredStopAtLevel=1";

    /** Runs one of the fedbridge-vs-ActiveMQ commands and checks its report: complete, one run per scenario and target. */
    private void runComparison(String command, List<String> scenarios, String... options) {
        runComparison(command, scenarios, List.of("fedbridge", "activemq"), options);
    }

    private void runComparison(String command, List<String> scenarios, List<String> targets, String... options) {
        CommandLine cl = new CommandLine(new BenchmarkMain());
        StringWriter out = new StringWriter();
        cl.setOut(new PrintWriter(out));
        List<String> args = new ArrayList<>(List.of(command, "--runs", "1", "--warmup-seconds", "0", "--retries", "0",
                "--stall-seconds", "20", SMALL_JVM, "--log-dir", logs.resolve(command).toString()));
        args.addAll(List.of(options));

        int code = cl.execute(args.toArray(String[]::new));

        ComparisonCommand cmd = cl.getSubcommands().get(command).getCommand();
        ScenarioReport report = cmd.report();
        String printed = out.toString();
        assertThat(report.failures()).as("failures, printed:%n%s", printed).isEmpty();
        for (String scenario : scenarios) {
            assertThat(report.samples(scenario)).as(scenario).containsOnlyKeys(scenario.equals("throughput")
                            || scenario.equals("latency") && command.equals("bridge") ? targets
                            : targets.stream().filter(t -> !t.equals("relay")).toList())
                    .allSatisfy((target, runs) -> assertThat(runs).as(scenario + " on " + target).singleElement()
                            .satisfies(r -> assertThat(r.received()).isEqualTo(r.expected())));
        }
        assertThat(printed).contains("| " + command + " scenario | fedbridge | ActiveMQ", "== Aims", "RESULT complete");
        assertThat(code).isZero();
    }

    @Test
    void shouldStoreEveryPersistentMessageOnBothBrokersAndPrintTheReport() {
        runComparison("persistent", List.of("sync", "window", "producers"), "--sync-messages", "100", "--window-messages", "1000",
                "--window", "50", "--producers", "2");
    }

    @Test
    void shouldForwardEveryMessageOverTheBridgesOfBothProductsAndPrintTheReport() {
        runComparison("bridge", List.of("throughput", "persistent", "latency", "latency-persistent", "chain"), "--messages", "2000",
                "--persistent-messages", "500", "--rate", "200", "--latency-seconds", "1", "--preroll-seconds", "0",
                "--latency-warmup-seconds", "1");
    }

    @Test
    void shouldForwardEveryMessageFromAPerFrameClientAckingEachOneAndMeasureTheRelayCeilingAndFloorToo() {
        runComparison("bridge", List.of("throughput", "persistent", "latency"), List.of("fedbridge", "activemq", "relay"), "--messages",
                "2000", "--persistent-messages", "500", "--rate", "200", "--latency-seconds", "1", "--preroll-seconds", "0",
                "--latency-warmup-seconds", "1", "--scenarios", "throughput,persistent,latency", "--client-mode", "per-frame", "--ack",
                "client-individual", "--targets", "fedbridge,activemq,relay");
    }

    @Test
    void shouldForwardEveryMessageFromSpringsStompClientAckingEachOneOnBothProducts() {
        // a third-party client (Spring's ReactorNettyTcpStompClient): sends without and with receipts, ACK per message
        runComparison("bridge", List.of("throughput", "persistent"), List.of("fedbridge", "activemq"), "--messages", "2000",
                "--persistent-messages", "500", "--scenarios", "throughput,persistent", "--client-mode", "spring", "--ack",
                "client-individual");
    }

    @Test
    void shouldCarryEveryJmsMessageOverTheBridgeWithEachProductsJmsClientAndPrintTheReport() {
        runComparison("jms", List.of("throughput", "persistent", "latency"), "--messages", "2000", "--persistent-messages", "200",
                "--rate", "200", "--latency-seconds", "1", "--preroll-seconds", "0");
    }

    @Test
    void shouldDeliverEveryTopicMessageToEverySubscriberOnThePeerAndPrintTheReport() {
        runComparison("fanout", List.of("fanout"), "--messages", "1000", "--subscribers", "3");
    }

    @Test
    void shouldReplicateEveryMessageAndTimeAFailoverOfEachHaPairAndPrintTheReport() {
        CommandLine cl = new CommandLine(new BenchmarkMain());
        StringWriter out = new StringWriter();
        cl.setOut(new PrintWriter(out));

        int code = cl.execute("ha", "--runs", "1", "--warmup-seconds", "0", "--retries", "0", "--stall-seconds", "20", SMALL_JVM,
                "--log-dir", logs.resolve("ha").toString(), "--messages", "500", "--rate", "200", "--latency-seconds", "1",
                "--preroll-seconds", "0", "--latency-warmup-seconds", "0", "--rounds", "1", "--settle-seconds", "1",
                "--zk-tick-ms", "500", "--zk-session-timeout-ms", "1000");

        HaCommand cmd = cl.getSubcommands().get("ha").getCommand();
        ScenarioReport report = cmd.report();
        String printed = out.toString();
        assertThat(report.failures()).as("failures, printed:%n%s", printed).isEmpty();
        for (String scenario : List.of("throughput", "latency")) {
            assertThat(report.samples(scenario)).as(scenario).containsOnlyKeys("fedbridge-ha", "fedbridge", "artemis-ha")
                    .allSatisfy((target, runs) -> assertThat(runs).as(scenario + " on " + target).singleElement()
                            .satisfies(r -> assertThat(r.received()).isEqualTo(r.expected())));
        }
        assertThat(printed).contains("| ha scenario | fedbridge HA pair | fedbridge | Artemis", "== Failover after kill -9",
                "fedbridge HA, ZooKeeper", "fedbridge HA, manual", "RESULT complete");
        assertThat(code).isZero();
    }

    @Test
    void shouldForwardEveryMessageToArtemisOverABridgeAndOverArtemisOwnCoreBridgeAndPrintTheSpread() {
        // The Artemis pairs only: the RabbitMQ pairs start three Erlang nodes (RabbitMqInteropIT runs one already).
        CommandLine cl = new CommandLine(new BenchmarkMain());
        StringWriter out = new StringWriter();
        cl.setOut(new PrintWriter(out));

        int code = cl.execute("foreign", "--runs", "1", "--warmup-seconds", "0", "--retries", "0", "--stall-seconds", "20", SMALL_JVM,
                "--log-dir", logs.resolve("foreign").toString(), "--messages", "1000", "--persistent-messages", "300", "--targets",
                "fedbridge-artemis,artemis-bridge");

        ForeignCommand cmd = cl.getSubcommands().get("foreign").getCommand();
        String printed = out.toString();
        assertThat(cmd.report().failures()).as("failures, printed:%n%s", printed).isEmpty();
        for (String scenario : List.of("throughput", "persistent")) {
            assertThat(cmd.report().samples(scenario)).as(scenario).containsOnlyKeys("fedbridge-artemis", "artemis-bridge")
                    .allSatisfy((target, runs) -> assertThat(runs).as(scenario + " on " + target).singleElement()
                            .satisfies(r -> assertThat(r.received()).isEqualTo(r.expected())));
        }
        assertThat(printed).contains("| foreign scenario | fedbridge -> Artemis | Artemis core bridge | fedbridge->Artemis / core bridge |",
                "== Spread, throughput", "fedbridge -> Artemis / Artemis core bridge, msg/s per round:", "RESULT complete");
        assertThat(code).isZero();
    }

    @Test
    void shouldTimeAThirdBrokerJoiningByMulticastAndPrintTheReport() {
        runComparison("discovery", List.of("discovery"));
    }
}
