package io.fedbridge.jms.integration;

import static org.awaitility.Awaitility.await;

import io.fedbridge.broker.Broker;
import io.fedbridge.broker.BrokerConfig;
import io.fedbridge.core.bridge.BridgeState;
import io.fedbridge.jms.FedbridgeConnectionFactory;
import jakarta.jms.Connection;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import jakarta.jms.MessageConsumer;
import jakarta.jms.TextMessage;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;

/**
 * Shared base of the JMS client's integration tests: fedbridge brokers in this JVM on {@code tcp://127.0.0.1:0}
 * (memory only), two of them federated by a duplex bridge where a test needs it; connections and brokers are closed
 * after each test, connections first.
 */
abstract class JmsTestSupport {

    protected static final Duration WAIT = Duration.ofSeconds(15);
    protected static final long RECEIVE_MS = 5_000;
    /** Fast reconnects for the bridges between test brokers. */
    protected static final String FAST_BRIDGE = "initialReconnectDelay=50&maxReconnectDelay=500";
    private static final AtomicInteger NAMES = new AtomicInteger();

    private final Deque<AutoCloseable> resources = new ArrayDeque<>();

    @AfterEach
    void closeResources() throws Exception {
        Exception first = null;
        while (!resources.isEmpty()) {
            try {
                resources.pop().close();
            } catch (Exception e) {
                first = first == null ? e : first;
            }
        }
        if (first != null) {
            throw first;
        }
    }

    protected <T extends AutoCloseable> T track(T resource) {
        resources.push(resource);
        return resource;
    }

    protected Broker startBroker(String prefix) {
        return track(Broker.start(BrokerConfig.builder(prefix + "-" + NAMES.incrementAndGet()).listen("tcp://127.0.0.1:0").build()));
    }

    protected static String tcp(Broker b) {
        return b.connectUris().get(0);
    }

    /** Two brokers, {@code [A, B]}, joined by a duplex bridge from A to B that is up. */
    protected Broker[] federation() {
        Broker b = startBroker("B");
        Broker a = startBroker("A");
        a.addNetworkConnector("static:(" + tcp(b) + ")?duplex=true&" + FAST_BRIDGE);
        await(a.name() + "'s bridge to " + b.name() + " is up").atMost(WAIT).until(() ->
                a.bridges().stream().anyMatch(s -> s.state() == BridgeState.UP));
        return new Broker[] {a, b};
    }

    /** A failover URL over the brokers in that order, fast retries. */
    protected static String failover(Broker... brokers) {
        return failover(java.util.Arrays.stream(brokers).map(JmsTestSupport::tcp).toArray(String[]::new));
    }

    /** The same over broker URIs (a child JVM's, say). */
    protected static String failover(String... uris) {
        return "failover:(" + String.join(",", uris) + ")?randomize=false&initialReconnectDelay=10&maxReconnectDelay=200&timeout=10s";
    }

    protected FedbridgeConnectionFactory factory(Broker b) {
        return new FedbridgeConnectionFactory(tcp(b));
    }

    /** A started connection, closed after the test. */
    protected Connection connection(Broker b) throws JMSException {
        return connection(factory(b));
    }

    protected Connection connection(FedbridgeConnectionFactory f) throws JMSException {
        Connection c = track(f.createConnection());
        c.start();
        return c;
    }

    /** Waits until the broker's queue has {@code n} consumers (a consumer on another broker counts through its bridge). */
    protected static void awaitConsumers(Broker b, String queue, int n) {
        await(queue + " on " + b.name() + " has " + n + " consumer(s)").atMost(WAIT).until(() ->
                b.queue(queue) != null && b.queue(queue).consumers() >= n);
    }

    /** The names of a raw {@code Enumeration} the JMS API returns. */
    protected static java.util.List<String> names(java.util.Enumeration<?> e) {
        java.util.List<String> out = new java.util.ArrayList<>();
        while (e.hasMoreElements()) {
            out.add((String) e.nextElement());
        }
        return out;
    }

    protected static String text(Message m) throws JMSException {
        return m == null ? null : ((TextMessage) m).getText();
    }

    protected static String receiveText(MessageConsumer c) throws JMSException {
        return text(c.receive(RECEIVE_MS));
    }
}
