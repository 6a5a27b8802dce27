package io.fedbridge.jms;

import jakarta.jms.Queue;

/** The STOMP destination {@code /queue/NAME}: {@code new FedbridgeQueue("orders")}. */
public class FedbridgeQueue extends FedbridgeDestination implements Queue {
    private static final long serialVersionUID = 1L;

    /** @param name the queue's name, with or without the {@code /queue/} prefix */
    public FedbridgeQueue(String name) {
        super(checkName("queue", QUEUE_PREFIX, name));
    }

    @Override
    public String getQueueName() {
        return shortName();
    }
}
