package io.fedbridge.samples;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

class DemoCommandTest {

    private static final String KEY_VALUE_LINE = "(\\w+=\\S+)( \\w+=\\S+)*";

    @Test
    @Timeout(120)
    void shouldDeliverEveryMessageExactlyOnceAndSayItInOneSummaryLine() {
        CliRun run = CliRun.of("demo", "--messages", "2000");

        assertThat(run.exitCode()).as(run.toString()).isZero();
        List<String> lines = run.outLines();
        assertThat(lines).as(run.toString()).isNotEmpty();
        assertThat(lines.get(lines.size() - 1)).isEqualTo("sent=2000 received=2000 lost=0 duplicated=0");
        assertThat(lines).as("key=value lines").filteredOn(l -> l.matches(KEY_VALUE_LINE)).hasSize(1);
        assertThat(run.err()).as(run.toString()).doesNotContain("sending stopped", "without a valid");
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
}
