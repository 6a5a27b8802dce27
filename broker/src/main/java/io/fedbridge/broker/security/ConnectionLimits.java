package io.fedbridge.broker.security;

import io.fedbridge.core.uri.UriOptions;

/**
 * Connection limits of one listener, so that a flood of connections degrades only its source. A connection
 * over a limit is closed as soon as it is accepted, before any TLS handshake or STOMP frame. As listener URI
 * options (ActiveMQ's name for the first): {@code tcp://0.0.0.0:61613?maximumConnections=1000&maximumConnectionsPerAddress=50}.
 *
 * @param maximumConnections           open connections the listener accepts; 0 (the default) = no limit
 * @param maximumConnectionsPerAddress open connections from one source IP address; 0 (the default) = no limit
 */
public record ConnectionLimits(int maximumConnections, int maximumConnectionsPerAddress) {

    private static final ConnectionLimits UNLIMITED = new ConnectionLimits(0, 0);

    public ConnectionLimits {
        if (maximumConnections < 0) {
            throw new IllegalArgumentException("maximumConnections must be >= 0 (0 = no limit), but was " + maximumConnections);
        }
        if (maximumConnectionsPerAddress < 0) {
            throw new IllegalArgumentException("maximumConnectionsPerAddress must be >= 0 (0 = no limit), but was "
                    + maximumConnectionsPerAddress);
        }
    }

    /** No limits. */
    public static ConnectionLimits ofDefaults() {
        return UNLIMITED;
    }

    public static Builder builder() {
        return new Builder();
    }

    public Builder toBuilder() {
        return new Builder().maximumConnections(maximumConnections).maximumConnectionsPerAddress(maximumConnectionsPerAddress);
    }

    public boolean isUnlimited() {
        return maximumConnections == 0 && maximumConnectionsPerAddress == 0;
    }

    public static final class Builder {
        private int maximumConnections;
        private int maximumConnectionsPerAddress;

        private Builder() {
        }

        /** Registers {@code maximumConnections} and {@code maximumConnectionsPerAddress}. */
        public UriOptions bind(UriOptions options) {
            return options.integer("maximumConnections", this::maximumConnections)
                    .integer("maximumConnectionsPerAddress", this::maximumConnectionsPerAddress);
        }

        public Builder maximumConnections(int max) {
            this.maximumConnections = max;
            return this;
        }

        public Builder maximumConnectionsPerAddress(int max) {
            this.maximumConnectionsPerAddress = max;
            return this;
        }

        public ConnectionLimits build() {
            return new ConnectionLimits(maximumConnections, maximumConnectionsPerAddress);
        }
    }
}
