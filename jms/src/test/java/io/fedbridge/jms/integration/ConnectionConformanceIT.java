package io.fedbridge.jms.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fedbridge.broker.Broker;
import io.fedbridge.jms.FedbridgeConnectionFactory;
import jakarta.jms.Connection;
import jakarta.jms.IllegalStateException;
import jakarta.jms.JMSException;
import jakarta.jms.MessageConsumer;
import jakarta.jms.Session;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** Jakarta Messaging 3.1, section 6.1 (connections), 8.8 (closing a consumer), and what fedbridge-jms refuses. */
class ConnectionConformanceIT extends JmsTestSupport {

    private Broker broker;

    @BeforeEach
    void open() {
        broker = startBroker("conn");
    }

    @Test
    @DisplayName("6.1.4 a connection delivers nothing until started; 6.1.5 stop pauses receive and listeners, start resumes")
    void startAndStop() throws Exception {
        Connection c = track(factory(broker).createConnection());
        Session s = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
        MessageConsumer pull = s.createConsumer(s.createQueue("ss.pull"));
        s.createProducer(s.createQueue("ss.pull")).send(s.createTextMessage("p"));
        assertThat(pull.receive(300)).isNull();
        c.start();
        assertThat(receiveText(pull)).isEqualTo("p");

        Session ls = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
        List<String> got = new CopyOnWriteArrayList<>();
        ls.createConsumer(ls.createQueue("ss.push")).setMessageListener(m -> got.add("m"));
        c.stop();
        s.createProducer(s.createQueue("ss.push")).send(s.createTextMessage("x"));
        s.createProducer(s.createQueue("ss.pull")).send(s.createTextMessage("y"));
        assertThat(pull.receive(300)).isNull();
        assertThat(got).isEmpty();
        c.start();
        await("the listener runs after start").atMost(WAIT).until(() -> got.size() == 1);
        assertThat(receiveText(pull)).isEqualTo("y");
    }

    @Test
    @DisplayName("6.1.2 setClientID only right after creation; a factory's client ID cannot be changed")
    void clientIdRules() throws Exception {
        Connection c = track(factory(broker).createConnection());
        c.setClientID("late-but-first");
        assertThat(c.getClientID()).isEqualTo("late-but-first");
        assertThatThrownBy(() -> c.setClientID("again")).isInstanceOf(IllegalStateException.class);

        Connection used = track(factory(broker).createConnection());
        used.createSession(false, Session.AUTO_ACKNOWLEDGE);
        assertThatThrownBy(() -> used.setClientID("too-late")).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("6.1.2");
    }

    @Test
    @DisplayName("6.1.6 ConnectionMetaData names Jakarta Messaging 3.1 and the JMSX properties supported")
    void metaData() throws Exception {
        Connection c = connection(broker);
        assertThat(c.getMetaData().getJMSVersion()).isEqualTo("3.1");
        assertThat(c.getMetaData().getJMSProviderName()).isEqualTo("fedbridge");
        assertThat(names(c.getMetaData().getJMSXPropertyNames())).contains("JMSXDeliveryCount");
    }

    @Test
    @DisplayName("6.1.7 the ExceptionListener hears when the failover client gives up")
    void exceptionListenerOnGiveUp() throws Exception {
        Broker lonely = startBroker("gone");
        Connection c = connection(new FedbridgeConnectionFactory(tcp(lonely))); // one broker: no retry
        AtomicReference<JMSException> heard = new AtomicReference<>();
        c.setExceptionListener(heard::set);
        lonely.close();
        await("the ExceptionListener is called").atMost(WAIT).until(() -> heard.get() != null);
        assertThat(heard.get()).hasMessageContaining("lost");
    }

    @Test
    @DisplayName("8.8 closing a consumer from another thread makes a blocked receive return null")
    void closeWakesReceive() throws Exception {
        Session s = connection(broker).createSession(false, Session.AUTO_ACKNOWLEDGE);
        MessageConsumer c = s.createConsumer(s.createQueue("blocked"));
        CompletableFuture<Object> receiving = CompletableFuture.supplyAsync(() -> {
            try {
                return c.receive();
            } catch (JMSException e) {
                return e;
            }
        });
        await("receive is blocked").during(java.time.Duration.ofMillis(200)).atMost(WAIT).until(() -> !receiving.isDone());
        c.close();
        assertThat(receiving.get(5, TimeUnit.SECONDS)).isNull();
    }

    @Test
    @DisplayName("the connection factory as a properties-configured bean; unknown properties and bad URLs fail clearly")
    void factoryConfiguration() throws Exception {
        Properties p = new Properties();
        p.setProperty("brokerURL", tcp(broker));
        p.setProperty("clientID", "props");
        FedbridgeConnectionFactory f = new FedbridgeConnectionFactory(p);
        assertThat(connection(f).getClientID()).isEqualTo("props");

        p.setProperty("brokerUrl", "x");
        assertThatThrownBy(() -> new FedbridgeConnectionFactory(p)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("valid properties are: brokerURL");
        FedbridgeConnectionFactory bean = new FedbridgeConnectionFactory();
        assertThatThrownBy(bean::createConnection).isInstanceOf(JMSException.class).hasMessageContaining("brokerURL");
        bean.setBrokerURL("failover:(" + tcp(broker) + ")?nonsense=1");
        assertThatThrownBy(bean::createConnection).isInstanceOf(JMSException.class).hasMessageContaining("nonsense");
    }

    @Test
    @DisplayName("unsupported facilities fail with an error naming them: ConnectionConsumer, Session.setMessageListener")
    void unsupportedFacilities() throws Exception {
        Connection c = connection(broker);
        Session s = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
        assertThatThrownBy(() -> c.createConnectionConsumer(s.createQueue("q"), null, null, 1))
                .isInstanceOf(JMSException.class).hasMessageContaining("ConnectionConsumer");
        assertThatThrownBy(() -> s.setMessageListener(m -> { })).isInstanceOf(JMSException.class)
                .hasMessageContaining("Session.setMessageListener");
    }

    @Test
    @DisplayName("6.1.1 authentication: the factory's or createConnection's credentials; wrong ones fail with JMSSecurityException")
    void authentication() throws Exception {
        Broker secured = track(Broker.start(io.fedbridge.broker.BrokerConfig.builder("secured").listen("tcp://127.0.0.1:0")
                .security(io.fedbridge.broker.security.SecurityConfig.builder().allowAnonymous(false)
                        .authenticator((login, passcode, certs) -> {
                            if (login == null) {
                                return null;
                            }
                            if ("app".equals(login) && "s3cret".equals(passcode)) {
                                return io.fedbridge.broker.security.Identity.of("app", java.util.Set.of("apps"));
                            }
                            throw new io.fedbridge.broker.security.AuthenticationException("wrong passcode for " + login);
                        }).build()).build()));
        FedbridgeConnectionFactory f = new FedbridgeConnectionFactory(tcp(secured));

        assertThatThrownBy(() -> f.createConnection("app", "wrong")).isInstanceOf(jakarta.jms.JMSSecurityException.class);

        Session s = track(f.createConnection("app", "s3cret")).createSession(false, Session.AUTO_ACKNOWLEDGE);
        s.createProducer(s.createQueue("secured")).send(s.createTextMessage("in"));
        f.setUserName("app");
        f.setPassword("s3cret");
        Connection c = connection(f);
        assertThat(receiveText(c.createSession(false, Session.AUTO_ACKNOWLEDGE).createConsumer(
                s.createQueue("secured")))).isEqualTo("in");
    }
}
