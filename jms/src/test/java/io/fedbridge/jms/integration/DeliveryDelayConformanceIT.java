package io.fedbridge.jms.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fedbridge.broker.Broker;
import io.fedbridge.broker.BrokerConfig;
import jakarta.jms.DeliveryMode;
import jakarta.jms.JMSContext;
import jakarta.jms.JMSRuntimeException;
import jakarta.jms.Message;
import jakarta.jms.MessageConsumer;
import jakarta.jms.MessageProducer;
import jakarta.jms.Queue;
import jakarta.jms.Session;
import jakarta.jms.TextMessage;
import jakarta.jms.Topic;
import java.nio.file.Path;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Jakarta Messaging 3.1, section 7.9 (delivery delay): the message travels with {@code AMQ_SCHEDULED_TIME} and the
 * broker holds it until then, on a queue, a topic subscription, across a bridge and across a restart.
 */
class DeliveryDelayConformanceIT extends JmsTestSupport {

    private static final long DELAY = 2_000;

    @TempDir
    Path tmp;

    @Test
    @DisplayName("7.9 a delayed message is not delivered before its delivery time; messages behind it are not held up")
    void delayedMessageWaitsForItsDeliveryTime() throws Exception {
        Broker broker = startBroker("delay");
        Session s = connection(broker).createSession(false, Session.AUTO_ACKNOWLEDGE);
        Queue q = s.createQueue("delayed");
        MessageConsumer consumer = s.createConsumer(q);
        MessageProducer producer = s.createProducer(q);
        producer.setDeliveryDelay(DELAY);
        assertThat(producer.getDeliveryDelay()).isEqualTo(DELAY);
        TextMessage late = s.createTextMessage("late");
        producer.send(late);
        assertThat(late.getJMSDeliveryTime()).isEqualTo(late.getJMSTimestamp() + DELAY);
        producer.setDeliveryDelay(0);
        producer.send(s.createTextMessage("now"));

        assertThat(receiveText(consumer)).isEqualTo("now");
        assertThat(consumer.receive(300)).as("held until its delivery time").isNull();
        Message got = consumer.receive(DELAY + RECEIVE_MS);
        assertThat(text(got)).isEqualTo("late");
        assertThat(System.currentTimeMillis()).isGreaterThanOrEqualTo(late.getJMSDeliveryTime());
        assertThat(got.getJMSDeliveryTime()).isEqualTo(late.getJMSDeliveryTime());
    }

    @Test
    @DisplayName("7.9 JMSProducer.setDeliveryDelay on a topic; a negative delay is refused naming the rule")
    void jmsContextProducerDelaysATopicMessage() throws Exception {
        Broker broker = startBroker("delay-ctx");
        try (JMSContext ctx = factory(broker).createContext()) {
            Topic t = ctx.createTopic("delayed.events");
            jakarta.jms.JMSConsumer c = ctx.createConsumer(t);
            long sent = System.currentTimeMillis();
            ctx.createProducer().setDeliveryDelay(DELAY).send(t, "tick");
            assertThat(c.receive(300)).isNull();
            assertThat(c.receiveBody(String.class, DELAY + RECEIVE_MS)).isEqualTo("tick");
            assertThat(System.currentTimeMillis() - sent).isGreaterThanOrEqualTo(DELAY);
            assertThatThrownBy(() -> ctx.createProducer().setDeliveryDelay(-1)).isInstanceOf(JMSRuntimeException.class)
                    .hasMessageContaining("deliveryDelay must be >= 0 ms, but was -1");
        }
    }

    @Test
    @DisplayName("7.9 across a bridge: sent on A with a delay, received on B not before its delivery time")
    void delayHoldsAcrossTheFederation() throws Exception {
        Broker[] ab = federation();
        Session onB = connection(ab[1]).createSession(false, Session.AUTO_ACKNOWLEDGE);
        MessageConsumer consumer = onB.createConsumer(onB.createQueue("delayed.far"));
        awaitConsumers(ab[0], "/queue/delayed.far", 1);
        Session onA = connection(ab[0]).createSession(false, Session.AUTO_ACKNOWLEDGE);
        MessageProducer producer = onA.createProducer(onA.createQueue("delayed.far"));
        producer.setDeliveryDelay(DELAY);
        TextMessage m = onA.createTextMessage("far and late");
        producer.send(m);

        assertThat(consumer.receive(300)).isNull();
        assertThat(text(consumer.receive(DELAY + RECEIVE_MS))).isEqualTo("far and late");
        assertThat(System.currentTimeMillis()).isGreaterThanOrEqualTo(m.getJMSDeliveryTime());
    }

    @Test
    @DisplayName("7.9 a PERSISTENT delayed message keeps its schedule across a broker restart")
    void persistentDelayedMessageSurvivesARestart() throws Exception {
        BrokerConfig config = BrokerConfig.builder("delay-store").listen("tcp://127.0.0.1:0").dataDirectory(tmp.resolve("s"))
                .build();
        Broker first = Broker.start(config);
        TextMessage m;
        try (jakarta.jms.Connection c = factory(first).createConnection()) {
            Session s = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
            MessageProducer p = s.createProducer(s.createQueue("delayed.stored"));
            p.setDeliveryDelay(DELAY + 1_000);
            m = s.createTextMessage("kept");
            p.send(m, DeliveryMode.PERSISTENT, 4, 0);
        } finally {
            first.close();
        }
        Broker second = track(Broker.start(config));
        Session s = connection(second).createSession(false, Session.AUTO_ACKNOWLEDGE);
        MessageConsumer consumer = s.createConsumer(s.createQueue("delayed.stored"));
        Message got = consumer.receive(DELAY + 1_000 + RECEIVE_MS);
        assertThat(text(got)).isEqualTo("kept");
        assertThat(System.currentTimeMillis()).isGreaterThanOrEqualTo(m.getJMSDeliveryTime());
    }
}
