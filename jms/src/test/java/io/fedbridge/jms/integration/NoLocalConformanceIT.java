package io.fedbridge.jms.integration;

import static org.assertj.core.api.Assertions.assertThat;

import io.fedbridge.broker.Broker;
import io.fedbridge.jms.FedbridgeConnectionFactory;
import io.fedbridge.jms.FedbridgeJmsConfig;
import jakarta.jms.Connection;
import jakarta.jms.MessageConsumer;
import jakarta.jms.MessageProducer;
import jakarta.jms.Session;
import jakarta.jms.Topic;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Jakarta Messaging 3.1 {@code noLocal} on topic consumers (Session.createConsumer/createDurableConsumer): messages
 * published by the consumer's own connection (for a durable subscription, its client ID) are not delivered.
 */
class NoLocalConformanceIT extends JmsTestSupport {

    @Test
    @DisplayName("noLocal: a topic consumer skips its own connection's messages and gets another connection's")
    void noLocalSkipsOwnConnectionsMessages() throws Exception {
        Broker broker = startBroker("nolocal");
        Connection own = connection(broker);
        Session s = own.createSession(false, Session.AUTO_ACKNOWLEDGE);
        Topic t = s.createTopic("chat");
        MessageConsumer noLocal = s.createConsumer(t, null, true);
        MessageConsumer all = s.createConsumer(t);
        assertThat(((jakarta.jms.TopicSubscriber) noLocal).getNoLocal()).isTrue();
        assertThat(((jakarta.jms.TopicSubscriber) all).getNoLocal()).isFalse();

        s.createProducer(t).send(s.createTextMessage("mine"));
        Session other = connection(broker).createSession(false, Session.AUTO_ACKNOWLEDGE);
        other.createProducer(t).send(other.createTextMessage("theirs"));

        assertThat(receiveText(all)).isEqualTo("mine");
        assertThat(receiveText(all)).isEqualTo("theirs");
        assertThat(receiveText(noLocal)).isEqualTo("theirs");
        assertThat(noLocal.receive(300)).isNull();
        assertThat(noLocal.getMessageSelector()).as("the application's selector, not the wire's").isNull();
    }

    @Test
    @DisplayName("noLocal with a selector and across the federation: a consumer on B skips B-connection's own, not A's")
    void noLocalCombinesWithASelectorAcrossBrokers() throws Exception {
        Broker[] ab = federation();
        Session onB = connection(ab[1]).createSession(false, Session.AUTO_ACKNOWLEDGE);
        Topic t = onB.createTopic("prices");
        MessageConsumer c = onB.createConsumer(t, "kind = 'bid'", true);
        Session onA = connection(ab[0]).createSession(false, Session.AUTO_ACKNOWLEDGE);
        MessageProducer fromA = onA.createProducer(t);
        org.awaitility.Awaitility.await("B's topic demand reached A").atMost(WAIT).until(() -> {
            var probe = onA.createTextMessage("probe");
            probe.setStringProperty("kind", "bid");
            fromA.send(probe);
            return c.receive(200) != null;
        });
        while (c.receive(300) != null) {
            // probes still on their way
        }
        for (String kind : new String[] {"ask", "bid"}) {
            var m = onA.createTextMessage("A " + kind);
            m.setStringProperty("kind", kind);
            fromA.send(m);
            var own = onB.createTextMessage("B " + kind);
            own.setStringProperty("kind", kind);
            onB.createProducer(t).send(own);
        }
        assertThat(receiveText(c)).isEqualTo("A bid");
        assertThat(c.receive(300)).isNull();
    }

    @Test
    @DisplayName("noLocal on a durable subscription: the client ID's own messages are not kept for it")
    void durableNoLocalSkipsTheClientIdsMessages() throws Exception {
        Broker broker = startBroker("nolocal-durable");
        FedbridgeConnectionFactory f = new FedbridgeConnectionFactory(FedbridgeJmsConfig.builder(tcp(broker))
                .clientID("desk").build());
        Connection own = connection(f);
        Session s = own.createSession(false, Session.AUTO_ACKNOWLEDGE);
        Topic t = s.createTopic("desk.news");
        MessageConsumer sub = s.createDurableConsumer(t, "desk-news", null, true);
        s.createProducer(t).send(s.createTextMessage("own"));
        Session other = connection(broker).createSession(false, Session.AUTO_ACKNOWLEDGE);
        other.createProducer(t).send(other.createTextMessage("wire"));
        assertThat(receiveText(sub)).isEqualTo("wire");
        assertThat(sub.receive(300)).isNull();
    }
}
