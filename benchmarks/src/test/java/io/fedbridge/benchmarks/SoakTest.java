package io.fedbridge.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * The chaos soak's short form, through the same command users run: five brokers in child JVMs, faults for
 * {@value #SECONDS} s (a fixed seed whose schedule kills and cuts), then every receipted message must have arrived
 * exactly once; then the same with {@code --ha}, whose schedule kills the HA group's primary. {@code -Dfedbridge.soak=true}
 * runs each for {@code fedbridge.soak.minutes} (default 30) instead.
 */
class SoakTest {

    private static final int SECONDS = 60;
    /** Its schedule: a fill, a cut and a kill within the first 30 s (see the printed faults). */
    private static final String SEED = "7";
    /** Its schedule with --ha: a kill of B4 (the HA group) first, then of B2 (see the printed faults). */
    private static final String HA_SEED = "48";

    @TempDir
    Path tmp;

    @Test
    void shouldDeliverEveryReceiptedMessageExactlyOnceWhileBrokersAreKilledAndLinksCut() throws Exception {
        Run run = soak(SEED);

        Soak.Result r = run.result();
        assertThat(r.cuts() + r.stalls()).as("link faults").isPositive();
        assertThat(r.samples()).as("samples").extracting(Soak.Sample::broker).contains(0, 1, 2, 3, 4);
        assertThat(run.printed()).doesNotContain("soak-ha:");
    }

    @Test
    void shouldDeliverEveryReceiptedMessageExactlyOnceWhileTheHaGroupsPrimaryIsKilled() throws Exception {
        Run run = soak(HA_SEED, "--ha");

        Soak.Result r = run.result();
        assertThat(r.haKills()).as("kills of the HA group's primary; printed:%n%s", run.printed()).isPositive();
        assertThat(r.haPromotions()).as("promotions after them; printed:%n%s", run.printed()).isPositive();
        assertThat(r.kills()).as("kills").isGreaterThanOrEqualTo(r.haKills());
        assertThat(r.samples()).as("samples of both members too").extracting(Soak.Sample::broker).contains(0, 1, 2, 3, 4, 5);
        assertThat(run.printed().strip().lines().toList()).as("the HA line just before the contract line")
                .endsWith(r.haLine(), r.line());
        assertThat(r.haLine()).matches("soak-ha: ha-kills=[1-9]\\d* ha-promotions=[1-9]\\d*");
    }

    private record Run(Soak.Result result, String printed) {
    }

    /** Runs the soak through the command line and checks what every run must show. */
    private Run soak(String seed, String... more) throws Exception {
        boolean full = Boolean.getBoolean("fedbridge.soak");
        String minutes = full ? System.getProperty("fedbridge.soak.minutes", "30") : Double.toString(SECONDS / 60.0);
        CommandLine cl = new CommandLine(new BenchmarkMain());
        StringWriter out = new StringWriter();
        cl.setOut(new PrintWriter(out));
        List<String> args = new ArrayList<>(List.of("soak", "--minutes", minutes, "--seed", seed, "--rate", full ? "100" : "40",
                "--fault-every-seconds", "5", "--sample-seconds", "2", "--drain-seconds", "90",
                "--jvm-args=-Xmx128m -XX:+UseSerialGC -XX:TieredStopAtLevel=1", "--work-dir", tmp.resolve("work").toString(),
                "--report-dir", tmp.resolve("report").toString()));
        args.addAll(List.of(more));

        int code = cl.execute(args.toArray(String[]::new));

        String printed = out.toString();
        SoakCommand soak = cl.getSubcommands().get("soak").getCommand();
        Soak.Result r = soak.result();
        assertThat(r).as("printed:%n%s", printed).isNotNull();
        assertThat(r.kills()).as("kills").isPositive();
        assertThat(r.receipted()).as("receipted").isGreaterThan(500);
        assertThat(r.lost()).as("receipted messages never delivered; printed:%n%s", printed).isZero();
        assertThat(r.duplicated()).as("duplicates handed to the application; printed:%n%s", printed).isZero();
        assertThat(printed.strip().lines().reduce((a, b) -> b)).hasValue(r.line());
        assertThat(r.line()).matches("soak: receipted=\\d+ delivered=\\d+ lost=0 duplicated=0 kills=\\d+ cuts=\\d+");
        assertThat(Files.readString(tmp.resolve("report/soak.html"))).contains("<svg", "kill");
        assertThat(code).isZero();
        return new Run(r, printed);
    }
}
