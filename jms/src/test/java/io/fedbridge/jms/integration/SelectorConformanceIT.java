package io.fedbridge.jms.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fedbridge.broker.Broker;
import jakarta.jms.InvalidSelectorException;
import jakarta.jms.Message;
import jakarta.jms.MessageConsumer;
import jakarta.jms.MessageProducer;
import jakarta.jms.Queue;
import jakarta.jms.Session;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** Jakarta Messaging 3.1, section 3.8 (message selection), evaluated by the broker over the mapped headers. */
class SelectorConformanceIT extends JmsTestSupport {

    private Session session;
    private Queue queue;
    private MessageProducer producer;

    @BeforeEach
    void open() throws Exception {
        Broker broker = startBroker("selectors");
        session = connection(broker).createSession(false, Session.AUTO_ACKNOWLEDGE);
        queue = session.createQueue("selectors");
        producer = session.createProducer(queue);
    }

    private void send(String body, String region, int size, boolean urgent, int priority, String type) throws Exception {
        Message m = session.createTextMessage(body);
        m.setStringProperty("region", region);
        m.setIntProperty("size", size);
        m.setBooleanProperty("urgent", urgent);
        m.setJMSType(type);
        producer.send(m, jakarta.jms.DeliveryMode.PERSISTENT, priority, 0);
    }

    private String firstMatch(String selector) throws Exception {
        MessageConsumer c = session.createConsumer(queue, selector);
        try {
            return text(c.receive(2_000));
        } finally {
            c.close();
        }
    }

    @Test
    @DisplayName("3.8.1 string, numeric, boolean property tests and JMS header fields select the right message")
    void selectorsOverPropertiesAndHeaders() throws Exception {
        send("eu-small", "eu", 5, false, 4, "a");
        send("us-big-urgent", "us", 500, true, 9, "b");
        send("eu-big", "eu", 200, false, 1, "c");

        assertThat(firstMatch("region = 'us'")).isEqualTo("us-big-urgent");
        assertThat(firstMatch("size > 100 AND region IN ('eu', 'apac')")).isEqualTo("eu-big");
        assertThat(firstMatch("size BETWEEN 1 AND 10")).isEqualTo("eu-small");
    }

    @Test
    @DisplayName("3.8.1 JMSPriority, JMSType and boolean properties")
    void headerFieldSelectors() throws Exception {
        send("low", "eu", 1, false, 1, "t1");
        send("high", "eu", 1, true, 9, "t2");
        assertThat(firstMatch("JMSPriority > 5")).isEqualTo("high");
        send("high", "eu", 1, true, 9, "t2");
        assertThat(firstMatch("urgent = TRUE AND JMSType = 't2'")).isEqualTo("high");
        assertThat(firstMatch("JMSType = 't1'")).isEqualTo("low");
    }

    @Test
    @DisplayName("3.8.1 a message no selector matches stays for another consumer; an absent property is NULL")
    void unmatchedMessagesStay() throws Exception {
        send("only", "eu", 1, false, 4, "x");
        assertThat(firstMatch("region = 'us'")).isNull();
        assertThat(firstMatch("missing IS NULL")).isEqualTo("only");
    }

    @Test
    @DisplayName("3.8.1 an invalid selector throws InvalidSelectorException at createConsumer, the connection stays usable")
    void invalidSelector() throws Exception {
        assertThatThrownBy(() -> session.createConsumer(queue, "region = = 'x'")).isInstanceOf(InvalidSelectorException.class)
                .hasMessageContaining("invalid selector");
        send("still-works", "eu", 1, false, 4, "x");
        assertThat(firstMatch(null)).isEqualTo("still-works");
    }
}
