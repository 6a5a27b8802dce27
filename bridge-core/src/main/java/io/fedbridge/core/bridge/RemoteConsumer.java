package io.fedbridge.core.bridge;

import java.util.List;

/**
 * A consumer on the peer, as its advisory describes it: the demand a bridge may turn into a network
 * subscription.
 *
 * @param originId    federation-wide id of the consumer
 * @param destination what it consumes ({@code /queue/x}, {@code /topic/a.>})
 * @param selector    its selector, or null
 * @param path        the brokers its demand passed, origin first; size 1 = a consumer local to the peer
 */
public record RemoteConsumer(String originId, String destination, String selector, List<String> path) {

    public RemoteConsumer {
        path = List.copyOf(path);
    }

    /** True if the consumer is an application's, on the peer itself (not demand relayed from further away). */
    public boolean isLocalToPeer() {
        return path.size() <= 1;
    }

    public boolean isQueue() {
        return destination.startsWith("/queue/") || destination.startsWith("/temp-queue/");
    }
}
