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
 * The topology-scale and consumer-scale commands' short forms: every shape of 8 brokers plus a random federation of 16
 * (its demand reached brokers 5-6 hops away only after the bridge kept demand across route changes), then 2,000
 * consumers on a bridged pair. Asserts correctness (demand everywhere and gone again, every message exactly once,
 * every consumer learned), never timings. {@code -Dfedbridge.soak=true} runs the full sizes (8, 16, 32; 10,000).
 */
class ScaleTest {

    @TempDir
    Path tmp;

    private static final boolean FULL = Boolean.getBoolean("fedbridge.soak");

    @Test
    void shouldCreateDemandEverywhereAndDeliverExactlyOnceInEveryShape() throws Exception {
        CommandLine cl = new CommandLine(new BenchmarkMain());
        StringWriter out = new StringWriter();
        cl.setOut(new PrintWriter(out));

        int code = cl.execute("scale", "--sizes", FULL ? "8,16,32" : "8", "--remote-subscriptions", FULL ? "100" : "20",
                "--timeout-seconds", "60", "--report-dir", tmp.toString());
        ScaleCommand scale = cl.getSubcommands().get("scale").getCommand();
        int random16 = FULL ? 0 : new CommandLine(new BenchmarkMain()).execute("scale", "--sizes", "16", "--shapes", "random",
                "--remote-subscriptions", "20", "--timeout-seconds", "60", "--report-dir", tmp.resolve("16").toString());

        assertThat(scale.failures()).as("printed:%n%s", out).isEmpty();
        assertThat(scale.runs()).hasSize(FULL ? 15 : 5).allSatisfy(r -> {
            assertThat(r.exactlyOnce()).as("%s of %d exactly once", r.shape(), r.brokers()).isTrue();
            assertThat(r.demandMillis()).as("%s of %d demand", r.shape(), r.brokers()).hasSize(3);
            // (heap per remote subscription is not asserted: 20 subscriptions weigh less than this JVM's noise)
        });
        assertThat(Files.readString(tmp.resolve("scale.html"))).contains("<svg", "mesh");
        assertThat(code).isZero();
        assertThat(random16).as("the random federation of 16").isZero();
    }

    @Test
    void shouldLearnEveryConsumerOfTheBridgedPeer() {
        CommandLine cl = new CommandLine(new BenchmarkMain());
        StringWriter out = new StringWriter();
        cl.setOut(new PrintWriter(out));

        int code = cl.execute("consumers", "--consumers", FULL ? "10000" : "2000", "--churn-seconds", FULL ? "10" : "3",
                "--churn-rate", FULL ? "1000" : "300", "--jvm-args=-Xmx256m -XX:+UseSerialGC -XX:TieredStopAtLevel=1",
                "--timeout-seconds", "90", "--log-dir", tmp.resolve("logs").toString(), "--report-dir", tmp.toString());

        ConsumersCommand consumers = cl.getSubcommands().get("consumers").getCommand();
        assertThat(code).as("printed:%n%s", out).isZero();
        ConsumersCommand.Result r = consumers.result();
        assertThat(r.heapPerRemoteSubscription()).as("heap per remote subscription").isPositive();
        assertThat(r.churn().received()).as("probe messages forwarded while consumers came and went").isPositive();
        assertThat(out.toString()).contains("| heap of A per remote subscription");
    }
}
