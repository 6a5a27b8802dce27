package io.fedbridge.camel.integration;

import io.fedbridge.broker.testing.RabbitMqExtension;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.component.mock.MockEndpoint;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Routes against a real RabbitMQ node (one for the class, skipped with the reason printed where the package is
 * missing): a plain brokerUrl with RabbitMQ's virtual host ({@code host=/}) and guest login, and a
 * {@code failover:(…)} one that subscribes again after {@code rabbitmqctl stop_app}/{@code start_app}.
 */
class RabbitMqRouteIT extends FedbridgeTestSupport {

    @RegisterExtension
    static final RabbitMqExtension RABBIT = new RabbitMqExtension();
    private static final AtomicInteger NAMES = new AtomicInteger();

    @Override
    protected void startBrokers() {
        // the node is the extension's, shared by the class
    }

    @Test
    void shouldRouteFromAndToRabbitMqWithAPlainBrokerUrl() throws Exception {
        String in = "rin" + NAMES.incrementAndGet();
        String outQ = "rout" + NAMES.incrementAndGet();
        String url = "brokerUrl=RAW(" + RABBIT.guestUri() + ")";
        addRoutes(new RouteBuilder() {
            @Override
            public void configure() {
                from("fedbridge:queue:" + in + "?" + url).convertBodyTo(String.class).transform(simple("seen:${body}"))
                        .to("fedbridge:queue:" + outQ + "?" + url);
                from("fedbridge:queue:" + outQ + "?" + url).convertBodyTo(String.class).to("mock:out");
            }
        });
        MockEndpoint out = getMockEndpoint("mock:out");
        out.expectedBodiesReceived("seen:1", "seen:2");

        template.sendBody("fedbridge:queue:" + in + "?" + url, "1");
        template.sendBody("fedbridge:queue:" + in + "?" + url, "2");

        out.assertIsSatisfied(WAIT.toMillis());
    }

    @Test
    void shouldKeepConsumingAcrossStopAppWithAFailoverBrokerUrl() throws Exception {
        String q = "rwork" + NAMES.incrementAndGet();
        String url = "brokerUrl=RAW(failover:(" + RABBIT.guestUri() + ")?initialReconnectDelay=10&maxReconnectDelay=200)";
        addRoutes(new RouteBuilder() {
            @Override
            public void configure() {
                from("fedbridge:queue:" + q + "?" + url).routeId("worker").convertBodyTo(String.class).to("mock:work");
            }
        });
        MockEndpoint work = getMockEndpoint("mock:work");
        work.expectedBodiesReceived("before");
        template.sendBody("fedbridge:queue:" + q + "?" + url, "before");
        work.assertIsSatisfied(WAIT.toMillis());

        RABBIT.server().stopApp();
        RABBIT.server().startApp();
        work.reset();
        work.expectedBodiesReceived("after");
        template.sendBody("fedbridge:queue:" + q + "?" + url, "after");

        work.assertIsSatisfied(WAIT.toMillis());
    }
}
