package io.fedbridge.core.bridge;

/** Link events of a bridge; every method has a no-op default. Called from I/O threads: do not block. */
public interface BridgeListener {

    /** Both connections are up and the bridge forwards. */
    default void linkUp(FederationBridge bridge) {
    }

    /** The bridge stopped: {@code cause} is null after {@link FederationBridge#close()}. */
    default void linkDown(FederationBridge bridge, Throwable cause) {
    }

    /** The link has demand and unreceipted forwards but no receipt came within the stall timeout. */
    default void linkStalled(FederationBridge bridge) {
    }

    /** A stalled link moves again. */
    default void linkResumed(FederationBridge bridge) {
    }
}
