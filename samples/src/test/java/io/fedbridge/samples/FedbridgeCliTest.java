package io.fedbridge.samples;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class FedbridgeCliTest {

    @Test
    void shouldListTheSubcommandsInItsHelp() {
        CliRun run = CliRun.of("--help");

        assertThat(run.exitCode()).as(run.toString()).isZero();
        assertThat(run.out()).contains("Usage: fedbridge", "broker", "demo");
    }

    @Test
    void shouldPrintTheProjectVersion() {
        CliRun run = CliRun.of("--version");

        assertThat(run.exitCode()).as(run.toString()).isZero();
        assertThat(run.outLines().get(0)).matches("fedbridge \\d+\\.\\d+\\.\\d+(-SNAPSHOT)?");
    }

    @Test
    void shouldExitWithUsageErrorWithoutASubcommand() {
        CliRun run = CliRun.of();

        assertThat(run.exitCode()).as(run.toString()).isEqualTo(2);
        assertThat(run.err()).contains("Missing required subcommand", "Usage: fedbridge");
    }

    @Test
    void shouldNameAnUnknownSubcommand() {
        CliRun run = CliRun.of("brokr");

        assertThat(run.exitCode()).as(run.toString()).isEqualTo(2);
        assertThat(run.err()).contains("brokr");
    }
}
