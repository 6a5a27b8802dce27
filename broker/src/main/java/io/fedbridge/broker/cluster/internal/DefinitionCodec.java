package io.fedbridge.broker.cluster.internal;

import io.fedbridge.broker.DestinationPolicy;
import io.fedbridge.broker.LimitBehavior;
import io.fedbridge.broker.cluster.DefinitionVersion;
import io.fedbridge.broker.cluster.DestinationDefinition;
import io.fedbridge.core.FederationHeaders;
import io.fedbridge.core.StompHeaders;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A definition as text: on the wire (headers {@code fedbridge-definition*}, the policy as {@code key=value} lines in the
 * body, keys named as in a {@code [policy]} section) and in the store (the same lines after {@code version=} and
 * {@code deleted=}). Keys a later version may add are ignored. Stateless.
 */
public final class DefinitionCodec {

    private DefinitionCodec() {
    }

    public static StompHeaders headers(DestinationDefinition d) {
        StompHeaders h = StompHeaders.of(FederationHeaders.DEFINITION, d.destination(),
                FederationHeaders.DEFINITION_VERSION, d.version().toString());
        if (d.deleted()) {
            h.add(FederationHeaders.DEFINITION_DELETED, "true");
        }
        return h;
    }

    public static byte[] body(DestinationDefinition d) {
        return d.deleted() ? new byte[0] : policyText(d.policy()).getBytes(StandardCharsets.UTF_8);
    }

    /** The definition a definitions-topic message carries; IllegalArgumentException naming what is wrong. */
    public static DestinationDefinition fromWire(StompHeaders headers, byte[] body) {
        String name = headers.get(FederationHeaders.DEFINITION);
        DefinitionVersion v = DefinitionVersion.parse(headers.get(FederationHeaders.DEFINITION_VERSION));
        boolean deleted = "true".equals(headers.get(FederationHeaders.DEFINITION_DELETED));
        return new DestinationDefinition(name, deleted ? null : policy(name, parse(new String(body, StandardCharsets.UTF_8))), v, deleted);
    }

    public static String toStored(DestinationDefinition d) {
        return "version=" + d.version() + "\ndeleted=" + d.deleted() + "\n" + (d.deleted() ? "" : policyText(d.policy()));
    }

    public static DestinationDefinition fromStored(String name, String text) {
        Map<String, String> m = parse(text);
        boolean deleted = Boolean.parseBoolean(m.get("deleted"));
        return new DestinationDefinition(name, deleted ? null : policy(name, m), DefinitionVersion.parse(m.get("version")), deleted);
    }

    static String policyText(DestinationPolicy p) {
        StringBuilder sb = new StringBuilder();
        policyMap(p).forEach((k, v) -> sb.append(k).append('=').append(v).append('\n'));
        return sb.toString();
    }

    /** The policy's keys and values, in {@link #POLICY_KEYS} order (what management shows). */
    public static Map<String, Object> policyMap(DestinationPolicy p) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("maxNumMsgs", p.maxNumMsgs());
        m.put("maxTotalMsgBytes", p.maxTotalMsgBytes());
        m.put("maxBytesPerMsg", p.maxBytesPerMsg());
        m.put("maxNumProducers", p.maxNumProducers());
        m.put("maxNumActiveConsumers", p.maxNumActiveConsumers());
        m.put("maxNumBackupConsumers", p.maxNumBackupConsumers());
        m.put("consumerFlowLimit", p.consumerFlowLimit());
        m.put("limitBehavior", p.limitBehavior().name());
        m.put("useDMQ", p.useDMQ());
        m.put("maxRedeliveries", p.maxRedeliveries());
        m.put("localDeliveryPreferred", p.localDeliveryPreferred());
        m.put("isLocalOnly", p.isLocalOnly());
        return m;
    }

    private static Map<String, String> parse(String text) {
        Map<String, String> m = new LinkedHashMap<>();
        for (String line : text.split("\n")) {
            int eq = line.indexOf('=');
            if (eq > 0) {
                m.put(line.substring(0, eq).strip(), line.substring(eq + 1).strip());
            }
        }
        return m;
    }

    /** The policy keys, as in a {@code [policy]} section and on the wire. */
    public static final java.util.List<String> POLICY_KEYS = java.util.List.of("maxNumMsgs", "maxTotalMsgBytes", "maxBytesPerMsg",
            "maxNumProducers", "maxNumActiveConsumers", "maxNumBackupConsumers", "consumerFlowLimit", "limitBehavior", "useDMQ", "maxRedeliveries",
            "localDeliveryPreferred", "isLocalOnly");

    /**
     * A policy for {@code name} from {@code values} (policy keys to values; the others take their defaults), as the
     * management API's {@code define} gets it: an unknown key fails, naming the valid ones.
     */
    public static DestinationPolicy strictPolicy(String name, Map<String, String> values) {
        for (String k : values.keySet()) {
            if (!POLICY_KEYS.contains(k)) {
                throw new IllegalArgumentException("unknown policy key '" + k + "'; valid keys are " + POLICY_KEYS);
            }
        }
        return policy(name, values);
    }

    private static DestinationPolicy policy(String name, Map<String, String> m) {
        DestinationPolicy.Builder b = DestinationPolicy.builder(name);
        try {
            for (Map.Entry<String, String> e : m.entrySet()) {
                String v = e.getValue();
                switch (e.getKey()) {
                    case "maxNumMsgs" -> b.maxNumMsgs(Long.parseLong(v));
                    case "maxTotalMsgBytes" -> b.maxTotalMsgBytes(Long.parseLong(v));
                    case "maxBytesPerMsg" -> b.maxBytesPerMsg(Long.parseLong(v));
                    case "maxNumProducers" -> b.maxNumProducers(Integer.parseInt(v));
                    case "maxNumActiveConsumers" -> b.maxNumActiveConsumers(Integer.parseInt(v));
                    case "maxNumBackupConsumers" -> b.maxNumBackupConsumers(Integer.parseInt(v));
                    case "consumerFlowLimit" -> b.consumerFlowLimit(Integer.parseInt(v));
                    case "limitBehavior" -> b.limitBehavior(LimitBehavior.valueOf(v));
                    case "useDMQ" -> b.useDMQ(Boolean.parseBoolean(v));
                    case "maxRedeliveries" -> b.maxRedeliveries(Integer.parseInt(v));
                    case "localDeliveryPreferred" -> b.localDeliveryPreferred(Boolean.parseBoolean(v));
                    case "isLocalOnly" -> b.isLocalOnly(Boolean.parseBoolean(v));
                    default -> {
                        // version, deleted (stored form), or a key of a later version
                    }
                }
            }
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("definition of " + name + " has a bad policy value: " + e.getMessage(), e);
        }
        return b.build();
    }
}
