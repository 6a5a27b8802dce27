package io.fedbridge.failover;

import io.fedbridge.core.StompErrorException;

/**
 * The broker answered a send with an ERROR frame (an invalid destination, a policy limit, no permission): the send is
 * not retried on another broker. {@link #getCause()} is the {@link StompErrorException} with the broker's frame.
 */
public class MessageRejectedException extends FailoverException {
    private static final long serialVersionUID = 1L;

    private final String federationId;

    public MessageRejectedException(String message, String federationId, StompErrorException cause) {
        super(message, cause);
        this.federationId = federationId;
    }

    public String federationId() {
        return federationId;
    }
}
