package io.fedbridge.broker.testing;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A real RabbitMQ node (Debian's {@code rabbitmq-server} package) with its STOMP plugin, started by a test and
 * hermetic: its own node name, data, log and config under the test's directory, every listener on loopback (STOMP;
 * Erlang distribution with {@code inet_dist_use_interface}; epmd with {@code ERL_EPMD_ADDRESS}), AMQP off. Ports
 * stay the same across {@link #stopApp()}/{@link #startApp()} and {@link #restart()}, so a bridge's peer URI stays
 * valid. The epmd daemon Erlang starts (loopback only) outlives the node: other nodes on this machine may share it.
 *
 * <p>Tests skip, printing {@link #unavailableReason()}, only where the package is not installed; {@code .ci/run}
 * installs it.
 */
public final class RabbitMqServer implements AutoCloseable {

    private static final Path SERVER = Path.of("/usr/lib/rabbitmq/bin/rabbitmq-server");
    private static final Path CTL = Path.of("/usr/lib/rabbitmq/bin/rabbitmqctl");
    private static final Duration START_TIMEOUT = Duration.ofSeconds(90);
    private static final AtomicInteger NODES = new AtomicInteger();

    private final Path dir;
    private final String node;
    private final int stompPort;
    private final int distPort;
    private Process process;

    private RabbitMqServer(Path dir, String node, int stompPort, int distPort) {
        this.dir = dir;
        this.node = node;
        this.stompPort = stompPort;
        this.distPort = distPort;
    }

    /** Why no node can start here (the package is missing), or null if it can. */
    public static String unavailableReason() {
        if (!Files.isExecutable(SERVER) || !Files.isExecutable(CTL)) {
            return "RabbitMQ is not installed (" + SERVER + " missing): apt-get install rabbitmq-server (.ci/run does)";
        }
        return null;
    }

    /** Starts a node keeping everything under {@code dir}; returns once its STOMP listener accepts connections. */
    public static RabbitMqServer start(Path dir) throws IOException, InterruptedException {
        String node = "fedbridge-" + ProcessHandle.current().pid() + "-" + NODES.incrementAndGet() + "@localhost";
        // RabbitMQ cannot report a port the OS chose and must keep its ports across restarts: take free ones now.
        RabbitMqServer r = new RabbitMqServer(dir, node, freePort(), freePort());
        Files.createDirectories(dir.resolve("home"));
        Files.createDirectories(dir.resolve("mnesia"));
        Files.createDirectories(dir.resolve("log"));
        Files.writeString(dir.resolve("rabbitmq.conf"), String.join("\n",
                "listeners.tcp = none",
                "stomp.listeners.tcp.1 = 127.0.0.1:" + r.stompPort, ""));
        Files.writeString(dir.resolve("enabled_plugins"), "[rabbitmq_stomp].\n");
        r.startNode();
        return r;
    }

    private Map<String, String> environment() {
        return Map.of(
                "HOME", dir.resolve("home").toString(), // the Erlang cookie the node and rabbitmqctl share
                "RABBITMQ_NODENAME", node,
                "RABBITMQ_NODE_IP_ADDRESS", "127.0.0.1",
                "ERL_EPMD_ADDRESS", "127.0.0.1",
                "RABBITMQ_DIST_PORT", Integer.toString(distPort),
                "RABBITMQ_SERVER_ADDITIONAL_ERL_ARGS", "-kernel inet_dist_use_interface {127,0,0,1}",
                "RABBITMQ_MNESIA_BASE", dir.resolve("mnesia").toString(),
                "RABBITMQ_LOG_BASE", dir.resolve("log").toString(),
                "RABBITMQ_CONFIG_FILE", dir.resolve("rabbitmq.conf").toString(),
                "RABBITMQ_ENABLED_PLUGINS_FILE", dir.resolve("enabled_plugins").toString());
    }

    private void startNode() throws IOException, InterruptedException {
        ProcessBuilder pb = new ProcessBuilder(SERVER.toString()).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("server.out").toFile()));
        pb.environment().putAll(environment());
        process = pb.start();
        awaitStomp(true);
    }

    /** {@code tcp://127.0.0.1:PORT} of the STOMP listener (connect with {@code host=/}, RabbitMQ's default virtual host). */
    public String stompUri() {
        return "tcp://127.0.0.1:" + stompPort;
    }

    /** {@code rabbitmqctl stop_app}: the node stays, RabbitMQ stops (connections drop; durable queues keep their messages). */
    public void stopApp() throws IOException, InterruptedException {
        ctl("stop_app");
        awaitStomp(false);
    }

    /** {@code rabbitmqctl start_app}; returns once STOMP accepts connections again. */
    public void startApp() throws IOException, InterruptedException {
        ctl("start_app");
        awaitStomp(true);
    }

    /** Stops the node's process and starts a new one on the same data and ports. */
    public void restart() throws IOException, InterruptedException {
        stop();
        startNode();
    }

    /** Kills the node's processes ({@code kill -9}: nothing is flushed, connections are cut) and waits for them. */
    public void kill() throws InterruptedException {
        Process p = process;
        process = null;
        if (p != null) {
            // The Erlang VM is a child of the start script: wait for every process, or its port may still accept.
            List<ProcessHandle> all = new java.util.ArrayList<>(p.descendants().toList());
            all.add(p.toHandle());
            all.forEach(ProcessHandle::destroyForcibly);
            for (ProcessHandle h : all) {
                try {
                    h.onExit().get(30, TimeUnit.SECONDS);
                } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
                    throw new IllegalStateException("RabbitMQ node " + node + ": process " + h.pid() + " did not exit", e);
                }
            }
        }
    }

    /** Whether the node runs (false after {@link #kill()} until {@link #startAfterKill()}). */
    public boolean isRunning() {
        return process != null;
    }

    /** Starts the node again after {@link #kill()}, on the same data and ports. */
    public void startAfterKill() throws IOException, InterruptedException {
        if (process != null) {
            throw new IllegalStateException("RabbitMQ node " + node + " is running: kill() it first");
        }
        startNode();
    }

    /**
     * Writes the node's definitions (queues, bindings) to disk now: {@code mnesia:sync_log()}. RabbitMQ 3.10 keeps a
     * new durable queue's record in Mnesia's log write-behind for a moment; a {@code kill -9} within it loses the queue
     * and every message in it, receipts or not (seen: 2 of 5 queues declared by a SEND of 10 receipted persistent
     * messages and killed at once; none of 5 after this call). A test that kills the node to test what fedbridge does
     * calls this once the queues it relies on exist, so RabbitMQ's own window is not what it measures.
     */
    public void syncDefinitions() throws IOException, InterruptedException {
        String out = ctl("eval", "mnesia:sync_log().").trim();
        if (!out.equals("ok")) {
            throw new IOException("mnesia:sync_log() on " + node + " returned " + out);
        }
    }

    /** Runs {@code rabbitmqctl -n NODE args...} and returns its output; fails with the output if it fails. */
    public String ctl(String... args) throws IOException, InterruptedException {
        List<String> cmd = new java.util.ArrayList<>(List.of(CTL.toString(), "-q", "-n", node));
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        pb.environment().putAll(environment());
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
            p.destroyForcibly();
            throw new IOException("rabbitmqctl " + String.join(" ", args) + " on " + node + " failed: " + out);
        }
        return out;
    }

    /** Messages ready plus unacknowledged in {@code queue} (RabbitMQ's name, e.g. {@code orders} for {@code /queue/orders}). */
    public long messageCount(String queue) throws IOException, InterruptedException {
        for (String line : ctl("list_queues", "name", "messages").split("\n")) {
            String[] cols = line.trim().split("\\s+");
            if (cols.length == 2 && cols[0].equals(queue)) {
                return Long.parseLong(cols[1]);
            }
        }
        return 0;
    }

    private void awaitStomp(boolean open) throws IOException, InterruptedException {
        // A foreign process's port: nothing to be told by, so poll it (Awaitility, bounded).
        boolean[] exited = {false};
        try {
            org.awaitility.Awaitility.await("RabbitMQ node " + node + " STOMP port " + stompPort + (open ? " open" : " closed"))
                    .atMost(START_TIMEOUT).pollInterval(Duration.ofMillis(100)).until(() -> {
                        if (open && process != null && !process.isAlive()) {
                            exited[0] = true;
                            return true;
                        }
                        return accepts() == open;
                    });
        } catch (org.awaitility.core.ConditionTimeoutException e) {
            throw new IOException("RabbitMQ node " + node + " STOMP port " + stompPort + (open ? " not open" : " still open")
                    + " after " + START_TIMEOUT + ": " + logTail(), e);
        }
        if (exited[0]) {
            throw new IOException("RabbitMQ node " + node + " exited with " + process.exitValue() + ": " + logTail());
        }
    }

    private boolean accepts() {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), stompPort), 500);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /** The last 30 lines of the node's console output (its log, as it started it). */
    public String logTail() {
        try {
            List<String> lines = Files.readAllLines(dir.resolve("server.out"));
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
        } catch (IOException e) {
            return "(no log: " + e + ")";
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    /** Shuts the node down ({@code rabbitmqctl shutdown}, or kills it if that fails) and waits for its process. */
    public void stop() throws IOException, InterruptedException {
        Process p = process;
        process = null;
        if (p == null) {
            return;
        }
        try {
            ctl("shutdown");
        } catch (IOException e) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
        }
        if (!p.waitFor(30, TimeUnit.SECONDS)) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
            p.waitFor(10, TimeUnit.SECONDS);
        }
    }

    @Override
    public void close() throws IOException, InterruptedException {
        stop();
    }
}
