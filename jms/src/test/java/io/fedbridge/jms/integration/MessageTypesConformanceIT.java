package io.fedbridge.jms.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fedbridge.broker.Broker;
import io.fedbridge.jms.FedbridgeConnectionFactory;
import io.fedbridge.jms.FedbridgeJmsConfig;
import jakarta.jms.BytesMessage;
import jakarta.jms.MapMessage;
import jakarta.jms.Message;
import jakarta.jms.MessageConsumer;
import jakarta.jms.MessageEOFException;
import jakarta.jms.MessageFormatException;
import jakarta.jms.MessageNotWriteableException;
import jakarta.jms.MessageProducer;
import jakarta.jms.ObjectMessage;
import jakarta.jms.Queue;
import jakarta.jms.Session;
import jakarta.jms.StreamMessage;
import jakarta.jms.TextMessage;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** Jakarta Messaging 3.1, section 3.11 (message body) and 3.12: each message type survives the STOMP round trip. */
class MessageTypesConformanceIT extends JmsTestSupport {

    private Broker broker;
    private Session session;
    private MessageProducer producer;
    private MessageConsumer consumer;

    @BeforeEach
    void open() throws Exception {
        broker = startBroker("types");
        session = connection(broker).createSession(false, Session.AUTO_ACKNOWLEDGE);
        Queue q = session.createQueue("types");
        producer = session.createProducer(q);
        consumer = session.createConsumer(q);
    }

    private Message roundTrip(Message m) throws Exception {
        producer.send(m);
        Message got = consumer.receive(RECEIVE_MS);
        assertThat(got).isNotNull();
        return got;
    }

    @Test
    @DisplayName("3.11 TextMessage: the text, non-ASCII included, and a null body")
    void textMessage() throws Exception {
        assertThat(((TextMessage) roundTrip(session.createTextMessage("héllo ✓ 日本"))).getText()).isEqualTo("héllo ✓ 日本");
        assertThat(roundTrip(session.createTextMessage("x")).getBody(String.class)).isEqualTo("x");
    }

    @Test
    @DisplayName("3.11 BytesMessage: typed writes read back in order, end of body, body length")
    void bytesMessage() throws Exception {
        BytesMessage m = session.createBytesMessage();
        m.writeInt(42);
        m.writeUTF("name");
        m.writeBoolean(true);
        m.writeBytes(new byte[] {1, 2, 3});
        m.writeObject(2.5d);
        BytesMessage got = (BytesMessage) roundTrip(m);
        assertThat(got.getBodyLength()).isEqualTo(4 + 2 + 4 + 1 + 3 + 8);
        assertThat(got.readInt()).isEqualTo(42);
        assertThat(got.readUTF()).isEqualTo("name");
        assertThat(got.readBoolean()).isTrue();
        byte[] three = new byte[3];
        assertThat(got.readBytes(three)).isEqualTo(3);
        assertThat(three).containsExactly(1, 2, 3);
        assertThat(got.readDouble()).isEqualTo(2.5d);
        assertThatThrownBy(got::readByte).isInstanceOf(MessageEOFException.class);
    }

    @Test
    @DisplayName("3.11.3 MapMessage: every type, and the conversions of the table")
    void mapMessage() throws Exception {
        MapMessage m = session.createMapMessage();
        m.setBoolean("b", true);
        m.setByte("y", (byte) 7);
        m.setShort("s", (short) 300);
        m.setChar("c", 'x');
        m.setInt("i", 70_000);
        m.setLong("l", 1L << 40);
        m.setFloat("f", 1.5f);
        m.setDouble("d", 2.25);
        m.setString("t", "123");
        m.setBytes("raw", new byte[] {9, 8});
        m.setObject("none", null);
        MapMessage got = (MapMessage) roundTrip(m);
        assertThat(got.getBoolean("b")).isTrue();
        assertThat(got.getShort("y")).isEqualTo((short) 7);
        assertThat(got.getInt("s")).isEqualTo(300);
        assertThat(got.getChar("c")).isEqualTo('x');
        assertThat(got.getLong("i")).isEqualTo(70_000L);
        assertThat(got.getLong("l")).isEqualTo(1L << 40);
        assertThat(got.getDouble("f")).isEqualTo(1.5);
        assertThat(got.getDouble("d")).isEqualTo(2.25);
        assertThat(got.getInt("t")).isEqualTo(123);
        assertThat(got.getString("i")).isEqualTo("70000");
        assertThat(got.getBytes("raw")).containsExactly(9, 8);
        assertThat(got.itemExists("none")).isTrue();
        assertThat(got.getObject("none")).isNull();
        assertThatThrownBy(() -> got.getInt("b")).isInstanceOf(MessageFormatException.class);
        assertThatThrownBy(() -> got.setInt("x", 1)).isInstanceOf(MessageNotWriteableException.class);
    }

    @Test
    @DisplayName("3.11.3 StreamMessage: values in order, conversions, a failed conversion keeps the position")
    void streamMessage() throws Exception {
        StreamMessage m = session.createStreamMessage();
        m.writeInt(5);
        m.writeString("7");
        m.writeBytes(new byte[] {1, 2, 3, 4});
        m.writeBoolean(false);
        StreamMessage got = (StreamMessage) roundTrip(m);
        assertThat(got.readLong()).isEqualTo(5L);
        assertThatThrownBy(got::readChar).isInstanceOf(MessageFormatException.class); // "7" is no char...
        assertThat(got.readInt()).isEqualTo(7); // ...and it is still next
        List<Byte> bytes = new ArrayList<>();
        byte[] two = new byte[2];
        int n;
        while ((n = got.readBytes(two)) > 0) {
            for (int i = 0; i < n; i++) {
                bytes.add(two[i]);
            }
            if (n < two.length) {
                break;
            }
        }
        assertThat(bytes).containsExactly((byte) 1, (byte) 2, (byte) 3, (byte) 4);
        assertThat(got.readObject()).isEqualTo(false);
        assertThatThrownBy(got::readObject).isInstanceOf(MessageEOFException.class);
    }

    @Test
    @DisplayName("3.11 ObjectMessage: refused unless its packages are trusted")
    void objectMessageIsRefusedUnlessTrusted() throws Exception {
        ObjectMessage got = (ObjectMessage) roundTrip(session.createObjectMessage(new ArrayList<>(List.of("a"))));
        assertThatThrownBy(got::getObject).isInstanceOf(MessageFormatException.class).hasMessageContaining("trustedPackages");

        FedbridgeConnectionFactory trusting = new FedbridgeConnectionFactory(FedbridgeJmsConfig.builder(tcp(broker))
                .trustedPackages(List.of("java.util")).build());
        Session s = connection(trusting).createSession(false, Session.AUTO_ACKNOWLEDGE);
        MessageConsumer c = s.createConsumer(s.createQueue("objects"));
        MessageProducer p = s.createProducer(s.createQueue("objects"));
        p.send(s.createObjectMessage(new ArrayList<>(List.of("a", "b"))));
        assertThat(((ObjectMessage) c.receive(RECEIVE_MS)).getObject()).isEqualTo(List.of("a", "b"));

        p.send(s.createObjectMessage(new Untrusted()));
        ObjectMessage untrusted = (ObjectMessage) c.receive(RECEIVE_MS);
        assertThatThrownBy(untrusted::getObject).isInstanceOf(MessageFormatException.class).hasMessageContaining("outside");
    }

    static final class Untrusted implements java.io.Serializable {
        private static final long serialVersionUID = 1L;
    }

    @Test
    @DisplayName("3.11.2 a received body is read-only until clearBody; 3.11.1 clearBody empties it")
    void receivedBodyIsReadOnly() throws Exception {
        TextMessage got = (TextMessage) roundTrip(session.createTextMessage("x"));
        assertThatThrownBy(() -> got.setText("y")).isInstanceOf(MessageNotWriteableException.class);
        got.clearBody();
        assertThat(got.getText()).isNull();
        got.setText("y");
        assertThat(got.getText()).isEqualTo("y");
    }

    @Test
    @DisplayName("3.11.4 a plain STOMP client's frame: text without content-type, bytes with one")
    void messagesOfNonJmsClients() throws Exception {
        try (io.fedbridge.failover.FailoverClient stomp = io.fedbridge.failover.FailoverClient.connect(tcp(broker))) {
            stomp.send(io.fedbridge.core.Message.builder("/queue/types").body("plain").header("region", "eu").build());
            stomp.send(io.fedbridge.core.Message.builder("/queue/types").body(new byte[] {(byte) 0xff, 0})
                    .contentType("application/octet-stream").build());
        }
        Message text = consumer.receive(RECEIVE_MS);
        assertThat(text).isInstanceOf(TextMessage.class);
        assertThat(((TextMessage) text).getText()).isEqualTo("plain");
        assertThat(text.getStringProperty("region")).isEqualTo("eu");
        Message bytes = consumer.receive(RECEIVE_MS);
        assertThat(bytes).isInstanceOf(BytesMessage.class);
        assertThat(bytes.getBody(byte[].class)).containsExactly((byte) 0xff, 0);
    }
}
