package io.fedbridge.camel.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fedbridge.broker.Broker;
import io.fedbridge.broker.BrokerConfig;
import io.fedbridge.broker.DestinationPolicy;
import io.fedbridge.core.AckMode;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.camel.Exchange;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.component.mock.MockEndpoint;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Failed exchanges: NACKed for the broker to redeliver and dead-letter, or handled by Camel's own redelivery and dead
 * letter channel, whichever the route asks for. The broker dead-letters {@code /queue/fail.*} after 2 redeliveries.
 */
class ErrorHandlingIT extends FedbridgeTestSupport {

    private Broker broker;
    private final AtomicInteger attempts = new AtomicInteger();
    private final List<String> redeliveryCounts = new CopyOnWriteArrayList<>();

    @Override
    protected void startBrokers() {
        broker = startBroker(BrokerConfig.builder("errors")
                .policy(DestinationPolicy.builder("/queue/fail.>").maxRedeliveries(2).build()));
    }

    @BeforeEach
    void useTheBrokerByDefault() {
        component().setBrokerUrl(tcp(broker));
    }

    private void recordAttempt(Exchange e) {
        attempts.incrementAndGet();
        redeliveryCounts.add(String.valueOf(e.getIn().getHeader("redelivery-count")));
    }

    @Test
    void shouldNackFailedExchangesSoTheBrokerRedeliversThemAndFinallyDeadLettersThem() throws Exception {
        addRoutes(new RouteBuilder() {
            @Override
            public void configure() {
                from("fedbridge:queue:fail.always").process(ErrorHandlingIT.this::recordAttempt)
                        .throwException(new IllegalStateException("cannot process"));
                from("fedbridge:queue:DLQ").convertBodyTo(String.class).to("mock:dlq");
            }
        });
        MockEndpoint dlq = getMockEndpoint("mock:dlq");
        dlq.expectedBodiesReceived("poison");
        dlq.expectedHeaderReceived("dlq-original-destination", "/queue/fail.always");

        template.sendBody("fedbridge:queue:fail.always", "poison");

        dlq.assertIsSatisfied();
        assertThat(attempts).as("the first delivery and maxRedeliveries=2").hasValue(3);
        assertThat(redeliveryCounts).containsExactly("null", "1", "2");
    }

    @Test
    void shouldRetryWithCamelsRedeliveryPolicyBeforeTheBrokerSeesAFailure() throws Exception {
        addRoutes(new RouteBuilder() {
            @Override
            public void configure() {
                errorHandler(defaultErrorHandler().maximumRedeliveries(2).redeliveryDelay(0));
                // Camel redelivers to the failed processor, not the whole route: that is where attempts are counted.
                from("fedbridge:queue:fail.twice").process(e -> {
                    recordAttempt(e);
                    if (attempts.get() < 3) {
                        throw new IllegalStateException("transient failure " + attempts.get());
                    }
                }).to("mock:done");
            }
        });
        MockEndpoint done = getMockEndpoint("mock:done");
        done.expectedMessageCount(1);
        done.expectedHeaderReceived(Exchange.REDELIVERY_COUNTER, 2);

        template.sendBody("fedbridge:queue:fail.twice", "flaky");

        done.assertIsSatisfied();
        assertThat(redeliveryCounts).as("one broker delivery, retried in the route").containsOnly("null");
        await("acknowledged once").atMost(WAIT).until(() -> broker.queue("/queue/fail.twice").dequeued() == 1);
        assertThat(broker.queue("/queue/fail.twice").deadLettered()).isZero();
    }

    @Test
    void shouldAcknowledgeWhatCamelsDeadLetterChannelHandled() throws Exception {
        addRoutes(new RouteBuilder() {
            @Override
            public void configure() {
                errorHandler(deadLetterChannel("fedbridge:queue:camel.dead").maximumRedeliveries(1).redeliveryDelay(0));
                from("fedbridge:queue:fail.handled").process(e -> {
                    recordAttempt(e);
                    throw new IllegalStateException("cannot process");
                });
                from("fedbridge:queue:camel.dead").convertBodyTo(String.class).to("mock:dead");
            }
        });
        MockEndpoint dead = getMockEndpoint("mock:dead");
        dead.expectedBodiesReceived("handled");

        template.sendBody("fedbridge:queue:fail.handled", "handled");

        dead.assertIsSatisfied();
        await("acknowledged at the broker").atMost(WAIT).until(() -> broker.queue("/queue/fail.handled").dequeued() == 1);
        assertThat(attempts).as("one delivery plus one Camel redelivery; the broker redelivered nothing").hasValue(2);
        assertThat(broker.queue("/queue/fail.handled").deadLettered()).isZero();
    }

    @ParameterizedTest
    @EnumSource(value = AckMode.class, names = {"CLIENT", "CLIENT_INDIVIDUAL"})
    void shouldRedeliverAnExchangeTheRouteMarkedRollbackOnly(AckMode mode) throws Exception {
        addRoutes(new RouteBuilder() {
            @Override
            public void configure() {
                from("fedbridge:queue:fail.rollback?acknowledgementMode=" + mode).process(ErrorHandlingIT.this::recordAttempt)
                        .choice().when(header("redelivery-count").isNull()).markRollbackOnly().end()
                        .to("mock:second");
            }
        });
        MockEndpoint second = getMockEndpoint("mock:second");
        second.expectedMessageCount(1);
        second.expectedHeaderReceived("redelivery-count", "1");

        template.sendBody("fedbridge:queue:fail.rollback", "again");

        second.assertIsSatisfied();
        assertThat(attempts).hasValue(2);
    }

    @Test
    void shouldNotRedeliverWithAutomaticAcknowledgement() throws Exception {
        addRoutes(new RouteBuilder() {
            @Override
            public void configure() {
                from("fedbridge:queue:fail.auto?acknowledgementMode=AUTO").process(ErrorHandlingIT.this::recordAttempt)
                        .throwException(new IllegalStateException("lost on purpose"));
            }
        });

        template.sendBody("fedbridge:queue:fail.auto", "once");

        await("processed once and never again").atMost(WAIT).during(Duration.ofMillis(500)).until(() -> attempts.get() == 1);
        assertThat(broker.queue("/queue/fail.auto").dequeued()).isEqualTo(1);
    }
}
