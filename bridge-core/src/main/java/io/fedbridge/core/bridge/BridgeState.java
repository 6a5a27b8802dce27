package io.fedbridge.core.bridge;

/** A bridge's link state. */
public enum BridgeState {
    /** Connecting to the local broker and the peer. */
    CONNECTING,
    /** Both connections up; forwarding. */
    UP,
    /** Up, with demand and forwards awaiting receipts, but no receipt came within the stall timeout. */
    STALLED,
    /** Closed, by {@link FederationBridge#close()} or by a failure ({@link BridgeStats#lastError()}). */
    DOWN
}
