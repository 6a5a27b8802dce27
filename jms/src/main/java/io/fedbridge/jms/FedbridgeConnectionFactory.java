package io.fedbridge.jms;

import io.fedbridge.jms.internal.JmsConnection;
import io.fedbridge.jms.internal.JmsContext;
import jakarta.jms.Connection;
import jakarta.jms.ConnectionFactory;
import jakarta.jms.JMSContext;
import jakarta.jms.JMSException;
import jakarta.jms.QueueConnection;
import jakarta.jms.QueueConnectionFactory;
import jakarta.jms.TopicConnection;
import jakarta.jms.TopicConnectionFactory;
import java.util.List;
import java.util.Properties;

/**
 * The Jakarta Messaging 3.1 connection factory of fedbridge: any failover client URI is its URL, so a JMS application
 * moves between the brokers of a federation without losing or duplicating a message.
 *
 * <pre>{@code
 * ConnectionFactory cf = new FedbridgeConnectionFactory("failover:(tcp://a:61613,tcp://b:61613)?randomize=false");
 * try (JMSContext ctx = cf.createContext()) {
 *     ctx.createProducer().send(ctx.createQueue("orders"), "hello");
 * }
 * }</pre>
 *
 * As a bean (Spring): the no-argument constructor and the setters {@link #setBrokerURL}, {@link #setUserName},
 * {@link #setPassword}, {@link #setClientID}, {@link #setPrefetch}, {@link #setTrustedPackages},
 * {@link #setTrustAllPackages}; without JNDI: {@link #FedbridgeConnectionFactory(Properties)} with the properties of
 * {@link FedbridgeJmsConfig}. Each connection is one failover client (one STOMP connection at a time), connected in
 * {@code createConnection}. Thread-safe once configured.
 */
public class FedbridgeConnectionFactory implements ConnectionFactory, QueueConnectionFactory, TopicConnectionFactory {

    private volatile FedbridgeJmsConfig.Builder builder;

    /** A factory to configure with the setters (at least {@link #setBrokerURL}). */
    public FedbridgeConnectionFactory() {
        this.builder = FedbridgeJmsConfig.builder(null);
    }

    /** @param brokerUrl a failover client URI, e.g. {@code failover:(tcp://a:61613,tcp://b:61613)} */
    public FedbridgeConnectionFactory(String brokerUrl) {
        this(FedbridgeJmsConfig.of(brokerUrl));
    }

    public FedbridgeConnectionFactory(FedbridgeJmsConfig config) {
        this.builder = config.toBuilder();
    }

    /** @param properties {@code brokerURL}, {@code userName}, … as {@link FedbridgeJmsConfig} lists them */
    public FedbridgeConnectionFactory(Properties properties) {
        this(FedbridgeJmsConfig.fromProperties(properties));
    }

    /** The configuration as it stands. @throws IllegalArgumentException if it is not valid (e.g. no broker URL) */
    public FedbridgeJmsConfig config() {
        return builder.build();
    }

    public void setBrokerURL(String url) {
        builder.brokerURL(url);
    }

    public void setUserName(String user) {
        builder.userName(user);
    }

    public void setPassword(String password) {
        builder.password(password);
    }

    public void setClientID(String clientId) {
        builder.clientID(clientId);
    }

    public void setPrefetch(int prefetch) {
        builder.prefetch(prefetch);
    }

    public void setTrustedPackages(List<String> packages) {
        builder.trustedPackages(packages);
    }

    public void setTrustAllPackages(boolean trustAll) {
        builder.trustAllPackages(trustAll);
    }

    /** Sets the properties given, leaving the others as they are. */
    public void setProperties(Properties properties) {
        for (String key : properties.stringPropertyNames()) {
            builder.set(key, properties.getProperty(key));
        }
    }

    private FedbridgeJmsConfig validConfig() throws JMSException {
        try {
            return builder.build();
        } catch (IllegalArgumentException e) {
            JMSException x = new JMSException("invalid fedbridge connection factory configuration: " + e.getMessage());
            x.setLinkedException(e);
            throw x;
        }
    }

    @Override
    public Connection createConnection() throws JMSException {
        FedbridgeJmsConfig c = validConfig();
        return new JmsConnection(c, c.userName(), c.password());
    }

    @Override
    public Connection createConnection(String userName, String password) throws JMSException {
        return new JmsConnection(validConfig(), userName, password);
    }

    @Override
    public QueueConnection createQueueConnection() throws JMSException {
        return (QueueConnection) createConnection();
    }

    @Override
    public QueueConnection createQueueConnection(String userName, String password) throws JMSException {
        return (QueueConnection) createConnection(userName, password);
    }

    @Override
    public TopicConnection createTopicConnection() throws JMSException {
        return (TopicConnection) createConnection();
    }

    @Override
    public TopicConnection createTopicConnection(String userName, String password) throws JMSException {
        return (TopicConnection) createConnection(userName, password);
    }

    @Override
    public JMSContext createContext() {
        return createContext(JMSContext.AUTO_ACKNOWLEDGE);
    }

    @Override
    public JMSContext createContext(String userName, String password) {
        return createContext(userName, password, JMSContext.AUTO_ACKNOWLEDGE);
    }

    @Override
    public JMSContext createContext(String userName, String password, int sessionMode) {
        try {
            return JmsContext.create(new JmsConnection(validConfig(), userName, password), sessionMode);
        } catch (JMSException e) {
            throw JmsContext.runtime(e);
        }
    }

    @Override
    public JMSContext createContext(int sessionMode) {
        FedbridgeJmsConfig c;
        try {
            c = validConfig();
        } catch (JMSException e) {
            throw JmsContext.runtime(e);
        }
        return createContext(c.userName(), c.password(), sessionMode);
    }

    @Override
    public String toString() {
        try {
            return "FedbridgeConnectionFactory[" + builder.build() + "]";
        } catch (IllegalArgumentException e) {
            return "FedbridgeConnectionFactory[not configured: " + e.getMessage() + "]";
        }
    }

}
