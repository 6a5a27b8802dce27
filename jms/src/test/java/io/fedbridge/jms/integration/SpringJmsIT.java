package io.fedbridge.jms.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fedbridge.broker.Broker;
import io.fedbridge.jms.FedbridgeConnectionFactory;
import io.fedbridge.jms.FedbridgeJmsConfig;
import jakarta.jms.Message;
import jakarta.jms.TextMessage;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.jms.connection.CachingConnectionFactory;
import org.springframework.jms.connection.SingleConnectionFactory;
import org.springframework.jms.core.JmsTemplate;
import org.springframework.jms.listener.DefaultMessageListenerContainer;
import org.springframework.jms.listener.SessionAwareMessageListener;

/** Spring's JmsTemplate and DefaultMessageListenerContainer over fedbridge-jms, across two federated brokers. */
class SpringJmsIT extends JmsTestSupport {

    /** As a Spring Boot application has it: the factory inside Spring's CachingConnectionFactory. */
    private JmsTemplate template(Broker b) {
        CachingConnectionFactory cached = new CachingConnectionFactory(new FedbridgeConnectionFactory(tcp(b)));
        track(cached::destroy);
        JmsTemplate t = new JmsTemplate(cached);
        t.setReceiveTimeout(RECEIVE_MS);
        return t;
    }

    private DefaultMessageListenerContainer container(jakarta.jms.ConnectionFactory cf, String destination, Object listener) {
        DefaultMessageListenerContainer c = new DefaultMessageListenerContainer();
        c.setConnectionFactory(cf);
        c.setDestinationName(destination);
        c.setMessageListener(listener);
        c.setReceiveTimeout(200);
        c.afterPropertiesSet();
        track(c::shutdown);
        return c;
    }

    @Test
    void jmsTemplateShouldSendOnAAndReceiveOnB() throws Exception {
        Broker[] ab = federation();
        JmsTemplate onB = template(ab[1]);
        JmsTemplate onA = template(ab[0]);
        onA.convertAndSend("spring.in", "hello");
        // Each receive opens a consumer on B whose demand crosses the bridge; A then forwards the message.
        Object got = null;
        for (int i = 0; i < 5 && got == null; i++) {
            got = onB.receiveAndConvert("spring.in");
        }
        assertThat(got).isEqualTo("hello");
    }

    @Test
    void sendAndReceiveShouldGetTheReplyFromAListenerContainerOnTheOtherBroker() throws Exception {
        Broker[] ab = federation();
        DefaultMessageListenerContainer service = container(new FedbridgeConnectionFactory(tcp(ab[1])), "spring.rpc",
                (SessionAwareMessageListener<Message>) (m, session) -> {
                    TextMessage reply = session.createTextMessage("re: " + ((TextMessage) m).getText());
                    reply.setJMSCorrelationID(m.getJMSMessageID());
                    session.createProducer(m.getJMSReplyTo()).send(reply);
                });
        service.start();
        awaitConsumers(ab[0], "/queue/spring.rpc", 1);

        Message reply = template(ab[0]).sendAndReceive("spring.rpc", s -> s.createTextMessage("ping"));

        assertThat(reply).isInstanceOf(TextMessage.class);
        assertThat(((TextMessage) reply).getText()).isEqualTo("re: ping");
    }

    @Test
    void aTransactedListenerThatThrowsShouldRollBackAndGetTheMessageAgain() throws Exception {
        Broker[] ab = federation();
        List<String> seen = new CopyOnWriteArrayList<>();
        AtomicInteger calls = new AtomicInteger();
        DefaultMessageListenerContainer c = container(new FedbridgeConnectionFactory(tcp(ab[1])), "spring.tx",
                (SessionAwareMessageListener<Message>) (m, session) -> {
                    seen.add(((TextMessage) m).getText() + (m.getJMSRedelivered() ? " (redelivered)" : ""));
                    // the listener's send is part of the transaction: it must not survive the rollback
                    session.createProducer(session.createQueue("spring.tx.out")).send(session.createTextMessage("out-" + calls.get()));
                    if (calls.incrementAndGet() == 1) {
                        throw new IllegalStateException("first attempt fails");
                    }
                });
        c.setSessionTransacted(true);
        c.start();
        awaitConsumers(ab[0], "/queue/spring.tx", 1);

        template(ab[0]).convertAndSend("spring.tx", "job");

        await("the job processed twice, the second time redelivered").atMost(WAIT).until(() -> seen.size() == 2);
        assertThat(seen).containsExactly("job", "job (redelivered)");
        JmsTemplate out = template(ab[1]);
        out.setReceiveTimeout(1000);
        assertThat(out.receiveAndConvert("spring.tx.out")).isEqualTo("out-1");
        assertThat(out.receiveAndConvert("spring.tx.out")).isNull();
    }

    @Test
    void aDurableSubscriberContainerShouldGetWhatWasPublishedWhileItWasStopped() throws Exception {
        Broker[] ab = federation();
        SingleConnectionFactory f = new SingleConnectionFactory(new FedbridgeConnectionFactory(
                FedbridgeJmsConfig.builder(failover(ab[1], ab[0])).clientID("spring-audit").build()));
        track(f::destroy);
        List<String> seen = new CopyOnWriteArrayList<>();
        jakarta.jms.MessageListener listener = m -> {
            try {
                seen.add(((TextMessage) m).getText());
            } catch (jakarta.jms.JMSException e) {
                throw new IllegalStateException(e);
            }
        };
        DefaultMessageListenerContainer first = durableContainer(f, listener);
        first.start();
        JmsTemplate publisher = template(ab[1]);
        publisher.setPubSubDomain(true);
        await("the durable subscription exists").atMost(WAIT).until(() -> {
            publisher.convertAndSend("spring.events", "probe");
            return seen.contains("probe");
        });
        first.shutdown();

        publisher.convertAndSend("spring.events", "while-away");

        seen.clear();
        durableContainer(f, listener).start();
        await("the durable subscriber gets what was published while it was away").atMost(WAIT)
                .until(() -> seen.contains("while-away"));
    }

    private DefaultMessageListenerContainer durableContainer(SingleConnectionFactory f, jakarta.jms.MessageListener l) {
        DefaultMessageListenerContainer c = new DefaultMessageListenerContainer();
        c.setConnectionFactory(f);
        c.setDestinationName("spring.events");
        c.setPubSubDomain(true);
        c.setSubscriptionDurable(true);
        c.setDurableSubscriptionName("audit");
        c.setMessageListener(l);
        c.setReceiveTimeout(200);
        c.afterPropertiesSet();
        track(c::shutdown);
        return c;
    }
}
