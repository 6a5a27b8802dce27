package io.fedbridge.core;

import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * An active subscription. With a listener, messages go to it; without one, {@link #receive(Duration)}
 * pulls them. Thread-safe.
 */
public final class Subscription implements AutoCloseable {

    private static final Object CLOSED = new Object();

    private final StompConnection connection;
    private final String id;
    private final SubscriptionRequest request;
    private final MessageListener listener;
    private final boolean onIoThread;
    private final BlockingQueue<Object> queue;
    private volatile boolean active = true;

    Subscription(StompConnection connection, String id, SubscriptionRequest request, MessageListener listener,
                 boolean onIoThread) {
        this.connection = connection;
        this.id = id;
        this.request = request;
        this.listener = listener;
        this.onIoThread = onIoThread;
        this.queue = listener == null ? new LinkedBlockingQueue<>() : null;
    }

    public String id() {
        return id;
    }

    public String destination() {
        return request.destination();
    }

    public AckMode ackMode() {
        return request.ackMode();
    }

    public SubscriptionRequest request() {
        return request;
    }

    public boolean isActive() {
        return active && connection.isConnected();
    }

    boolean onIoThread() {
        return onIoThread;
    }

    MessageListener listener() {
        return listener;
    }

    void enqueue(ReceivedMessage m) {
        queue.add(m);
    }

    void connectionClosed() {
        active = false;
        if (queue != null) {
            queue.add(CLOSED);
        }
    }

    /**
     * Waits up to {@code timeout} for the next message; null on timeout.
     *
     * @throws IllegalStateException      if this subscription has a listener
     * @throws ConnectionClosedException  if the connection closed and no message is left
     */
    public ReceivedMessage receive(Duration timeout) throws InterruptedException {
        if (queue == null) {
            throw new IllegalStateException("subscription " + id + " to " + destination() + " has a listener; receive() is for pull subscriptions");
        }
        Object o = queue.poll(timeout.toNanos(), TimeUnit.NANOSECONDS);
        if (o == CLOSED) {
            queue.add(CLOSED);
            throw new ConnectionClosedException("connection closed; subscription " + id + " to " + destination() + " ended");
        }
        return (ReceivedMessage) o;
    }

    /** Takes a message if one is waiting, else null. */
    public ReceivedMessage poll() {
        if (queue == null) {
            throw new IllegalStateException("subscription " + id + " has a listener");
        }
        Object o = queue.poll();
        if (o == CLOSED) {
            queue.add(CLOSED);
            return null;
        }
        return (ReceivedMessage) o;
    }

    /** Sends UNSUBSCRIBE. Messages already delivered but not acknowledged are redelivered by the broker. */
    public void unsubscribe() {
        if (active) {
            active = false;
            connection.unsubscribe(this, java.util.Map.of());
        }
    }

    /**
     * Sends UNSUBSCRIBE; messages the broker dispatched before it still reach the listener until the broker's RECEIPT
     * (with plain {@link #unsubscribe()} those in transit are dropped here, and only the broker's requeue saves them).
     */
    public void unsubscribeAfterReceipt() {
        if (active) {
            active = false;
            connection.unsubscribeAfterReceipt(this);
        }
    }

    /** Sends UNSUBSCRIBE with extra headers (e.g. to remove a durable subscription). */
    public void unsubscribe(java.util.Map<String, String> headers) {
        if (active) {
            active = false;
            connection.unsubscribe(this, headers);
        }
    }

    @Override
    public void close() {
        unsubscribe();
    }

    @Override
    public String toString() {
        return "Subscription[" + id + " " + destination() + " " + ackMode() + "]";
    }
}
