package io.fedbridge.broker;

/** A broker could not start or do what was asked; the message names the broker and the cause. */
public class BrokerException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public BrokerException(String message) {
        super(message);
    }

    public BrokerException(String message, Throwable cause) {
        super(message, cause);
    }
}
