package io.fedbridge.broker.jmx;

/** JMX view of a queue: {@code io.fedbridge:type=Destination,broker=NAME,destination="/queue/x"}. */
public interface DestinationMXBean {
    String getName();

    int getPending();

    int getInflight();

    int getConsumers();

    long getEnqueued();

    long getDequeued();

    long getExpired();

    long getDeadLettered();
}
