package io.fedbridge.jms.internal;

import io.fedbridge.failover.FailoverClient;
import io.fedbridge.failover.FailoverConfig;
import io.fedbridge.failover.FailoverEvent;
import io.fedbridge.jms.FedbridgeDestination;
import io.fedbridge.jms.FedbridgeJmsConfig;
import jakarta.jms.Connection;
import jakarta.jms.ConnectionConsumer;
import jakarta.jms.ConnectionMetaData;
import jakarta.jms.Destination;
import jakarta.jms.ExceptionListener;
import jakarta.jms.IllegalStateException;
import jakarta.jms.JMSException;
import jakarta.jms.Queue;
import jakarta.jms.QueueConnection;
import jakarta.jms.QueueSession;
import jakarta.jms.ServerSessionPool;
import jakarta.jms.Session;
import jakarta.jms.Topic;
import jakarta.jms.TopicConnection;
import jakarta.jms.TopicSession;
import java.util.Collections;
import java.util.Enumeration;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A JMS connection: one {@link FailoverClient}, so one STOMP connection at a time that moves between the brokers of its
 * URI. Sessions share it. Created stopped (JMS 6.1.4); {@link #start()} lets messages flow.
 *
 * <p>Concurrency: the connection is thread-safe. {@code lock} guards the client, the started flag and the client id;
 * listeners wait on it while the connection is stopped. Each session's delivery lock is held while its listener runs,
 * which is how {@link #stop()} waits for listeners to return.
 */
public final class JmsConnection implements Connection, QueueConnection, TopicConnection {

    private static final Logger LOG = LoggerFactory.getLogger(JmsConnection.class);
    private static final AtomicInteger NUMBERS = new AtomicInteger();

    private final FedbridgeJmsConfig config;
    private final String user;
    private final String password;
    private final int number = NUMBERS.incrementAndGet();
    private final Object lock = new Object();
    private final List<JmsSession> sessions = new CopyOnWriteArrayList<>();
    private final Set<String> deletedTemporaries = ConcurrentHashMap.newKeySet();
    private final Set<String> activeDurables = ConcurrentHashMap.newKeySet();
    private final SharedSubscriptions shared = new SharedSubscriptions();
    /** Our temporary destinations' names as the broker has them ({@code /temp-queue/@OWNER@NAME}), learned by a probe. */
    private final java.util.Map<String, String> brokerNames = new ConcurrentHashMap<>();
    /** JMSMessageIDs {@code ID:<uuid>:<n>}: unique without a random number per message. */
    private final String messageIdPrefix = "ID:" + UUID.randomUUID() + ":";
    private final java.util.concurrent.atomic.AtomicLong messageIds = new java.util.concurrent.atomic.AtomicLong();
    private final boolean clientIdFromFactory;
    private volatile FailoverClient client;
    private volatile String clientId;
    private volatile boolean started;
    private volatile boolean closed;
    private volatile boolean used;
    private volatile ExceptionListener exceptionListener;

    /** Connects at once; an unreachable broker or refused login fails here. */
    public JmsConnection(FedbridgeJmsConfig config, String user, String password) throws JMSException {
        this.config = config;
        this.user = user;
        this.password = password;
        this.clientId = config.clientId();
        this.clientIdFromFactory = config.clientId() != null;
        this.client = connect(clientId);
    }

    private FailoverClient connect(String id) throws JMSException {
        FailoverConfig fc = config.failoverConfig(user, password, id);
        try {
            return FailoverClient.connect(fc, this::onEvent);
        } catch (RuntimeException e) {
            throw Errors.connect("cannot connect to " + config.brokerUrl(), e);
        }
    }

    private void onEvent(FailoverEvent event) {
        if (event instanceof FailoverEvent.Connected c && c.reconnect()) {
            brokerNames.clear(); // a new STOMP connection owns our temporary destinations under new names
        }
        if (event instanceof FailoverEvent.GaveUp gaveUp && client != null) { // not while connect() still throws
            ExceptionListener l = exceptionListener;
            LOG.warn("JMS connection {} lost for good: {}", number, gaveUp.failure().getMessage());
            if (l != null) {
                l.onException(Errors.jms("the connection to " + config.brokerUrl() + " is lost", gaveUp.failure()));
            }
        }
    }

    FedbridgeJmsConfig config() {
        return config;
    }

    /** The failover client, for a session's operations. */
    FailoverClient client() throws IllegalStateException {
        checkOpen();
        used = true;
        return client;
    }

    String nextMessageId() {
        return messageIdPrefix + messageIds.incrementAndGet();
    }

    int number() {
        return number;
    }

    void checkOpen() throws IllegalStateException {
        if (closed) {
            throw Errors.closed("connection " + number);
        }
    }

    // ------------------------------------------------------------------ sessions

    @Override
    public Session createSession(boolean transacted, int acknowledgeMode) throws JMSException {
        return createSession(transacted ? Session.SESSION_TRANSACTED : acknowledgeMode);
    }

    @Override
    public Session createSession(int sessionMode) throws JMSException {
        return newSession(sessionMode);
    }

    @Override
    public Session createSession() throws JMSException {
        return newSession(Session.AUTO_ACKNOWLEDGE);
    }

    JmsSession newSession(int sessionMode) throws JMSException {
        checkOpen();
        used = true;
        if (sessionMode != Session.AUTO_ACKNOWLEDGE && sessionMode != Session.CLIENT_ACKNOWLEDGE
                && sessionMode != Session.DUPS_OK_ACKNOWLEDGE && sessionMode != Session.SESSION_TRANSACTED) {
            throw new JMSException("sessionMode must be AUTO_ACKNOWLEDGE (1), CLIENT_ACKNOWLEDGE (2), DUPS_OK_ACKNOWLEDGE (3) "
                    + "or SESSION_TRANSACTED (0), but was " + sessionMode);
        }
        JmsSession s = new JmsSession(this, sessionMode);
        sessions.add(s);
        return s;
    }

    @Override
    public QueueSession createQueueSession(boolean transacted, int acknowledgeMode) throws JMSException {
        return newSession(transacted ? Session.SESSION_TRANSACTED : acknowledgeMode);
    }

    @Override
    public TopicSession createTopicSession(boolean transacted, int acknowledgeMode) throws JMSException {
        return newSession(transacted ? Session.SESSION_TRANSACTED : acknowledgeMode);
    }

    void removed(JmsSession s) {
        sessions.remove(s);
    }

    // ------------------------------------------------------------------ client id

    @Override
    public String getClientID() throws JMSException {
        checkOpen();
        return clientId;
    }

    /**
     * Sets the client identifier; only right after the connection was created (JMS 6.1.2). The STOMP connection is made
     * again with {@code client-id}; a broker where another live connection holds it refuses, and this throws
     * {@link jakarta.jms.InvalidClientIDException}.
     */
    @Override
    public void setClientID(String id) throws JMSException {
        checkOpen();
        if (id == null || id.isBlank()) {
            throw new jakarta.jms.InvalidClientIDException("clientID must not be blank, but was '" + id + "'");
        }
        synchronized (lock) {
            if (clientIdFromFactory || clientId != null) {
                throw new IllegalStateException("the client ID is already set (" + clientId + "): it can be set once, by the "
                        + "connection factory or right after createConnection");
            }
            if (used) {
                throw new IllegalStateException("setClientID must be called right after createConnection, before any other "
                        + "use of the connection (JMS 6.1.2)");
            }
            FailoverClient old = client;
            old.close();
            try {
                client = connect(id);
            } catch (JMSException e) {
                client = connect(null);
                throw e instanceof jakarta.jms.InvalidClientIDException ? e
                        : withLinked(new jakarta.jms.InvalidClientIDException("client ID '" + id + "' was refused: " + e.getMessage()), e);
            }
            clientId = id;
        }
    }

    private static JMSException withLinked(JMSException e, Exception cause) {
        e.setLinkedException(cause);
        e.initCause(cause);
        return e;
    }

    SharedSubscriptions shared() {
        return shared;
    }

    /** Durable subscription names active on this connection: one consumer each (JMS 8.3.3). */
    boolean activateDurable(String name) {
        return activeDurables.add(name);
    }

    void deactivateDurable(String name) {
        activeDurables.remove(name);
    }

    boolean isDurableActive(String name) {
        return activeDurables.contains(name);
    }

    // ------------------------------------------------------------------ temporary destinations

    JmsTemporaryQueue newTemporaryQueue() throws JMSException {
        checkOpen();
        return new JmsTemporaryQueue(FedbridgeDestination.TEMP_QUEUE_PREFIX + "jms-" + UUID.randomUUID(), this);
    }

    JmsTemporaryTopic newTemporaryTopic() throws JMSException {
        checkOpen();
        return new JmsTemporaryTopic(FedbridgeDestination.TEMP_TOPIC_PREFIX + "jms-" + UUID.randomUUID(), this);
    }

    /**
     * The name under which {@code sender} must address {@code d}. A fedbridge broker names a temporary destination after
     * the STOMP connection that first uses it ({@code /temp-queue/X} becomes {@code /temp-queue/@OWNER@X}), so another
     * connection, even in this JVM, must use the owner's full name; the owner itself uses the short one.
     */
    static String wireName(FedbridgeDestination d, JmsConnection sender) throws JMSException {
        JmsConnection owner = TemporaryDestinations.owner(d);
        if (owner == null || owner == sender) {
            return d.stompName();
        }
        return owner.brokerName(d);
    }

    /**
     * Header naming the connection that published to a topic, for {@code noLocal} topic consumers: its client ID,
     * which one live connection holds at a time (so a durable subscription's noLocal survives a reconnect), else an id
     * of its own. Not a property on receipt.
     */
    static final String ORIGIN = "JMS_fedbridge_origin";
    private final String connectionOrigin = "connection:" + UUID.randomUUID();

    String origin() {
        String id = clientId;
        return id != null ? "client-id:" + id : connectionOrigin;
    }

    /** Header of the probe message that learns a temporary destination's broker name; consumers never see it. */
    static final String PROBE = "JMS_fedbridge_probe";

    String brokerName(FedbridgeDestination d) throws JMSException {
        checkOpen();
        String known = brokerNames.get(d.stompName());
        if (known != null) {
            return known;
        }
        synchronized (d) {
            known = brokerNames.get(d.stompName());
            if (known != null) {
                return known;
            }
            String probe = UUID.randomUUID().toString();
            FailoverClient c = client;
            try (io.fedbridge.failover.FailoverSubscription s = c.subscribe(io.fedbridge.core.SubscriptionRequest
                    .builder(d.stompName()).ackMode(io.fedbridge.core.AckMode.CLIENT_INDIVIDUAL)
                    .selector(PROBE + " = '" + probe + "'").build())) {
                c.send(io.fedbridge.core.Message.builder(d.stompName()).header(PROBE, probe).persistent(false).build());
                io.fedbridge.failover.FailoverMessage m = s.receive(java.time.Duration.ofSeconds(10));
                if (m == null) {
                    throw new JMSException("the broker did not show its name for temporary destination " + d + " within 10 s");
                }
                m.ack();
                brokerNames.put(d.stompName(), m.destination());
                return m.destination();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new JMSException("interrupted while learning the broker's name for " + d);
            } catch (RuntimeException e) {
                throw Errors.jms("cannot learn the broker's name for temporary destination " + d, e);
            }
        }
    }

    boolean isDeleted(FedbridgeDestination d) {
        return deletedTemporaries.contains(d.stompName());
    }

    void deleteTemporary(FedbridgeDestination d) throws JMSException {
        checkOpen();
        for (JmsSession s : sessions) {
            if (s.hasConsumerOn(d)) {
                throw new IllegalStateException("temporary destination " + d + " still has a consumer: close it before delete()");
            }
        }
        deletedTemporaries.add(d.stompName());
    }

    // ------------------------------------------------------------------ start and stop

    @Override
    public void start() throws JMSException {
        checkOpen();
        used = true;
        synchronized (lock) {
            started = true;
            lock.notifyAll();
        }
    }

    /** Stops delivery; returns once no listener of this connection is running (JMS 6.1.5). */
    @Override
    public void stop() throws JMSException {
        checkOpen();
        used = true;
        for (JmsSession s : sessions) {
            if (s.isDeliveryThread()) {
                throw new IllegalStateException("a MessageListener must not stop its own connection (JMS 6.1.5)");
            }
        }
        synchronized (lock) {
            started = false;
        }
        for (JmsSession s : sessions) {
            s.awaitListenerIdle();
        }
    }

    boolean isStarted() {
        return started;
    }

    /** Waits until the connection is started, closed, or {@code deadlineNanos} passes; true if started. */
    boolean awaitStarted(long deadlineNanos) throws InterruptedException {
        if (started && !closed) {
            return true; // the common case, once per delivered message: no monitor
        }
        synchronized (lock) {
            while (!started && !closed) {
                long left = deadlineNanos - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                TimeUnit.NANOSECONDS.timedWait(lock, left);
            }
            return started && !closed;
        }
    }

    // ------------------------------------------------------------------ the rest

    @Override
    public void close() throws JMSException {
        for (JmsSession s : sessions) {
            if (s.isDeliveryThread()) {
                throw new IllegalStateException("a MessageListener must not close its own connection (JMS 6.1.8)");
            }
        }
        synchronized (lock) {
            if (closed) {
                return;
            }
            closed = true;
            started = false;
            lock.notifyAll();
        }
        JMSException first = null;
        for (JmsSession s : sessions) {
            try {
                s.close();
            } catch (JMSException e) {
                first = first == null ? e : first;
            }
        }
        sessions.clear();
        client.close();
        if (first != null) {
            throw first;
        }
    }

    boolean isClosed() {
        return closed;
    }

    @Override
    public ConnectionMetaData getMetaData() throws JMSException {
        checkOpen();
        return new MetaData();
    }

    @Override
    public ExceptionListener getExceptionListener() throws JMSException {
        checkOpen();
        return exceptionListener;
    }

    /** Called when the failover client gives up ({@code maxReconnectAttempts}): the connection cannot be used again. */
    @Override
    public void setExceptionListener(ExceptionListener listener) throws JMSException {
        checkOpen();
        used = true;
        this.exceptionListener = listener;
    }

    private static JMSException noConnectionConsumer() {
        return new JMSException("ConnectionConsumer (an application-server facility) is not supported by "
                + "fedbridge-jms; use a MessageListener");
    }

    @Override
    public ConnectionConsumer createConnectionConsumer(Destination d, String selector, ServerSessionPool pool, int max)
            throws JMSException {
        throw noConnectionConsumer();
    }

    @Override
    public ConnectionConsumer createConnectionConsumer(Queue q, String selector, ServerSessionPool pool, int max)
            throws JMSException {
        throw noConnectionConsumer();
    }

    @Override
    public ConnectionConsumer createConnectionConsumer(Topic t, String selector, ServerSessionPool pool, int max)
            throws JMSException {
        throw noConnectionConsumer();
    }

    @Override
    public ConnectionConsumer createSharedConnectionConsumer(Topic t, String name, String selector, ServerSessionPool pool,
                                                             int max) throws JMSException {
        throw noConnectionConsumer();
    }

    @Override
    public ConnectionConsumer createDurableConnectionConsumer(Topic t, String name, String selector, ServerSessionPool pool,
                                                              int max) throws JMSException {
        throw noConnectionConsumer();
    }

    @Override
    public ConnectionConsumer createSharedDurableConnectionConsumer(Topic t, String name, String selector,
                                                                    ServerSessionPool pool, int max) throws JMSException {
        throw noConnectionConsumer();
    }

    @Override
    public String toString() {
        FailoverClient c = client;
        return "FedbridgeConnection[" + number + " " + config.brokerUrl() + (c == null ? "" : " at " + c.connectedUri()) + "]";
    }

    static final class MetaData implements ConnectionMetaData {
        @Override
        public String getJMSVersion() {
            return "3.1";
        }

        @Override
        public int getJMSMajorVersion() {
            return 3;
        }

        @Override
        public int getJMSMinorVersion() {
            return 1;
        }

        @Override
        public String getJMSProviderName() {
            return "fedbridge";
        }

        @Override
        public String getProviderVersion() {
            Package p = JmsConnection.class.getPackage();
            return p.getImplementationVersion() == null ? "0.1.0-SNAPSHOT" : p.getImplementationVersion();
        }

        @Override
        public int getProviderMajorVersion() {
            return 0;
        }

        @Override
        public int getProviderMinorVersion() {
            return 1;
        }

        @Override
        public Enumeration<String> getJMSXPropertyNames() {
            return Collections.enumeration(List.of("JMSXDeliveryCount", "JMSXGroupID", "JMSXGroupSeq"));
        }
    }
}
