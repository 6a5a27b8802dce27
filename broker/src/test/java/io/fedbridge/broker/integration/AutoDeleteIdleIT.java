package io.fedbridge.broker.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fedbridge.broker.Broker;
import io.fedbridge.broker.BrokerConfig;
import io.fedbridge.broker.DestinationPolicy;
import io.fedbridge.core.Message;
import io.fedbridge.core.StompConnection;
import io.fedbridge.core.Subscription;
import io.fedbridge.core.SubscriptionRequest;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.time.Duration;
import javax.management.MBeanServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** autoDeleteIdle: auto-created queues without consumers and messages go after the interval, their JMX beans with them. */
class AutoDeleteIdleIT extends BrokerTestSupport {

    private static final Duration IDLE = Duration.ofMillis(800);
    private static final Duration WAIT = Duration.ofSeconds(15);

    @TempDir
    Path dir;

    @Test
    void shouldRemoveIdleAutoCreatedQueuesAndTheirBeansButKeepBusyAndDefinedOnes() throws Exception {
        BrokerConfig.Builder config = BrokerConfig.builder("idle-A").dataDirectory(dir).autoDeleteIdle(IDLE);
        Broker a = startBroker(config);
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        StompConnection c = connect(a, "tcp");
        c.send(Message.of("/queue/idle.used", "x")).get();
        Subscription s = c.subscribeAndWait(SubscriptionRequest.of("/queue/idle.used"), null, WAIT);
        assertThat(s.receive(WAIT).bodyAsString()).isEqualTo("x");
        c.subscribeAndWait(SubscriptionRequest.of("/queue/idle.consumed"), m -> { }, WAIT);
        c.send(Message.builder("/queue/idle.waiting").body("kept").persistent(true).build()).get();
        a.cluster().define(DestinationPolicy.builder("/queue/idle.defined").build());
        await("the bean of /queue/idle.used").atMost(WAIT).until(() -> server.isRegistered(a.jmx().destinationName("/queue/idle.used")));

        s.unsubscribe();
        await("/queue/idle.used goes once idle for " + IDLE).atMost(WAIT).until(() -> a.queue("/queue/idle.used") == null);
        await("and its JMX bean").atMost(WAIT).until(() -> !server.isRegistered(a.jmx().destinationName("/queue/idle.used")));

        await("queues with a consumer, a message or a definition stay").during(IDLE.multipliedBy(2)).atMost(WAIT)
                .until(() -> a.queue("/queue/idle.consumed") != null && a.queue("/queue/idle.waiting") != null
                        && a.queue("/queue/idle.defined") != null);
        assertThat(server.isRegistered(a.jmx().destinationName("/queue/idle.waiting"))).isTrue();

        a.close();
        Broker again = startBroker(config);
        assertThat(again.queue("/queue/idle.waiting").pending()).as("recovered with its message").isEqualTo(1);
        assertThat(again.queue("/queue/idle.defined")).as("a defined queue survives the restart").isNotNull();
        try (StompConnection d = connect(again, "tcp")) {
            Subscription taken = d.subscribeAndWait(SubscriptionRequest.of("/queue/idle.waiting"), null, WAIT);
            assertThat(taken.receive(WAIT).bodyAsString()).isEqualTo("kept");
            taken.unsubscribe();
        }
        await("emptied after the restart, it goes too").atMost(WAIT).until(() -> again.queue("/queue/idle.waiting") == null);
        assertThat(again.queue("/queue/idle.defined")).isNotNull();
    }

    @Test
    void shouldKeepEveryQueueWithoutAutoDeleteIdle() {
        Broker a = startBroker(BrokerConfig.builder("idle-B"));
        assertThat(a.config().cluster().autoDeleteIdle()).isZero();
        a.management().createQueue("/queue/idle.never");
        await("an idle queue stays").during(Duration.ofSeconds(1)).atMost(WAIT).until(() -> a.queue("/queue/idle.never") != null);
    }
}
