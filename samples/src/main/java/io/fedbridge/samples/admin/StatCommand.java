package io.fedbridge.samples.admin;

import com.fasterxml.jackson.databind.JsonNode;
import io.fedbridge.core.internal.Sizes;
import java.io.PrintWriter;
import picocli.CommandLine.Command;

/** {@code fedbridge stat}: one screen with the broker, its connections, queues and links. */
@Command(name = "stat", mixinStandardHelpOptions = true, sortOptions = false,
        description = "One screen: the broker, its connections, queues (depth, rates, consumers) and links (state). "
                + "--json: the whole management snapshot.")
public final class StatCommand extends AdminCommand.Requesting {

    @Override
    int run(ManagementClient client, PrintWriter out) {
        JsonNode snapshot = client.get("snapshot").get(0);
        if (json) {
            printJson(out, snapshot);
            return OK;
        }
        JsonNode b = snapshot.path("broker");
        out.printf("broker %s (%s) fedbridge %s, up %s%n", b.path("name").asText(), b.path("brokerId").asText(),
                b.path("version").asText(), ago(b.path("startedAt").asLong()));
        out.printf("durability %s, security %s, data directory %s%n", b.path("durability").asText(),
                b.path("securityMode").asText(), b.path("dataDirectory").asText("none"));
        int paused = b.path("memoryPausedConnections").asInt();
        out.printf("connections %d, queues %d, topics %d, memory %s of %s%s%s%n", b.path("connections").asInt(), b.path("queues").asInt(),
                b.path("topics").asInt(), Sizes.of(b.path("memoryUsed").asLong()), Sizes.of(b.path("memoryLimit").asLong()),
                paused == 0 ? "" : ", MEMORY FULL: " + paused + (paused == 1 ? " producer" : " producers") + " paused",
                b.path("diskSpaceLow").asBoolean() ? ", DISK SPACE LOW" : "");
        out.println();
        Table q = new Table("QUEUE", "PENDING", "CONSUMERS", "IN/S", "OUT/S", "ENQUEUED", "DEQUEUED");
        for (JsonNode n : snapshot.path("queues")) {
            if (!n.path("temporary").asBoolean()) {
                q.row(n.path("destination").asText(), n.path("pending").asInt(), n.path("consumers").asInt(), rate(n.path("enqueueRate")),
                        rate(n.path("dequeueRate")), n.path("enqueued").asLong(), n.path("dequeued").asLong());
            }
        }
        if (q.isEmpty()) {
            out.println("no queues");
        } else {
            q.print(out);
        }
        out.println();
        if (snapshot.path("bridges").isEmpty()) {
            out.println("no links");
        } else {
            ListCommands.Bridges.print(snapshot.path("bridges"), out);
        }
        return OK;
    }
}
