package io.fedbridge.samples.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fedbridge.broker.Broker;
import io.fedbridge.broker.BrokerConfig;
import io.fedbridge.broker.integration.security.TestCertificates;
import io.fedbridge.broker.security.SecurityConfig;
import io.fedbridge.core.AckMode;
import io.fedbridge.core.Message;
import io.fedbridge.core.SubscriptionRequest;
import io.fedbridge.failover.FailoverClient;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A failover client over TLS (failover:(ssl://…,ssl://…)) keeps going when the broker it is connected to
 * dies: nothing receipted is lost, nothing reaches the application twice.
 */
class FailoverOverTlsTest {

    private static final Duration WAIT = Duration.ofSeconds(30);

    private static Broker tlsBroker(String name, TestCertificates certs) {
        return Broker.start(BrokerConfig.builder(name).listen("ssl://127.0.0.1:0")
                .security(SecurityConfig.builder().tls(certs.serverTls()).build()).build());
    }

    @Test
    void shouldFailOverBetweenTlsBrokersWithoutLosingOrDuplicating() throws Exception {
        TestCertificates certs = TestCertificates.get();
        Broker a = tlsBroker("tls-fo-A", certs);
        Broker b = tlsBroker("tls-fo-B", certs);
        try {
            assertThat(a.connectUris().get(0)).startsWith("ssl://");
            // Both brokers bridge both ways, so what was sent to A before it died is not needed at B.
            a.addNetworkConnector("static:(" + b.connectUris().get(0) + ")?duplex=true&initialReconnectDelay=50&"
                    + certs.clientTlsOptions());
            String url = "failover:(" + a.connectUris().get(0) + "," + b.connectUris().get(0)
                    + ")?randomize=false&initialReconnectDelay=10&" + nested(certs.clientTlsOptions());
            Map<String, AtomicInteger> seen = new ConcurrentHashMap<>();
            try (FailoverClient consumer = FailoverClient.connect(url); FailoverClient producer = FailoverClient.connect(url)) {
                assertThat(producer.connectedUri()).startsWith("ssl://");
                consumer.subscribe(SubscriptionRequest.builder("/queue/tls").ackMode(AckMode.CLIENT_INDIVIDUAL).build(), m -> {
                    seen.computeIfAbsent(m.bodyAsString(), k -> new AtomicInteger()).incrementAndGet();
                    m.ack();
                });
                for (int i = 0; i < 200; i++) {
                    producer.send(Message.builder("/queue/tls").body("m" + i).persistent(true).build());
                }
                await().atMost(WAIT).until(() -> seen.size() == 200);
                a.close(); // the broker both clients are connected to goes away
                for (int i = 200; i < 400; i++) {
                    producer.send(Message.builder("/queue/tls").body("m" + i).persistent(true).build());
                }
                await("every receipted message arrives after the failover").atMost(WAIT).until(() -> seen.size() == 400);
                assertThat(producer.connectedUri()).isEqualTo(b.connectUris().get(0));
                await().during(Duration.ofMillis(300)).atMost(WAIT).until(() -> seen.values().stream().allMatch(n -> n.get() == 1));
            }
        } finally {
            a.close();
            b.close();
        }
    }

    /** The TLS options as nested.* options of a failover URI (applied to every broker connection). */
    private static String nested(String options) {
        return "nested." + options.replace("&", "&nested.");
    }
}
