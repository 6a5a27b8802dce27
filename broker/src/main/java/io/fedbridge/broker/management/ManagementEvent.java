package io.fedbridge.broker.management;

import java.util.Map;

/**
 * One event on {@link ManagementDestinations#EVENTS}. Types: {@code link-up}, {@code link-down}, {@code link-stalled},
 * {@code link-resumed}, {@code consumer-added}, {@code consumer-removed}, {@code destination-created},
 * {@code destination-deleted}, {@code message-dead-lettered}, {@code login-failed}, {@code connection-closed},
 * {@code memory-limit-reached}, {@code memory-limit-released}, {@code ha-state}.
 *
 * @param data the event's attributes (see docs/management.md)
 */
public record ManagementEvent(int version, String type, String broker, long timestamp, Map<String, Object> data) {
    public ManagementEvent {
        data = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(data));
    }
}
