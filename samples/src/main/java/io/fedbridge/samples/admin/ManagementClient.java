package io.fedbridge.samples.admin;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fedbridge.core.Message;
import io.fedbridge.core.StompException;
import io.fedbridge.core.SubscriptionRequest;
import io.fedbridge.core.uri.CompositeUri;
import io.fedbridge.failover.FailoverClient;
import io.fedbridge.failover.FailoverConfig;
import io.fedbridge.failover.FailoverMessage;
import io.fedbridge.failover.FailoverSubscription;
import java.io.IOException;
import java.time.Duration;
import java.util.UUID;

/**
 * A connection to one broker's management API: JSON requests to {@code /queue/fedbridge.management} with a reply-to on a
 * temporary queue of this connection. Not thread-safe.
 */
final class ManagementClient implements AutoCloseable {

    static final String REQUESTS = "/queue/fedbridge.management";
    static final String EVENTS = "/topic/fedbridge.management.events";
    static final ObjectMapper JSON = new ObjectMapper();
    private static final String REPLIES = "/temp-queue/fedbridge-admin";

    private final FailoverClient client;
    private final String url;
    private final Duration timeout;
    private FailoverSubscription replies;

    private ManagementClient(FailoverClient client, String url, Duration timeout) {
        this.client = client;
        this.url = url;
        this.timeout = timeout;
    }

    /**
     * Connects; {@code timeout} bounds the wait for a broker (unless the URL sets its own {@code timeout}) and for each
     * answer.
     *
     * @throws AdminException 2 for a bad URL, 3 if no broker is reachable
     */
    static ManagementClient connect(String url, Duration timeout) {
        FailoverConfig config;
        String shown;
        try {
            CompositeUri parsed = CompositeUri.parse(url);
            shown = parsed.toString();
            config = FailoverConfig.fromUri(url);
            if (parsed.isComposite() && !parsed.options().containsKey("timeout")) {
                config = config.toBuilder().timeout(timeout).build();
            }
        } catch (IllegalArgumentException e) {
            throw new AdminException(AdminCommand.USAGE, "--url " + e.getMessage());
        }
        try {
            return new ManagementClient(FailoverClient.connect(config), shown, timeout);
        } catch (StompException e) {
            throw new AdminException(AdminCommand.UNREACHABLE, "cannot reach broker at " + shown + ": " + e.getMessage());
        }
    }

    String url() {
        return url;
    }

    /** Sends {@code request} and returns the answer of status ok; throws with the broker's words otherwise. */
    JsonNode request(ObjectNode request) {
        request.put("version", 1);
        if (replies == null) {
            replies = client.subscribe(SubscriptionRequest.of(REPLIES));
        }
        String correlation = UUID.randomUUID().toString();
        try {
            client.send(Message.builder(REQUESTS).header("reply-to", REPLIES).header("correlation-id", correlation)
                    .contentType("application/json").body(JSON.writeValueAsString(request)).build());
        } catch (IOException e) {
            throw new IllegalStateException(e);
        } catch (StompException e) {
            throw new AdminException(AdminCommand.FAILED, "broker at " + url + " refused the request: " + e.getMessage());
        }
        long deadline = System.nanoTime() + timeout.toNanos();
        try {
            while (System.nanoTime() < deadline) {
                FailoverMessage m = replies.receive(Duration.ofNanos(Math.max(1, deadline - System.nanoTime())));
                if (m == null || !correlation.equals(m.header("correlation-id"))) {
                    continue;
                }
                JsonNode answer = JSON.readTree(m.body());
                if (!"ok".equals(answer.path("status").asText())) {
                    throw new AdminException(AdminCommand.FAILED, answer.path("error").asText("the broker answered without a reason"));
                }
                return answer;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (IOException e) {
            throw new AdminException(AdminCommand.FAILED, "broker at " + url + " answered with something that is not JSON: " + e.getMessage());
        }
        throw new AdminException(AdminCommand.UNREACHABLE, "broker at " + url + " did not answer within " + timeout
                + " (is it a fedbridge broker?)");
    }

    /** {@code get} of every object of {@code type}: the answer's {@code objects}. */
    JsonNode get(String type) {
        ObjectNode r = JSON.createObjectNode().put("op", "get").put("type", type);
        return request(r).path("objects");
    }

    /** {@code invoke} of {@code method} on object {@code name} of {@code type}: the answer's {@code result}. */
    JsonNode invoke(String type, String name, String method, ObjectNode arguments) {
        ObjectNode r = JSON.createObjectNode().put("op", "invoke").put("type", type).put("method", method);
        if (name != null) {
            r.put("name", name);
        }
        if (arguments != null) {
            r.set("arguments", arguments);
        }
        return request(r).path("result");
    }

    FailoverSubscription subscribeEvents() {
        try {
            return client.subscribe(SubscriptionRequest.of(EVENTS));
        } catch (StompException e) {
            throw new AdminException(AdminCommand.FAILED, "broker at " + url + " refused the events subscription: " + e.getMessage());
        }
    }

    @Override
    public void close() {
        client.close();
    }
}
