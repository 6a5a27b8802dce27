package io.fedbridge.core.discovery;

import java.util.Objects;

/**
 * A broker a discovery agent found.
 *
 * @param uri       the connector URI to reach it, e.g. {@code tcp://10.0.0.2:61613}
 * @param brokerId  its broker id if the agent knows it (multicast announces it), else null
 * @param name      its broker name if known, else null
 */
public record PeerInfo(String uri, String brokerId, String name) {
    public PeerInfo {
        Objects.requireNonNull(uri, "uri");
    }

    public static PeerInfo of(String uri) {
        return new PeerInfo(uri, null, null);
    }

    @Override
    public String toString() {
        String shown = io.fedbridge.core.uri.CompositeUri.parse(uri).toString(); // masks secrets
        return name != null ? name + "@" + shown : shown;
    }
}
