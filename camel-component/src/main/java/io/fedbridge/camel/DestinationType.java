package io.fedbridge.camel;

import java.util.Arrays;
import java.util.stream.Collectors;

/**
 * The kind of destination a {@code fedbridge:} endpoint names: the part before the name in
 * {@code fedbridge:queue:orders}. Each maps to the STOMP destination convention ({@code /queue/orders}).
 */
public enum DestinationType {
    /** {@code /queue/NAME}: competing consumers, one copy per message. */
    QUEUE("queue"),
    /** {@code /topic/NAME}: a copy per subscription; {@code *} and {@code >} wildcards when consuming. */
    TOPIC("topic"),
    /** {@code /temp-queue/NAME}: owned by the connection that first uses it, reachable across the federation. */
    TEMP_QUEUE("temp-queue"),
    /** {@code /temp-topic/NAME}: as a temporary queue, with topic delivery. */
    TEMP_TOPIC("temp-topic");

    private final String uriName;

    DestinationType(String uriName) {
        this.uriName = uriName;
    }

    /** The name used in endpoint URIs: {@code queue}, {@code topic}, {@code temp-queue}, {@code temp-topic}. */
    public String uriName() {
        return uriName;
    }

    /** The STOMP destination of {@code name}, e.g. {@code /queue/orders}. */
    public String destination(String name) {
        return "/" + uriName + "/" + name;
    }

    /** True for destinations that give every subscription a copy. */
    public boolean isTopic() {
        return this == TOPIC || this == TEMP_TOPIC;
    }

    /**
     * The type named {@code uriName} in an endpoint URI.
     *
     * @throws IllegalArgumentException if it names none
     */
    public static DestinationType fromUriName(String uriName) {
        for (DestinationType t : values()) {
            if (t.uriName.equals(uriName)) {
                return t;
            }
        }
        throw new IllegalArgumentException("destination type must be one of " + uriNames() + ", but was '" + uriName + "'");
    }

    static String uriNames() {
        return Arrays.stream(values()).map(DestinationType::uriName).collect(Collectors.joining(", "));
    }
}
