package io.fedbridge.jms.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fedbridge.broker.Broker;
import jakarta.jms.InvalidSelectorException;
import jakarta.jms.JMSContext;
import jakarta.jms.Message;
import jakarta.jms.MessageProducer;
import jakarta.jms.Queue;
import jakarta.jms.QueueBrowser;
import jakarta.jms.Session;
import jakarta.jms.TemporaryQueue;
import jakarta.jms.TextMessage;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Jakarta Messaging 3.1 QueueBrowser (its javadoc's contract; STOMP {@code SUBSCRIBE browser:true}): look at a queue's
 * messages in the order they would be received, without removing them; with a selector; never before their delivery
 * time.
 */
class QueueBrowserConformanceIT extends JmsTestSupport {

    private Broker broker;
    private Session session;
    private Queue queue;
    private MessageProducer producer;

    @BeforeEach
    void open() throws Exception {
        broker = startBroker("browse");
        session = connection(broker).createSession(false, Session.AUTO_ACKNOWLEDGE);
        queue = session.createQueue("browsed");
        producer = session.createProducer(queue);
    }

    private List<String> browse(QueueBrowser b) throws Exception {
        List<String> out = new ArrayList<>();
        for (Enumeration<?> e = b.getEnumeration(); e.hasMoreElements(); ) {
            out.add(text((Message) e.nextElement()));
        }
        return out;
    }

    @Test
    @DisplayName("QueueBrowser: the messages in receive order (priority first), left in the queue for a consumer")
    void browsingLeavesTheMessages() throws Exception {
        producer.send(session.createTextMessage("one"));
        producer.send(session.createTextMessage("two"));
        producer.send(session.createTextMessage("urgent"), jakarta.jms.DeliveryMode.PERSISTENT, 9, 0);
        QueueBrowser browser = session.createBrowser(queue);
        assertThat(browser.getQueue()).isEqualTo(queue);
        assertThat(browser.getMessageSelector()).isNull();

        assertThat(browse(browser)).containsExactly("urgent", "one", "two");
        assertThat(browse(browser)).as("a second enumeration sees them again").containsExactly("urgent", "one", "two");
        var consumer = session.createConsumer(queue);
        assertThat(receiveText(consumer)).isEqualTo("urgent");
        assertThat(receiveText(consumer)).isEqualTo("one");
        assertThat(receiveText(consumer)).isEqualTo("two");
        assertThat(browse(browser)).isEmpty();
        browser.close();
        assertThatThrownBy(browser::getEnumeration).isInstanceOf(jakarta.jms.IllegalStateException.class);
    }

    @Test
    @DisplayName("QueueBrowser with a selector shows only the matching messages, with their headers and properties")
    void browsingWithASelector() throws Exception {
        for (String colour : List.of("red", "blue", "red")) {
            TextMessage m = session.createTextMessage(colour);
            m.setStringProperty("colour", colour);
            producer.send(m);
        }
        QueueBrowser reds = session.createBrowser(queue, "colour = 'red'");
        assertThat(reds.getMessageSelector()).isEqualTo("colour = 'red'");
        Enumeration<?> e = reds.getEnumeration();
        Message first = (Message) e.nextElement();
        assertThat(first.getStringProperty("colour")).isEqualTo("red");
        assertThat(first.getJMSMessageID()).startsWith("ID:");
        assertThat(browse(reds)).containsExactly("red", "red");
        assertThatThrownBy(() -> session.createBrowser(queue, "colour = ")).isInstanceOf(InvalidSelectorException.class);
    }

    @Test
    @DisplayName("QueueBrowser does not show a message before its delivery time; JMSContext and temporary queues browse too")
    void browsingSkipsScheduledMessagesAndWorksFromAContext() throws Exception {
        producer.setDeliveryDelay(60_000);
        producer.send(session.createTextMessage("later"));
        producer.setDeliveryDelay(0);
        producer.send(session.createTextMessage("ready"));
        assertThat(browse(session.createBrowser(queue))).containsExactly("ready");

        try (JMSContext ctx = factory(broker).createContext()) {
            TemporaryQueue temp = ctx.createTemporaryQueue();
            ctx.createProducer().send(temp, "in temp");
            assertThat(browse(ctx.createBrowser(temp))).containsExactly("in temp");
        }
    }
}
