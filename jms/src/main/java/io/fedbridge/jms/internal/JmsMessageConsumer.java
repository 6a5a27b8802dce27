package io.fedbridge.jms.internal;

import io.fedbridge.core.AckMode;
import io.fedbridge.core.SubscriptionRequest;
import io.fedbridge.core.selector.Selector;
import io.fedbridge.failover.FailoverException;
import io.fedbridge.failover.FailoverMessage;
import io.fedbridge.failover.FailoverSubscription;
import io.fedbridge.jms.FedbridgeDestination;
import jakarta.jms.IllegalStateException;
import jakarta.jms.InvalidSelectorException;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import jakarta.jms.MessageListener;
import jakarta.jms.Queue;
import jakarta.jms.QueueReceiver;
import jakarta.jms.Topic;
import jakarta.jms.TopicSubscriber;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A consumer: one failover subscription ({@code client-individual}, pulled), read by {@link #receive} or by a listener
 * thread of its own that holds the session's delivery lock while the listener runs. Stopping the connection holds
 * both back; messages already sent by the broker wait in the subscription.
 */
public final class JmsMessageConsumer implements QueueReceiver, TopicSubscriber {

    private static final Logger LOG = LoggerFactory.getLogger(JmsMessageConsumer.class);
    static final String DURABLE_NAME = "durable-subscription-name";
    private static final Duration POLL = Duration.ofMillis(200);
    private static final AtomicInteger THREADS = new AtomicInteger();

    private final JmsSession session;
    private final FedbridgeDestination destination;
    private final String selector;
    private final String durableName;
    private final FailoverSubscription subscription;
    private final String sharedKey;
    private final boolean noLocal;
    private volatile MessageListener listener;
    private volatile Thread listenerThread;
    private volatile boolean closed;
    private volatile boolean ended;

    /**
     * @param sharedKey the shared subscription this consumer joins ({@link SharedSubscriptions#key}), or null
     * @param noLocal   skip what this connection published: the broker's
     *                  selector drops messages whose {@value JmsConnection#ORIGIN} header is this connection's
     */
    JmsMessageConsumer(JmsSession session, FedbridgeDestination destination, String selector, String durableName,
                       String sharedKey, boolean noLocal) throws JMSException {
        this.session = session;
        this.noLocal = noLocal;
        this.sharedKey = sharedKey;
        this.destination = destination;
        this.selector = selector == null || selector.isBlank() ? null : selector.trim();
        this.durableName = durableName;
        if (this.selector != null) {
            try {
                Selector.parse(this.selector);
            } catch (RuntimeException e) {
                InvalidSelectorException x = new InvalidSelectorException("invalid selector '" + selector + "': " + e.getMessage());
                x.setLinkedException(e);
                throw x;
            }
        }
        String wireSelector = this.selector;
        if (noLocal) {
            String own = "(" + JmsConnection.ORIGIN + " IS NULL OR " + JmsConnection.ORIGIN + " <> '"
                    + session.connection().origin().replace("'", "''") + "')";
            wireSelector = own + (wireSelector == null ? "" : " AND (" + wireSelector + ")");
        }
        if (TemporaryDestinations.isTemporary(destination)) {
            // probes that learn the broker's name of the destination are not for the application
            wireSelector = JmsConnection.PROBE + " IS NULL" + (wireSelector == null ? "" : " AND (" + wireSelector + ")");
        }
        SubscriptionRequest.Builder r = SubscriptionRequest.builder(destination.stompName())
                .ackMode(AckMode.CLIENT_INDIVIDUAL).selector(wireSelector)
                .prefetch(session.connection().config().prefetch());
        if (durableName != null) {
            r.header(DURABLE_NAME, durableName);
        }
        SharedSubscriptions.Subscribe subscribe = () -> {
            try {
                return session.client().subscribe(r.build());
            } catch (RuntimeException e) {
                throw Errors.jms("cannot subscribe to " + destination + (durableName == null ? "" : " as durable subscription '"
                        + durableName + "'"), e);
            }
        };
        this.subscription = sharedKey == null ? subscribe.subscribe()
                : session.connection().shared().acquire(sharedKey, destination.stompName(), this.selector, subscribe);
    }

    FedbridgeDestination destination() {
        return destination;
    }

    FailoverSubscription subscription() {
        return subscription;
    }

    boolean isClosed() {
        return closed;
    }

    private void checkOpen() throws IllegalStateException {
        if (closed) {
            throw Errors.closed("consumer on " + destination);
        }
        session.checkOpen();
    }

    @Override
    public String getMessageSelector() throws JMSException {
        checkOpen();
        return selector;
    }

    @Override
    public Queue getQueue() throws JMSException {
        checkOpen();
        if (destination instanceof Queue q) {
            return q;
        }
        throw new IllegalStateException("this consumer reads topic " + destination + ", not a queue");
    }

    @Override
    public Topic getTopic() throws JMSException {
        checkOpen();
        if (destination instanceof Topic t) {
            return t;
        }
        throw new IllegalStateException("this consumer reads queue " + destination + ", not a topic");
    }

    @Override
    public boolean getNoLocal() throws JMSException {
        checkOpen();
        return noLocal;
    }

    @Override
    public MessageListener getMessageListener() throws JMSException {
        checkOpen();
        return listener;
    }

    /** Starts (or with null stops) the listener thread; messages flow while the connection is started. */
    @Override
    public void setMessageListener(MessageListener l) throws JMSException {
        checkOpen();
        synchronized (this) {
            this.listener = l;
            if (l != null && listenerThread == null) {
                Thread t = new Thread(this::listen, "fedbridge-jms-listener-" + THREADS.incrementAndGet());
                t.setDaemon(true);
                listenerThread = t;
                t.start();
            }
        }
    }

    // ------------------------------------------------------------------ synchronous receive

    @Override
    public Message receive() throws JMSException {
        return receive(0);
    }

    /** Waits up to {@code timeout} ms (0 = forever) while the connection is stopped, then for a message; null if none. */
    @Override
    public Message receive(long timeout) throws JMSException {
        if (timeout < 0) {
            throw new JMSException("timeout must be >= 0 ms (0 = no limit), but was " + timeout);
        }
        long deadline = timeout == 0 ? Long.MAX_VALUE : System.nanoTime() + timeout * 1_000_000L;
        return pull(deadline, timeout == 0);
    }

    @Override
    public Message receiveNoWait() throws JMSException {
        return pull(System.nanoTime(), false);
    }

    <T> T receiveBody(Class<T> c) throws JMSException {
        return bodyOf(receive(), c);
    }

    <T> T bodyOf(Message m, Class<T> c) throws JMSException {
        if (m == null) {
            return null;
        }
        if (!m.isBodyAssignableTo(c)) {
            throw new jakarta.jms.MessageFormatException("the message's body cannot be read as " + c.getName());
        }
        return m.getBody(c);
    }

    private Message pull(long deadlineNanos, boolean forever) throws JMSException {
        checkOpen();
        if (listener != null) {
            throw new IllegalStateException("this consumer has a MessageListener; receive() is for consumers without one");
        }
        try {
            while (!closed) {
                long waitUntil = forever ? System.nanoTime() + POLL.toNanos() : deadlineNanos;
                if (!session.connection().awaitStarted(waitUntil)) {
                    if (forever && !closed && !session.connection().isClosed()) {
                        continue;
                    }
                    return null;
                }
                long left = forever ? POLL.toNanos() : deadlineNanos - System.nanoTime();
                FailoverMessage f = subscription.receive(Duration.ofNanos(Math.max(0, left)));
                if (f != null) {
                    return session.delivered(f, true);
                }
                if (!forever && System.nanoTime() - deadlineNanos >= 0) {
                    return null;
                }
            }
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        } catch (FailoverException e) {
            if (closed || ended) {
                return null; // closed by another thread (JMS 8.8: receive then returns null)
            }
            throw Errors.jms("receive from " + destination, e);
        }
    }

    // ------------------------------------------------------------------ listener

    private void listen() {
        while (!closed) {
            MessageListener l = listener;
            if (l == null) {
                synchronized (this) {
                    if (listener == null) {
                        listenerThread = null;
                        return;
                    }
                }
                continue;
            }
            FailoverMessage f;
            try {
                if (!session.connection().awaitStarted(System.nanoTime() + POLL.toNanos())) {
                    continue;
                }
                f = subscription.receive(POLL);
            } catch (InterruptedException e) {
                return;
            } catch (FailoverException e) {
                if (!closed && !ended) {
                    LOG.warn("listener of {} stopped: {}", destination, e.getMessage());
                }
                return;
            }
            if (f != null) {
                deliver(f);
            }
        }
    }

    private void deliver(FailoverMessage f) {
        var lock = session.deliveryLock();
        lock.lock();
        try {
            while (!session.connection().isStarted() && !closed) {
                lock.unlock();
                try {
                    session.connection().awaitStarted(System.nanoTime() + POLL.toNanos());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                } finally {
                    lock.lock();
                }
            }
            MessageListener l = listener;
            if (closed || l == null) {
                f.nack();
                return;
            }
            Message m;
            try {
                m = session.delivered(f, false);
            } catch (JMSException e) {
                LOG.warn("message {} on {} could not be read and was returned: {}", f.messageId(), destination, e.getMessage());
                return;
            }
            boolean threw = false;
            try {
                l.onMessage(m);
            } catch (RuntimeException e) {
                threw = true;
                LOG.warn("MessageListener on {} threw on {}{}", destination, m, session.mode() == jakarta.jms.Session.AUTO_ACKNOWLEDGE
                        || session.mode() == jakarta.jms.Session.DUPS_OK_ACKNOWLEDGE ? "; it is redelivered" : "", e);
            }
            session.afterListener(f, threw);
        } finally {
            lock.unlock();
        }
    }

    // ------------------------------------------------------------------ close

    /**
     * Closes: a running listener is waited for (unless this is its own thread, JMS 8.8); a blocked receive returns null.
     * If the session still holds messages this consumer delivered (CLIENT, transacted), the broker subscription lasts
     * until the session's acknowledge, commit or rollback, so they can still be acknowledged.
     */
    @Override
    public void close() throws JMSException {
        if (closed) {
            return;
        }
        closed = true;
        session.awaitListenerIdle();
        if (session.holdsMessagesOf(this)) {
            session.closeLater(this);
        } else {
            endSubscription();
        }
        session.removed(this);
    }

    /** The session is closing: stop listening; it ends the subscription after settling the messages. */
    void closeForSession() {
        closed = true;
        session.awaitListenerIdle();
    }

    void endSubscription() {
        if (ended) {
            return;
        }
        ended = true;
        closed = true;
        if (sharedKey != null) {
            session.connection().shared().release(sharedKey);
            return;
        }
        if (durableName != null) {
            session.connection().deactivateDurable(durableName);
        }
        try {
            subscription.unsubscribe();
        } catch (RuntimeException e) {
            LOG.debug("unsubscribe from {} failed: {}", destination, e.toString());
        }
    }

    @Override
    public String toString() {
        return "FedbridgeConsumer[" + destination + (selector == null ? "" : " selector=" + selector)
                + (durableName == null ? "" : " durable=" + durableName) + "]";
    }
}
