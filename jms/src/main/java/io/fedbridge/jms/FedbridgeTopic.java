package io.fedbridge.jms;

import jakarta.jms.Topic;

/**
 * The STOMP destination {@code /topic/NAME}: {@code new FedbridgeTopic("prices.eu")}. A consumer may use the broker's
 * wildcards: {@code *} for one {@code .}-separated segment, {@code >} for the rest.
 */
public class FedbridgeTopic extends FedbridgeDestination implements Topic {
    private static final long serialVersionUID = 1L;

    /** @param name the topic's name, with or without the {@code /topic/} prefix */
    public FedbridgeTopic(String name) {
        super(checkName("topic", TOPIC_PREFIX, name));
    }

    @Override
    public String getTopicName() {
        return shortName();
    }
}
