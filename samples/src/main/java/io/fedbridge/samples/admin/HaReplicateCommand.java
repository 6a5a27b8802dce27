package io.fedbridge.samples.admin;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.PrintWriter;
import picocli.CommandLine;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code fedbridge ha replicate --url LOCAL --queue NAME --from REMOTE} (Qpid's {@code qpid-ha replicate}): keeps a
 * read-only replica of queue NAME of the broker at REMOTE on LOCAL; {@code --promote} makes it an ordinary queue
 * (refused while REMOTE still serves it, unless {@code --force}); {@code --status} shows LOCAL's replicas. Exit codes
 * as every admin command: 0 done, 1 refused (the message names why), 2 bad command line, 3 LOCAL unreachable.
 */
@Command(name = "replicate", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Keep a read-only replica of a queue of another broker on this one, or promote it to an ordinary queue.",
            "The source must run fedbridge with module fedbridge-ha and grant this broker the federation right (docs/ha.md)."})
public final class HaReplicateCommand extends AdminCommand.Requesting {

    @Option(names = "--queue", paramLabel = "NAME", order = 3, description = "The queue, e.g. /queue/orders (required with --from and --promote).")
    String queue;

    @ArgGroup(exclusive = true, multiplicity = "1")
    What what;

    static final class What {
        @Option(names = "--from", paramLabel = "REMOTE", required = true, order = 4,
                description = "Start replicating the queue of the broker at this URI (tcp://host:61613).")
        String from;

        @Option(names = "--promote", required = true, order = 5,
                description = "Stop replicating and make the replica an ordinary queue with the messages the source had not removed.")
        boolean promote;

        @Option(names = "--status", required = true, order = 6, description = "Show this broker's replicas.")
        boolean status;
    }

    @Option(names = "--force", order = 7, description = "With --promote: even while the source still serves the queue.")
    boolean force;

    /** Adds {@code replicate} under {@code fedbridge ha} (creating the {@code ha} group if nothing else did). */
    public static void attach(CommandLine fedbridge) {
        CommandLine ha = fedbridge.getSubcommands().get("ha");
        if (ha == null) {
            ha = new CommandLine(new Group());
            fedbridge.addSubcommand("ha", ha);
        }
        ha.addSubcommand("replicate", new CommandLine(new HaReplicateCommand()));
    }

    /** {@code fedbridge ha}, when no other command provides it. */
    @Command(name = "ha", mixinStandardHelpOptions = true, description = "High availability: replicate a queue of another broker.")
    static final class Group implements Runnable {
        @picocli.CommandLine.Spec
        picocli.CommandLine.Model.CommandSpec spec;

        @Override
        public void run() {
            throw new CommandLine.ParameterException(spec.commandLine(), "Missing required subcommand: replicate");
        }
    }

    @Override
    int run(ManagementClient client, PrintWriter out) {
        if (what.status) {
            JsonNode replicas = client.get("replica");
            if (json) {
                printJson(out, replicas);
            } else if (replicas.isEmpty()) {
                out.println("no replicas on " + client.url());
            } else {
                for (JsonNode r : replicas) {
                    out.println(line(r, client.url()));
                }
            }
            return OK;
        }
        if (queue == null) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--queue must be set with " + (what.promote ? "--promote" : "--from"));
        }
        if (force && !what.promote) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--force goes with --promote only");
        }
        JsonNode result;
        if (what.promote) {
            ObjectNode args = ManagementClient.JSON.createObjectNode().put("force", force);
            result = client.invoke("queue", queue, "promote", args);
        } else {
            result = client.invoke("queue", queue, "replicate", ManagementClient.JSON.createObjectNode().put("from", what.from));
        }
        if (json) {
            printJson(out, result);
        } else if (what.promote) {
            out.println("promoted " + queue + " on " + client.url() + " to an ordinary queue with " + result.path("messages").asInt()
                    + " message(s) (the replica was " + result.path("was").asText() + ")");
            if (result.hasNonNull("warning")) {
                out.println("warning: " + result.path("warning").asText());
            }
        } else {
            out.println(line(result, client.url()));
        }
        return OK;
    }

    private static String line(JsonNode r, String broker) {
        String error = r.path("lastError").asText(null);
        return "replica " + r.path("destination").asText() + " on " + broker + " of " + r.path("from").asText() + ": "
                + r.path("state").asText() + ", " + r.path("messages").asInt() + " message(s)"
                + (r.path("connected").asBoolean() ? "" : ", not connected") + (error == null ? "" : " (last error: " + error + ")");
    }
}
