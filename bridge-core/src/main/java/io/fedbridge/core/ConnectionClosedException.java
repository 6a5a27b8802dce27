package io.fedbridge.core;

/** The connection closed before an operation (a send awaiting its receipt, a receive) could complete. */
public class ConnectionClosedException extends StompException {
    private static final long serialVersionUID = 1L;

    public ConnectionClosedException(String message) {
        super(message);
    }

    public ConnectionClosedException(String message, Throwable cause) {
        super(message, cause);
    }
}
