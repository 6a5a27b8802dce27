package io.fedbridge.discovery.multicast;

/**
 * Multicast discovery could not start: no such interface, the port cannot be bound, the group cannot be joined, or
 * an interface other than loopback was chosen without a secret.
 */
public final class MulticastDiscoveryException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public MulticastDiscoveryException(String message, Throwable cause) {
        super(message, cause);
    }

    public MulticastDiscoveryException(String message) {
        super(message);
    }
}
