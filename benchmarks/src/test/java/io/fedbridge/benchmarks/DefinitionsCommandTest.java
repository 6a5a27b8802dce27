package io.fedbridge.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * The definitions benchmark's short form: a chain and a mesh of 3 stored brokers, 2 runs. Asserts that every change
 * reached every broker and the table has a row per topology, never timings.
 */
class DefinitionsCommandTest {

    @Test
    void shouldMeasureEveryTopologyAndPrintItsRow() {
        CommandLine cl = new CommandLine(new BenchmarkMain());
        StringWriter out = new StringWriter();
        cl.setOut(new PrintWriter(out));

        int code = cl.execute("definitions", "--sizes", "3", "--shapes", "chain,mesh", "--runs", "2", "--warmup", "0");

        DefinitionsCommand definitions = cl.getSubcommands().get("definitions").getCommand();
        assertThat(definitions.failures()).as("printed:%n%s", out).isEmpty();
        assertThat(code).isZero();
        assertThat(definitions.rows()).extracting(DefinitionsCommand.Row::bridges).containsExactly(2, 3);
        assertThat(definitions.rows()).allSatisfy(r -> assertThat(r.define()).hasSize(2));
        assertThat(out.toString()).contains("| 3, chain (2) |", "| 3, mesh (3) |");
    }

    @Test
    void shouldTakeTheMedianOfAnEvenCountAsTheMeanOfTheMiddleTwo() {
        assertThat(DefinitionsCommand.median(List.of(4.0, 1.0, 3.0, 2.0))).isEqualTo(2.5);
        assertThat(DefinitionsCommand.median(List.of(5.0, 1.0, 3.0))).isEqualTo(3.0);
    }

    @Test
    void shouldRefuseNoRuns() {
        CommandLine cl = new CommandLine(new BenchmarkMain());
        cl.setErr(new PrintWriter(new StringWriter()));
        StringWriter err = new StringWriter();
        cl.setErr(new PrintWriter(err));
        assertThat(cl.execute("definitions", "--runs", "0")).isNotZero();
        assertThat(err.toString()).contains("--runs must be at least 1, but was 0");
    }
}
