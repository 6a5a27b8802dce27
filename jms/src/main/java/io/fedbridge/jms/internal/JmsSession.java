package io.fedbridge.jms.internal;

import io.fedbridge.failover.FailoverClient;
import io.fedbridge.failover.FailoverMessage;
import io.fedbridge.jms.FedbridgeDestination;
import io.fedbridge.jms.FedbridgeQueue;
import io.fedbridge.jms.FedbridgeTopic;
import jakarta.jms.BytesMessage;
import jakarta.jms.Destination;
import jakarta.jms.IllegalStateException;
import jakarta.jms.JMSException;
import jakarta.jms.MapMessage;
import jakarta.jms.Message;
import jakarta.jms.MessageConsumer;
import jakarta.jms.MessageListener;
import jakarta.jms.MessageProducer;
import jakarta.jms.ObjectMessage;
import jakarta.jms.Queue;
import jakarta.jms.QueueBrowser;
import jakarta.jms.QueueReceiver;
import jakarta.jms.QueueSender;
import jakarta.jms.QueueSession;
import jakarta.jms.Session;
import jakarta.jms.StreamMessage;
import jakarta.jms.TemporaryQueue;
import jakarta.jms.TemporaryTopic;
import jakarta.jms.TextMessage;
import jakarta.jms.Topic;
import jakarta.jms.TopicPublisher;
import jakarta.jms.TopicSession;
import jakarta.jms.TopicSubscriber;
import java.io.Serializable;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A JMS session over its connection's failover client. Every consumer subscribes {@code client-individual} on the wire;
 * the session acknowledges as its mode says: AUTO and DUPS_OK when {@code receive} returns or the listener returns
 * (a listener that throws gets the message again, JMS 8.7); CLIENT on {@link Message#acknowledge()}, every message the
 * session delivered so far; SESSION_TRANSACTED in a STOMP transaction at {@link #commit()}, with the sends.
 *
 * <p>Concurrency: JMS allows one thread at a time per session. The listener of each consumer runs on that consumer's
 * thread holding {@link #deliveryLock}, so the session's listeners run one at a time. What is delivered and not yet
 * settled is kept by {@link SessionWork}.
 */
public final class JmsSession implements Session, QueueSession, TopicSession {

    private final JmsConnection connection;
    private final int mode;
    private final ReentrantLock deliveryLock = new ReentrantLock();
    private final List<JmsMessageConsumer> consumers = new CopyOnWriteArrayList<>();
    private final List<JmsMessageProducer> producers = new CopyOnWriteArrayList<>();
    private final SessionWork work;
    private volatile boolean closed;
    private volatile MessageListener sessionListener;

    JmsSession(JmsConnection connection, int mode) {
        this.connection = connection;
        this.mode = mode;
        this.work = new SessionWork(this, mode);
    }

    JmsConnection connection() {
        return connection;
    }

    FailoverClient client() throws IllegalStateException {
        checkOpen();
        return connection.client();
    }

    void checkOpen() throws IllegalStateException {
        if (closed) {
            throw Errors.closed("session");
        }
        connection.checkOpen();
    }

    int mode() {
        return mode;
    }

    ReentrantLock deliveryLock() {
        return deliveryLock;
    }

    boolean isDeliveryThread() {
        return deliveryLock.isHeldByCurrentThread();
    }

    void awaitListenerIdle() {
        if (!deliveryLock.isHeldByCurrentThread()) {
            deliveryLock.lock();
            deliveryLock.unlock();
        }
    }

    boolean hasConsumerOn(FedbridgeDestination d) {
        for (JmsMessageConsumer c : consumers) {
            if (c.destination().equals(d) && !c.isClosed()) {
                return true;
            }
        }
        return false;
    }

    // ------------------------------------------------------------------ delivery, acknowledgement, transactions

    JmsMessage delivered(FailoverMessage f, boolean autoAckNow) throws JMSException {
        return work.delivered(f, autoAckNow);
    }

    void afterListener(FailoverMessage f, boolean threw) {
        work.afterListener(f, threw);
    }

    boolean holdsMessagesOf(JmsMessageConsumer c) {
        return work.holdsMessagesOf(c);
    }

    void closeLater(JmsMessageConsumer c) {
        work.closeLater(c);
    }

    /** CLIENT_ACKNOWLEDGE: every message this session delivered so far (JMS 6.2.10). */
    void acknowledge() throws JMSException {
        checkOpen();
        work.acknowledge();
    }

    void sendInTransaction(io.fedbridge.core.Message m) throws JMSException {
        work.sendInTransaction(m);
    }

    @Override
    public boolean getTransacted() throws JMSException {
        checkOpen();
        return mode == Session.SESSION_TRANSACTED;
    }

    @Override
    public int getAcknowledgeMode() throws JMSException {
        checkOpen();
        return mode;
    }

    @Override
    public void commit() throws JMSException {
        checkOpen();
        if (mode != Session.SESSION_TRANSACTED) {
            throw new IllegalStateException("commit() needs a transacted session, but this one is not (JMS 6.2.7)");
        }
        work.commit();
    }

    @Override
    public void rollback() throws JMSException {
        checkOpen();
        if (mode != Session.SESSION_TRANSACTED) {
            throw new IllegalStateException("rollback() needs a transacted session, but this one is not (JMS 6.2.7)");
        }
        work.rollback();
    }

    /** CLIENT: the unacknowledged messages come again, marked redelivered (JMS 6.2.10). */
    @Override
    public void recover() throws JMSException {
        checkOpen();
        if (mode == Session.SESSION_TRANSACTED) {
            throw new IllegalStateException("recover() is for non-transacted sessions; use rollback() (JMS 6.2.10)");
        }
        work.recover();
    }

    // ------------------------------------------------------------------ messages

    @Override
    public BytesMessage createBytesMessage() throws JMSException {
        checkOpen();
        return new JmsBytesMessage();
    }

    @Override
    public MapMessage createMapMessage() throws JMSException {
        checkOpen();
        return new JmsMapMessage();
    }

    @Override
    public Message createMessage() throws JMSException {
        checkOpen();
        return new JmsMessage();
    }

    @Override
    public ObjectMessage createObjectMessage() throws JMSException {
        checkOpen();
        return new JmsObjectMessage(connection.config().trustedPackages(), connection.config().trustAllPackages());
    }

    @Override
    public ObjectMessage createObjectMessage(Serializable object) throws JMSException {
        ObjectMessage m = createObjectMessage();
        m.setObject(object);
        return m;
    }

    @Override
    public StreamMessage createStreamMessage() throws JMSException {
        checkOpen();
        return new JmsStreamMessage();
    }

    @Override
    public TextMessage createTextMessage() throws JMSException {
        checkOpen();
        return new JmsTextMessage();
    }

    @Override
    public TextMessage createTextMessage(String text) throws JMSException {
        TextMessage m = createTextMessage();
        m.setText(text);
        return m;
    }

    // ------------------------------------------------------------------ producers and consumers

    @Override
    public MessageProducer createProducer(Destination destination) throws JMSException {
        return newProducer(destination);
    }

    JmsMessageProducer newProducer(Destination destination) throws JMSException {
        checkOpen();
        FedbridgeDestination d = destination == null ? null : MessageMapping.destination(destination, "destination");
        JmsMessageProducer p = new JmsMessageProducer(this, d);
        producers.add(p);
        return p;
    }

    void removed(JmsMessageProducer p) {
        producers.remove(p);
    }

    void removed(JmsMessageConsumer c) {
        consumers.remove(c);
    }

    @Override
    public MessageConsumer createConsumer(Destination destination) throws JMSException {
        return createConsumer(destination, null, false);
    }

    @Override
    public MessageConsumer createConsumer(Destination destination, String selector) throws JMSException {
        return createConsumer(destination, selector, false);
    }

    @Override
    public MessageConsumer createConsumer(Destination destination, String selector, boolean noLocal) throws JMSException {
        return newConsumer(destination, selector, noLocal, null);
    }

    JmsMessageConsumer newConsumer(Destination destination, String selector, boolean noLocal, String durableName)
            throws JMSException {
        checkOpen();
        if (destination == null) {
            throw new jakarta.jms.InvalidDestinationException("destination must not be null");
        }
        FedbridgeDestination d = MessageMapping.destination(destination, "destination");
        TemporaryDestinations.checkConsumable(d, connection);
        JmsMessageConsumer c = new JmsMessageConsumer(this, d, selector, durableName, null, noLocal && d instanceof Topic);
        consumers.add(c);
        return c;
    }

    @Override
    public TopicSubscriber createDurableSubscriber(Topic topic, String name) throws JMSException {
        return createDurableSubscriber(topic, name, null, false);
    }

    @Override
    public TopicSubscriber createDurableSubscriber(Topic topic, String name, String selector, boolean noLocal)
            throws JMSException {
        return durable(topic, name, selector, noLocal);
    }

    @Override
    public MessageConsumer createDurableConsumer(Topic topic, String name) throws JMSException {
        return durable(topic, name, null, false);
    }

    @Override
    public MessageConsumer createDurableConsumer(Topic topic, String name, String selector, boolean noLocal)
            throws JMSException {
        return durable(topic, name, selector, noLocal);
    }

    private JmsMessageConsumer durable(Topic topic, String name, String selector, boolean noLocal) throws JMSException {
        checkOpen();
        if (name == null || name.isBlank()) {
            throw new JMSException("durable subscription name must not be blank, but was '" + name + "'");
        }
        if (topic == null) {
            throw new jakarta.jms.InvalidDestinationException("topic must not be null");
        }
        if (connection.getClientID() == null) {
            throw new IllegalStateException("an unshared durable subscription needs the connection's client ID (JMS 8.3.3): "
                    + "set clientID on the connection factory or call setClientID first");
        }
        if (topic instanceof TemporaryTopic) {
            throw new jakarta.jms.InvalidDestinationException("a durable subscription cannot be on a temporary topic");
        }
        if (connection.shared().isActive(SharedSubscriptions.key(true, name))) {
            throw new IllegalStateException("durable subscription '" + name + "' is an active shared one: an unshared one "
                    + "cannot have its name (JMS 8.3.3)");
        }
        if (!connection.activateDurable(name)) {
            throw new IllegalStateException("durable subscription '" + name + "' already has an active consumer on this "
                    + "connection (JMS 8.3.3: one at a time)");
        }
        try {
            return newConsumer(topic, selector, noLocal, name);
        } catch (JMSException | RuntimeException e) {
            connection.deactivateDurable(name);
            throw e;
        }
    }

    @Override
    public MessageConsumer createSharedConsumer(Topic topic, String name) throws JMSException {
        return shared(topic, name, null, false);
    }

    @Override
    public MessageConsumer createSharedConsumer(Topic topic, String name, String selector) throws JMSException {
        return shared(topic, name, selector, false);
    }

    @Override
    public MessageConsumer createSharedDurableConsumer(Topic topic, String name) throws JMSException {
        return shared(topic, name, null, true);
    }

    @Override
    public MessageConsumer createSharedDurableConsumer(Topic topic, String name, String selector) throws JMSException {
        return shared(topic, name, selector, true);
    }

    /**
     * A consumer on shared subscription {@code name} (JMS 8.3.2, 8.3.4). fedbridge needs the connection's client ID for
     * it: a broker subscription has one consumer and a client ID one live connection, so the subscription is shared by
     * this connection's consumers, which is then every consumer it can have.
     */
    private JmsMessageConsumer shared(Topic topic, String name, String selector, boolean durable) throws JMSException {
        checkOpen();
        if (name == null || name.isBlank()) {
            throw new JMSException("shared subscription name must not be blank, but was '" + name + "'");
        }
        if (topic == null) {
            throw new jakarta.jms.InvalidDestinationException("topic must not be null");
        }
        if (connection.getClientID() == null) {
            throw new IllegalStateException("shared subscriptions need the connection's client ID on fedbridge (set clientID): "
                    + "a fedbridge topic subscription has one consumer, so its consumers must all be on the one connection "
                    + "that holds the client ID");
        }
        if (durable && connection.isDurableActive(name)) {
            throw new IllegalStateException("durable subscription '" + name + "' is an active unshared one: a shared one cannot "
                    + "have its name (JMS 8.3.4)");
        }
        FedbridgeDestination d = MessageMapping.destination(topic, "topic");
        TemporaryDestinations.checkConsumable(d, connection);
        JmsMessageConsumer c = new JmsMessageConsumer(this, d, selector, durable ? name : null,
                SharedSubscriptions.key(durable, name), false);
        consumers.add(c);
        return c;
    }

    /**
     * Deletes durable subscription {@code name} of the connection's client ID on the broker the connection is on
     * (JMS 8.3.3). A broker keeps durable subscriptions of its own: one made on another broker of the federation before
     * a failover stays there.
     */
    @Override
    public void unsubscribe(String name) throws JMSException {
        checkOpen();
        if (connection.isDurableActive(name) || connection.shared().isActive(SharedSubscriptions.key(true, name))) {
            throw new IllegalStateException("durable subscription '" + name + "' has an active consumer: close it before "
                    + "unsubscribe (JMS 8.3.3)");
        }
        if (connection.getClientID() == null) {
            throw new IllegalStateException("unsubscribe needs the connection's client ID (set clientID)");
        }
        try {
            // STOMP removes a durable subscription with an UNSUBSCRIBE that names it, on a subscription of this
            // connection: attach to it (with a topic of its own, which replaces it on a broker that had it) and remove it.
            io.fedbridge.failover.FailoverSubscription s = client().subscribe(io.fedbridge.core.SubscriptionRequest
                    .builder("/topic/fedbridge.jms.unsubscribe").ackMode(io.fedbridge.core.AckMode.CLIENT_INDIVIDUAL)
                    .prefetch(1).header(JmsMessageConsumer.DURABLE_NAME, name).build());
            s.unsubscribe(Map.of(JmsMessageConsumer.DURABLE_NAME, name));
        } catch (RuntimeException e) {
            throw Errors.jms("unsubscribe of durable subscription '" + name + "'", e);
        }
    }

    @Override
    public QueueBrowser createBrowser(Queue queue) throws JMSException {
        return createBrowser(queue, null);
    }

    @Override
    public QueueBrowser createBrowser(Queue queue, String selector) throws JMSException {
        checkOpen();
        if (queue == null) {
            throw new jakarta.jms.InvalidDestinationException("queue must not be null");
        }
        FedbridgeDestination d = MessageMapping.destination(queue, "queue");
        if (!(d instanceof Queue)) {
            throw new jakarta.jms.InvalidDestinationException("a QueueBrowser browses a queue, but got " + queue);
        }
        TemporaryDestinations.checkConsumable(d, connection);
        return new JmsQueueBrowser(this, d, selector);
    }

    @Override
    public Queue createQueue(String name) throws JMSException {
        checkOpen();
        try {
            return new FedbridgeQueue(name);
        } catch (IllegalArgumentException e) {
            throw new jakarta.jms.InvalidDestinationException(e.getMessage());
        }
    }

    @Override
    public Topic createTopic(String name) throws JMSException {
        checkOpen();
        try {
            return new FedbridgeTopic(name);
        } catch (IllegalArgumentException e) {
            throw new jakarta.jms.InvalidDestinationException(e.getMessage());
        }
    }

    @Override
    public TemporaryQueue createTemporaryQueue() throws JMSException {
        checkOpen();
        JmsTemporaryQueue q = connection.newTemporaryQueue();
        connection.brokerName(q); // now, while no consumer of it exists
        return q;
    }

    @Override
    public TemporaryTopic createTemporaryTopic() throws JMSException {
        checkOpen();
        JmsTemporaryTopic t = connection.newTemporaryTopic();
        connection.brokerName(t);
        return t;
    }

    @Override
    public QueueReceiver createReceiver(Queue queue) throws JMSException {
        return newConsumer(queue, null, false, null);
    }

    @Override
    public QueueReceiver createReceiver(Queue queue, String selector) throws JMSException {
        return newConsumer(queue, selector, false, null);
    }

    @Override
    public QueueSender createSender(Queue queue) throws JMSException {
        return newProducer(queue);
    }

    @Override
    public TopicSubscriber createSubscriber(Topic topic) throws JMSException {
        return newConsumer(topic, null, false, null);
    }

    @Override
    public TopicSubscriber createSubscriber(Topic topic, String selector, boolean noLocal) throws JMSException {
        return newConsumer(topic, selector, noLocal, null);
    }

    @Override
    public TopicPublisher createPublisher(Topic topic) throws JMSException {
        return newProducer(topic);
    }

    // ------------------------------------------------------------------ the rest

    /** The session-wide listener of the application-server facility: not supported. */
    @Override
    public MessageListener getMessageListener() throws JMSException {
        checkOpen();
        return sessionListener;
    }

    @Override
    public void setMessageListener(MessageListener listener) throws JMSException {
        checkOpen();
        throw new JMSException("Session.setMessageListener (an application-server facility) is not supported; set the "
                + "listener on a MessageConsumer");
    }

    @Override
    public void run() {
        throw new UnsupportedOperationException("Session.run (an application-server facility) is not supported");
    }

    @Override
    public void close() throws JMSException {
        if (closed) {
            return;
        }
        for (JmsMessageConsumer c : consumers) {
            c.closeForSession();
        }
        work.settleOnClose();
        closed = true;
        for (JmsMessageConsumer c : consumers) {
            c.endSubscription();
        }
        consumers.clear();
        producers.clear();
        connection.removed(this);
    }

    boolean isClosed() {
        return closed;
    }
}
