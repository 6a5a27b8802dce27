package io.fedbridge.broker.management.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fedbridge.broker.internal.ManagedCore;
import io.fedbridge.broker.management.BrokerManagement;
import io.fedbridge.broker.management.ManagementDestinations;
import io.fedbridge.broker.management.ManagementException;
import io.fedbridge.core.StompHeaders;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Answers the JSON requests sent to {@link ManagementDestinations#REQUESTS} (schema: docs/management.md), on the
 * management thread. A request without {@code reply-to} is carried out, unanswered. Every failure is an answer with
 * {@code "status":"error"}, never an ERROR frame: the requester's connection stays open.
 */
public final class RequestHandler {

    private static final Logger LOG = LoggerFactory.getLogger(RequestHandler.class);

    /** The types {@code get} knows, with the field that names an object of each. */
    static final Map<String, String> TYPES = new java.util.LinkedHashMap<>();

    static {
        TYPES.put("broker", "name");
        TYPES.put("listener", "uri");
        TYPES.put("connection", "id");
        TYPES.put("consumer", "connection");
        TYPES.put("queue", "destination");
        TYPES.put("topic", "destination");
        TYPES.put("durable-subscription", "name");
        TYPES.put("bridge", "name");
        TYPES.put("discovery-agent", "uri");
        TYPES.put("ha", "group");
        TYPES.put("definition", "destination");
        TYPES.put("replica", "destination");
    }

    private final BrokerManagement management;
    private final ManagedCore core;
    private final String broker;

    public RequestHandler(BrokerManagement management, ManagedCore core, String broker) {
        this.management = management;
        this.core = core;
        this.broker = broker;
    }

    public void handle(String user, StompHeaders headers, byte[] body) {
        String replyTo = headers.get(StompHeaders.REPLY_TO);
        ObjectNode answer = Json.MAPPER.createObjectNode();
        answer.put("version", ManagementDestinations.SCHEMA_VERSION);
        answer.put("broker", broker);
        String status = "ok";
        List<Runnable> afterAnswer = new java.util.ArrayList<>(1);
        try {
            JsonNode request = parse(body);
            answer.put("status", "ok");
            answer.put("timestamp", System.currentTimeMillis());
            String op = text(request, "op", true);
            switch (op) {
                case "get" -> get(request, answer);
                case "invoke" -> answer.set("result", Json.MAPPER.valueToTree(invoke(request, user, afterAnswer)));
                default -> throw ManagementException.badRequest("op must be get or invoke, but was '" + op + "'");
            }
        } catch (ManagementException e) {
            status = "error";
            error(answer, e.kind().wireName(), e.getMessage());
        } catch (RuntimeException e) {
            LOG.warn("broker {}: management request of {} failed", broker, user, e);
            status = "error";
            error(answer, ManagementException.Kind.FAILED.wireName(), "internal error: " + e);
        }
        if (replyTo == null) {
            LOG.debug("broker {}: management request of {} had no reply-to; answer {} dropped", broker, user, status);
        } else {
            StompHeaders h = StompHeaders.of(StompHeaders.CONTENT_TYPE, "application/json");
            h.add(ManagementDestinations.STATUS, status);
            String correlation = headers.get(ManagementDestinations.CORRELATION_ID);
            if (correlation != null) {
                h.add(ManagementDestinations.CORRELATION_ID, correlation);
            }
            core.reply(replyTo, h, Json.bytes(answer));
        }
        // What the request set going that would close the requester's connection (a promotion) starts only now, after
        // the answer is written to that connection: the connection's close is queued behind it.
        afterAnswer.forEach(Runnable::run);
    }

    private static void error(ObjectNode answer, String type, String message) {
        answer.put("status", "error");
        answer.remove("objects");
        answer.remove("result");
        answer.put("errorType", type);
        answer.put("error", message);
    }

    private static JsonNode parse(byte[] body) {
        try {
            JsonNode n = Json.MAPPER.readTree(body);
            if (n == null || !n.isObject()) {
                throw ManagementException.badRequest("a management request must be a JSON object such as "
                        + "{\"op\":\"get\",\"type\":\"queue\"}, but the body was " + (n == null ? "empty" : n.getNodeType()));
            }
            JsonNode v = n.get("version");
            if (v != null && v.asInt(-1) != ManagementDestinations.SCHEMA_VERSION) {
                throw ManagementException.badRequest("version must be " + ManagementDestinations.SCHEMA_VERSION + ", but was " + v);
            }
            return n;
        } catch (IOException e) {
            throw ManagementException.badRequest("a management request must be JSON, but the body is not: "
                    + (e instanceof com.fasterxml.jackson.core.JsonProcessingException j ? j.getOriginalMessage() : e.getMessage()));
        }
    }

    private static String text(JsonNode n, String field, boolean required) {
        JsonNode v = n.get(field);
        if (v == null || v.isNull()) {
            if (required) {
                throw ManagementException.badRequest("field '" + field + "' is missing");
            }
            return null;
        }
        if (!v.isTextual()) {
            throw ManagementException.badRequest(field + " must be a string, but was " + v);
        }
        return v.asText();
    }

    private static int integer(JsonNode args, String field, int dflt) {
        JsonNode v = args.get(field);
        if (v == null || v.isNull()) {
            return dflt;
        }
        if (!v.canConvertToInt() || v.asInt() < 0) {
            throw ManagementException.badRequest(field + " must be a non-negative integer, but was " + v);
        }
        return v.asInt();
    }

    /** A definition as management shows it: destination, version and the policy's keys. */
    private static Map<String, Object> definition(io.fedbridge.broker.cluster.DestinationDefinition d) {
        Map<String, Object> m = new java.util.LinkedHashMap<>();
        m.put("destination", d.destination());
        m.put("version", d.version().toString());
        m.put("policy", io.fedbridge.broker.cluster.internal.DefinitionCodec.policyMap(d.policy()));
        return m;
    }

    private void get(JsonNode request, ObjectNode answer) {
        String type = text(request, "type", true);
        String name = text(request, "name", false);
        Supplier<List<?>> all = switch (type) {
            case "broker" -> () -> List.of(management.broker());
            case "listener" -> management::listeners;
            case "connection" -> management::connections;
            case "consumer" -> management::consumers;
            case "queue" -> management::queues;
            case "topic" -> management::topics;
            case "durable-subscription" -> management::durableSubscriptions;
            case "bridge" -> management::bridges;
            case "discovery-agent" -> management::discoveryAgents;
            case "definition" -> () -> management.definitions().stream().map(RequestHandler::definition).toList();
            case "snapshot" -> () -> List.of(management.snapshot());
            case "ha" -> () -> List.of(haGate().status());
            case "replica" -> management::replicas;
            default -> throw ManagementException.badRequest("type must be one of " + TYPES.keySet() + " or snapshot, but was '"
                    + type + "'");
        };
        answer.put("type", type);
        var objects = answer.putArray("objects");
        String key = TYPES.get(type);
        boolean found = false;
        for (Object o : all.get()) {
            JsonNode n = Json.MAPPER.valueToTree(o);
            if (name == null || key == null || name.equals(n.path(key).asText(null))
                    || type.equals("bridge") && name.equals(n.path("peer").asText(null))) {
                objects.add(n);
                found = true;
            }
        }
        if (name != null && !found) {
            throw ManagementException.notFound("no " + type.replace('-', ' ') + " " + name + " on broker " + broker);
        }
    }

    private io.fedbridge.broker.internal.HaGate haGate() {
        io.fedbridge.broker.internal.HaGate gate = core.haGate();
        if (gate == null) {
            throw ManagementException.notFound("broker " + broker + " is not a member of an HA group (ha.group)");
        }
        return gate;
    }

    private Object invoke(JsonNode request, String user, List<Runnable> afterAnswer) {
        String type = text(request, "type", true);
        String method = text(request, "method", true);
        JsonNode args = request.path("arguments");
        String name = text(request, "name", false);
        Function<String, String> require = what -> {
            if (name == null) {
                throw ManagementException.badRequest("field 'name' is missing: " + type + " " + method + " needs the " + what);
            }
            return name;
        };
        switch (type + "." + method) {
            case "queue.create" -> {
                return Map.of("destination", require.apply("queue"), "created", management.createQueue(name));
            }
            case "queue.delete" -> {
                return Map.of("destination", require.apply("queue"), "deleted", true, "purged", management.deleteQueue(name));
            }
            case "queue.purge" -> {
                return Map.of("destination", require.apply("queue"), "purged", management.purgeQueue(name));
            }
            case "queue.browse" -> {
                return Map.of("destination", require.apply("queue"), "messages", management.browseQueue(name,
                        integer(args, "count", 10), integer(args, "maxBody", BrokerManagement.DEFAULT_MAX_BODY)));
            }
            case "queue.move" -> {
                String to = args.isObject() ? text(args, "to", true) : null;
                if (to == null) {
                    throw ManagementException.badRequest("arguments.to is missing: queue move needs the destination to move to");
                }
                return Map.of("destination", require.apply("queue"), "to", to,
                        "moved", management.moveMessages(name, to, integer(args, "count", Integer.MAX_VALUE)));
            }
            case "connection.close" -> {
                management.closeConnection(require.apply("connection id"), user);
                return Map.of("id", name, "closed", true);
            }
            case "broker.addNetworkConnector", "discovery-agent.add" -> {
                return management.addNetworkConnector(args.isObject() ? text(args, "uri", true) : name);
            }
            case "broker.removeNetworkConnector", "discovery-agent.remove" -> {
                String uri = args.isObject() && args.has("uri") ? text(args, "uri", true) : require.apply("connector URI");
                management.removeNetworkConnector(uri);
                return Map.of("uri", uri, "removed", true);
            }
            case "queue.replicate" -> {
                String from = args.isObject() ? text(args, "from", false) : null;
                if (from == null) {
                    throw ManagementException.badRequest("arguments.from is missing: queue replicate needs the source broker's URI");
                }
                return management.replicateQueue(require.apply("queue"), from);
            }
            case "queue.promote" -> {
                return management.promoteReplica(require.apply("queue"), args.path("force").asBoolean(false));
            }
            case "ha.promote" -> {
                try {
                    io.fedbridge.broker.internal.HaGate.Promotion p = haGate().promote(args.path("force").asBoolean(false));
                    afterAnswer.add(p.start());
                    return p.answer();
                } catch (IllegalStateException e) {
                    throw ManagementException.badRequest(e.getMessage());
                }
            }
            case "definition.define" -> {
                Map<String, String> values = new java.util.LinkedHashMap<>();
                args.fields().forEachRemaining(e -> values.put(e.getKey(), e.getValue().asText()));
                io.fedbridge.broker.DestinationPolicy policy;
                try {
                    io.fedbridge.broker.cluster.DestinationDefinition.requireName(require.apply("destination"));
                    policy = io.fedbridge.broker.cluster.internal.DefinitionCodec.strictPolicy(name, values);
                } catch (IllegalArgumentException e) {
                    throw ManagementException.badRequest(e.getMessage());
                }
                return definition(management.define(policy));
            }
            case "definition.delete" -> {
                return Map.of("destination", require.apply("destination"), "deleted", management.undefine(name));
            }
            default -> throw ManagementException.badRequest("no method '" + method + "' on " + type + "; methods: queue create, "
                    + "delete, purge, browse, move, replicate, promote; connection close; broker addNetworkConnector, "
                    + "removeNetworkConnector; definition define, delete; ha promote");
        }
    }
}
