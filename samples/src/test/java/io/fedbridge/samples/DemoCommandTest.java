package io.fedbridge.samples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The demo as CI runs it: in this JVM, output not a terminal (so without the live view), three brokers bridged
 * A -> B -> C.
 */
class DemoCommandTest {

    private static final String KEY_VALUE_LINE = "(\\w+=\\S+)( \\w+=\\S+)*";
    private static final Pattern DATA_DIRECTORY = Pattern.compile("\\s*data directories in (\\S+) \\(deleted at the end\\)");
    /** Threads of the demo's brokers (fedbridge-A-io, fedbridge-B-discovery, …) and of the demo itself. */
    private static final Pattern DEMO_THREAD = Pattern.compile("fedbridge-([ABC]|demo)-.*");

    @Test
    @Timeout(120)
    void shouldCarryEveryMessageFromAThroughBToCExactlyOnceAndSayItInOneSummaryLine() {
        CliRun run = CliRun.of("demo", "--messages", "2000");

        assertThat(run.exitCode()).as(run.toString()).isZero();
        List<String> lines = run.outLines();
        assertThat(lines).as(run.toString()).isNotEmpty();
        assertThat(lines.get(lines.size() - 1)).isEqualTo("sent=2000 received=2000 lost=0 duplicated=0");
        assertThat(lines).as("key=value lines").filteredOn(l -> l.matches(KEY_VALUE_LINE)).hasSize(1);
        assertThat(run.out()).as(run.toString())
                .contains("bridged in a chain A -> B -> C", "federation ready")
                .containsPattern("(?m)^A -> B +UP +\\d+ +\\d{4,} +0 ")
                .containsPattern("(?m)^B -> C +UP +\\d+ +\\d{4,} +0 ")
                .as("no live view without a terminal").doesNotContain("\u001b[");
        assertThat(run.err()).as(run.toString()).doesNotContain("sending stopped", "without a valid", "still on");
    }

    @Test
    @Timeout(120)
    void shouldLoseAndDuplicateNothingWhenTheMiddleBrokerIsStoppedAbruptlyAndRestarted() {
        CliRun run = CliRun.of("demo", "--kill-middle", "--messages", "3000");

        assertThat(run.exitCode()).as(run.toString()).isZero();
        List<String> lines = run.outLines();
        assertThat(lines.get(lines.size() - 1)).as(run.toString()).isEqualTo("sent=3000 received=3000 lost=0 duplicated=0");
        assertThat(lines).as("key=value lines").filteredOn(l -> l.matches(KEY_VALUE_LINE)).hasSize(1);
        assertThat(run.out()).as(run.toString())
                .contains("stopping B abruptly", "B restarted on", "same data directory, same port", "every link up again")
                .containsPattern("(?m)^A -> B +UP ")
                .containsPattern("(?m)^B -> C +UP ");
        assertThat(restartedUri(run)).as("B keeps its URI across the restart").isEqualTo(brokerUri(run, "B"));
        assertThat(run.err()).as(run.toString()).doesNotContain("sending stopped", "without a valid", "still on");
    }

    @Test
    @Timeout(120)
    void shouldBridgeEveryBrokerToEveryOtherWithMulticastDiscovery() {
        CliRun run = CliRun.of("demo", "--discovery", "multicast", "--messages", "1000");

        assumeFalse(run.exitCode() == 1 && run.err().contains("multicast may not be available"),
                "multicast on the loopback interface is not available here: " + run.err());
        assertThat(run.exitCode()).as(run.toString()).isZero();
        List<String> lines = run.outLines();
        assertThat(lines.get(lines.size() - 1)).as(run.toString()).isEqualTo("sent=1000 received=1000 lost=0 duplicated=0");
        assertThat(run.out()).as(run.toString()).contains("multicast discovery on the loopback interface");
        for (String link : List.of("A -> B", "A -> C", "B -> A", "B -> C", "C -> A", "C -> B")) {
            assertThat(run.out()).as(run.toString()).containsPattern("(?m)^" + link + " +UP ");
        }
    }

    @Test
    @Timeout(120)
    void shouldLeaveNoBrokerThreadOrDataDirectoryBehind() {
        CliRun run = CliRun.of("demo", "--messages", "200");

        assertThat(run.exitCode()).as(run.toString()).isZero();
        Matcher m = DATA_DIRECTORY.matcher(run.out());
        assertThat(m.find()).as(run.toString()).isTrue();
        assertThat(Files.exists(Path.of(m.group(1)))).as("%s deleted", m.group(1)).isFalse();
        await("the demo's threads end").atMost(Duration.ofSeconds(10))
                .untilAsserted(() -> assertThat(demoThreads()).isEmpty());
    }

    @Test
    void shouldRejectANonPositiveMessageCountWithExitCode2() {
        CliRun run = CliRun.of("demo", "--messages", "0");

        assertThat(run.exitCode()).as(run.toString()).isEqualTo(2);
        assertThat(run.err()).contains("--messages must be > 0, but was 0");
    }

    @Test
    void shouldRejectANonNumericMessageCountWithExitCode2() {
        CliRun run = CliRun.of("demo", "--messages", "many");

        assertThat(run.exitCode()).as(run.toString()).isEqualTo(2);
        assertThat(run.err()).contains("--messages", "many");
    }

    @Test
    void shouldRejectAnUnknownDiscoveryWithExitCode2() {
        CliRun run = CliRun.of("demo", "--discovery", "dns");

        assertThat(run.exitCode()).as(run.toString()).isEqualTo(2);
        assertThat(run.err()).contains("--discovery", "must be static or multicast, but was 'dns'");
    }

    @Test
    void shouldDescribeKillMiddleAndDiscoveryInItsHelp() {
        CliRun run = CliRun.of("demo", "--help");

        assertThat(run.exitCode()).as(run.toString()).isZero();
        assertThat(run.out()).contains("--messages", "--kill-middle", "--discovery", "--plain");
    }

    private static String brokerUri(CliRun run, String name) {
        Matcher m = Pattern.compile("(?m)^\\s*broker " + name + "\\s+(tcp://\\S+)").matcher(run.out());
        assertThat(m.find()).as(run.toString()).isTrue();
        return m.group(1);
    }

    private static String restartedUri(CliRun run) {
        Matcher m = Pattern.compile("B restarted on (tcp://\\S+)").matcher(run.out());
        assertThat(m.find()).as(run.toString()).isTrue();
        return m.group(1);
    }

    private static Set<String> demoThreads() {
        return Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive).map(Thread::getName)
                .filter(n -> DEMO_THREAD.matcher(n).matches()).collect(Collectors.toSet());
    }
}
