package io.fedbridge.jms.internal;

import io.fedbridge.failover.FailoverClient;
import io.fedbridge.jms.FedbridgeDestination;
import jakarta.jms.CompletionListener;
import jakarta.jms.DeliveryMode;
import jakarta.jms.Destination;
import jakarta.jms.IllegalStateException;
import jakarta.jms.InvalidDestinationException;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import jakarta.jms.Queue;
import jakarta.jms.QueueSender;
import jakarta.jms.Topic;
import jakarta.jms.TopicPublisher;
import java.util.concurrent.CompletableFuture;

/**
 * A producer. A PERSISTENT send returns once the broker's receipt came (on disk on a fedbridge broker with a data
 * directory); a NON_PERSISTENT one does not wait for it. Across a failover the failover client resends what had no
 * receipt, and the federation drops the copies it already had. Time to live becomes {@code expires}, a delivery delay
 * {@code AMQ_SCHEDULED_TIME}.
 */
public final class JmsMessageProducer implements QueueSender, TopicPublisher {

    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(JmsMessageProducer.class);

    private final JmsSession session;
    private final FedbridgeDestination destination;
    private int deliveryMode = DeliveryMode.PERSISTENT;
    private int priority = Message.DEFAULT_PRIORITY;
    private long timeToLive = Message.DEFAULT_TIME_TO_LIVE;
    private long deliveryDelay;
    private boolean disableMessageId;
    private boolean disableTimestamp;
    private volatile boolean closed;

    JmsMessageProducer(JmsSession session, FedbridgeDestination destination) {
        this.session = session;
        this.destination = destination;
    }

    JmsSession session() {
        return session;
    }

    private void checkOpen() throws IllegalStateException {
        if (closed) {
            throw Errors.closed("producer");
        }
        session.checkOpen();
    }

    @Override
    public void setDisableMessageID(boolean value) throws JMSException {
        checkOpen();
        disableMessageId = value;
    }

    @Override
    public boolean getDisableMessageID() throws JMSException {
        checkOpen();
        return disableMessageId;
    }

    @Override
    public void setDisableMessageTimestamp(boolean value) throws JMSException {
        checkOpen();
        disableTimestamp = value;
    }

    @Override
    public boolean getDisableMessageTimestamp() throws JMSException {
        checkOpen();
        return disableTimestamp;
    }

    @Override
    public void setDeliveryMode(int mode) throws JMSException {
        checkOpen();
        this.deliveryMode = checkMode(mode);
    }

    @Override
    public int getDeliveryMode() throws JMSException {
        checkOpen();
        return deliveryMode;
    }

    @Override
    public void setPriority(int p) throws JMSException {
        checkOpen();
        this.priority = checkPriority(p);
    }

    @Override
    public int getPriority() throws JMSException {
        checkOpen();
        return priority;
    }

    @Override
    public void setTimeToLive(long ttl) throws JMSException {
        checkOpen();
        this.timeToLive = ttl;
    }

    @Override
    public long getTimeToLive() throws JMSException {
        checkOpen();
        return timeToLive;
    }

    /**
     * Delays delivery by {@code delay} ms (JMS 7.9): the message carries its delivery time as {@code AMQ_SCHEDULED_TIME}
     * and the broker holds it until then. A broker that is not a fedbridge one (no {@code fedbridge-broker-id}) refuses
     * it at send time, since a STOMP broker that ignores the header would deliver at once.
     */
    @Override
    public void setDeliveryDelay(long delay) throws JMSException {
        checkOpen();
        this.deliveryDelay = checkDelay(delay);
    }

    static long checkDelay(long delay) throws JMSException {
        if (delay < 0) {
            throw new JMSException("deliveryDelay must be >= 0 ms, but was " + delay);
        }
        return delay;
    }

    @Override
    public long getDeliveryDelay() throws JMSException {
        checkOpen();
        return deliveryDelay;
    }

    @Override
    public Destination getDestination() throws JMSException {
        checkOpen();
        return destination;
    }

    @Override
    public Queue getQueue() throws JMSException {
        return (Queue) getDestination();
    }

    @Override
    public Topic getTopic() throws JMSException {
        return (Topic) getDestination();
    }

    @Override
    public void close() {
        closed = true;
        session.removed(this);
    }

    static int checkMode(int mode) throws JMSException {
        if (mode != DeliveryMode.PERSISTENT && mode != DeliveryMode.NON_PERSISTENT) {
            throw new JMSException("deliveryMode must be DeliveryMode.PERSISTENT (2) or NON_PERSISTENT (1), but was " + mode);
        }
        return mode;
    }

    static int checkPriority(int p) throws JMSException {
        if (p < 0 || p > 9) {
            throw new JMSException("priority must be 0-9, but was " + p);
        }
        return p;
    }

    // ------------------------------------------------------------------ send

    @Override
    public void send(Message message) throws JMSException {
        send(message, deliveryMode, priority, timeToLive);
    }

    @Override
    public void send(Message message, int mode, int prio, long ttl) throws JMSException {
        send(requireDestination(), message, mode, prio, ttl, null);
    }

    @Override
    public void send(Destination d, Message message) throws JMSException {
        send(d, message, deliveryMode, priority, timeToLive);
    }

    @Override
    public void send(Destination d, Message message, int mode, int prio, long ttl) throws JMSException {
        send(ownDestination(d), message, mode, prio, ttl, null);
    }

    @Override
    public void send(Message message, CompletionListener listener) throws JMSException {
        send(requireDestination(), message, deliveryMode, priority, timeToLive, requireListener(listener));
    }

    @Override
    public void send(Message message, int mode, int prio, long ttl, CompletionListener listener) throws JMSException {
        send(requireDestination(), message, mode, prio, ttl, requireListener(listener));
    }

    @Override
    public void send(Destination d, Message message, CompletionListener listener) throws JMSException {
        send(ownDestination(d), message, deliveryMode, priority, timeToLive, requireListener(listener));
    }

    @Override
    public void send(Destination d, Message message, int mode, int prio, long ttl, CompletionListener listener)
            throws JMSException {
        send(ownDestination(d), message, mode, prio, ttl, requireListener(listener));
    }

    @Override
    public void send(Queue queue, Message message) throws JMSException {
        send((Destination) queue, message);
    }

    @Override
    public void send(Queue queue, Message message, int mode, int prio, long ttl) throws JMSException {
        send((Destination) queue, message, mode, prio, ttl);
    }

    @Override
    public void publish(Message message) throws JMSException {
        send(message);
    }

    @Override
    public void publish(Message message, int mode, int prio, long ttl) throws JMSException {
        send(message, mode, prio, ttl);
    }

    @Override
    public void publish(Topic topic, Message message) throws JMSException {
        send(topic, message);
    }

    @Override
    public void publish(Topic topic, Message message, int mode, int prio, long ttl) throws JMSException {
        send(topic, message, mode, prio, ttl);
    }

    private static CompletionListener requireListener(CompletionListener l) {
        if (l == null) {
            throw new IllegalArgumentException("completionListener must not be null");
        }
        return l;
    }

    private FedbridgeDestination requireDestination() throws JMSException {
        checkOpen();
        if (destination == null) {
            throw new UnsupportedOperationException("this producer has no destination: use send(destination, message)");
        }
        return destination;
    }

    private FedbridgeDestination ownDestination(Destination d) throws JMSException {
        checkOpen();
        if (destination != null) {
            throw new UnsupportedOperationException("this producer sends to " + destination + ": use send(message)");
        }
        if (d == null) {
            throw new InvalidDestinationException("destination must not be null");
        }
        return MessageMapping.destination(d, "destination");
    }

    /** Sets the header fields the send owns (JMS 3.4.11), then sends. Also the JMSContext producer's way. */
    void send(FedbridgeDestination to, Message message, int mode, int prio, long ttl, CompletionListener listener)
            throws JMSException {
        send(to, message, mode, prio, ttl, deliveryDelay, listener);
    }

    void send(FedbridgeDestination to, Message message, int mode, int prio, long ttl, long delay,
              CompletionListener listener) throws JMSException {
        checkOpen();
        if (message == null) {
            throw new jakarta.jms.MessageFormatException("message must not be null");
        }
        checkMode(mode);
        checkPriority(prio);
        long now = System.currentTimeMillis();
        message.setJMSDestination(to);
        message.setJMSDeliveryMode(mode);
        message.setJMSPriority(prio);
        message.setJMSTimestamp(disableTimestamp ? 0 : now);
        message.setJMSExpiration(ttl > 0 ? now + ttl : 0);
        message.setJMSDeliveryTime(now + checkDelay(delay));
        if (delay > 0) {
            checkScheduledDelivery(delay);
        }
        message.setJMSMessageID(disableMessageId ? null : session.connection().nextMessageId());
        io.fedbridge.core.Message stomp;
        try {
            stomp = MessageMapping.toStomp(message, to, session.connection());
        } catch (IllegalArgumentException e) {
            throw new jakarta.jms.MessageFormatException(e.getMessage());
        }
        if (session.mode() == jakarta.jms.Session.SESSION_TRANSACTED) {
            session.sendInTransaction(stomp);
            if (listener != null) {
                listener.onCompletion(message);
            }
            return;
        }
        FailoverClient client = session.client();
        try {
            if (listener != null) {
                CompletableFuture<?> f = client.sendAsync(stomp);
                f.whenComplete((r, e) -> {
                    if (e == null) {
                        listener.onCompletion(message);
                    } else {
                        listener.onException(message, Errors.jms("send to " + to, unwrap(e)));
                    }
                });
            } else if (mode == DeliveryMode.PERSISTENT) {
                client.send(stomp);
            } else {
                client.sendAsync(stomp, e -> LOG.warn("NON_PERSISTENT send to {} failed: {}", to, unwrap(e).toString()));
            }
        } catch (RuntimeException e) {
            throw Errors.jms("send to " + to, e);
        }
    }

    /** A delivery delay needs a fedbridge broker (one that says its id); while none is connected the send waits anyway. */
    private void checkScheduledDelivery(long delay) throws JMSException {
        FailoverClient client = session.client();
        if (client.isConnected() && client.connectedBrokerId() == null) {
            throw new JMSException("deliveryDelay must be 0 with broker " + client.connectedUri() + ": it is not a fedbridge "
                    + "broker, and fedbridge-jms cannot tell whether it honours AMQ_SCHEDULED_TIME, but was " + delay + " ms");
        }
    }

    private static Throwable unwrap(Throwable e) {
        return e instanceof java.util.concurrent.CompletionException && e.getCause() != null ? e.getCause() : e;
    }
}
