package io.fedbridge.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * Runs the documented benchmark command end to end with tiny numbers: real child JVMs for every target (brokers
 * and client), both scenarios, one run. Asserts only that the report is produced and that every message sent
 * arrived — never timings.
 */
class BenchmarkSmokeTest {

    @TempDir
    Path logs;

    @Test
    void shouldDeliverEveryMessageOnEveryTargetAndPrintTheReport() {
        BenchmarkMain main = new BenchmarkMain();
        CommandLine cl = new CommandLine(main);
        StringWriter out = new StringWriter();
        cl.setOut(new PrintWriter(out));

        int code = cl.execute("throughput", "--runs", "1", "--messages", "2000", "--warmup-messages", "500",
                "--warmup-seconds", "1", "--rate", "200", "--latency-seconds", "1", "--preroll-seconds", "0",
                "--stall-seconds", "20", "--retries", "0", "--targets", "fedbridge,relay,activemq",
                "--jvm-args=-Xms64m -Xmx256m -XX:TieredStopAtLevel=1", "--log-dir", logs.toString());

        ThroughputCommand cmd = cl.getSubcommands().get("throughput").getCommand();
        Report report = cmd.report();
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
}
