package io.fedbridge.failover;

/**
 * Receives the messages of a subscription one at a time, in order, on the client's dispatch thread (one per client,
 * shared by its subscriptions). A listener may block and may send. With {@code ack:auto} the message is acknowledged
 * when the listener returns; if it throws, the message is NACKed and comes back.
 */
@FunctionalInterface
public interface FailoverMessageListener {
    void onMessage(FailoverMessage message);
}
