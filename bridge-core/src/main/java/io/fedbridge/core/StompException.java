package io.fedbridge.core;

/** Base of fedbridge's unchecked STOMP errors: connection refused, closed, rejected by the peer. */
public class StompException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public StompException(String message) {
        super(message);
    }

    public StompException(String message, Throwable cause) {
        super(message, cause);
    }
}
