package io.fedbridge.failover.integration;

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
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A fedbridge broker in a child JVM ({@link FailoverBrokerMain}) started from the test classpath, to be killed with
 * SIGKILL and restarted on the same name, data directory, port and network connector. {@link #close()} kills it too,
 * waits until it is reaped and checks its log for Netty leaks: use try-with-resources or the support base's tracking.
 * Public for the JMS client's tests (this module's test-jar).
 */
public final class ChildBroker implements AutoCloseable {

    private static final Duration START_TIMEOUT = Duration.ofSeconds(30);
    private static final Duration REAP_TIMEOUT = Duration.ofSeconds(30);

    private final String name;
    private final Path dataDirectory;
    private final String networkConnector;
    private final Path logDirectory;
    private final int run;
    private final Process process;
    private final Path log;
    private final String uri;

    private ChildBroker(String name, Path dataDirectory, String networkConnector, Path logDirectory, int run,
                        Process process, Path log, String uri) {
        this.name = name;
        this.dataDirectory = dataDirectory;
        this.networkConnector = networkConnector;
        this.logDirectory = logDirectory;
        this.run = run;
        this.process = process;
        this.log = log;
        this.uri = uri;
    }

    /** The child exited before it was ready (e.g. its port was still taken). */
    static final class StartFailed extends RuntimeException {
        private static final long serialVersionUID = 1L;

        StartFailed(String message) {
            super(message);
        }
    }

    public static ChildBroker start(String name, Path dataDirectory, int port, String networkConnector, Path logDirectory)
            throws IOException, InterruptedException {
        return start(name, dataDirectory, port, networkConnector, logDirectory, 1);
    }

    private static ChildBroker start(String name, Path dataDirectory, int port, String networkConnector, Path logDirectory,
                                     int run) throws IOException, InterruptedException {
        String java = ProcessHandle.current().info().command()
                .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        List<String> cmd = new ArrayList<>(List.of(java, "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                "-Dio.netty.leakDetection.level=paranoid", "-Dorg.slf4j.simpleLogger.defaultLogLevel=info",
                "-cp", System.getProperty("java.class.path"),
                FailoverBrokerMain.class.getName(), name, dataDirectory.toString(), Integer.toString(port)));
        if (networkConnector != null) {
            cmd.add(networkConnector);
        }
        Files.createDirectories(logDirectory);
        Path log = logDirectory.resolve(name + "-" + run + ".log");
        Process p = new ProcessBuilder(cmd).redirectError(log.toFile()).start();
        CompletableFuture<String> ready = new CompletableFuture<>();
        Thread reader = new Thread(() -> readStdout(p, ready), "child-broker-" + name + "-stdout");
        reader.setDaemon(true);
        reader.start();
        try {
            String uri = ready.get(START_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            return new ChildBroker(name, dataDirectory, networkConnector, logDirectory, run, p, log, uri);
        } catch (ExecutionException e) {
            reap(p);
            throw new StartFailed("child broker " + name + " (run " + run + ") did not start: " + e.getCause().getMessage()
                    + "; its stderr:\n" + read(log));
        } catch (TimeoutException e) {
            reap(p);
            throw new AssertionError("child broker " + name + " not ready within " + START_TIMEOUT + "; its stderr:\n"
                    + read(log), e);
        } catch (InterruptedException | RuntimeException e) {
            reap(p);
            throw e;
        }
    }

    private static void readStdout(Process p, CompletableFuture<String> ready) {
        try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = r.readLine()) != null) {
                if (line.startsWith("READY ")) {
                    ready.complete(line.substring("READY ".length()).trim());
                } else if (line.startsWith("FAILED ")) {
                    ready.completeExceptionally(new IllegalStateException(line.substring("FAILED ".length())));
                }
            }
        } catch (IOException e) {
            // the pipe breaks when the child is killed
        }
        ready.completeExceptionally(new IllegalStateException("child exited before it was ready"));
    }

    /** Starts this (dead) broker again on its data directory, port and network connector, retrying while the port is taken. */
    public ChildBroker restart() {
        assertThat(process.isAlive()).as("%s is dead before its restart", this).isFalse();
        AtomicReference<ChildBroker> started = new AtomicReference<>();
        int[] attempt = {0};
        await("broker " + name + " restarted on port " + port()).atMost(START_TIMEOUT).pollInSameThread()
                .pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(100)).until(() -> {
                    try {
                        started.set(start(name, dataDirectory, port(), networkConnector, logDirectory, run + ++attempt[0]));
                        return true;
                    } catch (StartFailed e) {
                        if (!e.getMessage().contains("could not listen")) {
                            throw new AssertionError("broker " + name + " failed to restart: " + e.getMessage(), e);
                        }
                        return false;
                    }
                });
        return started.get();
    }

    public String uri() {
        return uri;
    }

    public int port() {
        return URI.create(uri).getPort();
    }

    public String name() {
        return name;
    }

    /** SIGKILL, and waits until the process is gone. */
    public void killAndReap() throws InterruptedException {
        reap(process);
    }

    @Override
    public void close() {
        try {
            reap(process);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted while reaping " + this, e);
        }
        assertThat(read(log)).as("child broker %s stderr (%s)", name, log).doesNotContain("LEAK:");
    }

    private static void reap(Process p) throws InterruptedException {
        p.destroyForcibly();
        assertThat(p.waitFor(REAP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)).as("child broker reaped").isTrue();
    }

    /** The last {@code chars} characters of this run's log. */
    String logTail(int chars) {
        String s = read(log);
        return s.length() > chars ? "..." + s.substring(s.length() - chars) : s;
    }

    static String read(Path file) {
        try {
            String s = Files.readString(file);
            return s.length() > 20_000 ? "..." + s.substring(s.length() - 20_000) : s;
        } catch (IOException e) {
            return "(cannot read " + file + ": " + e.getMessage() + ")";
        }
    }

    @Override
    public String toString() {
        return "ChildBroker[" + name + " " + uri + ", pid " + process.pid() + "]";
    }
}
