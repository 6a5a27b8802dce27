package io.fedbridge.broker.management;

/**
 * The reserved destinations of the management API (see docs/management.md). They are the broker's control plane:
 * requests to {@link #REQUESTS} are answered by the broker (never queued) and need {@code admin} on it when
 * authorization is on; only the broker publishes on {@link #EVENTS} (a SEND there is refused for everyone, and
 * subscribing needs {@code admin}). Neither is ever forwarded by a bridge.
 */
public final class ManagementDestinations {

    /** Where requests go, with a {@code reply-to} header: {@code /queue/fedbridge.management}. */
    public static final String REQUESTS = "/queue/fedbridge.management";
    /** Where the broker publishes its events: {@code /topic/fedbridge.management.events}. */
    public static final String EVENTS = "/topic/fedbridge.management.events";
    /** Echoed from a request into its reply. */
    public static final String CORRELATION_ID = "correlation-id";
    /** On a reply: {@code ok} or {@code error}. On an event: its type, e.g. {@code link-down}. */
    public static final String STATUS = "fedbridge-management-status";
    public static final String EVENT_TYPE = "fedbridge-event";
    /** The version of the request, reply and event schema. */
    public static final int SCHEMA_VERSION = 1;

    private static final String QUEUE_PREFIX = "/queue/fedbridge.management";
    private static final String TOPIC_PREFIX = "/topic/fedbridge.management";

    private ManagementDestinations() {
    }

    /** Whether {@code destination} is the request queue, the events topic or another name under them. */
    public static boolean isReserved(String destination) {
        return destination != null && (under(destination, QUEUE_PREFIX) || under(destination, TOPIC_PREFIX));
    }

    public static boolean isEvents(String destination) {
        return destination != null && under(destination, TOPIC_PREFIX);
    }

    private static boolean under(String destination, String prefix) {
        return destination.startsWith(prefix)
                && (destination.length() == prefix.length() || destination.charAt(prefix.length()) == '.');
    }
}
