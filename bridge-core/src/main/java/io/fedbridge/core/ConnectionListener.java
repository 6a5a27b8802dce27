package io.fedbridge.core;

/** Connection life-cycle callbacks; every method has a no-op default. */
public interface ConnectionListener {

    /** The connection closed; {@code cause} is null after a clean close. */
    default void onClosed(StompConnection connection, Throwable cause) {
    }

    /** The peer sent an ERROR frame that belongs to no pending receipt. */
    default void onError(StompConnection connection, StompErrorException error) {
    }
}
