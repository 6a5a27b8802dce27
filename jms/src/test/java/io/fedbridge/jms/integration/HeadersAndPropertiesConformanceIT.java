package io.fedbridge.jms.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fedbridge.broker.Broker;
import jakarta.jms.DeliveryMode;
import jakarta.jms.JMSContext;
import jakarta.jms.Message;
import jakarta.jms.MessageConsumer;
import jakarta.jms.MessageFormatException;
import jakarta.jms.MessageNotWriteableException;
import jakarta.jms.MessageProducer;
import jakarta.jms.Queue;
import jakarta.jms.Session;
import jakarta.jms.TextMessage;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Jakarta Messaging 3.1, sections 3.4 (header fields), 3.5 (properties) and 7.7-7.8 (delivery options) over STOMP;
 * 7.9 (delivery delay) is {@link DeliveryDelayConformanceIT}.
 */
class HeadersAndPropertiesConformanceIT extends JmsTestSupport {

    private Broker broker;
    private Session session;
    private Queue queue;
    private MessageProducer producer;
    private MessageConsumer consumer;

    @BeforeEach
    void open() throws Exception {
        broker = startBroker("headers");
        session = connection(broker).createSession(false, Session.AUTO_ACKNOWLEDGE);
        queue = session.createQueue("headers");
        producer = session.createProducer(queue);
        consumer = session.createConsumer(queue);
    }

    @Test
    @DisplayName("3.4.1-3.4.10 header fields the sender sets arrive: destination, mode, id, timestamp, correlation, reply-to, type, expiration, priority")
    void headerFieldsRoundTrip() throws Exception {
        TextMessage m = session.createTextMessage("h");
        m.setJMSCorrelationID("corr-1");
        m.setJMSReplyTo(session.createQueue("replies"));
        m.setJMSType("order.created");
        long before = System.currentTimeMillis();
        producer.send(m, DeliveryMode.NON_PERSISTENT, 7, 60_000);

        Message got = consumer.receive(RECEIVE_MS);
        assertThat(got.getJMSDestination()).isEqualTo(queue);
        assertThat(got.getJMSDeliveryMode()).isEqualTo(DeliveryMode.NON_PERSISTENT);
        assertThat(got.getJMSMessageID()).isEqualTo(m.getJMSMessageID()).startsWith("ID:");
        assertThat(got.getJMSTimestamp()).isEqualTo(m.getJMSTimestamp()).isBetween(before, System.currentTimeMillis());
        assertThat(got.getJMSCorrelationID()).isEqualTo("corr-1");
        assertThat(got.getJMSReplyTo()).isEqualTo(session.createQueue("replies"));
        assertThat(got.getJMSType()).isEqualTo("order.created");
        assertThat(got.getJMSExpiration()).isEqualTo(m.getJMSTimestamp() + 60_000);
        assertThat(got.getJMSPriority()).isEqualTo(7);
        assertThat(got.getJMSRedelivered()).isFalse();
    }

    @Test
    @DisplayName("3.4.11 send sets the fields it owns on the sender's message; defaults PERSISTENT, priority 4, no expiration")
    void sendSetsHeaderFields() throws Exception {
        TextMessage m = session.createTextMessage("d");
        producer.send(m);
        assertThat(m.getJMSDestination()).isEqualTo(queue);
        assertThat(m.getJMSDeliveryMode()).isEqualTo(DeliveryMode.PERSISTENT);
        assertThat(m.getJMSPriority()).isEqualTo(4);
        assertThat(m.getJMSExpiration()).isZero();
        assertThat(m.getJMSMessageID()).startsWith("ID:");
        Message got = consumer.receive(RECEIVE_MS);
        assertThat(got.getJMSDeliveryMode()).isEqualTo(DeliveryMode.PERSISTENT);
        producer.setDisableMessageID(true);
        producer.setDisableMessageTimestamp(true);
        producer.send(m);
        assertThat(m.getJMSMessageID()).isNull();
        assertThat(m.getJMSTimestamp()).isZero();
        assertThat(consumer.receive(RECEIVE_MS).getJMSTimestamp()).isZero();
    }

    @Test
    @DisplayName("3.5.2-3.5.6 typed properties keep their type; iteration lists them")
    void typedPropertiesRoundTrip() throws Exception {
        Message m = session.createMessage();
        m.setBooleanProperty("flag", true);
        m.setByteProperty("b", (byte) -3);
        m.setShortProperty("s", (short) 1000);
        m.setIntProperty("i", 123_456);
        m.setLongProperty("l", Long.MAX_VALUE);
        m.setFloatProperty("f", 0.1f);
        m.setDoubleProperty("d", Math.PI);
        m.setStringProperty("str", "a:b,c\\d");
        m.setObjectProperty("o", 42);
        producer.send(m);

        Message got = consumer.receive(RECEIVE_MS);
        assertThat(got.getObjectProperty("flag")).isEqualTo(true);
        assertThat(got.getObjectProperty("b")).isEqualTo((byte) -3);
        assertThat(got.getObjectProperty("s")).isEqualTo((short) 1000);
        assertThat(got.getObjectProperty("i")).isEqualTo(123_456);
        assertThat(got.getObjectProperty("l")).isEqualTo(Long.MAX_VALUE);
        assertThat(got.getObjectProperty("f")).isEqualTo(0.1f);
        assertThat(got.getObjectProperty("d")).isEqualTo(Math.PI);
        assertThat(got.getObjectProperty("str")).isEqualTo("a:b,c\\d");
        assertThat(got.getObjectProperty("o")).isEqualTo(42);
        assertThat(names(got.getPropertyNames())).contains("flag", "b", "s", "i", "l", "f", "d", "str", "o");
    }

    @Test
    @DisplayName("3.5.4 property conversions: widening allowed, narrowing and cross-type refused; 3.5.8 absent properties")
    void propertyConversions() throws Exception {
        Message m = session.createMessage();
        m.setIntProperty("i", 5);
        m.setStringProperty("num", "17");
        m.setBooleanProperty("flag", true);
        assertThat(m.getLongProperty("i")).isEqualTo(5L);
        assertThat(m.getStringProperty("i")).isEqualTo("5");
        assertThat(m.getIntProperty("num")).isEqualTo(17);
        assertThat(m.getStringProperty("flag")).isEqualTo("true");
        assertThatThrownBy(() -> m.getShortProperty("i")).isInstanceOf(MessageFormatException.class);
        assertThatThrownBy(() -> m.getIntProperty("flag")).isInstanceOf(MessageFormatException.class);
        assertThat(m.getStringProperty("absent")).isNull();
        assertThat(m.getBooleanProperty("absent")).isFalse();
        assertThatThrownBy(() -> m.getIntProperty("absent")).isInstanceOf(NumberFormatException.class);
    }

    @Test
    @DisplayName("3.5.1 property names must be identifiers, not selector words, not a mapped STOMP header")
    void propertyNames() throws Exception {
        Message m = session.createMessage();
        assertThatThrownBy(() -> m.setStringProperty("not-an-identifier", "x")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> m.setStringProperty("BETWEEN", "x")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> m.setStringProperty("priority", "x")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("reserved");
        assertThatThrownBy(() -> m.setStringProperty("", "x")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> m.setObjectProperty("list", new java.util.ArrayList<>())).isInstanceOf(MessageFormatException.class);
    }

    @Test
    @DisplayName("3.10 a received message's properties are read-only until clearProperties")
    void receivedPropertiesAreReadOnly() throws Exception {
        Message m = session.createMessage();
        m.setStringProperty("k", "v");
        producer.send(m);
        Message got = consumer.receive(RECEIVE_MS);
        assertThatThrownBy(() -> got.setStringProperty("k", "w")).isInstanceOf(MessageNotWriteableException.class);
        got.clearProperties();
        got.setStringProperty("k", "w");
        assertThat(got.getStringProperty("k")).isEqualTo("w");
    }

    @Test
    @DisplayName("3.5.11 JMSXDeliveryCount is 1 on first delivery, 2 on redelivery; 3.4.7 JMSRedelivered")
    void deliveryCount() throws Exception {
        Session client = connection(broker).createSession(false, Session.CLIENT_ACKNOWLEDGE);
        MessageConsumer c = client.createConsumer(client.createQueue("count"));
        client.createProducer(client.createQueue("count")).send(client.createTextMessage("x"));
        Message first = c.receive(RECEIVE_MS);
        assertThat(first.getIntProperty("JMSXDeliveryCount")).isEqualTo(1);
        assertThat(first.getJMSRedelivered()).isFalse();
        client.recover();
        Message again = c.receive(RECEIVE_MS);
        assertThat(again.getIntProperty("JMSXDeliveryCount")).isEqualTo(2);
        assertThat(again.getJMSRedelivered()).isTrue();
        again.acknowledge();
    }

    @Test
    @DisplayName("7.8 a message whose time to live passed is not delivered")
    void expiredMessagesAreNotDelivered() throws Exception {
        // A queue nobody consumes yet: with a consumer waiting, a 1 ms message may be delivered before it expires.
        jakarta.jms.Queue later = session.createQueue("expiry");
        jakarta.jms.MessageProducer p = session.createProducer(later);
        p.send(session.createTextMessage("short-lived"), DeliveryMode.NON_PERSISTENT, 4, 1);
        long expiredAt = System.currentTimeMillis() + 1;
        org.awaitility.Awaitility.await("its time to live passed").atMost(java.time.Duration.ofSeconds(5))
                .pollInterval(java.time.Duration.ofMillis(5)).until(() -> System.currentTimeMillis() > expiredAt);
        p.send(session.createTextMessage("lasting"));
        assertThat(receiveText(session.createConsumer(later))).isEqualTo("lasting");
    }

    @Test
    @DisplayName("7.10 JMSContext producer: properties and header fields chained onto the messages it sends")
    void jmsContextProducer() throws Exception {
        try (JMSContext ctx = factory(broker).createContext()) {
            Queue q = ctx.createQueue("ctx");
            jakarta.jms.JMSConsumer c = ctx.createConsumer(q);
            ctx.createProducer().setProperty("n", 3).setJMSCorrelationID("c-9").setPriority(8).send(q, "body");
            Message got = c.receive(RECEIVE_MS);
            assertThat(got.getBody(String.class)).isEqualTo("body");
            assertThat(got.getIntProperty("n")).isEqualTo(3);
            assertThat(got.getJMSCorrelationID()).isEqualTo("c-9");
            assertThat(got.getJMSPriority()).isEqualTo(8);
        }
    }
}
