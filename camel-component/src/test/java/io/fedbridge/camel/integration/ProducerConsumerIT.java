package io.fedbridge.camel.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fedbridge.broker.Broker;
import io.fedbridge.camel.FedbridgeConstants;
import io.fedbridge.core.Message;
import io.fedbridge.core.SubscriptionRequest;
import io.fedbridge.failover.FailoverClient;
import io.fedbridge.failover.FailoverMessage;
import io.fedbridge.failover.FailoverSubscription;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import org.apache.camel.CamelExecutionException;
import org.apache.camel.Exchange;
import org.apache.camel.ExchangeTimedOutException;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.component.mock.MockEndpoint;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Producer and consumer routes on one broker: delivery, receipts, headers, QoS, consumer options, request-reply. */
class ProducerConsumerIT extends FedbridgeTestSupport {

    private Broker broker;

    @Override
    protected void startBrokers() {
        broker = startBroker("pc");
    }

    @BeforeEach
    void useTheBrokerByDefault() {
        component().setBrokerUrl(tcp(broker));
    }

    @Test
    void shouldDeliverFromAProducerRouteToAConsumerRoute() throws Exception {
        addRoutes(new RouteBuilder() {
            @Override
            public void configure() {
                from("direct:orders").to("fedbridge:queue:orders");
                from("fedbridge:queue:orders").convertBodyTo(String.class).to("mock:orders");
            }
        });
        MockEndpoint orders = getMockEndpoint("mock:orders");
        orders.expectedBodiesReceived("order-1", "order-2");
        orders.expectedHeaderReceived("customer", "c-7");

        template.sendBodyAndHeader("direct:orders", "order-1", "customer", "c-7");
        template.sendBodyAndHeader("direct:orders", "order-2", "customer", "c-7");

        orders.assertIsSatisfied();
    }

    @Test
    void shouldCompleteTheExchangeOnlyOnceTheBrokerHasTheMessage() {
        Exchange sent = template.send("fedbridge:queue:receipted", e -> e.getIn().setBody("kept"));

        assertThat(sent.getException()).isNull();
        // No waiting: the exchange completed on the broker's RECEIPT, so the message is already queued there.
        assertThat(broker.queue("/queue/receipted").pending()).isEqualTo(1);
        assertThat(sent.getMessage().getHeader(FedbridgeConstants.SENT_FEDERATION_ID, String.class)).isNotBlank();
    }

    @Test
    void shouldMapApplicationHeadersOutAndKeepCamelAndFederationHeadersOffTheWire() throws Exception {
        FailoverClient raw = client(broker);
        FailoverSubscription sub = raw.subscribe(SubscriptionRequest.of("/queue/headers-out"));
        Map<String, Object> headers = new HashMap<>();
        headers.put("text", "t");
        headers.put("count", 42);
        headers.put("flag", true);
        headers.put("unit", TimeUnit.SECONDS);
        headers.put("notOnTheWire", new Object());
        headers.put("CamelInternal", "x");
        headers.put("fedbridge-id", "forged:1");
        headers.put("fedbridge-broker-path", "forged");
        headers.put("Content-Type", "application/x-test");

        template.sendBodyAndHeaders("fedbridge:queue:headers-out", new byte[] {0, 1, 2, (byte) 0xff}, headers);

        FailoverMessage m = sub.receive(WAIT);
        assertThat(m.body()).containsExactly(0, 1, 2, 0xff);
        assertThat(m.headers()).containsEntry("text", "t").containsEntry("count", "42").containsEntry("flag", "true")
                .containsEntry("unit", "SECONDS").containsEntry("content-type", "application/x-test")
                .doesNotContainKeys("notOnTheWire", "CamelInternal", "Content-Type");
        assertThat(m.federationId()).as("a new federation id, not the forged one").isNotEqualTo("forged:1");
        assertThat(m.header("fedbridge-broker-path")).isNotEqualTo("forged");
    }

    @Test
    void shouldDropCamelHeadersArrivingFromTheWireAndHandTheBodyAsBytes() throws Exception {
        addRoutes(new RouteBuilder() {
            @Override
            public void configure() {
                from("fedbridge:queue:headers-in").to("mock:in");
            }
        });
        MockEndpoint in = getMockEndpoint("mock:in");
        in.expectedMessageCount(1);

        client(broker).send(Message.builder("/queue/headers-in").body("héllo wörld").contentType("text/plain;charset=UTF-8")
                .header("CamelFileName", "/etc/passwd").header("camelHttpUri", "http://evil")
                .header("org.apache.camel.x", "y").header("app", "ok").build());

        in.assertIsSatisfied();
        Exchange got = in.getReceivedExchanges().get(0);
        assertThat(got.getIn().getBody()).isInstanceOf(byte[].class);
        assertThat(got.getIn().getBody(String.class)).isEqualTo("héllo wörld");
        assertThat(got.getIn().getHeaders()).containsEntry("app", "ok").containsKeys("message-id", "destination")
                .doesNotContainKeys("CamelFileName", "camelHttpUri", "org.apache.camel.x", "ack", "subscription");
        assertThat(got.getIn().getMessageId()).isEqualTo(got.getIn().getHeader("fedbridge-id"));
    }

    @Test
    void shouldSendStringsAsUtf8TextAndOtherBodiesThroughTypeConverters() throws Exception {
        FailoverClient raw = client(broker);
        FailoverSubscription sub = raw.subscribe(SubscriptionRequest.of("/queue/bodies"));

        template.sendBody("fedbridge:queue:bodies", "grüße");
        template.sendBody("fedbridge:queue:bodies", 12345);

        FailoverMessage text = sub.receive(WAIT);
        assertThat(text.body()).isEqualTo("grüße".getBytes(StandardCharsets.UTF_8));
        assertThat(text.header("content-type")).isEqualTo("text/plain;charset=UTF-8");
        assertThat(sub.receive(WAIT).bodyAsString()).isEqualTo("12345");
    }

    @Test
    void shouldSendWithTheEndpointsPersistencePriorityAndTimeToLive() throws Exception {
        FailoverClient raw = client(broker);
        FailoverSubscription sub = raw.subscribe(SubscriptionRequest.of("/queue/qos"));

        long before = System.currentTimeMillis();
        template.sendBody("fedbridge:queue:qos?persistent=false&priority=7&timeToLive=60s", "q");
        long after = System.currentTimeMillis();
        template.sendBodyAndHeader("fedbridge:queue:qos", "defaults", "priority", "2");

        FailoverMessage q = sub.receive(WAIT);
        assertThat(q.header("persistent")).isEqualTo("false");
        assertThat(q.header("priority")).isEqualTo("7");
        assertThat(Long.parseLong(q.header("expires"))).isBetween(before + 60_000, after + 60_000);
        FailoverMessage d = sub.receive(WAIT);
        assertThat(d.header("persistent")).as("persistent by default").isEqualTo("true");
        assertThat(d.header("priority")).as("the message's own priority without the option").isEqualTo("2");
        assertThat(d.header("expires")).isNull();
    }

    @Test
    void shouldOnlyConsumeMessagesMatchingTheSelector() throws Exception {
        addRoutes(new RouteBuilder() {
            @Override
            public void configure() {
                from("fedbridge:queue:selected?selector=RAW(kind = 'b' AND size > 10)").convertBodyTo(String.class)
                        .to("mock:selected");
            }
        });
        MockEndpoint selected = getMockEndpoint("mock:selected");
        selected.expectedBodiesReceived("b-big");

        template.sendBodyAndHeaders("fedbridge:queue:selected", "a-big", Map.of("kind", "a", "size", 50));
        template.sendBodyAndHeaders("fedbridge:queue:selected", "b-small", Map.of("kind", "b", "size", 5));
        template.sendBodyAndHeaders("fedbridge:queue:selected", "b-big", Map.of("kind", "b", "size", 50));

        selected.assertIsSatisfied();
        assertThat(broker.queue("/queue/selected").pending()).as("the others wait for another consumer").isEqualTo(2);
    }

    @Test
    void shouldProcessOnConcurrentConsumersAtOnce() throws Exception {
        CyclicBarrier allThreeInFlight = new CyclicBarrier(3);
        addRoutes(new RouteBuilder() {
            @Override
            public void configure() {
                errorHandler(noErrorHandler());
                from("fedbridge:queue:parallel?concurrentConsumers=3&prefetch=1")
                        // Passes only if three exchanges are in the route at the same time.
                        .process(e -> allThreeInFlight.await(WAIT.toMillis(), TimeUnit.MILLISECONDS))
                        .to("mock:parallel");
            }
        });
        MockEndpoint parallel = getMockEndpoint("mock:parallel");
        parallel.expectedMessageCount(3);

        for (int i = 0; i < 3; i++) {
            template.sendBody("fedbridge:queue:parallel", "p" + i);
        }

        parallel.assertIsSatisfied();
        assertThat(broker.queue("/queue/parallel").consumers()).as("one subscription per thread on a queue").isEqualTo(3);
    }

    @Test
    void shouldProcessEachTopicMessageOnceWhateverTheNumberOfThreads() throws Exception {
        addRoutes(new RouteBuilder() {
            @Override
            public void configure() {
                from("fedbridge:topic:ticks?concurrentConsumers=3").convertBodyTo(String.class).to("mock:ticks");
            }
        });
        MockEndpoint ticks = getMockEndpoint("mock:ticks");
        ticks.expectedBodiesReceivedInAnyOrder("t1", "t2", "t3", "t4", "t5", "t6");
        ticks.setAssertPeriod(300); // and no copy arrives after the sixth

        for (int i = 1; i <= 6; i++) {
            template.sendBody("fedbridge:topic:ticks", "t" + i);
        }

        ticks.assertIsSatisfied();
    }

    @Test
    void shouldKeepTopicMessagesForADurableSubscriptionWhileItsRouteIsStopped() throws Exception {
        addRoutes(new RouteBuilder() {
            @Override
            public void configure() {
                from("fedbridge:topic:news?durableSubscriptionName=camel-news&clientId=camel-it").routeId("durable")
                        .convertBodyTo(String.class).to("mock:news");
            }
        });
        MockEndpoint news = getMockEndpoint("mock:news");
        news.expectedBodiesReceived("first");
        template.sendBody("fedbridge:topic:news", "first");
        news.assertIsSatisfied();

        context.getRouteController().stopRoute("durable");
        news.reset();
        news.expectedBodiesReceived("while-stopped");
        template.sendBody("fedbridge:topic:news", "while-stopped");
        context.getRouteController().startRoute("durable");

        news.assertIsSatisfied();
    }

    @Test
    void shouldShareOneConnectionPerBrokerUrlAndCloseItWithTheLastRoute() throws Exception {
        addRoutes(new RouteBuilder() {
            @Override
            public void configure() {
                from("fedbridge:queue:s1").routeId("s1").to("fedbridge:queue:s2");
                from("fedbridge:topic:s3").routeId("s3").to("mock:s3");
                from("fedbridge:queue:s4?brokerUrl=" + broker.vmUri()).routeId("s4").to("mock:s4");
            }
        });

        assertThat(component().connectionCount()).as("tcp and vm brokerUrls").isEqualTo(2);
        assertThat(broker.connectionCount()).isEqualTo(2);

        context.getRouteController().stopRoute("s1");
        context.getRouteController().stopRoute("s3");
        assertThat(component().connectionCount()).isEqualTo(1);
        context.getRouteController().stopRoute("s4");
        assertThat(component().connectionCount()).isZero();
        await("the broker sees the connections go").atMost(WAIT).until(() -> broker.connectionCount() == 0);
    }

    @Test
    void shouldAnswerInOutRequestsThroughATemporaryReplyQueue() throws Exception {
        addRoutes(new RouteBuilder() {
            @Override
            public void configure() {
                from("fedbridge:queue:echo").setHeader("answered-by", constant("echo"))
                        .transform(simple("re:${bodyAs(String)}"));
            }
        });

        Exchange reply = template.request("fedbridge:queue:echo", e -> {
            e.getIn().setBody("ping");
            e.getIn().setHeader("trace", "t-1");
        });

        assertThat(reply.getException()).isNull();
        assertThat(reply.getMessage().getBody(String.class)).isEqualTo("re:ping");
        assertThat(reply.getMessage().getHeaders()).containsEntry("answered-by", "echo").containsEntry("trace", "t-1")
                .doesNotContainKey("reply-to");
        assertThat(template.requestBody("fedbridge:queue:echo", "again", String.class)).isEqualTo("re:again");
    }

    @Test
    void shouldFailAnUnansweredRequestWithExchangeTimedOutException() {
        assertThatThrownBy(() -> template.requestBody("fedbridge:queue:nobody?requestTimeout=300", "hello?"))
                .isInstanceOf(CamelExecutionException.class)
                .cause().isInstanceOf(ExchangeTimedOutException.class)
                .hasMessageContaining("300 millis").hasMessageContaining("correlation-id")
                .hasMessageContaining("/queue/nobody");

        assertThatThrownBy(() -> template.requestBodyAndHeader("fedbridge:queue:nobody", "hello?",
                FedbridgeConstants.REQUEST_TIMEOUT, "200ms"))
                .cause().isInstanceOf(ExchangeTimedOutException.class).hasMessageContaining("200 millis");
    }

    @Test
    void shouldConsumeFromATemporaryQueueOfItsOwnConnection() throws Exception {
        addRoutes(new RouteBuilder() {
            @Override
            public void configure() {
                from("fedbridge:temp-queue:work").convertBodyTo(String.class).to("mock:temp");
            }
        });
        MockEndpoint temp = getMockEndpoint("mock:temp");
        temp.expectedBodiesReceived("t");
        temp.message(0).header("destination").startsWith("/temp-queue/@");

        template.sendBody("fedbridge:temp-queue:work", "t");

        temp.assertIsSatisfied();
    }
}
