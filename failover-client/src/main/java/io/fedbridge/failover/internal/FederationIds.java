package io.fedbridge.failover.internal;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Mints the {@code fedbridge-id}s of a failover client's sends: {@code <client key>:<stream>:<n>}, where each
 * destination has a stream of its own numbered 1, 2, 3, … So a subscription that takes all of one destination's
 * messages sees each producer's numbers without gaps, and its {@link SequenceAudit} remembers them as one range.
 *
 * <p>The {@value #MAX_STREAMS} destinations sent to most recently keep their streams; a destination sent to again
 * after it lost its stream starts a new one (a new stream number, from 1), so an id is never minted twice. Thread-safe.
 */
final class FederationIds {

    static final int MAX_STREAMS = 1024;

    private final String clientKey;
    private long streams;
    /** Destination to {stream number, last number}; least recently used first. Guarded by this. */
    private final LinkedHashMap<String, long[]> byDestination = new LinkedHashMap<>(16, 0.75f, true) {
        private static final long serialVersionUID = 1L;

        @Override
        protected boolean removeEldestEntry(Map.Entry<String, long[]> eldest) {
            return size() > MAX_STREAMS;
        }
    };

    FederationIds(String clientKey) {
        this.clientKey = clientKey;
    }

    synchronized String next(String destination) {
        long[] stream = byDestination.get(destination);
        if (stream == null) {
            stream = new long[] {++streams, 0};
            byDestination.put(destination, stream);
        }
        return clientKey + ":" + stream[0] + ":" + ++stream[1];
    }
}
