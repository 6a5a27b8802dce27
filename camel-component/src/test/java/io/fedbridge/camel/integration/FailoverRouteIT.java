package io.fedbridge.camel.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

import io.fedbridge.broker.Broker;
import io.fedbridge.broker.BrokerConfig;
import io.fedbridge.broker.BrokerException;
import io.fedbridge.camel.FedbridgeEndpoint;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.camel.ExchangeTimedOutException;
import org.apache.camel.ServiceStatus;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.util.ObjectHelper;
import org.apache.camel.component.mock.MockEndpoint;
import org.junit.jupiter.api.Test;

/**
 * Routes that outlive their broker: with a {@code failover:(A,B)} brokerUrl the client moves to B when A dies (A and B
 * are bridged); with a plain {@code tcp://} one the route subscribes again once the broker is back.
 */
class FailoverRouteIT extends FedbridgeTestSupport {

    private Broker a;
    private Broker b;

    @Override
    protected void startBrokers() {
        b = startBroker("fo-B");
        a = startBroker("fo-A");
        a.addNetworkConnector("static:(" + tcp(b) + ")?duplex=true&" + FAST_BRIDGE);
        awaitBridgesUp(a, 1);
    }

    @Test
    void shouldKeepConsumingThroughABrokerFailover() throws Exception {
        String failover = "failover:(" + tcp(a) + "," + tcp(b) + ")?randomize=false&initialReconnectDelay=10"
                + "&maxReconnectDelay=200";
        addRoutes(new RouteBuilder() {
            @Override
            public void configure() {
                from("fedbridge:queue:work?brokerUrl=RAW(" + failover + ")").routeId("worker")
                        .convertBodyTo(String.class).to("mock:work");
            }
        });
        // The route's consumer is on A (randomize=false); messages sent to B reach it over the bridge.
        await("the bridge subscribes on B for the route").atMost(WAIT).until(() ->
                b.queue("/queue/work") != null && b.queue("/queue/work").consumers() == 1);
        String producer = "fedbridge:queue:work?brokerUrl=" + tcp(b);
        MockEndpoint work = getMockEndpoint("mock:work");
        work.expectedBodiesReceived("before-1", "before-2", "before-3");
        for (int i = 1; i <= 3; i++) {
            template.sendBody(producer, "before-" + i);
        }
        work.assertIsSatisfied();
        assertThat(a.queue("/queue/work").consumers()).isEqualTo(1);

        a.close();

        work.reset();
        work.expectedBodiesReceivedInAnyOrder("after-1", "after-2", "after-3");
        for (int i = 1; i <= 3; i++) {
            template.sendBody(producer, "after-" + i);
        }
        work.assertIsSatisfied();
        await("the route's consumer is on B now").atMost(WAIT).until(() ->
                b.queue("/queue/work").consumers() == 1);
        assertThat(context.getRouteController().getRouteStatus("worker")).isEqualTo(ServiceStatus.Started);
        assertThat(context.getEndpoints()).filteredOn(FedbridgeEndpoint.class::isInstance).isNotEmpty();
    }

    @Test
    void shouldKeepTheReplyOfARequestAcrossAFailover() throws Exception {
        // A keeps the requester's reply queue for tempDestinationReconnectGrace (30 s by default), and so does B: the
        // reply, sent while the requester moves to B, waits on B and reaches it on the same queue.
        CompletableFuture<Object> slow = requestAcrossFailover(a, b);
        assertThat(context.getTypeConverter().convertTo(String.class, slow.get(WAIT.toMillis(), TimeUnit.MILLISECONDS)))
                .isEqualTo("re:slow");
    }

    @Test
    void shouldFailARequestWhoseReplyQueueDiedAtOnceWhenBrokersKeepNoTemporaryQueues() throws Exception {
        Broker y = startBroker(BrokerConfig.builder("fo-Y").tempDestinationReconnectGrace(Duration.ZERO));
        Broker x = startBroker(BrokerConfig.builder("fo-X").tempDestinationReconnectGrace(Duration.ZERO));
        x.addNetworkConnector("static:(" + tcp(y) + ")?duplex=true&" + FAST_BRIDGE);
        awaitBridgesUp(x, 1);
        CompletableFuture<Object> slow = requestAcrossFailover(x, y);
        // Long before requestTimeout=60s: the reply went to a queue that no longer exists.
        Throwable failure = catchThrowable(() -> slow.get(WAIT.toMillis(), TimeUnit.MILLISECONDS));
        assertThat(failure).isInstanceOf(ExecutionException.class);
        assertThat(ObjectHelper.getException(ExchangeTimedOutException.class, failure)).isNotNull()
                .hasMessageContaining("can no longer arrive");
    }

    /**
     * A requester on failover:(first,second) and a responder on second: the first request is answered, the second is
     * answered only after first is closed; the request after that is answered too. Returns the second's outcome.
     */
    private CompletableFuture<Object> requestAcrossFailover(Broker first, Broker second) throws Exception {
        CountDownLatch slowArrived = new CountDownLatch(1);
        CountDownLatch releaseSlow = new CountDownLatch(1);
        String service = "svc" + second.name().replace("-", "");
        addRoutes(new RouteBuilder() {
            @Override
            public void configure() {
                from("fedbridge:queue:" + service + "?brokerUrl=" + tcp(second)).process(e -> {
                    if ("slow".equals(e.getIn().getBody(String.class))) {
                        slowArrived.countDown();
                        releaseSlow.await(WAIT.toMillis(), TimeUnit.MILLISECONDS);
                    }
                }).transform(simple("re:${bodyAs(String)}"));
            }
        });
        await("the bridge subscribes on the first broker for the service").atMost(WAIT).until(() ->
                first.queue("/queue/" + service) != null && first.queue("/queue/" + service).consumers() == 1);
        String requester = "fedbridge:queue:" + service + "?requestTimeout=60s&brokerUrl=RAW(failover:(" + tcp(first) + ","
                + tcp(second) + ")?randomize=false&initialReconnectDelay=10&maxReconnectDelay=200)";
        assertThat(template.requestBody(requester, "warm-up", String.class)).isEqualTo("re:warm-up");

        CompletableFuture<Object> slow = template.asyncRequestBody(requester, "slow");
        assertThat(slowArrived.await(WAIT.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
        first.close(); // the requester's reply queue lived there
        releaseSlow.countDown();
        try {
            slow.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            // the caller looks at it
        }
        assertThat(template.requestBody(requester, "after", String.class)).isEqualTo("re:after");
        return slow;
    }

    @Test
    void shouldSubscribeAgainWhenTheBrokerOfAPlainTcpUrlComesBack() throws Exception {
        String url = tcp(b);
        addRoutes(new RouteBuilder() {
            @Override
            public void configure() {
                from("fedbridge:queue:plain?recoveryInterval=100ms&brokerUrl=" + url).routeId("plain")
                        .convertBodyTo(String.class).to("mock:plain");
            }
        });
        MockEndpoint plain = getMockEndpoint("mock:plain");
        plain.expectedBodiesReceived("first");
        template.sendBody("fedbridge:queue:plain?brokerUrl=" + url, "first");
        plain.assertIsSatisfied();

        a.close(); // only b matters here
        b.close();
        Broker again = restartOnSamePort(b);
        await("the route subscribed again").atMost(WAIT).until(() ->
                again.queue("/queue/plain") != null && again.queue("/queue/plain").consumers() == 1);

        plain.reset();
        plain.expectedBodiesReceived("second");
        template.sendBody("fedbridge:queue:plain?brokerUrl=" + url, "second");
        plain.assertIsSatisfied();
    }

    private Broker restartOnSamePort(Broker stopped) {
        BrokerConfig sameAddress = stopped.config().toBuilder().listeners(List.of(tcp(stopped))).build();
        AtomicReference<Broker> started = new AtomicReference<>();
        await("broker " + stopped.name() + " restarted on " + tcp(stopped)).atMost(WAIT).pollInSameThread()
                .pollInterval(Duration.ofMillis(50)).until(() -> {
                    try {
                        started.set(Broker.start(sameAddress));
                        return true;
                    } catch (BrokerException e) {
                        return false;
                    }
                });
        return track(started.get());
    }
}
