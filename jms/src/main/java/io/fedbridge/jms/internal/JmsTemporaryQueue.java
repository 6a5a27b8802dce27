package io.fedbridge.jms.internal;

import io.fedbridge.jms.FedbridgeDestination;
import jakarta.jms.JMSException;
import jakarta.jms.TemporaryQueue;

/**
 * {@code /temp-queue/NAME}: made by a connection ({@code owner}), readable only by it; the broker deletes it when that
 * connection closes. One received as a JMSReplyTo has no owner here: it can be sent to, not consumed or deleted.
 */
public final class JmsTemporaryQueue extends FedbridgeDestination implements TemporaryQueue {
    private static final long serialVersionUID = 1L;

    private final transient JmsConnection owner;

    JmsTemporaryQueue(String stompName, JmsConnection owner) {
        super(stompName);
        this.owner = owner;
    }

    JmsConnection owner() {
        return owner;
    }

    @Override
    public String getQueueName() {
        return stompName().substring(TEMP_QUEUE_PREFIX.length());
    }

    @Override
    public void delete() throws JMSException {
        TemporaryDestinations.delete(this, owner);
    }
}
