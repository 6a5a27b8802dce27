package io.fedbridge.ha.integration;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * An ordinary broker in a child JVM ({@link SourceBrokerMain}) started from the test classpath, to be killed with
 * SIGKILL. {@link #close()} kills it too and waits until it is reaped, so use try-with-resources.
 */
final class ChildSource implements AutoCloseable {

    private final Process process;
    private final Path log;
    private final String uri;

    private ChildSource(Process process, Path log, String uri) {
        this.process = process;
        this.log = log;
        this.uri = uri;
    }

    static ChildSource start(String name, Path dataDirectory, Path log) throws Exception {
        String java = ProcessHandle.current().info().command()
                .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        Process p = new ProcessBuilder(java, "-Xmx256m", "-XX:+UseSerialGC", "-Dio.netty.leakDetection.level=paranoid",
                "-cp", System.getProperty("java.class.path"), SourceBrokerMain.class.getName(), name, dataDirectory.toString())
                .redirectError(log.toFile()).start();
        CompletableFuture<String> ready = new CompletableFuture<>();
        Thread reader = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line; (line = r.readLine()) != null; ) {
                    if (line.startsWith("READY ")) {
                        ready.complete(line.substring("READY ".length()).trim());
                    }
                }
            } catch (IOException e) {
                // the pipe breaks when the child is killed
            }
            ready.completeExceptionally(new IllegalStateException("child broker exited before it was ready"));
        }, "child-source-stdout");
        reader.setDaemon(true);
        reader.start();
        try {
            return new ChildSource(p, log, ready.get(30, TimeUnit.SECONDS));
        } catch (Exception e) {
            reap(p);
            throw new AssertionError("child broker " + name + " did not start: " + e + "; its stderr:\n" + Files.readString(log), e);
        }
    }

    String uri() {
        return uri;
    }

    /** Sends SIGKILL and waits until the process is reaped. */
    void kill() throws InterruptedException {
        reap(process);
    }

    @Override
    public void close() throws Exception {
        reap(process);
        assertThat(Files.readString(log)).as("child broker stderr (%s)", log).doesNotContain("LEAK:");
    }

    private static void reap(Process p) throws InterruptedException {
        p.destroyForcibly();
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).as("child broker reaped").isTrue();
    }
}
