package io.fedbridge.camel.integration;

import io.fedbridge.broker.testing.EmbeddedArtemis;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.component.mock.MockEndpoint;
import org.junit.jupiter.api.Test;

/**
 * Routes against embedded Apache ActiveMQ Artemis servers (STOMP acceptor with {@code anycastPrefix=/queue/;
 * multicastPrefix=/topic/}, so {@code fedbridge:queue:NAME} is Artemis' anycast queue NAME): a plain {@code tcp://}
 * brokerUrl, and a {@code failover:(A,B)} one that moves to B when A stops.
 */
class ArtemisRouteIT extends FedbridgeTestSupport {

    private EmbeddedArtemis a;
    private EmbeddedArtemis b;

    @Override
    protected void startBrokers() throws Exception {
        Path dir = Files.createTempDirectory("fedbridge-camel-artemis");
        track(() -> { // closed last, after both servers
            try (var files = Files.walk(dir)) {
                files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        });
        a = track(EmbeddedArtemis.startWithStompPrefixes(dir.resolve("a"), "camel-artemis-a"));
        b = track(EmbeddedArtemis.startWithStompPrefixes(dir.resolve("b"), "camel-artemis-b"));
    }

    @Test
    void shouldRouteFromAndToArtemisWithAPlainBrokerUrl() throws Exception {
        addRoutes(new RouteBuilder() {
            @Override
            public void configure() {
                from("fedbridge:queue:art.in?brokerUrl=" + a.stompUri()).routeId("artemis-relay")
                        .convertBodyTo(String.class).transform(simple("seen:${body}"))
                        .to("fedbridge:queue:art.out?brokerUrl=" + a.stompUri());
                from("fedbridge:queue:art.out?brokerUrl=" + a.stompUri()).convertBodyTo(String.class).to("mock:out");
            }
        });
        MockEndpoint out = getMockEndpoint("mock:out");
        out.expectedBodiesReceived("seen:1", "seen:2");

        template.sendBody("fedbridge:queue:art.in?brokerUrl=" + a.stompUri(), "1");
        template.sendBody("fedbridge:queue:art.in?brokerUrl=" + a.stompUri(), "2");

        out.assertIsSatisfied(WAIT.toMillis());
    }

    @Test
    void shouldKeepConsumingWhenTheFailoverUrlMovesToTheSecondArtemis() throws Exception {
        String failover = "failover:(" + a.stompUri() + "," + b.stompUri() + ")?randomize=false&initialReconnectDelay=10"
                + "&maxReconnectDelay=200";
        addRoutes(new RouteBuilder() {
            @Override
            public void configure() {
                from("fedbridge:queue:art.work?brokerUrl=RAW(" + failover + ")").routeId("worker")
                        .convertBodyTo(String.class).to("mock:work");
            }
        });
        MockEndpoint work = getMockEndpoint("mock:work");
        work.expectedBodiesReceived("before");
        template.sendBody("fedbridge:queue:art.work?brokerUrl=RAW(" + failover + ")", "before");
        work.assertIsSatisfied(WAIT.toMillis());

        a.close();
        work.reset();
        work.expectedBodiesReceived("after");
        template.sendBody("fedbridge:queue:art.work?brokerUrl=" + b.stompUri(), "after");

        work.assertIsSatisfied(WAIT.toMillis());
    }
}
