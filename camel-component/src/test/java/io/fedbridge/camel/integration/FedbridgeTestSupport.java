package io.fedbridge.camel.integration;

import static org.awaitility.Awaitility.await;

import io.fedbridge.broker.Broker;
import io.fedbridge.broker.BrokerConfig;
import io.fedbridge.camel.FedbridgeComponent;
import io.fedbridge.core.bridge.BridgeState;
import io.fedbridge.core.bridge.BridgeStats;
import io.fedbridge.failover.FailoverClient;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.test.junit5.CamelTestSupport;

/**
 * Shared base of the component's integration tests: a fresh Camel context per test (camel-test-junit5) over embedded
 * fedbridge brokers on {@code tcp://127.0.0.1:0}. Subclasses start their brokers in {@link #startBrokers()}, which
 * runs before the context is created; brokers and clients are closed after the context has stopped.
 */
abstract class FedbridgeTestSupport extends CamelTestSupport {

    protected static final Duration WAIT = Duration.ofSeconds(15);
    /** Fast reconnects for the bridges between test brokers. */
    protected static final String FAST_BRIDGE = "initialReconnectDelay=50&maxReconnectDelay=500";
    private static final AtomicInteger NAMES = new AtomicInteger();

    private final Deque<AutoCloseable> resources = new ArrayDeque<>();

    /** Starts the brokers this test needs; called before the Camel context exists. */
    protected abstract void startBrokers() throws Exception;

    @Override
    protected void setupResources() throws Exception {
        super.setupResources();
        startBrokers();
    }

    @Override
    protected void cleanupResources() throws Exception {
        try {
            // camel-test stops the context after this hook; routes must stop before their brokers go away.
            context.stop();
            closeResources();
        } finally {
            super.cleanupResources();
        }
    }

    private void closeResources() throws Exception {
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

    /** A broker named {@code prefix-N} listening on a free TCP port, memory only. */
    protected Broker startBroker(String prefix) {
        return startBroker(BrokerConfig.builder(prefix + "-" + NAMES.incrementAndGet()));
    }

    protected Broker startBroker(BrokerConfig.Builder builder) {
        return track(Broker.start(builder.listen("tcp://127.0.0.1:0").build()));
    }

    protected static String tcp(Broker b) {
        return b.connectUris().get(0);
    }

    /** A plain client for checking what is on the wire, closed after the test. */
    protected FailoverClient client(Broker b) {
        return track(FailoverClient.connect(tcp(b)));
    }

    protected FedbridgeComponent component() {
        return context.getComponent("fedbridge", FedbridgeComponent.class);
    }

    protected void addRoutes(RouteBuilder routes) throws Exception {
        context.addRoutes(routes);
    }

    protected static void awaitBridgesUp(Broker b, int n) {
        await(b.name() + " has " + n + " bridge(s) up").atMost(WAIT).until(() ->
                b.bridges().stream().filter(s -> s.state() == BridgeState.UP).count() == n);
    }

    /** Waits until demand from remote consumers has reached {@code b}: its bridges hold that many subscriptions. */
    protected static void awaitNetworkSubscriptions(Broker b, int atLeast) {
        await("demand reaches " + b.name()).atMost(WAIT).until(() ->
                b.bridges().stream().mapToInt(BridgeStats::networkSubscriptions).sum() >= atLeast);
    }
}
