package io.fedbridge.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * The chaos soak's short form, through the same command users run: five brokers in child JVMs, faults for
 * {@value #SECONDS} s (a fixed seed whose schedule kills and cuts), then every receipted message must have arrived
 * exactly once. {@code -Dfedbridge.soak=true} runs it for {@code fedbridge.soak.minutes} (default 30) instead.
 */
class SoakTest {

    private static final int SECONDS = 30;
    /** Its schedule: a fill, a cut and a kill within the first 30 s (see the printed faults). */
    private static final String SEED = "7";

    @TempDir
    Path tmp;

    @Test
    void shouldDeliverEveryReceiptedMessageExactlyOnceWhileBrokersAreKilledAndLinksCut() throws Exception {
        boolean full = Boolean.getBoolean("fedbridge.soak");
        String minutes = full ? System.getProperty("fedbridge.soak.minutes", "30") : Double.toString(SECONDS / 60.0);
        CommandLine cl = new CommandLine(new BenchmarkMain());
        StringWriter out = new StringWriter();
        cl.setOut(new PrintWriter(out));

        int code = cl.execute("soak", "--minutes", minutes, "--seed", SEED, "--rate", full ? "100" : "40",
                "--fault-every-seconds", "5", "--sample-seconds", "2", "--drain-seconds", "90",
                "--jvm-args=-Xmx128m -XX:+UseSerialGC -XX:TieredStopAtLevel=1", "--work-dir", tmp.resolve("work").toString(),
                "--report-dir", tmp.resolve("report").toString());

        String printed = out.toString();
        SoakCommand soak = cl.getSubcommands().get("soak").getCommand();
        Soak.Result r = soak.result();
        assertThat(r).as("printed:%n%s", printed).isNotNull();
        assertThat(r.kills()).as("kills").isPositive();
        assertThat(r.cuts() + r.stalls()).as("link faults").isPositive();
        assertThat(r.receipted()).as("receipted").isGreaterThan(500);
        assertThat(r.lost()).as("receipted messages never delivered; printed:%n%s", printed).isZero();
        assertThat(r.duplicated()).as("duplicates handed to the application; printed:%n%s", printed).isZero();
        assertThat(r.samples()).as("samples").extracting(Soak.Sample::broker).contains(0, 1, 2, 3, 4);
        assertThat(printed.strip().lines().reduce((a, b) -> b)).hasValue(r.line());
        assertThat(r.line()).matches("soak: receipted=\\d+ delivered=\\d+ lost=0 duplicated=0 kills=\\d+ cuts=\\d+");
        assertThat(Files.readString(tmp.resolve("report/soak.html"))).contains("<svg", "kill");
        assertThat(code).isZero();
    }
}
