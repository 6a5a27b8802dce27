package io.fedbridge.core;

/** Receives the messages of a subscription, one at a time, in order, on the connection's dispatch thread. */
@FunctionalInterface
public interface MessageListener {
    void onMessage(ReceivedMessage message);
}
