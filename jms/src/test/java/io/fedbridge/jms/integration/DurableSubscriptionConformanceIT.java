package io.fedbridge.jms.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fedbridge.broker.Broker;
import io.fedbridge.jms.FedbridgeConnectionFactory;
import io.fedbridge.jms.FedbridgeJmsConfig;
import jakarta.jms.Connection;
import jakarta.jms.IllegalStateException;
import jakarta.jms.InvalidClientIDException;
import jakarta.jms.JMSContext;
import jakarta.jms.JMSException;
import jakarta.jms.JMSRuntimeException;
import jakarta.jms.MessageConsumer;
import jakarta.jms.MessageProducer;
import jakarta.jms.Session;
import jakarta.jms.Topic;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** Jakarta Messaging 3.1, section 8.3 (consumers on topics: durable, non-durable, shared) and 6.1.2 (client ID). */
class DurableSubscriptionConformanceIT extends JmsTestSupport {

    private Broker broker;
    private FedbridgeConnectionFactory withClientId;
    private Session publisher;
    private MessageProducer producer;
    private Topic topic;

    @BeforeEach
    void open() throws Exception {
        broker = startBroker("durable");
        withClientId = new FedbridgeConnectionFactory(FedbridgeJmsConfig.builder(tcp(broker)).clientID("app-1").build());
        publisher = connection(broker).createSession(false, Session.AUTO_ACKNOWLEDGE);
        topic = publisher.createTopic("news");
        producer = publisher.createProducer(topic);
    }

    private void publish(String body) throws JMSException {
        producer.send(publisher.createTextMessage(body));
    }

    @Test
    @DisplayName("8.3.1 a non-durable subscriber misses what is published while it does not exist")
    void nonDurableMissesMessages() throws Exception {
        Session s = connection(broker).createSession(false, Session.AUTO_ACKNOWLEDGE);
        publish("before");
        MessageConsumer c = s.createConsumer(topic);
        publish("after");
        assertThat(receiveText(c)).isEqualTo("after");
    }

    @Test
    @DisplayName("8.3.3 an unshared durable subscription keeps messages while no consumer is active, in order")
    void durableKeepsMessages() throws Exception {
        Connection c1 = connection(withClientId);
        c1.createSession(false, Session.AUTO_ACKNOWLEDGE).createDurableConsumer(topic, "sub").close();
        publish("k1");
        publish("k2");
        c1.close();
        MessageConsumer again = connection(withClientId).createSession(false, Session.AUTO_ACKNOWLEDGE)
                .createDurableConsumer(topic, "sub");
        assertThat(receiveText(again)).isEqualTo("k1");
        assertThat(receiveText(again)).isEqualTo("k2");
    }

    @Test
    @DisplayName("8.3.3 an unshared durable subscription needs a client ID and has one active consumer at a time")
    void durableNeedsClientIdAndOneConsumer() throws Exception {
        Session noId = connection(broker).createSession(false, Session.AUTO_ACKNOWLEDGE);
        assertThatThrownBy(() -> noId.createDurableConsumer(topic, "sub")).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("client ID");
        Session s = connection(withClientId).createSession(false, Session.AUTO_ACKNOWLEDGE);
        s.createDurableConsumer(topic, "one");
        assertThatThrownBy(() -> s.createDurableConsumer(topic, "one")).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("active consumer");
    }

    @Test
    @DisplayName("8.3.3 a changed selector replaces the subscription; unsubscribe deletes it and refuses while it is active")
    void changeAndUnsubscribe() throws Exception {
        Session s = connection(withClientId).createSession(false, Session.AUTO_ACKNOWLEDGE);
        MessageConsumer c = s.createDurableConsumer(topic, "sel");
        assertThatThrownBy(() -> s.unsubscribe("sel")).isInstanceOf(IllegalStateException.class);
        c.close();
        publish("kept-by-the-old-one");
        MessageConsumer changed = s.createDurableConsumer(topic, "sel", "kind = 'x'", false);
        assertThat(changed.receive(500)).isNull(); // the old subscription and its message are gone
        changed.close();

        s.unsubscribe("sel");
        jakarta.jms.Message m = publisher.createTextMessage("after-unsubscribe");
        m.setStringProperty("kind", "x");
        producer.send(m);
        MessageConsumer fresh = s.createDurableConsumer(topic, "sel", "kind = 'x'", false);
        assertThat(fresh.receive(500)).isNull();
    }

    @Test
    @DisplayName("6.1.2 a client ID is held by one live connection: a second one is refused with InvalidClientIDException")
    void clientIdIsExclusive() throws Exception {
        connection(withClientId);
        assertThatThrownBy(withClientId::createConnection).isInstanceOf(InvalidClientIDException.class)
                .hasMessageContaining("app-1");
    }

    @Test
    @DisplayName("8.3.2 a shared non-durable subscription hands each message to one of its consumers")
    void sharedNonDurable() throws Exception {
        Connection c = connection(withClientId);
        MessageConsumer one = c.createSession(false, Session.AUTO_ACKNOWLEDGE).createSharedConsumer(topic, "workers");
        MessageConsumer two = c.createSession(false, Session.AUTO_ACKNOWLEDGE).createSharedConsumer(topic, "workers");
        MessageConsumer unshared = c.createSession(false, Session.AUTO_ACKNOWLEDGE).createConsumer(topic);
        for (int i = 0; i < 10; i++) {
            publish("s" + i);
        }
        java.util.List<String> got = new java.util.ArrayList<>();
        for (MessageConsumer m : new MessageConsumer[] {one, two}) {
            String t;
            while ((t = text(m.receive(300))) != null) {
                got.add(t);
            }
        }
        assertThat(got).hasSize(10).doesNotHaveDuplicates();
        assertThat(receiveText(unshared)).isEqualTo("s0"); // a subscription of its own gets its own copy
    }

    @Test
    @DisplayName("8.3.4 a shared durable subscription keeps messages while it has no consumer; its consumers share them")
    void sharedDurable() throws Exception {
        Connection c1 = connection(withClientId);
        c1.createSession(false, Session.AUTO_ACKNOWLEDGE).createSharedDurableConsumer(topic, "audit").close();
        publish("d1");
        publish("d2");
        c1.close();
        Connection c2 = connection(withClientId);
        MessageConsumer a = c2.createSession(false, Session.AUTO_ACKNOWLEDGE).createSharedDurableConsumer(topic, "audit");
        MessageConsumer b = c2.createSession(false, Session.AUTO_ACKNOWLEDGE).createSharedDurableConsumer(topic, "audit");
        java.util.Set<String> got = new java.util.HashSet<>();
        for (int i = 0; i < 10 && got.size() < 2; i++) {
            for (MessageConsumer m : new MessageConsumer[] {a, b}) {
                String t = text(m.receive(100));
                if (t != null) {
                    assertThat(got.add(t)).as("delivered once: " + t).isTrue();
                }
            }
        }
        assertThat(got).containsExactlyInAnyOrder("d1", "d2");
        Session s = c2.createSession(false, Session.AUTO_ACKNOWLEDGE);
        assertThatThrownBy(() -> s.createDurableConsumer(topic, "audit")).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("shared");
        assertThatThrownBy(() -> s.createSharedDurableConsumer(publisher.createTopic("other"), "audit"))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("cannot join");
        assertThatThrownBy(() -> s.unsubscribe("audit")).isInstanceOf(IllegalStateException.class);
    }

    @Test
    @DisplayName("8.3.2 and 8.3.4 without a client ID fedbridge cannot share a subscription: refused, naming why")
    void sharedNeedsAClientId() throws Exception {
        Session s = connection(broker).createSession(false, Session.AUTO_ACKNOWLEDGE);
        assertThatThrownBy(() -> s.createSharedConsumer(topic, "shared")).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("client ID");
        assertThatThrownBy(() -> s.createSharedDurableConsumer(topic, "shared")).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("client ID");
        try (JMSContext ctx = factory(broker).createContext()) {
            assertThatThrownBy(() -> ctx.createSharedConsumer(topic, "shared")).isInstanceOf(JMSRuntimeException.class);
        }
    }
}
