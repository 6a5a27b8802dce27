package io.fedbridge.samples.admin;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.PrintWriter;
import java.util.LinkedHashMap;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code fedbridge destination define|delete|list}: destinations defined for the whole federation (docs/cluster.md). */
@Command(name = "destination", mixinStandardHelpOptions = true,
        description = "Define or delete a destination for the whole federation, or list the definitions.",
        subcommands = {DestinationCommand.Define.class, DestinationCommand.Delete.class, DestinationCommand.List.class})
public final class DestinationCommand implements Runnable {

    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        throw new picocli.CommandLine.ParameterException(spec.commandLine(), "Missing required subcommand: define, delete or list");
    }

    @Command(name = "define", mixinStandardHelpOptions = true, sortOptions = false,
            description = "Define (or redefine) a queue or topic with its policy on every broker of the federation.")
    public static final class Define extends AdminCommand.Requesting {
        @Option(names = "--destination", required = true, paramLabel = "DEST", order = 3, description = "e.g. /queue/orders.")
        String destination;

        @Option(names = "--set", paramLabel = "KEY=VALUE", order = 4,
                description = "A policy key, as in a [policy] section, e.g. --set maxNumMsgs=10000; repeatable; the others take their defaults.")
        Map<String, String> policy = new LinkedHashMap<>();

        @Override
        int run(ManagementClient client, PrintWriter out) {
            ObjectNode args = ManagementClient.JSON.createObjectNode();
            policy.forEach(args::put);
            JsonNode r = client.invoke("definition", destination, "define", args);
            if (json) {
                printJson(out, r);
            } else {
                out.println("defined " + destination + " (version " + r.path("version").asText() + ") from " + client.url());
            }
            return OK;
        }
    }

    @Command(name = "delete", mixinStandardHelpOptions = true, sortOptions = false,
            description = "Delete a definition on every broker of the federation: its queue goes with its messages.")
    public static final class Delete extends AdminCommand.Requesting {
        @Option(names = "--destination", required = true, paramLabel = "DEST", order = 3, description = "e.g. /queue/orders.")
        String destination;

        @Override
        int run(ManagementClient client, PrintWriter out) {
            JsonNode r = client.invoke("definition", destination, "delete", null);
            if (json) {
                printJson(out, r);
            } else {
                out.println((r.path("deleted").asBoolean() ? "deleted " : "not defined: ") + destination + " (from " + client.url() + ")");
            }
            return OK;
        }
    }

    @Command(name = "list", mixinStandardHelpOptions = true, sortOptions = false,
            description = "List the destinations defined for the federation, as this broker knows them.")
    public static final class List extends AdminCommand.Requesting {
        @Override
        int run(ManagementClient client, PrintWriter out) {
            JsonNode defs = client.get("definition");
            if (json) {
                printJson(out, defs);
                return OK;
            }
            Table t = new Table("DESTINATION", "VERSION", "POLICY");
            for (JsonNode d : defs) {
                StringBuilder p = new StringBuilder();
                d.path("policy").fields().forEachRemaining(e -> p.append(p.length() == 0 ? "" : " ").append(e.getKey()).append('=')
                        .append(e.getValue().asText()));
                t.row(d.path("destination").asText(), d.path("version").asText(), p.toString());
            }
            t.print(out);
            return OK;
        }
    }
}
