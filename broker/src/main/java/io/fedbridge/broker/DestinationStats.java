package io.fedbridge.broker;

/**
 * Counters of one queue, at one moment.
 *
 * @param name      {@code /queue/NAME}
 * @param pending   messages waiting for a consumer
 * @param inflight  delivered, not yet acknowledged
 * @param consumers subscriptions attached
 * @param enqueued  messages accepted since start (recovered ones included)
 * @param dequeued  messages acknowledged (or auto-acknowledged) since start
 * @param expired   messages dropped because their {@code expires} time passed
 * @param deadLettered messages moved to (or, without useDMQ, dropped instead of) the dead-letter queue
 * @param bytes     message bytes held: pending and inflight messages' headers and bodies
 * @param groups    message groups ({@code JMSXGroupID}) open now, each owned by one consumer (docs/cluster.md)
 * @param groupAssignments times a group was given to a consumer since the queue was created: a new group, or one that
 *                  moved because its consumer left
 */
public record DestinationStats(String name, int pending, int inflight, int consumers, long enqueued, long dequeued,
                               long expired, long deadLettered, long bytes, int groups, long groupAssignments) {

    /** Counters without message groups. */
    public DestinationStats(String name, int pending, int inflight, int consumers, long enqueued, long dequeued,
                            long expired, long deadLettered, long bytes) {
        this(name, pending, inflight, consumers, enqueued, dequeued, expired, deadLettered, bytes, 0, 0);
    }

    /** Counters without the bytes held (0). */
    public DestinationStats(String name, int pending, int inflight, int consumers, long enqueued, long dequeued,
                            long expired, long deadLettered) {
        this(name, pending, inflight, consumers, enqueued, dequeued, expired, deadLettered, 0);
    }
}
