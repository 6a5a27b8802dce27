package io.fedbridge.samples.admin;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.PrintWriter;
import java.util.Iterator;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code fedbridge queue create|delete|purge|browse|move}. */
@Command(name = "queue", mixinStandardHelpOptions = true,
        description = "Create, delete, purge, browse a queue or move its messages.",
        subcommands = {QueueCommand.Create.class, QueueCommand.Delete.class, QueueCommand.Purge.class, QueueCommand.Browse.class,
            QueueCommand.Move.class})
public final class QueueCommand implements Runnable {

    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        throw new picocli.CommandLine.ParameterException(spec.commandLine(), "Missing required subcommand: create, delete, purge, browse or move");
    }

    /** The queue option and the one-line human answer of every queue method. */
    abstract static class OnQueue extends AdminCommand.Requesting {
        @Option(names = "--destination", required = true, paramLabel = "DEST", order = 3, description = "The queue, e.g. /queue/orders.")
        String destination;

        abstract String method();

        ObjectNode arguments() {
            return null;
        }

        abstract String said(JsonNode result, String broker);

        @Override
        int run(ManagementClient client, PrintWriter out) {
            JsonNode result = client.invoke("queue", destination, method(), arguments());
            if (json) {
                printJson(out, result);
            } else {
                out.println(said(result, client.url()));
            }
            return OK;
        }
    }

    @Command(name = "create", mixinStandardHelpOptions = true, sortOptions = false, description = "Create a queue (nothing if it exists).")
    public static final class Create extends OnQueue {
        @Override
        String method() {
            return "create";
        }

        @Override
        String said(JsonNode r, String broker) {
            return (r.path("created").asBoolean() ? "created " : "already there: ") + destination + " on " + broker;
        }
    }

    @Command(name = "delete", mixinStandardHelpOptions = true, sortOptions = false,
            description = "Delete a queue that has no consumers, with its messages.")
    public static final class Delete extends OnQueue {
        @Override
        String method() {
            return "delete";
        }

        @Override
        String said(JsonNode r, String broker) {
            return "deleted " + destination + " on " + broker + " with " + r.path("purged").asInt() + " message(s)";
        }
    }

    @Command(name = "purge", mixinStandardHelpOptions = true, sortOptions = false,
            description = "Remove the messages waiting in a queue (delivered, unacknowledged ones stay).")
    public static final class Purge extends OnQueue {
        @Override
        String method() {
            return "purge";
        }

        @Override
        String said(JsonNode r, String broker) {
            return "purged " + r.path("purged").asInt() + " message(s) from " + destination + " on " + broker;
        }
    }

    @Command(name = "browse", mixinStandardHelpOptions = true, sortOptions = false,
            description = "Show the first messages waiting in a queue, with their headers; they stay in the queue.")
    public static final class Browse extends OnQueue {
        @Option(names = "--count", paramLabel = "N", defaultValue = "10", description = "How many (default ${DEFAULT-VALUE}).")
        int count;

        @Override
        String method() {
            return "browse";
        }

        @Override
        ObjectNode arguments() {
            if (count < 0) {
                throw new picocli.CommandLine.ParameterException(spec.commandLine(), "--count must be >= 0, but was " + count);
            }
            return ManagementClient.JSON.createObjectNode().put("count", count);
        }

        @Override
        String said(JsonNode r, String broker) {
            JsonNode messages = r.path("messages");
            if (messages.isEmpty()) {
                return "no messages waiting in " + destination + " on " + broker;
            }
            StringBuilder b = new StringBuilder();
            int i = 0;
            for (JsonNode m : messages) {
                b.append(i++ == 0 ? "" : "\n").append("#").append(i).append(' ').append(m.path("messageId").asText())
                        .append("  priority ").append(m.path("priority").asInt())
                        .append(m.path("persistent").asBoolean() ? "  persistent" : "")
                        .append(m.path("redeliveryCount").asInt() > 0 ? "  redelivered " + m.path("redeliveryCount").asInt() : "")
                        .append('\n');
                for (Iterator<Map.Entry<String, JsonNode>> it = m.path("headers").fields(); it.hasNext(); ) {
                    Map.Entry<String, JsonNode> h = it.next();
                    b.append("  ").append(h.getKey()).append(": ").append(h.getValue().asText()).append('\n');
                }
                b.append("  body (").append(m.path("bodyLength").asInt()).append(" bytes").append(m.path("bodyTruncated").asBoolean()
                        ? ", cut" : "").append("): ").append(m.path("body").asText());
            }
            return b.toString();
        }
    }

    @Command(name = "move", mixinStandardHelpOptions = true, sortOptions = false,
            description = "Move the messages waiting in a queue (or the first N) to another destination, in order.")
    public static final class Move extends OnQueue {
        @Option(names = "--to", required = true, paramLabel = "DEST", description = "Where to, e.g. /queue/orders.retry.")
        String to;

        @Option(names = "--count", paramLabel = "N", description = "At most this many (default: all).")
        Integer count;

        @Override
        String method() {
            return "move";
        }

        @Override
        ObjectNode arguments() {
            ObjectNode a = ManagementClient.JSON.createObjectNode().put("to", to);
            if (count != null) {
                if (count < 0) {
                    throw new picocli.CommandLine.ParameterException(spec.commandLine(), "--count must be >= 0, but was " + count);
                }
                a.put("count", count);
            }
            return a;
        }

        @Override
        String said(JsonNode r, String broker) {
            return "moved " + r.path("moved").asInt() + " message(s) from " + destination + " to " + to + " on " + broker;
        }
    }
}
