package io.fedbridge.jms.internal;

import io.fedbridge.jms.FedbridgeDestination;
import jakarta.jms.JMSException;
import jakarta.jms.TemporaryTopic;

/** {@code /temp-topic/NAME}: like {@link JmsTemporaryQueue}, for publish-subscribe. */
public final class JmsTemporaryTopic extends FedbridgeDestination implements TemporaryTopic {
    private static final long serialVersionUID = 1L;

    private final transient JmsConnection owner;

    JmsTemporaryTopic(String stompName, JmsConnection owner) {
        super(stompName);
        this.owner = owner;
    }

    JmsConnection owner() {
        return owner;
    }

    @Override
    public String getTopicName() {
        return stompName().substring(TEMP_TOPIC_PREFIX.length());
    }

    @Override
    public void delete() throws JMSException {
        TemporaryDestinations.delete(this, owner);
    }
}
