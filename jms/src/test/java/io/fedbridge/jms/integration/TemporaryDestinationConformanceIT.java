package io.fedbridge.jms.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fedbridge.broker.Broker;
import jakarta.jms.InvalidDestinationException;
import jakarta.jms.MessageConsumer;
import jakarta.jms.Session;
import jakarta.jms.TemporaryQueue;
import jakarta.jms.TemporaryTopic;
import jakarta.jms.TextMessage;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** Jakarta Messaging 3.1, sections 4.1.5, 4.2.7 and 6.2.2 (temporary destinations), and 3.4.6 request-reply. */
class TemporaryDestinationConformanceIT extends JmsTestSupport {

    private Broker broker;
    private Session owner;

    @BeforeEach
    void open() throws Exception {
        broker = startBroker("temp");
        owner = connection(broker).createSession(false, Session.AUTO_ACKNOWLEDGE);
    }

    @Test
    @DisplayName("6.2.2 only the connection that created a temporary queue may consume from it")
    void onlyTheOwnerConsumes() throws Exception {
        TemporaryQueue q = owner.createTemporaryQueue();
        Session other = connection(broker).createSession(false, Session.AUTO_ACKNOWLEDGE);
        assertThatThrownBy(() -> other.createConsumer(q)).isInstanceOf(InvalidDestinationException.class)
                .hasMessageContaining("belongs to another connection");
    }

    @Test
    @DisplayName("4.1.5 any connection may send to a temporary queue: messages reach its owner")
    void anyConnectionSends() throws Exception {
        TemporaryQueue q = owner.createTemporaryQueue();
        MessageConsumer c = owner.createConsumer(q);
        Session other = connection(broker).createSession(false, Session.AUTO_ACKNOWLEDGE);
        other.createProducer(q).send(other.createTextMessage("to the owner"));
        assertThat(receiveText(c)).isEqualTo("to the owner");
    }

    @Test
    @DisplayName("4.2.7 a temporary topic delivers to its owner's subscribers")
    void temporaryTopic() throws Exception {
        TemporaryTopic t = owner.createTemporaryTopic();
        MessageConsumer c = owner.createConsumer(t);
        owner.createProducer(t).send(owner.createTextMessage("topic"));
        assertThat(receiveText(c)).isEqualTo("topic");
    }

    @Test
    @DisplayName("3.4.6 JMSReplyTo names a temporary queue the responder, on another connection, answers to")
    void requestReply() throws Exception {
        Session service = connection(broker).createSession(false, Session.AUTO_ACKNOWLEDGE);
        MessageConsumer requests = service.createConsumer(service.createQueue("temp.rpc"));
        TemporaryQueue replies = owner.createTemporaryQueue();
        MessageConsumer replyConsumer = owner.createConsumer(replies);
        TextMessage request = owner.createTextMessage("q");
        request.setJMSReplyTo(replies);
        owner.createProducer(owner.createQueue("temp.rpc")).send(request);

        TextMessage got = (TextMessage) requests.receive(RECEIVE_MS);
        assertThat(got.getJMSReplyTo()).isInstanceOf(TemporaryQueue.class);
        TextMessage answer = service.createTextMessage("a");
        answer.setJMSCorrelationID(got.getJMSMessageID());
        service.createProducer(got.getJMSReplyTo()).send(answer);

        TextMessage reply = (TextMessage) replyConsumer.receive(RECEIVE_MS);
        assertThat(reply.getText()).isEqualTo("a");
        assertThat(reply.getJMSCorrelationID()).isEqualTo(request.getJMSMessageID());
        // the responder cannot read the requester's reply queue
        assertThatThrownBy(() -> service.createConsumer(got.getJMSReplyTo())).isInstanceOf(InvalidDestinationException.class);
    }

    @Test
    @DisplayName("4.1.5 delete() fails while a consumer uses it; a deleted one cannot be consumed")
    void delete() throws Exception {
        TemporaryQueue q = owner.createTemporaryQueue();
        MessageConsumer c = owner.createConsumer(q);
        assertThatThrownBy(q::delete).isInstanceOf(jakarta.jms.JMSException.class).hasMessageContaining("consumer");
        c.close();
        q.delete();
        assertThatThrownBy(() -> owner.createConsumer(q)).isInstanceOf(InvalidDestinationException.class)
                .hasMessageContaining("deleted");
    }
}
