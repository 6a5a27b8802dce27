package io.fedbridge.discovery.multicast.internal;

import io.fedbridge.core.uri.CompositeUri;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * What one multicast discovery datagram announces; {@link AnnouncementCodec} writes and reads the datagram.
 *
 * @param type              alive (a heartbeat) or dead (a clean departure)
 * @param group             the discovery group
 * @param brokerId          the sender's broker id
 * @param brokerName        the sender's broker name
 * @param heartbeatInterval how often the sender announces itself
 * @param uris              the connector URIs peers should use, best first
 */
public record Announcement(Type type, String group, String brokerId, String brokerName, Duration heartbeatInterval,
                           List<String> uris) {

    /** The longest heartbeat interval a datagram may state. */
    public static final Duration MAX_HEARTBEAT_INTERVAL = Duration.ofHours(1);

    /** What a datagram announces. */
    public enum Type {
        /** The sender is up; sent every heartbeat interval. */
        ALIVE,
        /** The sender is shutting down cleanly; forget it now. */
        DEAD
    }

    public Announcement {
        Objects.requireNonNull(type, "type");
        requireText(group, "group");
        requireText(brokerId, "brokerId");
        requireText(brokerName, "brokerName");
        Objects.requireNonNull(heartbeatInterval, "heartbeatInterval");
        if (heartbeatInterval.toMillis() < 1 || heartbeatInterval.compareTo(MAX_HEARTBEAT_INTERVAL) > 0) {
            throw new IllegalArgumentException("heartbeatInterval must be 1 ms to " + MAX_HEARTBEAT_INTERVAL
                    + ", but was " + heartbeatInterval);
        }
        uris = List.copyOf(uris);
        if (uris.isEmpty()) {
            throw new IllegalArgumentException("uris must not be empty, but was " + uris);
        }
        uris.forEach(uri -> requireText(uri, "uri"));
    }

    /** This announcement with another type, e.g. the {@code DEAD} twin of an {@code ALIVE}. */
    public Announcement withType(Type newType) {
        return new Announcement(newType, group, brokerId, brokerName, heartbeatInterval, uris);
    }

    private static void requireText(String value, String name) {
        if (value == null || value.isEmpty()) {
            throw new IllegalArgumentException(name + " must not be empty, but was " + (value == null ? "null" : "''"));
        }
    }

    @Override
    public String toString() {
        return type + " " + group + " " + brokerName + " (" + brokerId + ") " + uris.stream()
                .map(Announcement::masked).toList() + " every " + heartbeatInterval.toMillis() + " ms";
    }

    private static String masked(String uri) {
        try {
            return CompositeUri.parse(uri).toString();
        } catch (IllegalArgumentException e) {
            return "(unparseable URI)";
        }
    }
}
