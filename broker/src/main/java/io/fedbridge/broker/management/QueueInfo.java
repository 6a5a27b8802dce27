package io.fedbridge.broker.management;

/**
 * A queue. Property: destination, temporary; statistics: the rest.
 *
 * @param pending      messages waiting for a consumer
 * @param inflight     delivered, not yet acknowledged
 * @param enqueued     accepted since the broker started (recovered ones included)
 * @param dequeued     acknowledged since the broker started
 * @param enqueueRate  messages per second entering, smoothed over the last few seconds
 * @param dequeueRate  messages per second acknowledged, likewise
 * @param groups       message groups ({@code JMSXGroupID}) open now, each owned by one consumer
 * @param groupAssignments times a group was given to a consumer (new, or moved because its consumer left)
 */
public record QueueInfo(String destination, boolean temporary, int pending, int inflight, int consumers, long enqueued,
                        long dequeued, long expired, long deadLettered, double enqueueRate, double dequeueRate,
                        long timestamp, int groups, long groupAssignments) {
}
