package io.fedbridge.core.discovery;

/**
 * Finds peers for a network connector. Agents are created from a URI by {@link DiscoveryAgents}, which
 * finds the {@link DiscoveryAgentProvider} for the URI's scheme through {@link java.util.ServiceLoader}.
 *
 * <p>The connector reports each connection attempt's outcome; the agent decides when to try again
 * (back-off) and when to give up. Implementations are thread-safe.
 */
public interface DiscoveryAgent extends AutoCloseable {

    /** Starts discovering; {@code listener} is called from the agent's threads. */
    void start(DiscoveryListener listener);

    /** The bridge to {@code peer} is up. */
    void peerConnected(PeerInfo peer);

    /**
     * Connecting to {@code peer} failed, or its link went down; the agent calls
     * {@link DiscoveryListener#peerDiscovered} again after its back-off, or {@link DiscoveryListener#peerLost}
     * when it gives up.
     */
    void peerFailed(PeerInfo peer, Throwable cause);

    /** {@code peer} turned out to be this broker itself: never try it again. */
    void peerIsSelf(PeerInfo peer);

    /** Stops discovering and announcing; no listener calls after it returns. */
    @Override
    void close();
}
