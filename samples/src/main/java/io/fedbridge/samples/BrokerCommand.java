package io.fedbridge.samples;

import io.fedbridge.broker.Broker;
import io.fedbridge.broker.BrokerConfig;
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
import picocli.CommandLine.Spec;

/**
 * {@code fedbridge broker}: runs one broker node until Ctrl-C or SIGTERM.
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

    @Option(names = "--name", required = true, paramLabel = "NAME",
            description = "The broker's name: 1-64 letters, digits, '.', '_' or '-'. Also its in-JVM address vm://NAME.")
    String name;

    @Option(names = "--listen", paramLabel = "URI",
            description = {"Accept STOMP connections on URI, e.g. tcp://0.0.0.0:61613; port 0 picks a free port. Repeatable.",
                "Default: " + DEFAULT_LISTENER})
    List<String> listeners = new ArrayList<>();

    @Option(names = "--data", paramLabel = "DIR",
            description = "Keep persistent messages in DIR. Default: in memory only.")
    Path dataDirectory;

    @Mixin
    LoggingOptions logging;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws InterruptedException {
        logging.apply("info");
        Broker broker = Broker.start(config());
        PrintWriter out = spec.commandLine().getOut();
        CountDownLatch stopped = new CountDownLatch(1);
        ShutdownHook.register("fedbridge-broker-" + name + "-stop", () -> stop(broker, out, stopped));
        for (String uri : broker.connectUris()) {
            out.println("broker " + name + " listening on " + uri);
        }
        out.flush();
        stopped.await();
        return ExitCode.OK;
    }

    BrokerConfig config() {
        BrokerConfig.Builder b = BrokerConfig.builder(name).dataDirectory(dataDirectory);
        (listeners.isEmpty() ? List.of(DEFAULT_LISTENER) : listeners).forEach(b::listen);
        return b.build();
    }

    /** Runs in the shutdown hook. */
    private void stop(Broker broker, PrintWriter out, CountDownLatch stopped) {
        int status = ExitCode.OK;
        try {
            broker.close();
            out.println("broker " + name + " stopped");
        } catch (RuntimeException e) {
            PrintWriter err = spec.commandLine().getErr();
            err.println(spec.qualifiedName() + ": stopping broker " + name + " failed: " + e);
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
