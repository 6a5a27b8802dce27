package io.fedbridge.benchmarks;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A child JVM started by the benchmark: same {@code java} binary, the given JVM options and class path, one
 * main class. It talks over plain text lines: the parent writes commands to its stdin, it answers on stdout
 * ({@code READY …}, {@code RESULT …}, {@code ERROR …}); its stderr (logs) goes to a file.
 *
 * <p>Children are always reaped: {@link #close()} closes stdin (every child main exits on EOF), then
 * destroys and waits; a shutdown hook does the same for any child still alive when the parent exits. A child
 * whose parent dies sees EOF on stdin and exits on its own.
 */
final class ChildJvm implements AutoCloseable {

    private static final String EOF = "\u0000EOF";
    private static final Set<ChildJvm> LIVE = ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            for (ChildJvm c : List.copyOf(LIVE)) {
                c.kill();
            }
        }, "fedbridge-bench-reaper"));
    }

    private final String name;
    private final Process process;
    private final PrintWriter stdin;
    private final Path log;
    private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
    private volatile boolean withDescendants;

    private ChildJvm(String name, Process process, Path log) {
        this.name = name;
        this.process = process;
        this.log = log;
        this.stdin = new PrintWriter(new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8), true);
        Thread reader = new Thread(this::pump, "fedbridge-bench-" + name + "-stdout");
        reader.setDaemon(true);
        reader.start();
    }

    /** The {@code java} launcher of this JVM, so children run on exactly the same runtime. */
    static String javaCommand() {
        return ProcessHandle.current().info().command()
                .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    }

    static ChildJvm start(String name, List<String> jvmOptions, String classPath, Class<?> mainClass,
                          List<String> args, Path logDir) throws IOException {
        List<String> cmd = new ArrayList<>();
        cmd.add(javaCommand());
        cmd.addAll(jvmOptions);
        cmd.add("-cp");
        cmd.add(classPath);
        cmd.add(mainClass.getName());
        cmd.addAll(args);
        Files.createDirectories(logDir);
        Path log = logDir.resolve(name + ".log");
        Files.writeString(log, String.join(" ", cmd).replace(classPath, "<cp>") + "\n");
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.appendTo(log.toFile()));
        Process p = pb.start();
        ChildJvm c = new ChildJvm(name, p, log);
        LIVE.add(c);
        return c;
    }

    private void pump() {
        try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = r.readLine()) != null) {
                lines.add(line);
            }
        } catch (IOException e) {
            // the process went away; EOF below tells the waiter
        } finally {
            lines.add(EOF);
        }
    }

    String name() {
        return name;
    }

    long pid() {
        return process.pid();
    }

    Path log() {
        return log;
    }

    /**
     * CPU time this JVM has used so far (all threads, user + system), or -1 where the OS does not tell; after
     * {@link #countDescendants()} also that of the live processes it started.
     */
    long cpuNanos() {
        long own = cpuNanos(process.toHandle());
        if (!withDescendants || own < 0) {
            return own;
        }
        // A descendant that has just exited tells nothing: it is left out (it ran only around start and stop).
        return own + process.descendants().mapToLong(ChildJvm::cpuNanos).filter(n -> n > 0).sum();
    }

    private static long cpuNanos(ProcessHandle p) {
        return p.info().totalCpuDuration().map(Duration::toNanos).orElse(-1L);
    }

    /**
     * Makes {@link #cpuNanos()} count the processes this JVM started too: a child that runs a broker outside the JVM
     * (a RabbitMQ node). Off by default: listing descendants scans every process of the machine.
     */
    void countDescendants() {
        withDescendants = true;
    }

    void send(String command) {
        stdin.println(command);
        if (stdin.checkError()) {
            throw new BenchmarkException(name + " (pid " + process.pid() + ") no longer reads commands; see " + log);
        }
    }

    /**
     * Waits for the next stdout line starting with {@code prefix} and returns what follows it. Other lines
     * are skipped; an {@code ERROR} line, the child's exit or the timeout fail with a message naming the log.
     */
    String awaitLine(String prefix, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            long left = deadline - System.nanoTime();
            String line;
            try {
                line = left <= 0 ? null : lines.poll(left, TimeUnit.NANOSECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new BenchmarkException("interrupted while waiting for " + name, e);
            }
            if (line == null) {
                throw new BenchmarkException(name + " (pid " + process.pid() + ") did not answer '" + prefix.trim()
                        + "' within " + timeout.toSeconds() + " s; see " + log);
            }
            if (line.equals(EOF)) {
                lines.add(EOF);
                throw new BenchmarkException(name + " (pid " + process.pid() + ") exited" + exitCode() + " before '"
                        + prefix.trim() + "'; see " + log);
            }
            if (line.startsWith(prefix)) {
                return line.substring(prefix.length()).trim();
            }
            if (line.startsWith("ERROR ")) {
                throw new BenchmarkException(name + " failed: " + line.substring(6) + " (see " + log + ")");
            }
        }
    }

    private String exitCode() {
        try {
            if (process.waitFor(2, TimeUnit.SECONDS)) {
                return " with code " + process.exitValue();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return "";
    }

    /** Closes stdin so the child shuts down cleanly, then destroys it if it has not exited within a few seconds. */
    @Override
    public void close() {
        try {
            stdin.close();
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                kill();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            kill();
        } finally {
            LIVE.remove(this);
        }
    }

    private void kill() {
        process.destroy();
        try {
            if (!process.waitFor(5, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                process.waitFor(5, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public String toString() {
        return name + "(pid " + process.pid() + ")";
    }
}
