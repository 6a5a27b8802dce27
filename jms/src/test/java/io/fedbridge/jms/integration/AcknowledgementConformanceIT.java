package io.fedbridge.jms.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fedbridge.broker.Broker;
import jakarta.jms.Connection;
import jakarta.jms.Message;
import jakarta.jms.MessageConsumer;
import jakarta.jms.MessageProducer;
import jakarta.jms.Session;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** Jakarta Messaging 3.1, sections 6.2.10 (message acknowledgment) and 8.7 (listener exceptions). */
class AcknowledgementConformanceIT extends JmsTestSupport {

    private Broker broker;

    @BeforeEach
    void open() {
        broker = startBroker("ack");
    }

    private void send(String queue, String... bodies) throws Exception {
        Session s = connection(broker).createSession(false, Session.AUTO_ACKNOWLEDGE);
        MessageProducer p = s.createProducer(s.createQueue(queue));
        for (String b : bodies) {
            p.send(s.createTextMessage(b));
        }
    }

    @Test
    @DisplayName("6.2.10 AUTO_ACKNOWLEDGE: a received message is gone when the session closes")
    void autoAcknowledge() throws Exception {
        send("auto", "a1");
        Connection c = connection(broker);
        Session s = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
        assertThat(receiveText(s.createConsumer(s.createQueue("auto")))).isEqualTo("a1");
        s.close();
        Session again = connection(broker).createSession(false, Session.AUTO_ACKNOWLEDGE);
        assertThat(again.createConsumer(again.createQueue("auto")).receive(500)).isNull();
    }

    @Test
    @DisplayName("6.2.10 DUPS_OK_ACKNOWLEDGE: acknowledged like AUTO")
    void dupsOkAcknowledge() throws Exception {
        send("dups", "d1");
        Session s = connection(broker).createSession(false, Session.DUPS_OK_ACKNOWLEDGE);
        assertThat(receiveText(s.createConsumer(s.createQueue("dups")))).isEqualTo("d1");
        s.close();
        Session again = connection(broker).createSession(false, Session.AUTO_ACKNOWLEDGE);
        assertThat(again.createConsumer(again.createQueue("dups")).receive(500)).isNull();
    }

    @Test
    @DisplayName("6.2.10 CLIENT_ACKNOWLEDGE: acknowledge() covers every message the session delivered, on all its consumers")
    void clientAcknowledgeCoversTheSession() throws Exception {
        send("c1", "x1", "x2");
        send("c2", "y1");
        Session s = connection(broker).createSession(false, Session.CLIENT_ACKNOWLEDGE);
        MessageConsumer c1 = s.createConsumer(s.createQueue("c1"));
        MessageConsumer c2 = s.createConsumer(s.createQueue("c2"));
        Message x1 = c1.receive(RECEIVE_MS);
        assertThat(text(c1.receive(RECEIVE_MS))).isEqualTo("x2");
        assertThat(text(c2.receive(RECEIVE_MS))).isEqualTo("y1");
        x1.acknowledge(); // acknowledges x1, x2 and y1
        s.close();
        Session again = connection(broker).createSession(false, Session.AUTO_ACKNOWLEDGE);
        assertThat(again.createConsumer(again.createQueue("c1")).receive(500)).isNull();
        assertThat(again.createConsumer(again.createQueue("c2")).receive(500)).isNull();
    }

    @Test
    @DisplayName("6.2.10 CLIENT_ACKNOWLEDGE: unacknowledged messages come back, redelivered, after recover() or close")
    void clientAcknowledgeRecover() throws Exception {
        send("rec", "r1");
        Session s = connection(broker).createSession(false, Session.CLIENT_ACKNOWLEDGE);
        MessageConsumer c = s.createConsumer(s.createQueue("rec"));
        Message first = c.receive(RECEIVE_MS);
        assertThat(first.getJMSRedelivered()).isFalse();
        s.recover();
        Message again = c.receive(RECEIVE_MS);
        assertThat(text(again)).isEqualTo("r1");
        assertThat(again.getJMSRedelivered()).isTrue();
        s.close(); // not acknowledged: back to the queue

        Session other = connection(broker).createSession(false, Session.AUTO_ACKNOWLEDGE);
        assertThat(receiveText(other.createConsumer(other.createQueue("rec")))).isEqualTo("r1");
    }

    @Test
    @DisplayName("6.2.10 CLIENT_ACKNOWLEDGE: a consumer closed before acknowledge() still lets the session acknowledge its messages")
    void acknowledgeAfterConsumerClose() throws Exception {
        send("late", "l1");
        Session s = connection(broker).createSession(false, Session.CLIENT_ACKNOWLEDGE);
        MessageConsumer c = s.createConsumer(s.createQueue("late"));
        Message m = c.receive(RECEIVE_MS);
        c.close();
        m.acknowledge();
        s.close();
        Session again = connection(broker).createSession(false, Session.AUTO_ACKNOWLEDGE);
        assertThat(again.createConsumer(again.createQueue("late")).receive(500)).isNull();
    }

    @Test
    @DisplayName("8.7 AUTO_ACKNOWLEDGE listener that throws: the message is redelivered with JMSRedelivered set")
    void listenerThatThrowsGetsTheMessageAgain() throws Exception {
        Session s = connection(broker).createSession(false, Session.AUTO_ACKNOWLEDGE);
        MessageConsumer c = s.createConsumer(s.createQueue("throws"));
        List<Boolean> redelivered = new CopyOnWriteArrayList<>();
        c.setMessageListener(m -> {
            try {
                redelivered.add(m.getJMSRedelivered());
            } catch (jakarta.jms.JMSException e) {
                throw new IllegalStateException(e);
            }
            if (redelivered.size() == 1) {
                throw new IllegalStateException("listener fails once (expected by the test)");
            }
        });
        send("throws", "t1");
        await("delivered twice").atMost(WAIT).until(() -> redelivered.size() == 2);
        assertThat(redelivered).containsExactly(false, true);
    }
}
