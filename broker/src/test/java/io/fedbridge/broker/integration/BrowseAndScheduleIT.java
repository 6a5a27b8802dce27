package io.fedbridge.broker.integration;

import static org.assertj.core.api.Assertions.assertThat;

import io.fedbridge.broker.Broker;
import io.fedbridge.core.Message;
import io.fedbridge.core.ReceivedMessage;
import io.fedbridge.core.StompConnection;
import io.fedbridge.core.Subscription;
import io.fedbridge.core.SubscriptionRequest;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Two STOMP extensions a JMS client needs, as plain STOMP: a browse ({@code SUBSCRIBE browser:true}, ActiveMQ's header)
 * shows a queue's waiting messages without taking them and ends with {@code browser:end}; {@code AMQ_SCHEDULED_TIME}
 * holds a message until then without holding up the ones behind it.
 */
class BrowseAndScheduleIT extends BrokerTestSupport {

    private static final Duration WAIT = Duration.ofSeconds(10);

    @Test
    void shouldBrowseAQueueWithoutTakingItsMessagesAndEndWithBrowserEnd() throws Exception {
        Broker broker = startBroker();
        StompConnection producer = connect(broker, "tcp");
        producer.send(Message.builder("/queue/browsed").body("low").header("colour", "red").build()).join();
        producer.send(Message.builder("/queue/browsed").body("high").header("priority", "9").build()).join();

        RawStomp browser = raw(broker);
        browser.handshake();
        browser.write("SUBSCRIBE\nid:b1\ndestination:/queue/browsed\nbrowser:true\nreceipt:r1\n\n\0");
        assertThat(browser.read().header("receipt-id")).isEqualTo("r1");
        RawStomp.Frame first = browser.read();
        assertThat(new String(first.body(), StandardCharsets.UTF_8)).isEqualTo("high");
        assertThat(first.header("subscription")).isEqualTo("b1");
        assertThat(first.header("ack")).as("nothing to acknowledge").isNull();
        assertThat(new String(browser.read().body(), StandardCharsets.UTF_8)).isEqualTo("low");
        RawStomp.Frame end = browser.read();
        assertThat(end.header("browser")).isEqualTo("end");
        assertThat(end.header("browser-shown")).isEqualTo("2");
        browser.write("UNSUBSCRIBE\nid:b1\nbrowser:true\nreceipt:r2\n\n\0");
        assertThat(browser.read().header("receipt-id")).as("harmless").isEqualTo("r2");

        browser.write("SUBSCRIBE\nid:b2\ndestination:/queue/browsed\nbrowser:true\nselector:colour = 'red'\n\n\0");
        assertThat(new String(browser.read().body(), StandardCharsets.UTF_8)).isEqualTo("low");
        assertThat(browser.read().header("browser")).isEqualTo("end");

        Subscription consumer = connect(broker, "tcp").subscribeAndWait(SubscriptionRequest.of("/queue/browsed"), null, WAIT);
        assertThat(consumer.receive(WAIT).bodyAsString()).as("still there").isEqualTo("high");
        assertThat(consumer.receive(WAIT).bodyAsString()).isEqualTo("low");
    }

    @Test
    void shouldRefuseABrowseOfATopicNamingWhy() throws Exception {
        RawStomp browser = raw(startBroker());
        browser.handshake();
        browser.write("SUBSCRIBE\nid:b1\ndestination:/topic/news\nbrowser:true\n\n\0");
        RawStomp.Frame error = browser.read();
        assertThat(error.command()).isEqualTo("ERROR");
        assertThat(error.header("message")).contains("browser:true is for a queue, but got '/topic/news'");
    }

    @Test
    void shouldHoldAScheduledMessageUntilItsTimeWithoutHoldingUpTheOthers() throws Exception {
        Broker broker = startBroker();
        StompConnection producer = connect(broker, "tcp");
        long at = System.currentTimeMillis() + 1_500;
        producer.send(Message.builder("/queue/scheduled").body("later").header("AMQ_SCHEDULED_TIME", Long.toString(at))
                .build()).join();
        producer.send(Message.of("/queue/scheduled", "now")).join();
        Subscription consumer = connect(broker, "tcp").subscribeAndWait(SubscriptionRequest.of("/queue/scheduled"), null, WAIT);

        assertThat(consumer.receive(WAIT).bodyAsString()).isEqualTo("now");
        assertThat(consumer.receive(Duration.ofMillis(300))).isNull();
        ReceivedMessage later = consumer.receive(WAIT);
        assertThat(later.bodyAsString()).isEqualTo("later");
        assertThat(System.currentTimeMillis()).isGreaterThanOrEqualTo(at);
    }
}
