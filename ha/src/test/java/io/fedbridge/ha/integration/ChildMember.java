package io.fedbridge.ha.integration;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * An HA member ({@link HaMemberMain}) in a child JVM, to be killed with SIGKILL. Tracks the role and state the child
 * prints. {@link #close()} kills it and waits until it is reaped.
 */
final class ChildMember implements AutoCloseable {

    private static final Duration START_TIMEOUT = Duration.ofSeconds(60);

    private final List<String> args;
    private final Path log;
    private final Process process;
    private volatile String role = "?";
    private volatile String state = "?";
    private volatile long epoch;
    private volatile long servingSince;

    private ChildMember(List<String> args, Path log, Process process) {
        this.args = args;
        this.log = log;
        this.process = process;
    }

    /** Starts {@link HaMemberMain} with {@code args}; waits (bounded) for its STARTED line. */
    static ChildMember start(List<String> args, Path log) throws IOException, InterruptedException {
        Files.createDirectories(log.getParent());
        String java = ProcessHandle.current().info().command()
                .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        List<String> cmd = new java.util.ArrayList<>(List.of(java, "-Xmx256m", "-XX:+UseSerialGC",
                "-Dio.netty.leakDetection.level=paranoid", "-Dorg.slf4j.simpleLogger.defaultLogLevel=info",
                "-cp", System.getProperty("java.class.path"), HaMemberMain.class.getName()));
        cmd.addAll(args);
        Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
        ChildMember m = new ChildMember(args, log, p);
        CompletableFuture<Void> started = new CompletableFuture<>();
        Thread reader = new Thread(() -> m.read(started), "child-member-stdout");
        reader.setDaemon(true);
        reader.start();
        try {
            started.get(START_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (Exception e) {
            m.close();
            throw new AssertionError("HA member " + args.get(0) + " did not start: " + e + "\n" + m.logTail(4000), e);
        }
        return m;
    }

    private void read(CompletableFuture<Void> started) {
        try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line; (line = r.readLine()) != null; ) {
                if (line.startsWith("STARTED")) {
                    started.complete(null);
                } else if (line.startsWith("ROLE ")) {
                    String[] p = line.split(" ");
                    role = p[1];
                    state = p[2];
                    epoch = Long.parseLong(p[3]);
                    servingSince = Long.parseLong(p[4]);
                }
            }
        } catch (IOException e) {
            started.completeExceptionally(e);
        }
        started.completeExceptionally(new IOException("child exited"));
    }

    String name() {
        return args.get(0);
    }

    String uri() {
        return args.get(1);
    }

    boolean isPrimary() {
        return process.isAlive() && "primary".equals(role) && ("active".equals(state) || "recovering".equals(state));
    }

    boolean isReadyBackup() {
        return process.isAlive() && "backup".equals(role) && "ready".equals(state);
    }

    String role() {
        return role + " " + state + " epoch " + epoch;
    }

    /** When the child last began serving as primary (its wall clock, ms); 0 if never. */
    long servingSince() {
        return servingSince;
    }

    long pid() {
        return process.pid();
    }

    /** SIGKILL, then wait until reaped. */
    void killAndReap() throws InterruptedException {
        process.destroyForcibly();
        assertThat(process.waitFor(30, TimeUnit.SECONDS)).as("child reaped").isTrue();
        role = "dead";
    }

    /** The same member again, on its data directory and port. */
    ChildMember restart() throws IOException, InterruptedException {
        return start(args, log);
    }

    String logTail(int chars) {
        try {
            String s = Files.readString(log, StandardCharsets.UTF_8);
            return s.length() <= chars ? s : s.substring(s.length() - chars);
        } catch (IOException e) {
            return "(no log: " + e + ")";
        }
    }

    @Override
    public void close() throws InterruptedException {
        if (process.isAlive()) {
            process.destroyForcibly();
            process.waitFor(30, TimeUnit.SECONDS);
        }
    }

    @Override
    public String toString() {
        return name() + " (" + uri() + ", pid " + process.pid() + ", " + role() + ")";
    }
}
