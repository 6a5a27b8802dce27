package io.fedbridge.samples.admin;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fedbridge.core.ClientConfig;
import io.fedbridge.core.ConnectionClosedException;
import io.fedbridge.core.Message;
import io.fedbridge.core.ReceivedMessage;
import io.fedbridge.core.StompConnection;
import io.fedbridge.core.StompException;
import io.fedbridge.core.Subscription;
import io.fedbridge.core.SubscriptionRequest;
import io.fedbridge.core.uri.CompositeUri;
import java.io.IOException;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code fedbridge ha status|promote}: an HA group's members, and promotion of a backup. They talk to one member (a
 * backup refuses clients, but lets an administrator in with {@code fedbridge-ha-admin: true} to read its state), so
 * {@code --url} is a member's plain URI, not a failover URI.
 */
public final class HaCommand {

    static final String ADMIN_HEADER = "fedbridge-ha-admin";

    private HaCommand() {
    }

    @Command(name = "ha", mixinStandardHelpOptions = true, description = "High availability: a group's state, promotion.",
            subcommands = {Status.class, Promote.class})
    public static final class Group implements Runnable {
        @Spec
        CommandSpec spec;

        @Override
        public void run() {
            throw new picocli.CommandLine.ParameterException(spec.commandLine(), "Missing required subcommand: status or promote");
        }
    }

    /** What the {@code ha} subcommands share: a member's URL, --json, --timeout, exit codes as the other admin commands. */
    abstract static class OnMember implements Callable<Integer> {
        @Option(names = "--url", required = true, paramLabel = "URI", order = 0,
                description = "An HA member's URI, e.g. tcp://a1:61613 (login and passcode as URI options).")
        String url;

        @Option(names = "--json", order = 1, description = "JSON for scripts instead of a table.")
        boolean json;

        @Option(names = "--timeout", paramLabel = "DURATION", defaultValue = "10s", order = 2, converter = DurationConverter.class,
                description = "How long to wait for the member and for its answer (default ${DEFAULT-VALUE}).")
        Duration timeout;

        @Spec
        CommandSpec spec;

        abstract int run(PrintWriter out);

        @Override
        public final Integer call() {
            if (System.getProperty("org.slf4j.simpleLogger.defaultLogLevel") == null) {
                System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "error");
            }
            PrintWriter out = spec.commandLine().getOut();
            try {
                int code = run(out);
                out.flush();
                return code;
            } catch (AdminException e) {
                return fail(e.exitCode(), e.getMessage());
            } catch (RuntimeException e) {
                return fail(AdminCommand.FAILED, e.getMessage() == null ? e.toString() : e.getMessage());
            }
        }

        private int fail(int code, String message) {
            PrintWriter err = spec.commandLine().getErr();
            err.println(spec.qualifiedName() + ": " + message);
            err.flush();
            return code;
        }

        /** One request to one member: the answer of status ok, or an AdminException with the member's words. */
        JsonNode request(String member, ObjectNode request) {
            return request(member, request, timeout);
        }

        /** {@link #request(String, ObjectNode)}, waiting at most {@code timeout} for the member and its answer. */
        JsonNode request(String member, ObjectNode request, Duration timeout) {
            CompositeUri uri;
            try {
                uri = CompositeUri.parse(member);
                if (uri.isComposite()) {
                    throw new IllegalArgumentException("must be one member's URI (tcp://host:port), not '" + member + "'");
                }
            } catch (IllegalArgumentException e) {
                throw new AdminException(AdminCommand.USAGE, "--url " + e.getMessage());
            }
            ClientConfig config;
            try {
                config = ClientConfig.builder(uri).options(uri.options(), "--url").connectTimeout(timeout)
                        .heartBeats(Duration.ZERO).connectHeader(ADMIN_HEADER, "true").build();
            } catch (IllegalArgumentException e) {
                throw new AdminException(AdminCommand.USAGE, "--url " + e.getMessage());
            }
            StompConnection c;
            try {
                c = StompConnection.connect(config);
            } catch (StompException e) {
                throw new AdminException(AdminCommand.UNREACHABLE, "cannot reach HA member at " + uri + ": " + e.getMessage());
            }
            try (c) {
                String replies = "/temp-queue/fedbridge-ha-admin";
                Subscription sub = c.subscribe(SubscriptionRequest.of(replies));
                String correlation = UUID.randomUUID().toString();
                request.put("version", 1);
                c.send(Message.builder(ManagementClient.REQUESTS).header("reply-to", replies).header("correlation-id", correlation)
                        .contentType("application/json").body(ManagementClient.JSON.writeValueAsString(request)).build())
                        .get(timeout.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
                long deadline = System.nanoTime() + timeout.toNanos();
                while (System.nanoTime() < deadline) {
                    ReceivedMessage m = sub.receive(Duration.ofNanos(Math.max(1, deadline - System.nanoTime())));
                    if (m == null || !correlation.equals(m.header("correlation-id"))) {
                        continue;
                    }
                    JsonNode answer = ManagementClient.JSON.readTree(m.body());
                    if (!"ok".equals(answer.path("status").asText())) {
                        throw new AdminException(AdminCommand.FAILED, answer.path("error").asText("the member answered without a reason"));
                    }
                    return answer;
                }
                throw new AdminException(AdminCommand.UNREACHABLE, "HA member at " + uri + " did not answer within " + timeout);
            } catch (ConnectionClosedException e) {
                // e.g. a backup that is being promoted closes its listeners and every connection on them
                throw new AdminException(AdminCommand.UNREACHABLE, "HA member at " + uri + " closed the connection before it "
                        + "answered: " + e.getMessage());
            } catch (IOException e) {
                throw new AdminException(AdminCommand.FAILED, "HA member at " + uri + " answered with something that is not JSON: " + e.getMessage());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AdminException(AdminCommand.FAILED, "interrupted");
            } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
                throw new AdminException(AdminCommand.FAILED, "HA member at " + uri + " refused the request: "
                        + (e.getCause() == null ? e : e.getCause()).getMessage());
            }
        }

        JsonNode status(String member) {
            return status(member, timeout);
        }

        JsonNode status(String member, Duration timeout) {
            JsonNode objects = request(member, ManagementClient.JSON.createObjectNode().put("op", "get").put("type", "ha"),
                    timeout).path("objects");
            return objects.path(0);
        }
    }

    @Command(name = "status", mixinStandardHelpOptions = true, sortOptions = false,
            description = "Every member of the group: role, state, epoch, replication lag (messages and bytes), last error.")
    public static final class Status extends OnMember {
        @Override
        int run(PrintWriter out) {
            JsonNode first = status(url);
            List<JsonNode> members = new ArrayList<>();
            JsonNode primary = null;
            for (JsonNode m : first.path("members")) {
                String u = m.asText();
                JsonNode s;
                try {
                    s = u.equals(first.path("uri").asText()) ? first : status(u);
                } catch (AdminException e) {
                    ObjectNode down = ManagementClient.JSON.createObjectNode();
                    down.put("uri", u).put("role", "unreachable").put("state", "-").put("lastError", e.getMessage());
                    s = down;
                }
                members.add(s);
                if ("primary".equals(s.path("role").asText())) {
                    primary = s;
                }
            }
            if (json) {
                ArrayNode all = ManagementClient.JSON.createArrayNode();
                members.forEach(all::add);
                AdminCommand.printJson(out, all);
                return AdminCommand.OK;
            }
            out.println("HA group " + first.path("group").asText() + " (promotion " + first.path("promotion").asText()
                    + ", replicate " + first.path("replicate").asText() + ")");
            Table t = new Table("MEMBER", "URI", "ROLE", "STATE", "EPOCH", "LAG MSGS", "LAG BYTES", "LAST ERROR");
            for (JsonNode s : members) {
                String lagMessages = "-";
                String lagBytes = "-";
                if (primary != null && "backup".equals(s.path("role").asText())) {
                    for (JsonNode b : primary.path("backups")) {
                        if (b.path("member").asText().equals(s.path("member").asText())) {
                            lagMessages = b.path("lagMessages").asText();
                            lagBytes = b.path("lagBytes").asText();
                        }
                    }
                } else if ("primary".equals(s.path("role").asText())) {
                    lagMessages = "0";
                    lagBytes = "0";
                }
                t.row(s.path("member").asText("?"), s.path("uri").asText(), s.path("role").asText(), s.path("state").asText(),
                        s.path("epoch").asText("-"), lagMessages, lagBytes, s.path("lastError").asText("-").replace("null", "-"));
            }
            t.print(out);
            return AdminCommand.OK;
        }
    }

    @Command(name = "promote", mixinStandardHelpOptions = true, sortOptions = false,
            description = "Promote a backup to primary; refused for a backup that is not ready unless --force.")
    public static final class Promote extends OnMember {
        @Option(names = "--force", order = 3, description = "Promote even a backup that is not ready: "
                + "messages the old primary receipted after the backup's last copy are lost.")
        boolean force;

        @Override
        int run(PrintWriter out) {
            ObjectNode r = ManagementClient.JSON.createObjectNode().put("op", "invoke").put("type", "ha").put("method", "promote");
            r.putObject("arguments").put("force", force);
            JsonNode result = request(url, r).path("result");
            long deadline = System.nanoTime() + timeout.toNanos();
            JsonNode s = null;
            while (System.nanoTime() < deadline) {
                try {
                    // Short tries: a connection that reached the backup's listeners as they closed must not use up
                    // the whole --timeout waiting for an answer that cannot come.
                    long left = Math.max(1, (deadline - System.nanoTime()) / 1_000_000);
                    s = status(url, Duration.ofMillis(Math.min(2000, left)));
                    if ("primary".equals(s.path("role").asText())) {
                        break;
                    }
                } catch (AdminException e) {
                    // the member is between its backup's listeners and its primary's
                }
                java.util.concurrent.locks.LockSupport.parkNanos(50_000_000);
            }
            if (s == null || !"primary".equals(s.path("role").asText())) {
                throw new AdminException(AdminCommand.FAILED, result.path("member").asText() + " did not become primary within "
                        + timeout + (s == null ? "" : "; last error: " + s.path("lastError").asText()));
            }
            if (json) {
                AdminCommand.printJson(out, s);
            } else {
                if (result.has("warning")) {
                    out.println("WARNING: " + result.path("warning").asText());
                }
                out.println("promoted " + s.path("member").asText() + " to primary of HA group " + s.path("group").asText()
                        + " (epoch " + s.path("epoch").asText() + ", state " + s.path("state").asText() + ")");
            }
            return AdminCommand.OK;
        }
    }
}
