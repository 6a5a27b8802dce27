package io.fedbridge.samples;

import io.fedbridge.broker.BrokerException;
import io.fedbridge.samples.admin.ConnectionCommand;
import io.fedbridge.samples.admin.EventsCommand;
import io.fedbridge.samples.admin.ListCommands;
import io.fedbridge.samples.admin.DestinationCommand;
import io.fedbridge.samples.admin.QueueCommand;
import io.fedbridge.samples.admin.StatCommand;
import io.fedbridge.core.StompException;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.util.Properties;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.IVersionProvider;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParseResult;
import picocli.CommandLine.Spec;

/**
 * The {@code fedbridge} command: one runnable jar whose subcommands run a broker node or a demo.
 *
 * <pre>
 * java -jar fedbridge.jar demo
 * java -jar fedbridge.jar broker --name A --listen tcp://127.0.0.1:61613
 * </pre>
 *
 * Exit codes: 0 success, 1 the command failed (one line on stderr says why; {@code --verbose} adds the
 * stack trace), 2 invalid command line (picocli's usage message on stderr).
 */
@Command(name = "fedbridge",
        mixinStandardHelpOptions = true,
        versionProvider = FedbridgeCli.Version.class,
        description = "Federated STOMP 1.2 broker nodes.",
        subcommands = {BrokerCommand.class, DemoCommand.class, ProduceCommand.class, ConsumeCommand.class,
            StatCommand.class, ListCommands.Queues.class, ListCommands.Topics.class, ListCommands.Connections.class,
            ListCommands.Consumers.class, ListCommands.Bridges.class, QueueCommand.class, DestinationCommand.class, ConnectionCommand.Group.class,
            ConnectionCommand.Connector.class, EventsCommand.class, io.fedbridge.samples.admin.HaCommand.Group.class, CommandLine.HelpCommand.class},
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {
            "0:success",
            "1:the command failed; stderr says why (--verbose for the stack trace)",
            "2:invalid command line",
            "3:(admin commands) the broker is unreachable or did not answer"})
public final class FedbridgeCli implements Runnable {

    @Spec
    CommandSpec spec;

    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }

    /** The configured command line, as {@link #main} runs it; tests redirect its out and err. */
    public static CommandLine commandLine() {
        CommandLine cli = new CommandLine(new FedbridgeCli());
        io.fedbridge.samples.admin.HaReplicateCommand.attach(cli);
        return cli.setExecutionExceptionHandler(FedbridgeCli::reportFailure);
    }

    @Override
    public void run() {
        throw new ParameterException(spec.commandLine(), "Missing required subcommand");
    }

    /** One line naming the problem, or the stack trace with {@code --verbose}; exit code 1. */
    private static int reportFailure(Exception e, CommandLine command, ParseResult parsed) {
        PrintWriter err = command.getErr();
        if (isVerbose(parsed)) {
            e.printStackTrace(err);
        } else {
            String line = command.getCommandSpec().qualifiedName() + ": " + describe(e);
            err.println(command.getColorScheme().errorText(line));
        }
        err.flush();
        return command.getCommandSpec().exitCodeOnExecutionException();
    }

    private static String describe(Throwable e) {
        String message = e.getMessage() == null ? e.toString() : e.getMessage();
        if (isExpected(e)) {
            return message;
        }
        return "internal error: " + e + " (run with --verbose for the stack trace)";
    }

    /** Failures a user can cause (bad value, port in use, broker gone); anything else is a bug. */
    private static boolean isExpected(Throwable e) {
        return e instanceof IllegalArgumentException || e instanceof BrokerException || e instanceof StompException
                || e instanceof IOException || e instanceof UncheckedIOException;
    }

    private static boolean isVerbose(ParseResult parsed) {
        for (ParseResult p = parsed; p != null; p = p.subcommand()) {
            if (p.hasMatchedOption(LoggingOptions.VERBOSE)) {
                return true;
            }
        }
        return false;
    }

    /** {@code --version}: the project version, from the jar's build. */
    static final class Version implements IVersionProvider {
        @Override
        public String[] getVersion() {
            return new String[] {
                "fedbridge " + projectVersion(),
                "Java " + System.getProperty("java.version") + " (" + System.getProperty("java.vm.name") + ")"};
        }

        static String projectVersion() {
            try (InputStream in = FedbridgeCli.class.getResourceAsStream("version.properties")) {
                if (in == null) {
                    return "unknown";
                }
                Properties p = new Properties();
                p.load(in);
                return p.getProperty("version", "unknown");
            } catch (IOException e) {
                return "unknown";
            }
        }
    }
}
