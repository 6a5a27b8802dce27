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
 */
public record DestinationStats(String name, int pending, int inflight, int consumers, long enqueued, long dequeued,
                               long expired, long deadLettered) {
}
