package io.fedbridge.broker.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fedbridge.broker.Broker;
import io.fedbridge.broker.BrokerConfig;
import io.fedbridge.core.Message;
import io.fedbridge.core.StompConnection;
import io.fedbridge.core.SubscriptionRequest;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.Set;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.junit.jupiter.api.Test;

/** Brokers, queues and bridges are visible and operable over JMX. */
class JmxIT extends BrokerTestSupport {

    private static final Duration WAIT = Duration.ofSeconds(15);
    private final MBeanServer server = ManagementFactory.getPlatformMBeanServer();

    @Test
    void shouldExposeBrokerQueuesAndBridgesAndAddConnectorsAtRunTime() throws Exception {
        Broker b = startBroker(BrokerConfig.builder("jmx-B"));
        Broker a = startBroker(BrokerConfig.builder("jmx-A"));
        ObjectName brokerName = a.jmx().brokerName();
        assertThat(server.getAttribute(brokerName, "BrokerId")).isEqualTo(a.id());
        assertThat(server.getAttribute(brokerName, "MemoryLimitReached")).as("no producer paused yet").isEqualTo(0L);
        assertThat(server.getAttribute(brokerName, "MemoryPausedConnections")).isEqualTo(0);

        server.invoke(brokerName, "addNetworkConnector", new Object[] {"static:(" + b.connectUris().get(0) + ")?initialReconnectDelay=50"},
                new String[] {String.class.getName()});
        assertThat((String[]) server.getAttribute(brokerName, "NetworkConnectors")).hasSize(1);

        connect(b, "tcp").subscribeAndWait(SubscriptionRequest.of("/queue/jmx"), null, WAIT);
        connect(a, "tcp").send(Message.of("/queue/jmx", "x")).get();
        await("bridge bean appears and reports UP with one forward").atMost(WAIT).untilAsserted(() -> {
            Set<ObjectName> bridges = server.queryNames(new ObjectName("io.fedbridge:type=Bridge,broker=\"jmx-A\",*"), null);
            assertThat(bridges).hasSize(1);
            ObjectName n = bridges.iterator().next();
            assertThat(server.getAttribute(n, "State")).isEqualTo("UP");
            assertThat(server.getAttribute(n, "Acked")).isEqualTo(1L);
            assertThat(server.getAttribute(n, "NetworkSubscriptions")).isEqualTo(1);
        });
        await("queue bean appears").atMost(WAIT).untilAsserted(() ->
                assertThat(server.getAttribute(a.jmx().destinationName("/queue/jmx"), "Dequeued")).isEqualTo(1L));
        a.close();
        assertThat(server.isRegistered(brokerName)).as("beans go with the broker").isFalse();
    }

    @Test
    void shouldRegisterAQueueBeanWithItsFirstMessageNotForASubscriptionAlone() throws Exception {
        Broker a = startBroker(BrokerConfig.builder("jmx-lazy"));
        StompConnection c = connect(a, "tcp");
        c.subscribeAndWait(SubscriptionRequest.of("/queue/jmx.lazy"), m -> { }, WAIT);
        ObjectName n = a.jmx().destinationName("/queue/jmx.lazy");
        await("no bean while the queue only has a consumer").during(Duration.ofMillis(2500)).atMost(WAIT)
                .until(() -> !server.isRegistered(n));

        c.send(Message.of("/queue/jmx.lazy", "x")).get();
        await("the bean with the first message").atMost(WAIT).until(() -> server.isRegistered(n));
        assertThat(server.getAttribute(n, "Enqueued")).isEqualTo(1L);
        assertThat(Thread.getAllStackTraces().keySet()).as("housekeeping has its own thread, off the I/O loops")
                .anyMatch(t -> t.getName().startsWith("fedbridge-jmx-lazy-housekeeping"));
    }
}
