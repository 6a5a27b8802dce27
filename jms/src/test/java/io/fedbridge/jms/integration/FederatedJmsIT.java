package io.fedbridge.jms.integration;

import static org.assertj.core.api.Assertions.assertThat;

import io.fedbridge.broker.Broker;
import io.fedbridge.jms.FedbridgeConnectionFactory;
import io.fedbridge.jms.FedbridgeJmsConfig;
import jakarta.jms.Connection;
import jakarta.jms.Message;
import jakarta.jms.MessageConsumer;
import jakarta.jms.MessageProducer;
import jakarta.jms.Queue;
import jakarta.jms.Session;
import jakarta.jms.TemporaryQueue;
import jakarta.jms.TextMessage;
import jakarta.jms.Topic;
import org.junit.jupiter.api.Test;

/** The JMS client across a federation of two brokers A and B (a duplex bridge): what the scenarios need. */
class FederatedJmsIT extends JmsTestSupport {

    @Test
    void shouldDeliverASendOnAToAConsumerOnB() throws Exception {
        Broker[] ab = federation();
        Session onB = connection(ab[1]).createSession(false, Session.AUTO_ACKNOWLEDGE);
        Queue q = onB.createQueue("orders");
        MessageConsumer consumer = onB.createConsumer(q);
        awaitConsumers(ab[0], "/queue/orders", 1);

        Session onA = connection(ab[0]).createSession(false, Session.AUTO_ACKNOWLEDGE);
        MessageProducer producer = onA.createProducer(q);
        TextMessage sent = onA.createTextMessage("hello from A");
        producer.send(sent);

        Message got = consumer.receive(RECEIVE_MS);
        assertThat(text(got)).isEqualTo("hello from A");
        assertThat(got.getJMSMessageID()).isEqualTo(sent.getJMSMessageID()).startsWith("ID:");
        assertThat(got.getJMSDestination()).isEqualTo(q);
    }

    @Test
    void shouldAnswerARequestAcrossBrokersThroughATemporaryReplyQueue() throws Exception {
        Broker[] ab = federation();
        Session service = connection(ab[1]).createSession(false, Session.AUTO_ACKNOWLEDGE);
        MessageConsumer requests = service.createConsumer(service.createQueue("rpc"));
        MessageProducer replies = service.createProducer(null);
        requests.setMessageListener(m -> {
            try {
                TextMessage reply = service.createTextMessage("re: " + text(m));
                reply.setJMSCorrelationID(m.getJMSMessageID());
                replies.send(m.getJMSReplyTo(), reply);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        awaitConsumers(ab[0], "/queue/rpc", 1);

        Session client = connection(ab[0]).createSession(false, Session.AUTO_ACKNOWLEDGE);
        TemporaryQueue replyTo = client.createTemporaryQueue();
        MessageConsumer replyConsumer = client.createConsumer(replyTo);
        TextMessage request = client.createTextMessage("ping");
        request.setJMSReplyTo(replyTo);
        client.createProducer(client.createQueue("rpc")).send(request);

        Message reply = replyConsumer.receive(RECEIVE_MS);
        assertThat(text(reply)).isEqualTo("re: ping");
        assertThat(reply.getJMSCorrelationID()).isEqualTo(request.getJMSMessageID());
    }

    @Test
    void shouldKeepADurableSubscriptionsMessagesWhileItsSubscriberIsAway() throws Exception {
        Broker[] ab = federation();
        FedbridgeConnectionFactory f = new FedbridgeConnectionFactory(FedbridgeJmsConfig.builder(tcp(ab[1]))
                .clientID("audit").build());
        Connection c1 = connection(f);
        Session s1 = c1.createSession(false, Session.AUTO_ACKNOWLEDGE);
        Topic topic = s1.createTopic("events");
        MessageConsumer sub = s1.createDurableConsumer(topic, "audit-log");
        Session pub = connection(ab[0]).createSession(false, Session.AUTO_ACKNOWLEDGE);
        MessageProducer producer = pub.createProducer(topic);
        org.awaitility.Awaitility.await("the durable subscription's demand reaches A").atMost(WAIT).until(() -> {
            producer.send(pub.createTextMessage("probe"));
            return sub.receive(200) != null;
        });
        while (sub.receive(300) != null) {
            // drain probes
        }
        c1.close();

        // While it is away the subscription is kept by B, its broker: a bridge forwards only for live consumers, so the
        // messages it keeps are those published on B.
        Session pubOnB = connection(ab[1]).createSession(false, Session.AUTO_ACKNOWLEDGE);
        MessageProducer producerOnB = pubOnB.createProducer(topic);
        for (int i = 1; i <= 3; i++) {
            producerOnB.send(pubOnB.createTextMessage("while-away-" + i));
        }

        Connection c2 = connection(f);
        MessageConsumer again = c2.createSession(false, Session.AUTO_ACKNOWLEDGE).createDurableConsumer(topic, "audit-log");
        assertThat(receiveText(again)).isEqualTo("while-away-1");
        assertThat(receiveText(again)).isEqualTo("while-away-2");
        assertThat(receiveText(again)).isEqualTo("while-away-3");
    }
}
