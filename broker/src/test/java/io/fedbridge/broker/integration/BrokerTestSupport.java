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

    /**
     * Starts three brokers linked in a full mesh over TCP by duplex bridges (the first to the other two, the second to
     * the third), each configured by {@code config}, and waits until every bridge is up.
     *
     * @param linkOptions the network connectors' options, e.g. {@code duplex=true&networkTTL=2}
     */
    protected Broker[] startMesh(String prefix, java.util.function.UnaryOperator<BrokerConfig.Builder> config, String linkOptions) {
        Broker[] b = new Broker[3];
        for (int i = 0; i < 3; i++) {
            b[i] = startBroker(config.apply(BrokerConfig.builder(prefix + "ABC".charAt(i)).ioThreads(1)));
        }
        b[0].addNetworkConnector("static:(" + uri(b[1], "tcp") + "," + uri(b[2], "tcp") + ")?" + linkOptions);
        b[1].addNetworkConnector("static:(" + uri(b[2], "tcp") + ")?" + linkOptions);
        for (int i = 0; i < 2; i++) {
            Broker x = b[i];
            int bridges = 2 - i;
            await(x.name() + " has its " + bridges + " bridge(s) up").atMost(Duration.ofSeconds(30)).until(() -> x.bridges()
                    .stream().filter(s -> s.state() == io.fedbridge.core.bridge.BridgeState.UP).count() == bridges);
        }
        return b;
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
