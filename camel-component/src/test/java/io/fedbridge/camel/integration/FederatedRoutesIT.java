package io.fedbridge.camel.integration;

import static org.assertj.core.api.Assertions.assertThat;

import io.fedbridge.broker.Broker;
import java.util.ArrayList;
import java.util.List;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.component.mock.MockEndpoint;
import org.junit.jupiter.api.Test;

/** Routes on different brokers of a bridged chain A - B - C ({@code networkTTL=2}, duplex bridges). */
class FederatedRoutesIT extends FedbridgeTestSupport {

    private Broker a;
    private Broker b;
    private Broker c;

    @Override
    protected void startBrokers() {
        c = startBroker("chain-C");
        b = startBroker("chain-B");
        a = startBroker("chain-A");
        a.addNetworkConnector("static:(" + tcp(b) + ")?networkTTL=2&duplex=true&" + FAST_BRIDGE);
        b.addNetworkConnector("static:(" + tcp(c) + ")?networkTTL=2&duplex=true&" + FAST_BRIDGE);
        awaitBridgesUp(a, 1);
        awaitBridgesUp(b, 1);
    }

    @Test
    void shouldCarryMessagesFromARouteOnAToARouteOnCThroughTheChain() throws Exception {
        addRoutes(new RouteBuilder() {
            @Override
            public void configure() {
                from("direct:send").to("fedbridge:queue:chain?brokerUrl=" + tcp(a));
                from("fedbridge:queue:chain?brokerUrl=" + tcp(c)).convertBodyTo(String.class).to("mock:c");
            }
        });
        awaitNetworkSubscriptions(a, 1);
        List<String> bodies = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            bodies.add("m" + i);
        }
        MockEndpoint atC = getMockEndpoint("mock:c");
        atC.expectedBodiesReceived(bodies);
        atC.allMessages().header("fedbridge-hops").isEqualTo("2");

        bodies.forEach(body -> template.sendBody("direct:send", body));

        atC.assertIsSatisfied();
    }

    @Test
    void shouldAnswerInOutRequestsFromAWithAResponderRouteOnC() throws Exception {
        addRoutes(new RouteBuilder() {
            @Override
            public void configure() {
                from("fedbridge:queue:quotes?brokerUrl=" + tcp(c))
                        .setHeader("quoted-on", constant("C"))
                        .transform(simple("quote for ${bodyAs(String)}"));
            }
        });
        awaitNetworkSubscriptions(a, 1);
        String requester = "fedbridge:queue:quotes?brokerUrl=" + tcp(a) + "&requestTimeout=10s";

        for (String item : List.of("apples", "pears", "plums")) {
            var reply = template.request(requester, e -> e.getIn().setBody(item));
            assertThat(reply.getException()).isNull();
            assertThat(reply.getMessage().getBody(String.class)).isEqualTo("quote for " + item);
            assertThat(reply.getMessage().getHeader("quoted-on")).isEqualTo("C");
            assertThat(reply.getMessage().getHeader("fedbridge-hops")).as("the reply crossed both bridges").isEqualTo("2");
        }
    }
}
