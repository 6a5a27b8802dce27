package io.fedbridge.jms.integration;

import static org.assertj.core.api.Assertions.assertThat;

import io.fedbridge.broker.Broker;
import io.fedbridge.jms.FedbridgeConnectionFactory;
import org.apache.camel.CamelContext;
import org.apache.camel.ProducerTemplate;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.component.jms.JmsComponent;
import org.apache.camel.component.mock.MockEndpoint;
import org.apache.camel.impl.DefaultCamelContext;
import org.junit.jupiter.api.Test;

/** Camel's camel-jms component over fedbridge-jms: component {@code jmsA} on broker A, {@code jmsB} on B, bridged. */
class CamelJmsIT extends JmsTestSupport {

    private CamelContext camel(Broker a, Broker b, RouteBuilder routes) throws Exception {
        CamelContext context = new DefaultCamelContext();
        context.addComponent("jmsA", JmsComponent.jmsComponent(new FedbridgeConnectionFactory(tcp(a))));
        context.addComponent("jmsB", JmsComponent.jmsComponent(new FedbridgeConnectionFactory(tcp(b))));
        context.addRoutes(routes);
        context.start();
        track(context::stop);
        return context;
    }

    @Test
    void aRouteOnBShouldConsumeWhatARouteSendsOnA() throws Exception {
        Broker[] ab = federation();
        CamelContext context = camel(ab[0], ab[1], new RouteBuilder() {
            @Override
            public void configure() {
                from("jmsB:queue:camel.in").to("mock:in");
            }
        });
        awaitConsumers(ab[0], "/queue/camel.in", 1);
        MockEndpoint in = context.getEndpoint("mock:in", MockEndpoint.class);
        in.expectedBodiesReceived("one", "two", "three");
        in.expectedHeaderReceived("kind", "order");

        ProducerTemplate template = context.createProducerTemplate();
        for (String body : new String[] {"one", "two", "three"}) {
            template.sendBodyAndHeader("jmsA:queue:camel.in", body, "kind", "order");
        }

        in.assertIsSatisfied(RECEIVE_MS);
    }

    @Test
    void anInOutExchangeShouldGetItsReplyFromARouteOnTheOtherBroker() throws Exception {
        Broker[] ab = federation();
        CamelContext context = camel(ab[0], ab[1], new RouteBuilder() {
            @Override
            public void configure() {
                from("jmsB:queue:camel.rpc").transform(simple("re: ${body}"));
            }
        });
        awaitConsumers(ab[0], "/queue/camel.rpc", 1);

        Object reply = context.createProducerTemplate().requestBody("jmsA:queue:camel.rpc?requestTimeout=10000", "ping");

        assertThat(reply).isEqualTo("re: ping");
    }

    @Test
    void aTransactedRouteShouldGetAMessageAgainAfterItFailed() throws Exception {
        Broker[] ab = federation();
        java.util.concurrent.atomic.AtomicInteger attempts = new java.util.concurrent.atomic.AtomicInteger();
        CamelContext context = camel(ab[0], ab[1], new RouteBuilder() {
            @Override
            public void configure() {
                from("jmsB:queue:camel.tx?transacted=true&lazyCreateTransactionManager=false")
                        .process(e -> {
                            if (attempts.incrementAndGet() == 1) {
                                throw new IllegalStateException("first attempt fails");
                            }
                        })
                        .to("mock:done");
            }
        });
        awaitConsumers(ab[0], "/queue/camel.tx", 1);
        MockEndpoint done = context.getEndpoint("mock:done", MockEndpoint.class);
        done.expectedBodiesReceived("job");
        done.expectedHeaderReceived("JMSRedelivered", true);

        context.createProducerTemplate().sendBody("jmsA:queue:camel.tx", "job");

        done.assertIsSatisfied(RECEIVE_MS * 2);
        assertThat(attempts).hasValue(2);
    }
}
