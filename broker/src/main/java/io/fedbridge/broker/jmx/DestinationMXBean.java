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

    /** Message groups open now ({@code JMSXGroupID}), each owned by one consumer. */
    int getGroups();

    /** Times a group was given to a consumer: a new group, or one that moved because its consumer left. */
    long getGroupAssignments();
}
