package io.fedbridge.samples.embedding;

import io.fedbridge.broker.Broker;
import io.fedbridge.broker.BrokerConfig;
import io.fedbridge.core.FederationHeaders;
import io.fedbridge.core.Message;
import io.fedbridge.core.ReceivedMessage;
import io.fedbridge.core.StompConnection;
import io.fedbridge.core.Subscription;
import io.fedbridge.core.SubscriptionRequest;
import io.fedbridge.core.bridge.BridgeStats;
import java.time.Duration;
import java.util.List;

/**
 * Embedding fedbridge: two broker nodes and the bridge between them, wired in Java code, with an order sent at one
 * node and its confirmation coming back from the other over the same (duplex) bridge.
 *
 * <pre>
 * java -cp samples/target/fedbridge.jar io.fedbridge.samples.embedding.EmbeddedFederationSample
 * </pre>
 *
 * <p>Both brokers listen on a free port of 127.0.0.1 and keep messages in memory; give each a
 * {@link BrokerConfig.Builder#dataDirectory data directory} to keep persistent messages across restarts.
 */
public final class EmbeddedFederationSample {

    static final String ORDERS = "/queue/orders";
    static final String CONFIRMATIONS = "/queue/confirmations";
    static final Duration WAIT = Duration.ofSeconds(10);

    /**
     * What happened.
     *
     * @param order        the order as the node "paris" received it from "london"
     * @param orderHops    the bridges the order crossed ({@code fedbridge-hops})
     * @param confirmation the confirmation as "london" received it back from "paris"
     * @param bridges      london's bridge at the end
     */
    public record Outcome(String order, String orderHops, String confirmation, List<BridgeStats> bridges) {
    }

    private EmbeddedFederationSample() {
    }

    public static void main(String[] args) throws InterruptedException {
        Outcome outcome = run();
        System.out.println("paris received:  " + outcome.order() + " (bridges crossed: " + outcome.orderHops() + ")");
        System.out.println("london received: " + outcome.confirmation());
        for (BridgeStats b : outcome.bridges()) {
            System.out.println("bridge " + b.name() + ": " + b.state() + ", forwarded " + b.forwarded() + ", duplicates "
                    + b.duplicates());
        }
    }

    /** Starts both nodes, exchanges the two messages, stops everything. */
    public static Outcome run() throws InterruptedException {
        try (Broker paris = Broker.start(BrokerConfig.builder("paris").listen("tcp://127.0.0.1:0").build());
             // london bridges to paris: networkTTL=2 lets messages and demand cross up to two bridges, duplex=true
             // carries paris -> london traffic over the same connection, so paris needs no connector of its own.
             Broker london = Broker.start(BrokerConfig.builder("london").listen("tcp://127.0.0.1:0")
                     .networkConnector("static:(" + paris.connectUris().get(0) + ")?networkTTL=2&duplex=true").build());
             StompConnection atParis = StompConnection.connect(paris.connectUris().get(0));
             StompConnection atLondon = StompConnection.connect(london.connectUris().get(0))) {

            // A consumer at paris is demand: london's bridge forwards /queue/orders toward it. A message sent before
            // the demand reaches london simply waits there until it does.
            Subscription orders = atParis.subscribe(SubscriptionRequest.of(ORDERS));
            Subscription confirmations = atLondon.subscribe(SubscriptionRequest.of(CONFIRMATIONS));

            atLondon.send(Message.builder(ORDERS).body("order 42: 3 croissants").persistent(true).build()).join();
            ReceivedMessage order = received(orders, "the order at paris");

            atParis.send(Message.builder(CONFIRMATIONS).body("confirmed: " + order.bodyAsString()).persistent(true).build()).join();
            ReceivedMessage confirmation = received(confirmations, "the confirmation at london");

            return new Outcome(order.bodyAsString(), order.header(FederationHeaders.HOPS), confirmation.bodyAsString(),
                    london.bridges());
        }
    }

    private static ReceivedMessage received(Subscription subscription, String what) throws InterruptedException {
        ReceivedMessage m = subscription.receive(WAIT);
        if (m == null) {
            throw new IllegalStateException(what + " did not arrive within " + WAIT.toSeconds() + " s");
        }
        return m;
    }
}
