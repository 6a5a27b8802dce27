package io.fedbridge.camel;

import io.fedbridge.broker.Broker;
import io.fedbridge.broker.BrokerConfig;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.camel.CamelContext;
import org.apache.camel.ExchangePattern;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.impl.DefaultCamelContext;

/**
 * A runnable tour of the {@code fedbridge:} component: two brokers A and B linked by a bridge, and four routes.
 *
 * <ol>
 * <li>{@code orders}: a timer produces orders to {@code /queue/orders} on A.</li>
 * <li>{@code workers}: two threads consume them on B (the bridge brings them over), ask the price service with an
 *     InOut request, and publish the priced order to {@code /topic/orders.priced}.</li>
 * <li>{@code prices}: the price service, on A, answers over the requester's temporary reply queue.</li>
 * <li>{@code audit}: a durable subscriber of the topic on A.</li>
 * </ol>
 * Every endpoint uses the component's {@code brokerUrl}, {@code failover:(A,B)}, except where a route pins a broker.
 *
 * <p>Run it with embedded brokers:
 * <pre>
 * mvn -q -B install -DskipTests &amp;&amp; mvn -q -B -pl camel-component exec:java -Dexec.classpathScope=test \
 *     -Dexec.mainClass=io.fedbridge.camel.SampleRoute
 * </pre>
 * or against running, bridged brokers: {@code -Dexec.args="tcp://127.0.0.1:61613 tcp://127.0.0.1:61614"}.
 */
public final class SampleRoute extends RouteBuilder {

    private final String brokerA;
    private final String brokerB;
    private final int orders;
    private final Set<String> audited = ConcurrentHashMap.newKeySet();
    private final CountDownLatch allAudited;

    public SampleRoute(String brokerA, String brokerB, int orders) {
        this.brokerA = brokerA;
        this.brokerB = brokerB;
        this.orders = orders;
        this.allAudited = new CountDownLatch(orders);
    }

    @Override
    public void configure() {
        FedbridgeComponent fedbridge = getContext().getComponent("fedbridge", FedbridgeComponent.class);
        fedbridge.setBrokerUrl("failover:(" + brokerA + "," + brokerB + ")?randomize=false");

        from("timer:orders?period=100&includeMetadata=true&repeatCount=" + orders).routeId("orders")
                .setBody(simple("order-${exchangeProperty.CamelTimerCounter}"))
                .to("fedbridge:queue:orders?brokerUrl=" + brokerA);

        from("fedbridge:queue:orders?concurrentConsumers=2&brokerUrl=" + brokerB).routeId("workers")
                .convertBodyTo(String.class)
                .setHeader("order", body())
                .to(ExchangePattern.InOut, "fedbridge:queue:prices?requestTimeout=5s")
                .setBody(simple("${header.order} priced at ${bodyAs(String)}"))
                .to("fedbridge:topic:orders.priced");

        from("fedbridge:queue:prices?brokerUrl=" + brokerA).routeId("prices")
                .transform(simple("${bodyAs(String).length()}.95 EUR"));

        from("fedbridge:topic:orders.priced?durableSubscriptionName=audit&clientId=sample-audit&brokerUrl=" + brokerA)
                .routeId("audit")
                .convertBodyTo(String.class)
                .log("audit: ${body}")
                .process(e -> {
                    if (audited.add(e.getIn().getBody(String.class))) {
                        allAudited.countDown();
                    }
                });
    }

    /** Waits until every order has reached the audit route; returns how many did. */
    public int awaitAudited(Duration limit) throws InterruptedException {
        allAudited.await(limit.toMillis(), TimeUnit.MILLISECONDS);
        return audited.size();
    }

    /** Runs the tour with {@code orders} orders and returns how many were audited within {@code limit}. */
    public static int run(String brokerA, String brokerB, int orders, Duration limit) throws Exception {
        SampleRoute routes = new SampleRoute(brokerA, brokerB, orders);
        CamelContext context = new DefaultCamelContext();
        try {
            context.addRoutes(routes);
            context.start();
            return routes.awaitAudited(limit);
        } finally {
            context.stop();
        }
    }

    public static void main(String[] args) throws Exception {
        int orders = 20;
        if (args.length == 2) {
            report(run(args[0], args[1], orders, Duration.ofSeconds(30)), orders);
            return;
        }
        try (Broker b = Broker.start(BrokerConfig.builder("B").listen("tcp://127.0.0.1:0").build());
             Broker a = Broker.start(BrokerConfig.builder("A").listen("tcp://127.0.0.1:0")
                     .networkConnector("static:(" + b.connectUris().get(0) + ")?duplex=true").build())) {
            System.out.println("brokers A " + a.connectUris().get(0) + " and B " + b.connectUris().get(0) + ", bridged");
            report(run(a.connectUris().get(0), b.connectUris().get(0), orders, Duration.ofSeconds(30)), orders);
        }
    }

    private static void report(int audited, int orders) {
        System.out.println("orders=" + orders + " priced-and-audited=" + audited + (audited == orders ? " OK" : " MISSING"));
        if (audited != orders) {
            System.exit(1);
        }
    }
}
