package io.fedbridge.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import io.fedbridge.benchmarks.ScenarioReport.Sample;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.activemq.artemis.api.core.RoutingType;
import org.apache.activemq.artemis.core.config.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * The {@code foreign} benchmark's options, how it wires each pair's link and how it prints the spread — no child
 * processes, no timings ({@code BenchmarkSmokeTest} runs it end to end).
 */
class ForeignCommandTest {

    @TempDir
    Path dir;

    @Test
    void shouldMeasureTheFourPairsWithThePerFrameClientByDefault() {
        CommandLine cl = new CommandLine(new BenchmarkMain());
        cl.parseArgs("foreign");

        ForeignCommand cmd = cl.getSubcommands().get("foreign").getCommand();
        assertThat(cmd.targets).containsExactly("fedbridge-artemis", "artemis-bridge", "fedbridge-rabbitmq", "rabbitmq-shovel");
        assertThat(cmd.clientMode).isEqualTo("per-frame");
        assertThat(cmd.scenarios).containsExactly("throughput", "persistent");
    }

    @Test
    void shouldRefuseATargetOfAnotherBenchmarkNamingTheValidOnes() {
        String err = refused("--targets", "fedbridge-artemis,activemq");

        assertThat(err).contains("targets of the foreign benchmark must be fedbridge-artemis, artemis-bridge, fedbridge-rabbitmq,"
                + " rabbitmq-shovel, but was activemq");
    }

    @Test
    void shouldRefuseAScenarioItDoesNotHave() {
        assertThat(refused("--scenarios", "throughput,latency")).contains("scenarios any of [throughput, persistent]",
                "[throughput, latency]");
    }

    @Test
    void shouldRefuseTheForeignPairsInTheBridgeBenchmark() {
        assertThat(refused("bridge", "--targets", "fedbridge-rabbitmq"))
                .contains("targets of the bridge benchmark must be fedbridge variants and activemq, but was fedbridge-rabbitmq");
    }

    private String refused(String... args) {
        CommandLine cl = new CommandLine(new BenchmarkMain());
        StringWriter err = new StringWriter();
        cl.setErr(new PrintWriter(err));
        List<String> a = new java.util.ArrayList<>(args[0].startsWith("-") ? List.of("foreign") : List.of());
        a.addAll(List.of(args));
        a.addAll(List.of("--log-dir", dir.resolve("logs").toString()));

        int code = cl.execute(a.toArray(String[]::new));

        assertThat(code).as(err.toString()).isEqualTo(2);
        assertThat(dir.resolve("logs")).as("refused before anything starts").doesNotExist();
        return err.toString();
    }

    @Test
    void shouldBridgeFedbridgeToThePeersStompUriWithItsLoginAndOnlyTheBenchQueue() {
        assertThat(ForeignCommand.connector("tcp://127.0.0.1:61613?host=/&login=guest&passcode=guest"))
                .isEqualTo("static:(tcp://127.0.0.1:61613?host=/&login=guest&passcode=guest)?staticallyIncludedDestinations=/queue/bench");
    }

    @Test
    void shouldGiveTheSourceArtemisACoreBridgeWithAConfirmationWindowToTheTargetsBenchAddress() throws Exception {
        Configuration a = ArtemisBrokerMain.configuration("A", dir, "tcp://127.0.0.1:61617");
        Configuration b = ArtemisBrokerMain.configuration("B", dir, null);

        assertThat(a.getBridgeConfigurations()).singleElement().satisfies(bridge -> {
            assertThat(bridge.getQueueName()).isEqualTo("bench");
            assertThat(bridge.getForwardingAddress()).isEqualTo("bench");
            assertThat(bridge.getStaticConnectors()).containsExactly("peer");
            assertThat(bridge.getConfirmationWindowSize()).as("store and forward").isEqualTo(1024 * 1024);
        });
        assertThat(String.valueOf(a.getConnectorConfigurations().get("peer").getParams().get("port"))).isEqualTo("61617");
        assertThat(b.getBridgeConfigurations()).isEmpty();
        for (Configuration c : List.of(a, b)) {
            assertThat(c.getQueueConfigs()).singleElement().satisfies(q -> {
                assertThat(q.getName().toString()).isEqualTo("bench");
                assertThat(q.getRoutingType()).isEqualTo(RoutingType.ANYCAST);
                assertThat(q.isDurable()).isTrue();
            });
            assertThat(c.isPersistenceEnabled()).isTrue();
            assertThat(c.getAcceptorConfigurations()).extracting(t -> t.getParams().get("protocols")).contains("STOMP", "CORE");
        }
    }

    @Test
    void shouldShovelTheSourceNodesBenchQueueToTheTargetsOnConfirm() {
        assertThat(RabbitMqNodeMain.shovelDefinition(5672, 5673)).contains("\"src-uri\":\"amqp://guest:guest@127.0.0.1:5672\"",
                "\"src-queue\":\"bench\"", "\"dest-uri\":\"amqp://guest:guest@127.0.0.1:5673\"", "\"dest-queue\":\"bench\"",
                "\"ack-mode\":\"on-confirm\"", "\"src-prefetch-count\":1000");
        assertThat(RabbitMqNodeMain.config(61613, 0)).contains("listeners.tcp = none", "stomp.listeners.tcp.1 = 127.0.0.1:61613");
        assertThat(RabbitMqNodeMain.config(61613, 5672)).contains("listeners.tcp.1 = 127.0.0.1:5672").doesNotContain("= none");
        assertThat(RabbitMqNodeMain.enabledPlugins(true)).isEqualTo("[rabbitmq_stomp,rabbitmq_shovel].\n");
        assertThat(RabbitMqNodeMain.enabledPlugins(false)).isEqualTo("[rabbitmq_stomp].\n");
    }

    @Test
    void shouldSayWhyRabbitMqCannotRunWhereThePackageIsMissing() {
        assertThat(RabbitMqNodeMain.unavailableReason(dir)).contains("RabbitMQ is not installed", "apt-get install rabbitmq-server");
    }

    @Test
    void shouldPrintMedianRangeAndTheRatioOfEachInterleavedRound() {
        ForeignCommand cmd = new ForeignCommand();
        List<Target> ts = List.of(Target.FEDBRIDGE_ARTEMIS, Target.ARTEMIS_BRIDGE);
        cmd.report = new ScenarioReport("foreign", ts, 3);
        cmd.report.scenario(new ScenarioReport.Scenario("throughput", "t", "t", ForeignCommand.MSGS, List.of(), List.of(), true));
        double[][] rates = {{1_000, 3_000, 2_000}, {1_000, 1_000, 1_000}};
        for (int r = 0; r < 3; r++) {
            for (int i = 0; i < ts.size(); i++) {
                cmd.report.add("throughput", ts.get(i), new Sample(Map.of(ForeignCommand.MSGS.key(), rates[i][r],
                        ForeignCommand.A_CPU.key(), 10.0 + r, ForeignCommand.B_CPU.key(), 20.0, ForeignCommand.CLIENT_CORES.key(), 0.1),
                        1, 1, 30, 5, 0.5));
            }
        }

        List<String> lines = cmd.spread("throughput", ts);

        assertThat(lines.get(1)).startsWith("fedbridge -> Artemis").contains("2,000 [1,000 - 3,000] ±50%", "11.0 [10.0 - 12.0]",
                "0.10 [0.10 - 0.10]", "max 0.50");
        assertThat(lines.get(2)).startsWith("Artemis core bridge").contains("1,000 [1,000 - 1,000] ±0%");
        assertThat(lines.get(3)).isEqualTo("fedbridge -> Artemis / Artemis core bridge, msg/s per round: 1.00x 3.00x 2.00x");
    }
}
