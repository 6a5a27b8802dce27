package io.fedbridge.broker.integration;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A broker in a child JVM ({@link CrashTestBrokerMain}) on a data directory, started from the test classpath, to
 * be killed with SIGKILL. {@link #close()} kills it too and waits until it is reaped, so use try-with-resources.
 */
final class ChildBroker implements AutoCloseable {

    private static final Duration START_TIMEOUT = Duration.ofSeconds(30);
    private static final Duration REAP_TIMEOUT = Duration.ofSeconds(30);

    private final Process process;
    private final Path log;
    private final String uri;

    private ChildBroker(Process process, Path log, String uri) {
        this.process = process;
        this.log = log;
        this.uri = uri;
    }

    /** Starts the child and waits (bounded) for its {@code READY <uri>} line; stderr goes to {@code log}. */
    static ChildBroker start(Path dataDirectory, Path log) throws IOException, InterruptedException {
        String java = ProcessHandle.current().info().command()
                .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        Process p = new ProcessBuilder(java, "-Xmx256m", "-XX:+UseSerialGC",
                "-Dio.netty.leakDetection.level=paranoid",
                "-cp", System.getProperty("java.class.path"),
                CrashTestBrokerMain.class.getName(), dataDirectory.toString())
                .redirectError(log.toFile())
                .start();
        CompletableFuture<String> ready = new CompletableFuture<>();
        Thread reader = new Thread(() -> readStdout(p, ready), "child-broker-stdout");
        reader.setDaemon(true);
        reader.start();
        try {
            String uri = ready.get(START_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            return new ChildBroker(p, log, uri);
        } catch (ExecutionException | TimeoutException e) {
            reap(p);
            throw new AssertionError("child broker on " + dataDirectory + " not ready within " + START_TIMEOUT + ": "
                    + e + "; its stderr:\n" + read(log), e);
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
                }
            }
        } catch (IOException e) {
            // the pipe breaks when the child is killed
        }
        ready.completeExceptionally(new IllegalStateException("child broker exited before it was ready"));
    }

    /** The broker's {@code tcp://127.0.0.1:PORT}. */
    String uri() {
        return uri;
    }

    /** Sends SIGKILL and returns at once: safe on any thread, including a Netty event loop. */
    void kill() {
        process.destroyForcibly();
    }

    boolean isAlive() {
        return process.isAlive();
    }

    /**
     * Kills the child if it still runs and waits until it is reaped; then checks that it logged no Netty buffer
     * leak (paranoid leak detection runs in the child too).
     */
    @Override
    public void close() throws InterruptedException {
        reap(process);
        assertThat(read(log)).as("child broker stderr (%s)", log).doesNotContain("LEAK:");
    }

    private static void reap(Process p) throws InterruptedException {
        p.destroyForcibly();
        assertThat(p.waitFor(REAP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)).as("child broker reaped").isTrue();
    }

    static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            return "(cannot read " + file + ": " + e.getMessage() + ")";
        }
    }

    @Override
    public String toString() {
        return "ChildBroker[" + uri + ", pid " + process.pid() + "]";
    }
}
