package io.fedbridge.failover;

import io.fedbridge.core.StompException;

/**
 * Base of the failover client's errors: the client gave up reconnecting, was closed, or an operation could not be
 * completed across a failover. The message names the brokers or the destination involved; the cause is kept.
 */
public class FailoverException extends StompException {
    private static final long serialVersionUID = 1L;

    public FailoverException(String message) {
        super(message);
    }

    public FailoverException(String message, Throwable cause) {
        super(message, cause);
    }
}
