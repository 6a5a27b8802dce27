package io.fedbridge.samples;

import io.fedbridge.broker.Broker;
import io.fedbridge.broker.BrokerConfig;
import io.fedbridge.broker.BrokerConfigFile;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.ExitCode;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code fedbridge broker}: runs one broker node until Ctrl-C or SIGTERM.
 *
 * <p>The node's settings come from {@code --config FILE} (see {@link BrokerConfigFile} and
 * {@code docs/configuration.md}) and the flags, which override the file: {@code --name} replaces its name,
 * {@code --listen} all of its {@code listen} lines, {@code --data} its {@code data}. If neither gives a name,
 * that is a usage error (exit code 2); if neither gives a listener, the broker listens on
 * {@value #DEFAULT_LISTENER}.
 *
 * <p>Once every listener is bound it prints one line per network listener on stdout, with port 0 resolved,
 * for scripts to read: {@code broker A listening on tcp://127.0.0.1:61613}. On Ctrl-C or SIGTERM it closes
 * the broker, prints {@code broker A stopped} and exits 0. Logs go to stderr.
 */
@Command(name = "broker",
        description = "Runs a broker node until Ctrl-C or SIGTERM.",
        sortOptions = false,
        mixinStandardHelpOptions = true,
        versionProvider = FedbridgeCli.Version.class)
final class BrokerCommand implements Callable<Integer> {

    static final String DEFAULT_LISTENER = "tcp://127.0.0.1:61613";

    @Option(names = "--config", paramLabel = "FILE",
            description = "Read the node's settings from FILE (key = value lines and [policy PATTERN] sections; "
                + "see docs/configuration.md). The flags below override it.")
    Path configFile;

    @Option(names = "--name", paramLabel = "NAME",
            description = "The broker's name: 1-64 letters, digits, '.', '_' or '-'. Also its in-JVM address vm://NAME. "
                + "Required unless the --config file has a name, which it overrides.")
    String name;

    @Option(names = "--listen", paramLabel = "URI",
            description = {"Accept STOMP connections on URI, e.g. tcp://0.0.0.0:61613, or STOMP over WebSocket on "
                + "ws://0.0.0.0:61614/stomp; port 0 picks a free port. Repeatable; "
                + "replaces all of the --config file's listen lines.",
                "Default: the file's, else " + DEFAULT_LISTENER})
    List<String> listeners = new ArrayList<>();

    @Option(names = "--data", paramLabel = "DIR",
            description = "Keep persistent messages in DIR; overrides the --config file's data. Default: the file's, "
                + "else in memory only.")
    Path dataDirectory;

    @Option(names = "--network", paramLabel = "URI",
            description = {"Bridge to the peers a discovery URI finds, e.g. "
                + "static:(tcp://127.0.0.1:61614,tcp://127.0.0.1:61615)?networkTTL=2&duplex=true. Repeatable; "
                + "added to the --config file's network lines."})
    List<String> networks = new ArrayList<>();

    @Option(names = "--metrics", paramLabel = "URI",
            description = {"Serve Prometheus metrics, health checks and the web console on URI, e.g. http://127.0.0.1:9404 "
                + "(/metrics, /healthz, /readyz, /); overrides the --config file's metrics. Default: the file's, else none."})
    String metrics;

    @Mixin
    LoggingOptions logging;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws InterruptedException {
        logging.apply("info");
        BrokerConfig config = config();
        String brokerName = config.name();
        PrintWriter out = spec.commandLine().getOut();
        CountDownLatch stopped = new CountDownLatch(1);
        if (config.ha() != null) {
            // A member of an HA group: a backup until promoted; its listeners refuse clients meanwhile.
            io.fedbridge.ha.HaMember member = io.fedbridge.ha.HaMember.start(config);
            ShutdownHook.register("fedbridge-broker-" + brokerName + "-stop", () -> stop(member, brokerName, out, stopped));
            out.println("broker " + brokerName + " is a member of HA group " + config.ha().group() + " on " + member.uri()
                    + " (" + member.role().label() + ", " + member.state().label() + "); 'fedbridge ha status --url "
                    + member.uri() + "' shows the group");
            out.flush();
            stopped.await();
            return ExitCode.OK;
        }
        Broker broker = Broker.start(config);
        ShutdownHook.register("fedbridge-broker-" + brokerName + "-stop", () -> stop(broker, brokerName, out, stopped));
        for (String uri : broker.connectUris()) {
            out.println("broker " + brokerName + " listening on " + uri);
        }
        io.fedbridge.metrics.MetricsEndpoint endpoint = broker.extension(io.fedbridge.metrics.MetricsEndpoint.class);
        if (endpoint != null) {
            out.println("broker " + brokerName + " metrics, health and console on " + endpoint.uri());
        }
        out.flush();
        stopped.await();
        return ExitCode.OK;
    }

    /** The config file's settings with the flags applied over them. */
    BrokerConfig config() {
        if (configFile == null) {
            if (name == null) {
                throw missingName("");
            }
            BrokerConfig.Builder b = BrokerConfig.builder(name).dataDirectory(dataDirectory);
            (listeners.isEmpty() ? List.of(DEFAULT_LISTENER) : listeners).forEach(b::listen);
            networks.forEach(b::networkConnector);
            return b.metrics(metrics).build();
        }
        BrokerConfig.Builder b = BrokerConfigFile.load(configFile);
        if (name != null) {
            b.name(name);
        }
        if (dataDirectory != null) {
            b.dataDirectory(dataDirectory);
        }
        networks.forEach(b::networkConnector);
        if (metrics != null) {
            b.metrics(metrics);
        }
        BrokerConfig fromFile = name != null ? b.build() : buildWithTheFilesName(b);
        if (!listeners.isEmpty()) {
            return withListeners(fromFile, listeners);
        }
        return fromFile.listeners().isEmpty() ? withListeners(fromFile, List.of(DEFAULT_LISTENER)) : fromFile;
    }

    private BrokerConfig buildWithTheFilesName(BrokerConfig.Builder b) {
        try {
            return b.build();
        } catch (IllegalArgumentException e) {
            // BrokerConfigFile checked every value as it read them, and a name is the one thing it leaves unset.
            // If a stand-in name builds, the file has none: a usage error. Otherwise this throws the real problem.
            b.name("stand-in").build();
            throw missingName(" (the config file " + configFile + " has no name)");
        }
    }

    /** {@code config} with {@code uris} as its listeners instead of its own. */
    private static BrokerConfig withListeners(BrokerConfig c, List<String> uris) {
        return c.toBuilder().listeners(uris).build();
    }

    private ParameterException missingName(String why) {
        return new ParameterException(spec.commandLine(), "Missing required option: '--name=NAME'" + why);
    }

    /** Runs in the shutdown hook. */
    private void stop(AutoCloseable broker, String brokerName, PrintWriter out, CountDownLatch stopped) {
        int status = ExitCode.OK;
        try {
            broker.close();
            out.println("broker " + brokerName + " stopped");
        } catch (Exception e) {
            PrintWriter err = spec.commandLine().getErr();
            err.println(spec.qualifiedName() + ": stopping broker " + brokerName + " failed: " + e);
            err.flush();
            status = ExitCode.SOFTWARE;
        } finally {
            out.flush();
            stopped.countDown();
        }
        // Ctrl-C or SIGTERM is how a server is meant to end, so a clean stop exits 0 rather than with the
        // JVM's 128+signal (130/143), which supervisors and scripts read as a failure. The broker is closed,
        // so nothing is left for halt() to cut short.
        Runtime.getRuntime().halt(status);
    }
}
