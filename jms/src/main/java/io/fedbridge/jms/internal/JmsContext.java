package io.fedbridge.jms.internal;

import jakarta.jms.BytesMessage;
import jakarta.jms.ConnectionMetaData;
import jakarta.jms.Destination;
import jakarta.jms.ExceptionListener;
import jakarta.jms.IllegalStateRuntimeException;
import jakarta.jms.JMSConsumer;
import jakarta.jms.JMSContext;
import jakarta.jms.JMSException;
import jakarta.jms.JMSProducer;
import jakarta.jms.JMSRuntimeException;
import jakarta.jms.MapMessage;
import jakarta.jms.Message;
import jakarta.jms.ObjectMessage;
import jakarta.jms.Queue;
import jakarta.jms.QueueBrowser;
import jakarta.jms.StreamMessage;
import jakarta.jms.TemporaryQueue;
import jakarta.jms.TemporaryTopic;
import jakarta.jms.TextMessage;
import jakarta.jms.Topic;
import java.io.Serializable;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * JMS 2's simplified API: a connection and one session. Contexts made with {@link #createContext(int)} share the
 * connection, which closes with the last of them. The connection starts with the first consumer (unless
 * {@link #setAutoStart} false). Errors are the runtime forms of the JMS exceptions.
 */
public final class JmsContext implements JMSContext {

    private final JmsConnection connection;
    private final AtomicInteger users;
    private final int sessionMode;
    private JmsSession session;
    private volatile boolean autoStart = true;
    private volatile boolean closed;

    private JmsContext(JmsConnection connection, AtomicInteger users, int sessionMode) {
        this.connection = connection;
        this.users = users;
        this.sessionMode = sessionMode;
    }

    /** A context owning {@code connection}; closes it if the session mode is invalid. */
    public static JMSContext create(JmsConnection connection, int sessionMode) throws JMSException {
        JmsContext c = new JmsContext(connection, new AtomicInteger(1), sessionMode);
        try {
            c.session();
        } catch (JMSRuntimeException e) {
            connection.close();
            throw e;
        }
        return c;
    }

    public static JMSRuntimeException runtime(JMSException e) {
        return Errors.runtime(e);
    }

    synchronized JmsSession session() {
        checkOpen();
        if (session == null) {
            try {
                session = connection.newSession(sessionMode);
            } catch (JMSException e) {
                throw Errors.runtime(e);
            }
        }
        return session;
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateRuntimeException("the JMSContext is closed");
        }
    }

    interface Call<T> {
        T call() throws JMSException;
    }

    interface Run {
        void run() throws JMSException;
    }

    static <T> T call(Call<T> c) {
        try {
            return c.call();
        } catch (JMSException e) {
            throw Errors.runtime(e);
        }
    }

    static void run(Run r) {
        try {
            r.run();
        } catch (JMSException e) {
            throw Errors.runtime(e);
        }
    }

    @Override
    public JMSContext createContext(int mode) {
        checkOpen();
        users.incrementAndGet();
        JmsContext c = new JmsContext(connection, users, mode);
        try {
            c.session();
        } catch (JMSRuntimeException e) {
            c.close();
            throw e;
        }
        return c;
    }

    @Override
    public JMSProducer createProducer() {
        return new JmsContextProducer(call(() -> session().newProducer(null)));
    }

    @Override
    public String getClientID() {
        return call(connection::getClientID);
    }

    @Override
    public void setClientID(String id) {
        run(() -> connection.setClientID(id));
    }

    @Override
    public ConnectionMetaData getMetaData() {
        return call(connection::getMetaData);
    }

    @Override
    public ExceptionListener getExceptionListener() {
        return call(connection::getExceptionListener);
    }

    @Override
    public void setExceptionListener(ExceptionListener listener) {
        run(() -> connection.setExceptionListener(listener));
    }

    @Override
    public void start() {
        run(connection::start);
    }

    @Override
    public void stop() {
        run(connection::stop);
    }

    @Override
    public void setAutoStart(boolean autoStart) {
        this.autoStart = autoStart;
    }

    @Override
    public boolean getAutoStart() {
        return autoStart;
    }

    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        if (session != null) {
            run(session::close);
        }
        if (users.decrementAndGet() == 0) {
            run(connection::close);
        }
    }

    @Override
    public BytesMessage createBytesMessage() {
        return call(() -> session().createBytesMessage());
    }

    @Override
    public MapMessage createMapMessage() {
        return call(() -> session().createMapMessage());
    }

    @Override
    public Message createMessage() {
        return call(() -> session().createMessage());
    }

    @Override
    public ObjectMessage createObjectMessage() {
        return call(() -> session().createObjectMessage());
    }

    @Override
    public ObjectMessage createObjectMessage(Serializable object) {
        return call(() -> session().createObjectMessage(object));
    }

    @Override
    public StreamMessage createStreamMessage() {
        return call(() -> session().createStreamMessage());
    }

    @Override
    public TextMessage createTextMessage() {
        return call(() -> session().createTextMessage());
    }

    @Override
    public TextMessage createTextMessage(String text) {
        return call(() -> session().createTextMessage(text));
    }

    @Override
    public boolean getTransacted() {
        return call(() -> session().getTransacted());
    }

    @Override
    public int getSessionMode() {
        return call(() -> session().getAcknowledgeMode());
    }

    @Override
    public void commit() {
        run(() -> session().commit());
    }

    @Override
    public void rollback() {
        run(() -> session().rollback());
    }

    @Override
    public void recover() {
        run(() -> session().recover());
    }

    private JMSConsumer consumer(Call<JmsMessageConsumer> make) {
        JmsMessageConsumer c = call(make);
        if (autoStart) {
            start();
        }
        return new JmsContextConsumer(c);
    }

    @Override
    public JMSConsumer createConsumer(Destination destination) {
        return consumer(() -> session().newConsumer(destination, null, false, null));
    }

    @Override
    public JMSConsumer createConsumer(Destination destination, String selector) {
        return consumer(() -> session().newConsumer(destination, selector, false, null));
    }

    @Override
    public JMSConsumer createConsumer(Destination destination, String selector, boolean noLocal) {
        return consumer(() -> session().newConsumer(destination, selector, noLocal, null));
    }

    @Override
    public Queue createQueue(String name) {
        return call(() -> session().createQueue(name));
    }

    @Override
    public Topic createTopic(String name) {
        return call(() -> session().createTopic(name));
    }

    @Override
    public JMSConsumer createDurableConsumer(Topic topic, String name) {
        return consumer(() -> (JmsMessageConsumer) session().createDurableConsumer(topic, name));
    }

    @Override
    public JMSConsumer createDurableConsumer(Topic topic, String name, String selector, boolean noLocal) {
        return consumer(() -> (JmsMessageConsumer) session().createDurableConsumer(topic, name, selector, noLocal));
    }

    @Override
    public JMSConsumer createSharedDurableConsumer(Topic topic, String name) {
        return consumer(() -> (JmsMessageConsumer) session().createSharedDurableConsumer(topic, name));
    }

    @Override
    public JMSConsumer createSharedDurableConsumer(Topic topic, String name, String selector) {
        return consumer(() -> (JmsMessageConsumer) session().createSharedDurableConsumer(topic, name, selector));
    }

    @Override
    public JMSConsumer createSharedConsumer(Topic topic, String name) {
        return consumer(() -> (JmsMessageConsumer) session().createSharedConsumer(topic, name));
    }

    @Override
    public JMSConsumer createSharedConsumer(Topic topic, String name, String selector) {
        return consumer(() -> (JmsMessageConsumer) session().createSharedConsumer(topic, name, selector));
    }

    @Override
    public QueueBrowser createBrowser(Queue queue) {
        return call(() -> session().createBrowser(queue));
    }

    @Override
    public QueueBrowser createBrowser(Queue queue, String selector) {
        return call(() -> session().createBrowser(queue, selector));
    }

    @Override
    public TemporaryQueue createTemporaryQueue() {
        return call(() -> session().createTemporaryQueue());
    }

    @Override
    public TemporaryTopic createTemporaryTopic() {
        return call(() -> session().createTemporaryTopic());
    }

    @Override
    public void unsubscribe(String name) {
        run(() -> session().unsubscribe(name));
    }

    @Override
    public void acknowledge() {
        run(() -> session().acknowledge());
    }
}
