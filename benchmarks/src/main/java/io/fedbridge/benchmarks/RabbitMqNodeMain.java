package io.fedbridge.benchmarks;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Child JVM of the {@code foreign} benchmark that runs one RabbitMQ node (Debian's {@code rabbitmq-server} package) as
 * its own child process, so that the parent counts the node's CPU as this JVM's ({@link ChildJvm#countDescendants()}).
 * The node is private to this run: its own node name, Erlang cookie ({@code HOME}), mnesia, log and config under
 * {@code --dir}, every listener on loopback (STOMP; AMQP 0-9-1 only with {@code --amqp}; Erlang distribution, epmd).
 * Plugins: {@code rabbitmq_stomp}, and {@code rabbitmq_shovel} with {@code --shovel-to}. Erlang's schedulers do not
 * busy-wait ({@code +sbwt none +sbwtdcpu none +sbwtdio none}, RabbitMQ's advice for shared machines; on 2 cores their
 * spinning took CPU from the client and the other broker) unless {@code --busy-wait} is given.
 *
 * <p>With {@code --shovel-to AMQP_PORT} the node runs RabbitMQ's own store-and-forward, a dynamic shovel {@value #SHOVEL}
 * from its queue {@code bench} to the queue {@code bench} of the node at that AMQP port ({@link #shovelDefinition}):
 * AMQP 0-9-1 on both sides, {@code ack-mode on-confirm} (a message leaves the source once the destination confirmed
 * it) and a prefetch of 1,000 (both RabbitMQ's defaults, written out), the messages' properties (persistence) kept.
 *
 * <p>Arguments: {@code --name NAME --dir DIR [--amqp] [--shovel-to AMQP_PORT] [--busy-wait]}. Prints
 * {@code READY tcp://127.0.0.1:STOMP_PORT?host=/&login=guest&passcode=guest amqp=PORT node=NODE version=V} once
 * STOMP accepts connections (and the shovel runs); runs until stdin closes, then shuts the node down
 * ({@code rabbitmqctl shutdown}; what is left of it is killed), as its shutdown hook also does.
 */
public final class RabbitMqNodeMain {

    static final Path HOME = Path.of("/usr/lib/rabbitmq");
    static final Path SERVER = HOME.resolve("bin/rabbitmq-server");
    static final Path CTL = HOME.resolve("bin/rabbitmqctl");
    static final String SHOVEL = "bench";
    static final String QUEUE = "bench";
    private static final long START_NANOS = TimeUnit.SECONDS.toNanos(120);

    private final Path dir;
    private final String node;
    private final Map<String, String> env = new HashMap<>();
    private final AtomicBoolean stopped = new AtomicBoolean();
    private Process process;

    private RabbitMqNodeMain(Path dir, String node) {
        this.dir = dir;
        this.node = node;
    }

    /**
     * Why no node can run here (the package or one of the plugins is missing), or null if one can. The benchmark prints
     * it and measures the other targets.
     */
    static String unavailableReason() {
        return unavailableReason(HOME);
    }

    /** {@link #unavailableReason()} of an installation under {@code home} (Debian's: {@code /usr/lib/rabbitmq}). */
    static String unavailableReason(Path home) {
        Path server = home.resolve(HOME.relativize(SERVER));
        if (!Files.isExecutable(server) || !Files.isExecutable(home.resolve(HOME.relativize(CTL)))) {
            return "RabbitMQ is not installed (" + server + " missing): apt-get install rabbitmq-server (.ci/run does)";
        }
        for (String plugin : List.of("rabbitmq_stomp", "rabbitmq_shovel")) {
            if (version(home, plugin) == null) {
                return "RabbitMQ's " + plugin + " plugin is missing under " + home.resolve("lib");
            }
        }
        return null;
    }

    /** The version of a RabbitMQ application or plugin ({@code rabbit}, {@code rabbitmq_stomp}), from its directory name. */
    static String version(String app) {
        return version(HOME, app);
    }

    private static String version(Path home, String app) {
        try (DirectoryStream<Path> servers = Files.newDirectoryStream(home.resolve("lib"))) {
            for (Path server : servers) {
                try (DirectoryStream<Path> plugins = Files.newDirectoryStream(server.resolve("plugins"), app + "-*")) {
                    for (Path p : plugins) {
                        String v = p.getFileName().toString().substring(app.length() + 1);
                        if (!v.isEmpty() && Character.isDigit(v.charAt(0))) {
                            return v.endsWith(".ez") ? v.substring(0, v.length() - 3) : v;
                        }
                    }
                }
            }
        } catch (IOException e) {
            return null;
        }
        return null;
    }

    public static void main(String[] args) throws Exception {
        String name = "rabbit";
        Path dir = null;
        boolean amqp = false;
        int shovelTo = 0;
        boolean busyWait = false;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--name" -> name = args[++i];
                case "--dir" -> dir = Path.of(args[++i]);
                case "--amqp" -> amqp = true;
                case "--shovel-to" -> shovelTo = Integer.parseInt(args[++i]);
                case "--busy-wait" -> busyWait = true;
                default -> {
                    System.out.println("ERROR unknown option '" + args[i] + "'; valid: --name, --dir, --amqp, --shovel-to, --busy-wait");
                    System.exit(2);
                }
            }
        }
        String reason = unavailableReason();
        if (dir == null || reason != null) {
            System.out.println("ERROR " + (dir == null ? "--dir is required" : reason));
            System.exit(2);
        }
        RabbitMqNodeMain n = new RabbitMqNodeMain(dir, "fedbridge-bench-" + name + "-" + ProcessHandle.current().pid() + "@localhost");
        Runtime.getRuntime().addShutdownHook(new Thread(n::stop, "rabbitmq-bench-stop"));
        try {
            int stomp = freePort();
            int amqpPort = amqp || shovelTo > 0 ? freePort() : 0;
            n.start(stomp, amqpPort, freePort(), shovelTo > 0, busyWait);
            if (shovelTo > 0) {
                n.ctl("set_parameter", "shovel", SHOVEL, shovelDefinition(amqpPort, shovelTo));
                n.awaitShovelRunning();
            }
            ChildProtocol.ready("tcp://127.0.0.1:" + stomp + "?host=/&login=guest&passcode=guest amqp=" + amqpPort + " node=" + n.node
                    + " version=" + version("rabbit"));
        } catch (IOException | RuntimeException e) {
            System.out.println("ERROR RabbitMQ node " + n.node + ": " + e.getMessage());
            n.stop();
            System.exit(1);
        }
        ChildProtocol.serve(command -> "ERROR unknown command '" + command + "'");
        n.stop();
        System.exit(0);
    }

    /** The node's {@code rabbitmq.conf}: STOMP on loopback, AMQP on loopback or off. */
    static String config(int stompPort, int amqpPort) {
        return String.join("\n",
                amqpPort > 0 ? "listeners.tcp.1 = 127.0.0.1:" + amqpPort : "listeners.tcp = none",
                "stomp.listeners.tcp.1 = 127.0.0.1:" + stompPort,
                "stomp.tcp_listen_options.nodelay = true",
                "tcp_listen_options.nodelay = true",
                "");
    }

    /** The node's {@code enabled_plugins} file. */
    static String enabledPlugins(boolean shovel) {
        return shovel ? "[rabbitmq_stomp,rabbitmq_shovel].\n" : "[rabbitmq_stomp].\n";
    }

    /** The dynamic shovel's definition ({@code rabbitmqctl set_parameter shovel NAME JSON}): queue bench to queue bench. */
    static String shovelDefinition(int fromAmqpPort, int toAmqpPort) {
        return "{\"src-protocol\":\"amqp091\",\"src-uri\":\"amqp://guest:guest@127.0.0.1:" + fromAmqpPort + "\",\"src-queue\":\""
                + QUEUE + "\",\"src-prefetch-count\":1000,\"dest-protocol\":\"amqp091\",\"dest-uri\":\"amqp://guest:guest@127.0.0.1:"
                + toAmqpPort + "\",\"dest-queue\":\"" + QUEUE + "\",\"ack-mode\":\"on-confirm\"}";
    }

    private void start(int stompPort, int amqpPort, int distPort, boolean shovel, boolean busyWait) throws IOException {
        for (String d : List.of("home", "mnesia", "log")) {
            Files.createDirectories(dir.resolve(d));
        }
        Files.writeString(dir.resolve("rabbitmq.conf"), config(stompPort, amqpPort));
        Files.writeString(dir.resolve("enabled_plugins"), enabledPlugins(shovel));
        env.put("HOME", dir.resolve("home").toString()); // the Erlang cookie the node and rabbitmqctl share
        env.put("RABBITMQ_NODENAME", node);
        env.put("RABBITMQ_NODE_IP_ADDRESS", "127.0.0.1");
        env.put("ERL_EPMD_ADDRESS", "127.0.0.1");
        env.put("RABBITMQ_DIST_PORT", Integer.toString(distPort));
        env.put("RABBITMQ_SERVER_ADDITIONAL_ERL_ARGS", "-kernel inet_dist_use_interface {127,0,0,1}"
                + (busyWait ? "" : " +sbwt none +sbwtdcpu none +sbwtdio none"));
        env.put("RABBITMQ_MNESIA_BASE", dir.resolve("mnesia").toString());
        env.put("RABBITMQ_LOG_BASE", dir.resolve("log").toString());
        env.put("RABBITMQ_CONFIG_FILE", dir.resolve("rabbitmq.conf").toString());
        env.put("RABBITMQ_ENABLED_PLUGINS_FILE", dir.resolve("enabled_plugins").toString());
        ProcessBuilder pb = new ProcessBuilder(SERVER.toString()).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("server.out").toFile()));
        pb.environment().putAll(env);
        process = pb.start();
        long deadline = System.nanoTime() + START_NANOS;
        while (!accepts(stompPort)) {
            if (!process.isAlive()) {
                throw new IOException("the node exited with " + process.exitValue() + ": " + logTail());
            }
            if (System.nanoTime() > deadline) {
                throw new IOException("STOMP port " + stompPort + " not open after " + TimeUnit.NANOSECONDS.toSeconds(START_NANOS)
                        + " s: " + logTail());
            }
            pause(100);
        }
    }

    private void awaitShovelRunning() throws IOException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        String status = "";
        while (System.nanoTime() < deadline) {
            status = ctl("shovel_status");
            if (status.contains("running")) {
                return;
            }
            pause(200);
        }
        throw new IOException("shovel " + SHOVEL + " not running after 60 s: " + status.trim());
    }

    /** Runs {@code rabbitmqctl -q -n NODE args…}; returns its output, fails with it. */
    private String ctl(String... args) throws IOException {
        List<String> cmd = new ArrayList<>(List.of(CTL.toString(), "-q", "-n", node));
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        pb.environment().putAll(env);
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        try {
            if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
                p.destroyForcibly();
                throw new IOException("rabbitmqctl " + args[0] + " failed: " + out.trim());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted during rabbitmqctl " + args[0], e);
        }
        return out;
    }

    /** Shuts the node down, kills what is left of it; idempotent. */
    private void stop() {
        Process p = process;
        if (p == null || !stopped.compareAndSet(false, true)) {
            return;
        }
        List<ProcessHandle> tree = new ArrayList<>(p.descendants().toList());
        tree.add(p.toHandle());
        try {
            ctl("shutdown");
            p.waitFor(20, TimeUnit.SECONDS);
        } catch (IOException e) {
            System.err.println("rabbitmqctl shutdown failed, killing the node: " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        tree.forEach(ProcessHandle::destroyForcibly);
    }

    private String logTail() {
        try {
            List<String> lines = Files.readAllLines(dir.resolve("server.out"));
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 20), lines.size()));
        } catch (IOException e) {
            return "(no log: " + e + ")";
        }
    }

    private static boolean accepts(int port) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 500);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /** RabbitMQ cannot report a port the OS chose: take free ones now. */
    private static int freePort() throws IOException {
        return HaCommand.freePort();
    }

    private static void pause(long millis) {
        HaCommand.pause(millis);
    }
}
