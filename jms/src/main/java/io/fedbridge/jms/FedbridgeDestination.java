package io.fedbridge.jms;

import jakarta.jms.Destination;
import java.io.Serializable;
import java.util.Objects;

/**
 * A JMS destination naming a STOMP one: {@link FedbridgeQueue} is {@code /queue/NAME}, {@link FedbridgeTopic}
 * {@code /topic/NAME}; temporary ones ({@code /temp-queue/…}, {@code /temp-topic/…}) come from a session. Immutable.
 */
public abstract class FedbridgeDestination implements Destination, Serializable {
    private static final long serialVersionUID = 1L;

    public static final String QUEUE_PREFIX = "/queue/";
    public static final String TOPIC_PREFIX = "/topic/";
    public static final String TEMP_QUEUE_PREFIX = "/temp-queue/";
    public static final String TEMP_TOPIC_PREFIX = "/temp-topic/";

    private final String stompName;

    protected FedbridgeDestination(String stompName) {
        this.stompName = Objects.requireNonNull(stompName, "stompName");
    }

    /** The STOMP destination, e.g. {@code /queue/orders}. */
    public String stompName() {
        return stompName;
    }

    /** The name without its STOMP prefix. */
    protected String shortName() {
        return stompName.substring(stompName.indexOf('/', 1) + 1);
    }

    static String checkName(String kind, String prefix, String name) {
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException(kind + " name must not be blank, but was '" + name + "'");
        }
        String n = name.startsWith(prefix) ? name.substring(prefix.length()) : name;
        if (n.isEmpty() || n.indexOf('\n') >= 0 || n.indexOf('\r') >= 0 || n.indexOf('\0') >= 0) {
            throw new IllegalArgumentException(kind + " name must be non-empty without line breaks or NUL, but was '" + name + "'");
        }
        return prefix + n;
    }

    @Override
    public boolean equals(Object o) {
        return o != null && o.getClass() == getClass() && ((FedbridgeDestination) o).stompName.equals(stompName);
    }

    @Override
    public int hashCode() {
        return stompName.hashCode();
    }

    @Override
    public String toString() {
        return stompName;
    }
}
