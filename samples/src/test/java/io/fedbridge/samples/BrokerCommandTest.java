package io.fedbridge.samples;

import static org.assertj.core.api.Assertions.assertThat;

import io.fedbridge.broker.BrokerConfig;
import io.fedbridge.broker.DestinationPolicy;
import io.fedbridge.core.Message;
import io.fedbridge.core.ReceivedMessage;
import io.fedbridge.core.StompConnection;
import io.fedbridge.core.Subscription;
import io.fedbridge.core.SubscriptionRequest;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine.ParseResult;

class BrokerCommandTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(30);
    private static final Pattern LISTENING = Pattern.compile("broker T listening on (tcp://\\S+)");

    @TempDir
    Path tmp;

    @Test
    @Timeout(120)
    void shouldServeClientsUntilSigtermThenStopCleanly() throws Exception {
        Process broker = new ProcessBuilder(javaExecutable(), "-Xmx256m", "-cp", System.getProperty("java.class.path"),
                FedbridgeCli.class.getName(), "broker", "--name", "T", "--listen", "tcp://127.0.0.1:0")
                .redirectErrorStream(true)
                .start();
        try {
            ChildOutput output = ChildOutput.follow(broker.getInputStream(), LISTENING);
            String uri = output.firstMatch().get(TIMEOUT.toSeconds(), TimeUnit.SECONDS).group(1);

            try (StompConnection client = StompConnection.connect(uri)) {
                client.send(Message.builder("/queue/cli").body("hello").build()).get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
                Subscription subscription = client.subscribe(SubscriptionRequest.of("/queue/cli"));
                ReceivedMessage received = subscription.receive(TIMEOUT);
                assertThat(received).as("message from the child broker").isNotNull();
                assertThat(received.bodyAsString()).isEqualTo("hello");
            }

            // SIGTERM. Not Process.destroy(): that also closes our end of the child's output, losing its last lines.
            broker.toHandle().destroy();
            assertThat(broker.waitFor(TIMEOUT.toSeconds(), TimeUnit.SECONDS)).as("broker exits after SIGTERM").isTrue();
            output.end().get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
            assertThat(broker.exitValue()).as("exit code; output:%n%s", output).isZero();
            assertThat(output.lines()).contains("broker T stopped");
        } finally {
            broker.destroyForcibly();
            broker.waitFor(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        }
    }

    @Test
    void shouldRejectAnUnknownFlagWithUsageAndExitCode2() {
        CliRun run = CliRun.of("broker", "--name", "T", "--lisen", "tcp://127.0.0.1:0");

        assertThat(run.exitCode()).as(run.toString()).isEqualTo(2);
        assertThat(run.err()).contains("--lisen");
        assertThat(run.out()).isEmpty();
    }

    @Test
    void shouldRequireAName() {
        CliRun run = CliRun.of("broker", "--listen", "tcp://127.0.0.1:0");

        assertThat(run.exitCode()).as(run.toString()).isEqualTo(2);
        assertThat(run.err()).contains("--name", "Usage: fedbridge broker");
    }

    @Test
    void shouldReportAnInvalidListenerUriInOneLineWithExitCode1() {
        CliRun run = CliRun.of("broker", "--name", "T", "--listen", "tcp//127.0.0.1:0");

        assertThat(run.exitCode()).as(run.toString()).isEqualTo(1);
        assertThat(run.errLines()).as(run.toString()).singleElement().asString()
                .startsWith("fedbridge broker: ")
                .contains("tcp//127.0.0.1:0");
    }

    @Test
    void shouldReportAnUnsupportedSchemeInOneLineWithExitCode1() {
        CliRun run = CliRun.of("broker", "--name", "T", "--listen", "udp://127.0.0.1:0");

        assertThat(run.exitCode()).as(run.toString()).isEqualTo(1);
        assertThat(run.errLines()).as(run.toString()).singleElement().asString().contains("udp://127.0.0.1:0");
    }

    @Test
    void shouldReportAPortInUseInOneLineWithExitCode1() throws IOException {
        try (ServerSocket taken = new ServerSocket(0, 50, InetAddress.getByName("127.0.0.1"))) {
            String uri = "tcp://127.0.0.1:" + taken.getLocalPort();

            CliRun run = CliRun.of("broker", "--name", "T", "--listen", uri);

            assertThat(run.exitCode()).as(run.toString()).isEqualTo(1);
            assertThat(run.errLines()).as(run.toString()).singleElement().asString().contains(uri);
            assertThat(run.out()).as("nothing claims to listen").isEmpty();
        }
    }

    @Test
    void shouldPrintTheStackTraceWhenVerbose() {
        CliRun run = CliRun.of("broker", "--verbose", "--name", "T", "--listen", "tcp//127.0.0.1:0");

        assertThat(run.exitCode()).as(run.toString()).isEqualTo(1);
        assertThat(run.err()).contains("IllegalArgumentException", "tcp//127.0.0.1:0", "\tat ");
    }

    @Test
    @Timeout(120)
    void shouldRunANodeNamedByItsConfigFile() throws Exception {
        Path file = write("t.conf", "name = T\nlisten = tcp://127.0.0.1:0\n");
        Process broker = new ProcessBuilder(javaExecutable(), "-Xmx256m", "-cp", System.getProperty("java.class.path"),
                FedbridgeCli.class.getName(), "broker", "--config", file.toString())
                .redirectErrorStream(true)
                .start();
        try {
            ChildOutput output = ChildOutput.follow(broker.getInputStream(), LISTENING);
            String uri = output.firstMatch().get(TIMEOUT.toSeconds(), TimeUnit.SECONDS).group(1);
            assertThat(uri).matches("tcp://127\\.0\\.0\\.1:\\d+").doesNotEndWith(":0");

            broker.toHandle().destroy();
            assertThat(broker.waitFor(TIMEOUT.toSeconds(), TimeUnit.SECONDS)).as("broker exits after SIGTERM").isTrue();
            output.end().get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
            assertThat(broker.exitValue()).as("exit code; output:%n%s", output).isZero();
            assertThat(output.lines()).contains("broker T stopped");
        } finally {
            broker.destroyForcibly();
            broker.waitFor(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        }
    }

    @Test
    void shouldTakeTheNodeSettingsFromTheConfigFile() throws IOException {
        Path file = write("node.conf", """
                name = F
                listen = tcp://127.0.0.1:61700, tcp://127.0.0.1:61701
                data = store
                memoryLimit = 1MiB
                network = static:(tcp://127.0.0.1:61614)?networkTTL=2
                [policy >]
                maxNumMsgs = 7
                """);

        BrokerConfig c = parsed("broker", "--config", file.toString()).config();

        assertThat(c.name()).isEqualTo("F");
        assertThat(c.listeners()).containsExactly("tcp://127.0.0.1:61700", "tcp://127.0.0.1:61701");
        assertThat(c.dataDirectory()).isEqualTo(tmp.toAbsolutePath().resolve("store"));
        assertThat(c.memoryLimit()).isEqualTo(1024 * 1024);
        assertThat(c.networkConnectors()).containsExactly("static:(tcp://127.0.0.1:61614)?networkTTL=2");
        assertThat(c.policies()).containsExactly(DestinationPolicy.builder(">").maxNumMsgs(7).build());
    }

    @Test
    void shouldLetFlagsOverrideTheConfigFile() throws IOException {
        Path file = write("node.conf", """
                name = F
                listen = tcp://127.0.0.1:61700
                listen = tcp://127.0.0.1:61701
                data = store
                memoryLimit = 1MiB
                network = static:(tcp://127.0.0.1:61614)
                """);

        BrokerConfig c = parsed("broker", "--config", file.toString(), "--name", "G",
                "--listen", "tcp://127.0.0.1:0", "--data", "elsewhere").config();

        assertThat(c.name()).isEqualTo("G");
        assertThat(c.listeners()).as("--listen replaces every listen line").containsExactly("tcp://127.0.0.1:0");
        assertThat(c.dataDirectory()).as("relative to the working directory").isEqualTo(Path.of("elsewhere"));
        assertThat(c.memoryLimit()).isEqualTo(1024 * 1024);
        assertThat(c.networkConnectors()).containsExactly("static:(tcp://127.0.0.1:61614)");
    }

    @Test
    void shouldListenOnTheDefaultWhenNeitherConfigFileNorFlagsGiveAListener() throws IOException {
        Path file = write("node.conf", "name = F\n");

        assertThat(parsed("broker", "--config", file.toString()).config().listeners())
                .containsExactly(BrokerCommand.DEFAULT_LISTENER);
        assertThat(parsed("broker", "--name", "F").config().listeners()).containsExactly(BrokerCommand.DEFAULT_LISTENER);
    }

    @Test
    void shouldTakeTheNameFromTheFlagWhenTheConfigFileHasNone() throws IOException {
        Path file = write("node.conf", "listen = tcp://127.0.0.1:0\n");

        BrokerConfig c = parsed("broker", "--config", file.toString(), "--name", "H").config();

        assertThat(c.name()).isEqualTo("H");
        assertThat(c.listeners()).containsExactly("tcp://127.0.0.1:0");
    }

    @Test
    void shouldRequireANameFromTheFlagOrTheConfigFile() throws IOException {
        Path file = write("node.conf", "listen = tcp://127.0.0.1:0\n");

        CliRun run = CliRun.of("broker", "--config", file.toString());

        assertThat(run.exitCode()).as(run.toString()).isEqualTo(2);
        assertThat(run.err()).contains("--name", "has no name", "Usage: fedbridge broker");
        assertThat(run.out()).isEmpty();
    }

    @Test
    void shouldReportAConfigFileErrorInOneLineWithExitCode1() throws IOException {
        Path file = write("node.conf", "name = F\nmemoryLimt = 1GiB\n");

        CliRun run = CliRun.of("broker", "--config", file.toString(), "--listen", "tcp://127.0.0.1:0");

        assertThat(run.exitCode()).as(run.toString()).isEqualTo(1);
        assertThat(run.errLines()).as(run.toString()).singleElement().asString()
                .startsWith("fedbridge broker: " + file + ":2: unknown key 'memoryLimt'")
                .endsWith("did you mean 'memoryLimit'?");
        assertThat(run.out()).isEmpty();
    }

    @Test
    void shouldNameAMissingConfigFileWithExitCode1() {
        Path missing = tmp.resolve("missing.conf");

        CliRun run = CliRun.of("broker", "--config", missing.toString());

        assertThat(run.exitCode()).as(run.toString()).isEqualTo(1);
        assertThat(run.errLines()).as(run.toString()).singleElement().asString()
                .isEqualTo("fedbridge broker: " + missing + ": config file not found");
    }

    @Test
    void shouldReportAnInvalidListenFlagOverAConfigFileInOneLine() throws IOException {
        Path file = write("node.conf", "name = F\n");

        CliRun run = CliRun.of("broker", "--config", file.toString(), "--listen", "udp://127.0.0.1:0");

        assertThat(run.exitCode()).as(run.toString()).isEqualTo(1);
        assertThat(run.errLines()).as(run.toString()).singleElement().asString().contains("udp://127.0.0.1:0");
    }

    private Path write(String name, String text) throws IOException {
        return Files.writeString(tmp.resolve(name), text);
    }

    /** The broker command as picocli parsed {@code args}, not run. */
    @Test
    void shouldAddNetworkConnectorsFromRepeatedNetworkFlags() {
        BrokerConfig c = parsed("broker", "--name", "N", "--network", "static:(tcp://127.0.0.1:61614)?networkTTL=2",
                "--network", "static:(tcp://127.0.0.1:61615)").config();
        assertThat(c.networkConnectors()).containsExactly("static:(tcp://127.0.0.1:61614)?networkTTL=2",
                "static:(tcp://127.0.0.1:61615)");
    }

    @Test
    void shouldServeMetricsFromTheMetricsFlagOverTheConfigFiles() throws IOException {
        Path file = write("m.conf", "name = M\nmetrics = http://127.0.0.1:9404\n");
        assertThat(parsed("broker", "--config", file.toString()).config().metrics()).isEqualTo("http://127.0.0.1:9404");
        assertThat(parsed("broker", "--config", file.toString(), "--metrics", "http://127.0.0.1:0").config().metrics())
                .isEqualTo("http://127.0.0.1:0");
        assertThat(parsed("broker", "--name", "M", "--metrics", "http://127.0.0.1:0").config().metrics())
                .isEqualTo("http://127.0.0.1:0");
    }

    @Test
    void shouldListenForStompOverWebSocketFromTheListenFlag() {
        BrokerConfig c = parsed("broker", "--name", "W", "--listen", "ws://127.0.0.1:0/stomp").config();
        assertThat(c.listeners()).containsExactly("ws://127.0.0.1:0/stomp");
        try (io.fedbridge.broker.Broker b = io.fedbridge.broker.Broker.start(c)) {
            assertThat(b.connectUris()).singleElement().asString().matches("ws://127\\.0\\.0\\.1:\\d+/stomp");
        }
    }

    private static BrokerCommand parsed(String... args) {
        ParseResult result = FedbridgeCli.commandLine().parseArgs(args);
        return result.subcommand().commandSpec().commandLine().getCommand();
    }

    private static String javaExecutable() {
        return ProcessHandle.current().info().command().orElseThrow();
    }

    /** Reads a child's output line by line on a daemon thread, so the child never blocks on a full pipe. */
    private static final class ChildOutput {
        private final List<String> lines = new CopyOnWriteArrayList<>();
        private final CompletableFuture<Matcher> firstMatch = new CompletableFuture<>();
        private final CompletableFuture<Void> end = new CompletableFuture<>();

        static ChildOutput follow(InputStream in, Pattern pattern) {
            ChildOutput o = new ChildOutput();
            Thread t = new Thread(() -> o.read(in, pattern), "child-output");
            t.setDaemon(true);
            t.start();
            return o;
        }

        private void read(InputStream in, Pattern pattern) {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
                for (String line = r.readLine(); line != null; line = r.readLine()) {
                    lines.add(line);
                    Matcher m = pattern.matcher(line);
                    if (m.matches()) {
                        firstMatch.complete(m);
                    }
                }
            } catch (IOException e) {
                firstMatch.completeExceptionally(new UncheckedIOException(e));
            } finally {
                firstMatch.completeExceptionally(new IllegalStateException("child output ended without a line matching "
                        + pattern + ":\n" + this));
                end.complete(null);
            }
        }

        /** The first line matching the pattern; fails if the output ends without one. */
        CompletableFuture<Matcher> firstMatch() {
            return firstMatch;
        }

        /** Completes when the child closed its output. */
        CompletableFuture<Void> end() {
            return end;
        }

        List<String> lines() {
            return lines;
        }

        @Override
        public String toString() {
            return String.join("\n", lines);
        }
    }
}
