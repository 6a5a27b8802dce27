package io.fedbridge.broker.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A fedbridge broker in a child JVM ({@link ChildBrokerMain}) started from the test classpath, to be killed with
 * SIGKILL and restarted on the same name, data directory, port and network connector: the one child-JVM broker of the
 * broker's and the failover client's multi-process tests. {@link #close()} kills it too, waits until it is reaped and
 * checks its log for Netty leaks (paranoid leak detection runs in the child too), so use try-with-resources or close it
 * in {@code @AfterEach}.
 *
 * <pre>{@code
 * try (ChildBroker c = ChildBroker.start("C", dir.resolve("C"), 0, null, logs)) {
 *     c.kill();
 *     try (ChildBroker again = c.restart()) { ... }   // same name, data, port and network connector
 * }
 * }</pre>
 *
 * <p>Thread-safe: {@link #kill()} may be called from any thread, a Netty event loop included.
 */
public final class ChildBroker implements AutoCloseable {

    private static final Duration START_TIMEOUT = Duration.ofSeconds(30);
    private static final Duration REAP_TIMEOUT = Duration.ofSeconds(30);
    private static final Duration STATS_TIMEOUT = Duration.ofSeconds(10);
    /** How long a restart retries while the old process's port is not yet free. */
    private static final Duration REBIND_TIMEOUT = Duration.ofSeconds(15);

    /** The child exited before it was ready, e.g. because its port was still taken; worth a retry. */
    public static final class StartFailed extends RuntimeException {
        private static final long serialVersionUID = 1L;

        StartFailed(String message) {
            super(message);
        }
    }

    private final String name;
    private final Path dataDirectory;
    private final String networkConnector;
    private final List<String> jvmOptions;
    private final Path logDirectory;
    private final int run;
    private final Process process;
    private final Path log;
    private final String uri;
    private final BlockingQueue<String> statsLines;

    private ChildBroker(String name, Path dataDirectory, String networkConnector, List<String> jvmOptions, Path logDirectory,
                        int run, Process process, Path log, String uri, BlockingQueue<String> statsLines) {
        this.name = name;
        this.dataDirectory = dataDirectory;
        this.networkConnector = networkConnector;
        this.jvmOptions = jvmOptions;
        this.logDirectory = logDirectory;
        this.run = run;
        this.process = process;
        this.log = log;
        this.uri = uri;
        this.statsLines = statsLines;
    }

    /**
     * Starts broker {@code name} in a child JVM and waits (bounded) for its {@code READY <uri>} line.
     *
     * @param port             0 for any free port
     * @param networkConnector a discovery URI for its one network connector, or null
     * @param logDirectory     where its stderr goes ({@code NAME-RUN.log})
     * @throws StartFailed if the child exits before it is ready (its reason is in the message)
     */
    public static ChildBroker start(String name, Path dataDirectory, int port, String networkConnector, Path logDirectory)
            throws IOException, InterruptedException {
        return start(name, dataDirectory, port, networkConnector, logDirectory, List.of());
    }

    /** The same, with extra options for the child JVM (kept for its restarts), e.g. {@code -XX:TieredStopAtLevel=1}. */
    public static ChildBroker start(String name, Path dataDirectory, int port, String networkConnector, Path logDirectory,
                                    List<String> jvmOptions) throws IOException, InterruptedException {
        Files.createDirectories(logDirectory);
        return start(name, dataDirectory, port, networkConnector, List.copyOf(jvmOptions), logDirectory, 1,
                logDirectory.resolve(name + "-1.log"));
    }

    /** A broker named {@code crash} on any free port, with no network connector; its stderr goes to {@code log}. */
    public static ChildBroker start(Path dataDirectory, Path log) throws IOException, InterruptedException {
        return start("crash", dataDirectory, 0, null, List.of(), log.toAbsolutePath().getParent(), 1, log);
    }

    private static ChildBroker start(String name, Path dataDirectory, int port, String networkConnector, List<String> jvmOptions,
                                     Path logDirectory, int run, Path log) throws IOException, InterruptedException {
        String java = ProcessHandle.current().info().command()
                .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        List<String> cmd = new ArrayList<>(List.of(java, "-Xmx256m", "-XX:+UseSerialGC"));
        cmd.addAll(jvmOptions);
        cmd.addAll(List.of("-Dio.netty.leakDetection.level=paranoid", "-Dorg.slf4j.simpleLogger.defaultLogLevel=info",
                "-cp", System.getProperty("java.class.path"),
                ChildBrokerMain.class.getName(), name, dataDirectory.toString(), Integer.toString(port)));
        if (networkConnector != null) {
            cmd.add(networkConnector);
        }
        Process p = new ProcessBuilder(cmd).redirectError(log.toFile()).start();
        CompletableFuture<String> ready = new CompletableFuture<>();
        BlockingQueue<String> statsLines = new LinkedBlockingQueue<>();
        Thread reader = new Thread(() -> readStdout(p, ready, statsLines), "child-broker-" + name + "-stdout");
        reader.setDaemon(true);
        reader.start();
        try {
            String uri = ready.get(START_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            return new ChildBroker(name, dataDirectory, networkConnector, jvmOptions, logDirectory, run, p, log, uri, statsLines);
        } catch (ExecutionException e) {
            reap(p);
            throw new StartFailed("child broker " + name + " (run " + run + ") did not start: " + e.getCause().getMessage()
                    + "; its stderr:\n" + tail(log));
        } catch (TimeoutException e) {
            reap(p);
            throw new AssertionError("child broker " + name + " not ready within " + START_TIMEOUT + "; its stderr:\n"
                    + tail(log), e);
        } catch (InterruptedException | RuntimeException e) {
            reap(p);
            throw e;
        }
    }

    private static void readStdout(Process p, CompletableFuture<String> ready, BlockingQueue<String> statsLines) {
        try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = r.readLine()) != null) {
                if (line.startsWith("READY ")) {
                    ready.complete(line.substring("READY ".length()).trim());
                } else if (line.startsWith("STATS ")) {
                    statsLines.add(line.substring("STATS ".length()));
                } else if (line.startsWith("FAILED ")) {
                    ready.completeExceptionally(new IllegalStateException(line.substring("FAILED ".length())));
                }
            }
        } catch (IOException e) {
            // the pipe breaks when the child is killed
        }
        ready.completeExceptionally(new IllegalStateException("child exited before it was ready"));
    }

    /**
     * Starts this broker again (the process must be dead) on the same data directory, port and network connector,
     * retrying while the port is not yet free again.
     */
    public ChildBroker restart() {
        assertThat(process.isAlive()).as("%s is dead before its restart", this).isFalse();
        AtomicReference<ChildBroker> started = new AtomicReference<>();
        AtomicInteger attempt = new AtomicInteger();
        await("broker " + name + " restarted on port " + port()).atMost(REBIND_TIMEOUT).pollInSameThread()
                .pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(200))
                .until(() -> {
                    int next = run + attempt.incrementAndGet();
                    try {
                        started.set(start(name, dataDirectory, port(), networkConnector, jvmOptions, logDirectory, next,
                                logDirectory.resolve(name + "-" + next + ".log")));
                        return true;
                    } catch (StartFailed e) {
                        if (!e.getMessage().contains("could not listen")) {
                            throw new AssertionError("broker " + name + " failed to restart, not for its port: "
                                    + e.getMessage(), e);
                        }
                        return false; // the port is not free yet
                    }
                });
        return started.get();
    }

    /** The broker's {@code tcp://127.0.0.1:PORT}. */
    public String uri() {
        return uri;
    }

    public int port() {
        return URI.create(uri).getPort();
    }

    public String name() {
        return name;
    }

    /** This run's log (the child's stderr). */
    public Path log() {
        return log;
    }

    /** The broker's counters, as {@link ChildBrokerMain} reports them: {@code duplicatesDropped=N bridges=...}. */
    public synchronized String stats() throws IOException, InterruptedException {
        statsLines.clear();
        process.getOutputStream().write("STATS\n".getBytes(StandardCharsets.UTF_8));
        process.getOutputStream().flush();
        String line = statsLines.poll(STATS_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        assertThat(line).as("stats from %s within %s", this, STATS_TIMEOUT).isNotNull();
        return line;
    }

    /** Sends SIGKILL and returns at once: safe on any thread, including a Netty event loop. */
    public void kill() {
        process.destroyForcibly();
    }

    /** Sends SIGKILL and waits until the process is reaped. */
    public void killAndReap() throws InterruptedException {
        reap(process);
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    /** Kills the child if it still runs and waits until it is reaped; then checks that it logged no Netty buffer leak. */
    @Override
    public void close() throws InterruptedException {
        reap(process);
        assertThat(read(log)).as("child broker %s stderr (%s)", name, log).doesNotContain("LEAK:");
    }

    private static void reap(Process p) throws InterruptedException {
        p.destroyForcibly();
        assertThat(p.waitFor(REAP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)).as("child broker reaped").isTrue();
    }

    /** The last {@code chars} characters of this run's log. */
    public String logTail(int chars) {
        String s = read(log);
        return s.length() > chars ? "..." + s.substring(s.length() - chars) : s;
    }

    public static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            return "(cannot read " + file + ": " + e.getMessage() + ")";
        }
    }

    /** The last 40 lines of {@code file}. */
    public static String tail(Path file) {
        String[] lines = read(file).split("\n");
        return String.join("\n", Arrays.asList(lines).subList(Math.max(0, lines.length - 40), lines.length));
    }

    @Override
    public String toString() {
        return "ChildBroker[" + name + ", " + uri + ", pid " + process.pid() + "]";
    }
}
