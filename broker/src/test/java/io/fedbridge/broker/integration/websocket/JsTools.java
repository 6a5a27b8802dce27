package io.fedbridge.broker.integration.websocket;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * Node, {@code @stomp/stompjs} and Chromium for the tests that run real STOMP clients of the JavaScript world.
 * {@code .ci/run} installs them (Chromium from Debian, the npm packages into {@code .ci/npm}, which git ignores);
 * a developer's run installs the npm packages there itself when npm is on the PATH. Where a tool cannot be had, the
 * test is skipped and says why.
 */
final class JsTools {

    static final List<String> NPM_PACKAGES = List.of("@stomp/stompjs@7.5.0", "ws@8.23.1");
    private static final Duration INSTALL_TIMEOUT = Duration.ofMinutes(3);
    private static Path modules;
    private static String modulesProblem;

    private JsTools() {
    }

    /** {@code node_modules} holding {@code @stomp/stompjs} and {@code ws}; skips the test if there is none. */
    static synchronized Path nodeModules() {
        if (modules == null && modulesProblem == null) {
            modulesProblem = findOrInstallModules();
        }
        skipUnless(modulesProblem == null, modulesProblem);
        return modules;
    }

    /** The Chromium binary; skips the test if there is none. */
    static String chromium() {
        String found = onPath("chromium", "chromium-browser");
        skipUnless(found != null, "no chromium on the PATH (.ci/run installs Debian's chromium package)");
        return found;
    }

    private static void skipUnless(boolean ok, String reason) {
        if (!ok) {
            System.err.println("SKIPPED: " + reason);
        }
        assumeTrue(ok, reason);
    }

    private static String findOrInstallModules() {
        if (onPath("node") == null) {
            return "no node on the PATH";
        }
        Path root = Path.of("").toAbsolutePath();
        while (root != null && !Files.isDirectory(root.resolve(".ci"))) {
            root = root.getParent();
        }
        if (root == null) {
            return "no .ci directory above " + Path.of("").toAbsolutePath();
        }
        Path dir = root.resolve(".ci").resolve("npm");
        Path nm = dir.resolve("node_modules");
        if (Files.exists(nm.resolve("@stomp/stompjs/bundles/stomp.umd.min.js")) && Files.exists(nm.resolve("ws/package.json"))) {
            modules = nm;
            return null;
        }
        if (onPath("npm") == null) {
            return "@stomp/stompjs is not installed in " + nm + " and there is no npm on the PATH to install it";
        }
        List<String> cmd = new ArrayList<>(List.of("npm", "install", "--no-save", "--no-audit", "--no-fund", "--prefix",
                dir.toString()));
        cmd.addAll(NPM_PACKAGES);
        try {
            Files.createDirectories(dir);
            try (JsProcess npm = JsProcess.start(cmd)) {
                Integer exit = npm.awaitExit(INSTALL_TIMEOUT);
                if (exit == null || exit != 0) {
                    return "npm install " + NPM_PACKAGES + " failed (" + (exit == null ? "timed out" : "exit " + exit) + "): "
                            + npm.output();
                }
            }
        } catch (IOException e) {
            return "cannot run npm: " + e;
        }
        modules = nm;
        return null;
    }

    private static String onPath(String... names) {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            for (String name : names) {
                Path p = Path.of(dir, name);
                if (Files.isExecutable(p)) {
                    return p.toString();
                }
            }
        }
        return null;
    }

    /** A child process whose output lines are read as they come; closing kills it and all it started. */
    static final class JsProcess implements AutoCloseable {

        private final Process process;
        private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
        private final StringBuffer output = new StringBuffer();

        private JsProcess(Process process) {
            this.process = process;
            Thread reader = new Thread(() -> {
                try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                    for (String line; (line = r.readLine()) != null; ) {
                        output.append(line).append('\n');
                        lines.add(line);
                    }
                } catch (IOException e) {
                    // the process ended
                }
            }, "js-process-output");
            reader.setDaemon(true);
            reader.start();
        }

        static JsProcess start(List<String> command) throws IOException {
            return new JsProcess(new ProcessBuilder(command).redirectErrorStream(true).start());
        }

        /** Waits for a line starting with {@code prefix}; the line, or null after {@code timeout}. */
        String awaitLine(String prefix, Duration timeout) throws InterruptedException {
            long deadline = System.nanoTime() + timeout.toNanos();
            for (long left; (left = deadline - System.nanoTime()) > 0; ) {
                String line = lines.poll(left, TimeUnit.NANOSECONDS);
                if (line != null && line.startsWith(prefix)) {
                    return line;
                }
            }
            return null;
        }

        /** The exit code, or null if it is still running after {@code timeout}. */
        Integer awaitExit(Duration timeout) {
            try {
                return process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS) ? process.exitValue() : null;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return null;
            }
        }

        /** Everything the process printed so far. */
        String output() {
            return output.toString();
        }

        @Override
        public void close() {
            process.descendants().forEach(ProcessHandle::destroyForcibly);
            process.destroyForcibly();
            try {
                process.waitFor(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
