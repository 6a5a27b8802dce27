package io.fedbridge.broker;

/**
 * Told of every message a queue hands to a consumer, for metrics ({@link Broker#onDispatch}). Called on the
 * dispatching thread while the queue is locked, once per message: an implementation must be quick, must not block,
 * and should not allocate.
 */
@FunctionalInterface
public interface DispatchListener {

    /** Does nothing. */
    DispatchListener NONE = (latencyMillis, toBridge) -> { };

    /**
     * @param latencyMillis how long the message waited in the queue: from entering it to this dispatch, in
     *                      milliseconds (wall clock, so 0 for most messages on an idle broker)
     * @param toBridge      the consumer is a bridge's network subscription (forwarding to a peer), not a client
     */
    void dispatched(long latencyMillis, boolean toBridge);
}
