package io.fedbridge.broker.management;

/**
 * A topic with subscribers (or one a message was sent to). Its statistics add up its subscriptions' queues: a
 * message that reaches three subscribers counts three times in {@code enqueued}.
 *
 * @param consumers subscriptions, durable ones included (active or not)
 * @param pending   copies waiting in the subscriptions
 */
public record TopicInfo(String destination, int consumers, int pending, long enqueued, long dequeued, long timestamp) {
}
