package io.fedbridge.samples.admin;

import com.fasterxml.jackson.databind.JsonNode;
import io.fedbridge.failover.FailoverMessage;
import io.fedbridge.failover.FailoverSubscription;
import java.io.IOException;
import java.io.PrintWriter;
import java.time.Duration;
import java.time.Instant;
import java.util.Iterator;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code fedbridge events}: follows the broker's management events. */
@Command(name = "events", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Follow the broker's events (link up/down/stalled, consumers, destinations, dead letters, failed logins, memory limit) "
                + "until Ctrl-C, --count or --timeout. --json: one JSON object per line.")
public final class EventsCommand extends AdminCommand {

    private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(10);

    @Option(names = "--count", paramLabel = "N", description = "Stop after N events.")
    Integer count;

    @Option(names = "--timeout", paramLabel = "DURATION", converter = DurationConverter.class,
            description = "Stop after following this long (e.g. 30s; default: until Ctrl-C).")
    Duration timeout;

    @Option(names = "--type", paramLabel = "TYPE", description = "Only events of this type, e.g. link-down.")
    String type;

    @Override
    Duration timeout() {
        return timeout != null && timeout.compareTo(CONNECT_TIMEOUT) < 0 ? timeout : CONNECT_TIMEOUT;
    }

    @Override
    int run(ManagementClient client, PrintWriter out) {
        if (count != null && count < 1) {
            throw new AdminException(USAGE, "--count must be >= 1, but was " + count);
        }
        FailoverSubscription events = client.subscribeEvents();
        long deadline = timeout == null ? Long.MAX_VALUE : System.nanoTime() + timeout.toNanos();
        int seen = 0;
        try {
            while ((count == null || seen < count) && System.nanoTime() < deadline) {
                long left = deadline - System.nanoTime();
                FailoverMessage m = events.receive(Duration.ofNanos(Math.min(left, Duration.ofSeconds(1).toNanos())));
                if (m == null) {
                    continue;
                }
                JsonNode e = ManagementClient.JSON.readTree(m.body());
                if (type != null && !type.equals(e.path("type").asText())) {
                    continue;
                }
                seen++;
                if (json) {
                    out.println(ManagementClient.JSON.writeValueAsString(e));
                } else {
                    out.println(line(e));
                }
                out.flush();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (IOException e) {
            throw new AdminException(FAILED, "an event from " + client.url() + " is not JSON: " + e.getMessage());
        }
        return OK;
    }

    /** {@code 2024-05-01T10:00:00Z A link-down bridge=… peer=… error=…}. */
    static String line(JsonNode e) {
        StringBuilder b = new StringBuilder().append(Instant.ofEpochMilli(e.path("timestamp").asLong())).append(' ')
                .append(e.path("broker").asText()).append(' ').append(e.path("type").asText());
        for (Iterator<Map.Entry<String, JsonNode>> it = e.path("data").fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> f = it.next();
            JsonNode v = f.getValue();
            b.append(' ').append(f.getKey()).append('=').append(v.isContainerNode() ? v.toString() : v.asText());
        }
        return b.toString();
    }
}
