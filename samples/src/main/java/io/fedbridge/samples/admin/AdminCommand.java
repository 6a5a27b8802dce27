package io.fedbridge.samples.admin;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * What every admin command shares: {@code --url}, {@code --json}, {@code --timeout}, {@code --verbose}, and its exit
 * codes: 0 done; 1 the operation failed (e.g. {@code no queue /queue/x on broker B}, or the user lacks {@code admin});
 * 2 invalid command line; 3 the broker is unreachable or did not answer. A failure is one line on stderr naming the
 * object (with the stack trace only under {@code --verbose}).
 */
public abstract class AdminCommand implements Callable<Integer> {

    static final int OK = 0;
    static final int FAILED = 1;
    static final int USAGE = 2;
    static final int UNREACHABLE = 3;

    @Option(names = "--url", required = true, paramLabel = "URL", order = 0,
            description = "Broker URI: tcp://host:61613, ssl://host:61614?trustStore=…, or failover:(tcp://a:61613,tcp://b:61613); "
                    + "login and passcode as URI options (…?login=ops&passcode=… or failover:(…)?nested.login=ops&nested.passcode=…).")
    String url;

    @Option(names = "--json", order = 1, description = "JSON for scripts instead of a table.")
    boolean json;

    @Option(names = {"-v", "--verbose"}, order = 9, description = "Print the stack trace of an error.")
    boolean verbose;

    @Spec
    CommandSpec spec;

    /** How long to wait for the broker and for each answer. */
    abstract Duration timeout();

    /** Runs the command over a connected client; returns the exit code. */
    abstract int run(ManagementClient client, PrintWriter out);

    @Override
    public final Integer call() {
        if (System.getProperty("org.slf4j.simpleLogger.defaultLogLevel") == null) {
            System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", verbose ? "info" : "error");
        }
        PrintWriter out = spec.commandLine().getOut();
        try (ManagementClient client = ManagementClient.connect(url, timeout())) {
            int code = run(client, out);
            out.flush();
            return code;
        } catch (AdminException e) {
            return fail(e.exitCode(), e.getMessage(), e);
        } catch (RuntimeException e) {
            return fail(FAILED, e.getMessage() == null ? e.toString() : e.getMessage(), e);
        }
    }

    private int fail(int code, String message, Exception e) {
        PrintWriter err = spec.commandLine().getErr();
        if (verbose) {
            e.printStackTrace(err);
        }
        err.println(spec.qualifiedName() + ": " + message);
        err.flush();
        return code;
    }

    /** JSON for scripts: indented, one value. */
    static void printJson(PrintWriter out, JsonNode node) {
        try {
            out.println(ManagementClient.JSON.copy().enable(SerializationFeature.INDENT_OUTPUT).writeValueAsString(node));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    /** A rate as people read it: one decimal. */
    static String rate(JsonNode n) {
        return String.format(java.util.Locale.ROOT, "%.1f", n.asDouble());
    }

    /** How long ago {@code epochMillis} was, e.g. {@code 3m12s}. */
    static String ago(long epochMillis) {
        long s = Math.max(0, (System.currentTimeMillis() - epochMillis) / 1000);
        if (s < 60) {
            return s + "s";
        }
        if (s < 3600) {
            return s / 60 + "m" + s % 60 + "s";
        }
        if (s < 86400) {
            return s / 3600 + "h" + s % 3600 / 60 + "m";
        }
        return s / 86400 + "d" + s % 86400 / 3600 + "h";
    }

    /** An admin command that asks and waits for answers ({@code --timeout}, default 10 s). */
    public abstract static class Requesting extends AdminCommand {
        @Option(names = "--timeout", paramLabel = "DURATION", defaultValue = "10s", order = 2, converter = DurationConverter.class,
                description = "How long to wait for the broker and for its answer (e.g. 500ms, 10s; default ${DEFAULT-VALUE}).")
        Duration timeout;

        @Override
        Duration timeout() {
            return timeout;
        }
    }
}
