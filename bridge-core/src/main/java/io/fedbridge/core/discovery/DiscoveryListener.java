package io.fedbridge.core.discovery;

/** Told by a {@link DiscoveryAgent} when to connect to a peer and when to give it up. */
public interface DiscoveryListener {

    /** Connect to {@code peer} now (first discovery, or a reconnect after the agent's back-off). */
    void peerDiscovered(PeerInfo peer);

    /** Stop the bridge to {@code peer}: it left, expired, or the agent gave up on it. */
    void peerLost(PeerInfo peer);
}
