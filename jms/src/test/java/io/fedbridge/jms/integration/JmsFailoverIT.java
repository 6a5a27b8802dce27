package io.fedbridge.jms.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fedbridge.broker.Broker;
import io.fedbridge.broker.BrokerConfig;
import io.fedbridge.broker.testing.ChildBroker;
import io.fedbridge.jms.FedbridgeConnectionFactory;
import jakarta.jms.Connection;
import jakarta.jms.DeliveryMode;
import jakarta.jms.JMSException;
import jakarta.jms.MessageConsumer;
import jakarta.jms.MessageProducer;
import jakarta.jms.Session;
import jakarta.jms.TextMessage;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A JMS listener on {@code failover:(A,B)} keeps consuming, each message exactly once, while the broker it is
 * connected to, A, is killed with SIGKILL (a child JVM, {@link ChildBroker}) and later restarted on its data directory
 * and port, its stranded messages then reaching the listener over the bridge. B runs in this JVM.
 */
class JmsFailoverIT extends JmsTestSupport {

    private static final int MESSAGES = 300;

    @TempDir
    Path tmp;

    /** Broker B in this JVM, and A in a child JVM bridging to it (duplex), both with data directories. */
    private Broker startB() {
        return track(Broker.start(BrokerConfig.builder("jfo-B").listen("tcp://127.0.0.1:0").dataDirectory(tmp.resolve("B")).build()));
    }

    private ChildBroker startA(Broker b) throws Exception {
        return track(ChildBroker.start("jfo-A", tmp.resolve("A"), 0, "static:(" + tcp(b) + ")?duplex=true&" + FAST_BRIDGE,
                tmp.resolve("logs")));
    }

    private static void count(Map<String, AtomicInteger> received, jakarta.jms.Message m) {
        try {
            received.computeIfAbsent(((TextMessage) m).getText(), k -> new AtomicInteger()).incrementAndGet();
        } catch (JMSException e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void aListenerShouldGetEveryMessageOnceThroughABrokerKill() throws Exception {
        Broker b = startB();
        ChildBroker a = startA(b);
        Map<String, AtomicInteger> received = new ConcurrentHashMap<>();
        Connection consumerConnection = connection(new FedbridgeConnectionFactory(failover(a.uri(), tcp(b))));
        Session consumerSession = consumerConnection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        MessageConsumer consumer = consumerSession.createConsumer(consumerSession.createQueue("work"));
        consumer.setMessageListener(m -> count(received, m));
        produceThroughAKillOfA(a, b, received);
    }

    @Test
    void aSpringListenerContainerShouldGetEveryMessageOnceThroughABrokerKill() throws Exception {
        Broker b = startB();
        ChildBroker a = startA(b);
        Map<String, AtomicInteger> received = new ConcurrentHashMap<>();
        org.springframework.jms.connection.SingleConnectionFactory cf = new org.springframework.jms.connection
                .SingleConnectionFactory(new FedbridgeConnectionFactory(failover(a.uri(), tcp(b))));
        track(cf::destroy);
        org.springframework.jms.listener.DefaultMessageListenerContainer container =
                new org.springframework.jms.listener.DefaultMessageListenerContainer();
        container.setConnectionFactory(cf);
        container.setDestinationName("work");
        container.setMessageListener((jakarta.jms.MessageListener) m -> count(received, m));
        container.setReceiveTimeout(200);
        container.afterPropertiesSet();
        track(container::shutdown);
        container.start();
        produceThroughAKillOfA(a, b, received);
    }

    /**
     * With a consumer of {@code work} connected to A through {@code failover:(A,B)}: sends on B, kills A with SIGKILL
     * halfway, sends the rest, restarts A; every message must be counted exactly once.
     */
    private void produceThroughAKillOfA(ChildBroker a, Broker b, Map<String, AtomicInteger> received) throws Exception {
        awaitConsumers(b, "/queue/work", 1); // the listener's demand crossed A's bridge
        Connection producerConnection = connection(new FedbridgeConnectionFactory(tcp(b)));
        Session producerSession = producerConnection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        MessageProducer producer = producerSession.createProducer(producerSession.createQueue("work"));
        producer.setDeliveryMode(DeliveryMode.PERSISTENT);
        for (int i = 0; i < MESSAGES / 3; i++) {
            producer.send(producerSession.createTextMessage("m-" + i));
        }
        await("a third of the messages arrived through A").atMost(WAIT).until(() -> received.size() >= MESSAGES / 6);

        a.killAndReap(); // kill -9: the listener's connection and the bridge drop, nothing is drained

        for (int i = MESSAGES / 3; i < MESSAGES; i++) {
            producer.send(producerSession.createTextMessage("m-" + i));
        }
        track(a.restart()); // whatever A held for the listener comes to B over the bridge again

        await("every message arrived").atMost(Duration.ofSeconds(30)).until(() -> received.size() == MESSAGES);
        assertThat(received.entrySet()).filteredOn(e -> e.getValue().get() != 1).isEmpty();
        await("the listener is on B").atMost(WAIT).until(() -> b.queue("/queue/work").consumers() >= 1);
    }

    @Test
    void aTransactedConsumerShouldForwardEveryMessageOnceThroughABrokerKill() throws Exception {
        Broker b = startB();
        ChildBroker a = startA(b);

        // The results are read on B; the transacted worker is on failover:(A,B), so on A first.
        Map<String, AtomicInteger> results = new ConcurrentHashMap<>();
        Session resultSession = connection(new FedbridgeConnectionFactory(tcp(b))).createSession(false, Session.AUTO_ACKNOWLEDGE);
        resultSession.createConsumer(resultSession.createQueue("results")).setMessageListener(m -> count(results, m));
        Connection worker = connection(new FedbridgeConnectionFactory(failover(a.uri(), tcp(b))));
        Session tx = worker.createSession(true, Session.SESSION_TRANSACTED);
        MessageConsumer jobs = tx.createConsumer(tx.createQueue("jobs"));
        MessageProducer out = tx.createProducer(tx.createQueue("results"));
        AtomicInteger commits = new AtomicInteger();
        AtomicInteger rolledBack = new AtomicInteger();
        java.util.concurrent.atomic.AtomicBoolean running = new java.util.concurrent.atomic.AtomicBoolean(true);
        Thread loop = new Thread(() -> {
            while (running.get()) {
                try {
                    jakarta.jms.Message m = jobs.receive(200);
                    if (m != null) {
                        out.send(tx.createTextMessage("done-" + ((TextMessage) m).getText()));
                        tx.commit();
                        commits.incrementAndGet();
                    }
                } catch (JMSException e) {
                    rolledBack.incrementAndGet(); // rolled back (or in doubt) at the failover: its job comes again if need be
                    try {
                        tx.rollback();
                    } catch (JMSException ignored) {
                        // the session is usable again on the next receive
                    }
                }
            }
        }, "transacted-worker");
        loop.start();
        track(() -> {
            running.set(false);
            loop.join(10_000);
        });
        awaitConsumers(b, "/queue/jobs", 1);

        Session producerSession = connection(new FedbridgeConnectionFactory(tcp(b))).createSession(false, Session.AUTO_ACKNOWLEDGE);
        MessageProducer producer = producerSession.createProducer(producerSession.createQueue("jobs"));
        int jobsCount = 150;
        for (int i = 0; i < jobsCount / 3; i++) {
            producer.send(producerSession.createTextMessage("j-" + i));
        }
        await("a third of the jobs done through A").atMost(WAIT).until(() -> commits.get() >= jobsCount / 6);

        a.killAndReap();

        for (int i = jobsCount / 3; i < jobsCount; i++) {
            producer.send(producerSession.createTextMessage("j-" + i));
        }
        track(a.restart());

        await("every job's result arrived").atMost(Duration.ofSeconds(30)).until(() -> results.size() == jobsCount);
        assertThat(results.entrySet()).as("results delivered more than once (rolled back or in doubt: %s)", rolledBack)
                .filteredOn(e -> e.getValue().get() != 1).isEmpty();
    }
}
