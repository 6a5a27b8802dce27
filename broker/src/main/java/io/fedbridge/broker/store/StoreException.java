package io.fedbridge.broker.store;

/**
 * A message store could not be opened, read or written. The message names the store's directory or file and
 * says what was wrong; the cause, when there is one, is kept.
 */
public class StoreException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public StoreException(String message) {
        super(message);
    }

    public StoreException(String message, Throwable cause) {
        super(message, cause);
    }
}
