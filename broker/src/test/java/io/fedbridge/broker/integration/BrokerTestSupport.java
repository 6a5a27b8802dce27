package io.fedbridge.broker.integration;

import static org.awaitility.Awaitility.await;

import io.fedbridge.broker.Broker;
import io.fedbridge.broker.BrokerConfig;
import io.fedbridge.core.ClientConfig;
import io.fedbridge.core.FederationHeaders;
import io.fedbridge.core.SubscriptionRequest;
import io.fedbridge.core.StompConnection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;

/**
 * Shared base for broker integration tests: starts brokers on tcp://127.0.0.1:0 (and vm://NAME), opens
 * clients over either transport, and closes everything after each test.
 */
abstract class BrokerTestSupport {

    private static final AtomicInteger NAMES = new AtomicInteger();

    protected final List<AutoCloseable> resources = new ArrayList<>();

    protected Broker startBroker() {
        return startBroker(BrokerConfig.builder("test-" + NAMES.incrementAndGet()));
    }

    protected Broker startBroker(BrokerConfig.Builder builder) {
        Broker b = Broker.start(builder.listen("tcp://127.0.0.1:0").build());
        resources.add(b);
        return b;
    }

    /** The URI of {@code broker} for a transport: "tcp" (real socket) or "vm" (in-JVM). */
    protected static String uri(Broker broker, String transport) {
        return transport.equals("vm") ? broker.vmUri() : broker.connectUris().get(0);
    }

    protected StompConnection connect(Broker broker, String transport) {
        return connect(ClientConfig.builder(uri(broker, transport)).heartBeats(Duration.ZERO).build());
    }

    /**
     * A connection that announces itself as a federation link, as a bridge does (from this host, to an open broker,
     * that is all it takes): for tests that speak for a bridge.
     */
    protected StompConnection link(Broker broker) {
        return connect(ClientConfig.builder(uri(broker, "tcp")).heartBeats(Duration.ZERO)
                .connectHeader(io.fedbridge.core.FederationHeaders.FEDERATE, "true").build());
    }

    protected StompConnection connect(ClientConfig config) {
        StompConnection c = StompConnection.connect(config);
        resources.add(0, c);
        return c;
    }

    protected RawStomp raw(Broker broker) throws Exception {
        RawStomp r = RawStomp.connectTo(broker.connectUris().get(0));
        resources.add(0, r);
        return r;
    }

    /** Waits until {@code broker} advertises a bridge's network subscription on {@code destination}, so a topic send reaches it. */
    protected void awaitNetworkSubscription(Broker broker, String destination) {
        AtomicInteger seen = new AtomicInteger();
        connect(broker, "tcp").subscribeAndWait(SubscriptionRequest.of(FederationHeaders.CONSUMER_ADVISORY_TOPIC), m -> {
            if (FederationHeaders.CONSUMER_ADDED.equals(m.header(FederationHeaders.ADVISORY))
                    && destination.equals(m.header(FederationHeaders.ADVISORY_DESTINATION))
                    && "true".equals(m.header(FederationHeaders.NETWORK_CONSUMER))) {
                seen.incrementAndGet();
            }
        }, Duration.ofSeconds(15));
        await("network subscription on " + destination).atMost(Duration.ofSeconds(15)).until(() -> seen.get() > 0);
    }

    @AfterEach
    void closeResources() throws Exception {
        for (AutoCloseable c : resources) {
            try {
                c.close();
            } catch (Exception e) {
                // already closed by the test
            }
        }
        resources.clear();
    }
}
