package io.fedbridge.samples.admin;

import java.io.PrintWriter;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code fedbridge connection close --id ID} and {@code fedbridge connector add|remove --uri URI}. */
public final class ConnectionCommand {

    private ConnectionCommand() {
    }

    @Command(name = "connection", mixinStandardHelpOptions = true, description = "Close a connection.",
            subcommands = {Close.class})
    public static final class Group implements Runnable {
        @picocli.CommandLine.Spec
        picocli.CommandLine.Model.CommandSpec spec;

        @Override
        public void run() {
            throw new picocli.CommandLine.ParameterException(spec.commandLine(), "Missing required subcommand: close");
        }
    }

    @Command(name = "close", mixinStandardHelpOptions = true, sortOptions = false,
            description = "Close a connection (its client gets an ERROR saying who closed it); ids from 'fedbridge connections'.")
    public static final class Close extends AdminCommand.Requesting {
        @Option(names = "--id", required = true, paramLabel = "ID", description = "The connection's id, e.g. A-session-7.")
        String id;

        @Override
        int run(ManagementClient client, PrintWriter out) {
            var r = client.invoke("connection", id, "close", null);
            if (json) {
                printJson(out, r);
            } else {
                out.println("closed connection " + id + " on " + client.url());
            }
            return OK;
        }
    }

    @Command(name = "connector", mixinStandardHelpOptions = true,
            description = "Add or remove a network connector: starts or stops the bridges to the peers it finds.",
            subcommands = {Add.class, Remove.class})
    public static final class Connector implements Runnable {
        @picocli.CommandLine.Spec
        picocli.CommandLine.Model.CommandSpec spec;

        @Override
        public void run() {
            throw new picocli.CommandLine.ParameterException(spec.commandLine(), "Missing required subcommand: add or remove");
        }
    }

    abstract static class OnConnector extends AdminCommand.Requesting {
        @Option(names = "--uri", required = true, paramLabel = "URI",
                description = "The network connector, e.g. static:(tcp://b:61613)?duplex=true")
        String uri;
    }

    @Command(name = "add", mixinStandardHelpOptions = true, sortOptions = false, description = "Add a network connector.")
    public static final class Add extends OnConnector {
        @Override
        int run(ManagementClient client, PrintWriter out) {
            var r = client.invoke("broker", null, "addNetworkConnector", ManagementClient.JSON.createObjectNode().put("uri", uri));
            if (json) {
                printJson(out, r);
            } else {
                out.println("added network connector " + r.path("uri").asText() + " on " + client.url());
            }
            return OK;
        }
    }

    @Command(name = "remove", mixinStandardHelpOptions = true, sortOptions = false,
            description = "Remove a network connector (its bridges stop); URIs from 'fedbridge stat --json' (discoveryAgents).")
    public static final class Remove extends OnConnector {
        @Override
        int run(ManagementClient client, PrintWriter out) {
            var r = client.invoke("broker", null, "removeNetworkConnector", ManagementClient.JSON.createObjectNode().put("uri", uri));
            if (json) {
                printJson(out, r);
            } else {
                out.println("removed network connector " + uri + " on " + client.url());
            }
            return OK;
        }
    }
}
