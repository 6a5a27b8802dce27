package io.fedbridge.samples.admin;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import java.io.PrintWriter;
import java.time.Instant;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code fedbridge queues|topics|connections|consumers|bridges}: one row (or JSON object) per object. */
public final class ListCommands {

    private ListCommands() {
    }

    @Command(name = "queues", mixinStandardHelpOptions = true, sortOptions = false,
            description = "List the queues: depth, in-flight, consumers, counters and rates. --json: one object per queue with "
                    + "destination, pending, inflight, consumers, enqueued, dequeued, expired, deadLettered, enqueueRate, dequeueRate.")
    public static final class Queues extends AdminCommand.Requesting {
        @Option(names = "--temporary", description = "Include temporary queues.")
        boolean temporary;

        @Override
        int run(ManagementClient client, PrintWriter out) {
            ArrayNode queues = ManagementClient.JSON.createArrayNode();
            for (JsonNode q : client.get("queue")) {
                if (temporary || !q.path("temporary").asBoolean()) {
                    queues.add(q);
                }
            }
            if (json) {
                printJson(out, queues);
                return OK;
            }
            Table t = new Table("DESTINATION", "PENDING", "INFLIGHT", "CONSUMERS", "ENQUEUED", "DEQUEUED", "IN/S", "OUT/S");
            for (JsonNode q : queues) {
                t.row(q.path("destination").asText(), q.path("pending").asInt(), q.path("inflight").asInt(), q.path("consumers").asInt(),
                        q.path("enqueued").asLong(), q.path("dequeued").asLong(), rate(q.path("enqueueRate")), rate(q.path("dequeueRate")));
            }
            t.print(out);
            return OK;
        }
    }

    @Command(name = "topics", mixinStandardHelpOptions = true, sortOptions = false,
            description = "List the topics: subscriptions and the copies waiting in them.")
    public static final class Topics extends AdminCommand.Requesting {
        @Override
        int run(ManagementClient client, PrintWriter out) {
            JsonNode topics = client.get("topic");
            if (json) {
                printJson(out, topics);
                return OK;
            }
            Table t = new Table("DESTINATION", "CONSUMERS", "PENDING", "ENQUEUED", "DEQUEUED");
            for (JsonNode q : topics) {
                t.row(q.path("destination").asText(), q.path("consumers").asInt(), q.path("pending").asInt(),
                        q.path("enqueued").asLong(), q.path("dequeued").asLong());
            }
            t.print(out);
            return OK;
        }
    }

    @Command(name = "connections", mixinStandardHelpOptions = true, sortOptions = false,
            description = "List the connections (bridges' too): id, address, user, client-id, consumers, age.")
    public static final class Connections extends AdminCommand.Requesting {
        @Override
        int run(ManagementClient client, PrintWriter out) {
            JsonNode all = client.get("connection");
            if (json) {
                printJson(out, all);
                return OK;
            }
            Table t = new Table("ID", "REMOTE", "USER", "CLIENT-ID", "LINK", "CONSUMERS", "AGE");
            for (JsonNode c : all) {
                t.row(c.path("id").asText(), c.path("remoteAddress").asText(), c.path("user").asText(), c.path("clientId").asText(null),
                        c.path("federationLink").asBoolean() ? "yes" : "no", c.path("consumers").asInt(), ago(c.path("connectedAt").asLong()));
            }
            t.print(out);
            return OK;
        }
    }

    @Command(name = "consumers", mixinStandardHelpOptions = true, sortOptions = false,
            description = "List the subscriptions of every connection.")
    public static final class Consumers extends AdminCommand.Requesting {
        @Override
        int run(ManagementClient client, PrintWriter out) {
            JsonNode all = client.get("consumer");
            if (json) {
                printJson(out, all);
                return OK;
            }
            Table t = new Table("CONNECTION", "SUBSCRIPTION", "DESTINATION", "ACK", "PREFETCH", "INFLIGHT", "KIND", "SELECTOR");
            for (JsonNode c : all) {
                String kind = c.path("network").asBoolean() ? "network" : c.path("durable").asBoolean() ? "durable" : "client";
                t.row(c.path("connection").asText(), c.path("subscription").asText(), c.path("destination").asText(),
                        c.path("ackMode").asText(), c.path("prefetch").asInt(), c.path("inflight").asInt(), kind, c.path("selector").asText(null));
            }
            t.print(out);
            return OK;
        }
    }

    @Command(name = "bridges", mixinStandardHelpOptions = true, sortOptions = false,
            description = "List the bridges (links) to peers: state and since when, forwarded, pending, last error. --json: one "
                    + "object per link with peer, state, since, forwarded, pending, lastError and more.")
    public static final class Bridges extends AdminCommand.Requesting {
        @Option(names = "--only-down", description = "Only the links that are not UP, with their last error and since when.")
        boolean onlyDown;

        @Override
        int run(ManagementClient client, PrintWriter out) {
            ArrayNode bridges = ManagementClient.JSON.createArrayNode();
            for (JsonNode b : client.get("bridge")) {
                if (!onlyDown || !"UP".equals(b.path("state").asText())) {
                    bridges.add(b);
                }
            }
            if (json) {
                printJson(out, bridges);
                return OK;
            }
            if (onlyDown && bridges.isEmpty()) {
                out.println("every link is UP");
                return OK;
            }
            print(bridges, out);
            return OK;
        }

        static void print(JsonNode bridges, PrintWriter out) {
            Table t = new Table("PEER", "STATE", "SINCE", "FORWARDED", "PENDING", "LAST ERROR");
            for (JsonNode b : bridges) {
                long since = b.path("since").asLong();
                t.row(b.path("peer").asText(), b.path("state").asText(), Instant.ofEpochMilli(since) + " (" + ago(since) + " ago)",
                        b.path("forwarded").asLong(), b.path("pending").asLong(), b.path("lastError").asText(null));
            }
            t.print(out);
        }
    }
}
