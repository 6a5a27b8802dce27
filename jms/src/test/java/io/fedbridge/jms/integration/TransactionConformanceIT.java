package io.fedbridge.jms.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fedbridge.broker.Broker;
import jakarta.jms.IllegalStateException;
import jakarta.jms.Message;
import jakarta.jms.MessageConsumer;
import jakarta.jms.MessageProducer;
import jakarta.jms.Session;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** Jakarta Messaging 3.1, section 6.2.7 (transactions), over STOMP BEGIN/COMMIT/ABORT. */
class TransactionConformanceIT extends JmsTestSupport {

    private Broker broker;
    private Session tx;
    private Session plain;

    @BeforeEach
    void open() throws Exception {
        broker = startBroker("tx");
        tx = connection(broker).createSession(true, Session.SESSION_TRANSACTED);
        plain = connection(broker).createSession(false, Session.AUTO_ACKNOWLEDGE);
    }

    @Test
    @DisplayName("6.2.7 sends in a transaction are delivered only after commit")
    void sendsAppearOnCommit() throws Exception {
        MessageConsumer c = plain.createConsumer(plain.createQueue("t.out"));
        MessageProducer p = tx.createProducer(tx.createQueue("t.out"));
        p.send(tx.createTextMessage("one"));
        p.send(tx.createTextMessage("two"));
        assertThat(c.receive(500)).isNull();
        tx.commit();
        assertThat(receiveText(c)).isEqualTo("one");
        assertThat(receiveText(c)).isEqualTo("two");
    }

    @Test
    @DisplayName("6.2.7 rollback discards the sends and redelivers the messages consumed, marked redelivered")
    void rollbackDiscardsSendsAndRedelivers() throws Exception {
        plain.createProducer(plain.createQueue("t.in")).send(plain.createTextMessage("work"));
        MessageConsumer in = tx.createConsumer(tx.createQueue("t.in"));
        MessageProducer out = tx.createProducer(tx.createQueue("t.result"));
        MessageConsumer results = plain.createConsumer(plain.createQueue("t.result"));

        Message first = in.receive(RECEIVE_MS);
        assertThat(first.getJMSRedelivered()).isFalse();
        out.send(tx.createTextMessage("result-1"));
        tx.rollback();
        assertThat(results.receive(500)).isNull();

        Message again = in.receive(RECEIVE_MS);
        assertThat(text(again)).isEqualTo("work");
        assertThat(again.getJMSRedelivered()).isTrue();
        out.send(tx.createTextMessage("result-2"));
        tx.commit();
        assertThat(receiveText(results)).isEqualTo("result-2");
        assertThat(results.receive(500)).isNull();

        Session check = connection(broker).createSession(false, Session.AUTO_ACKNOWLEDGE);
        assertThat(check.createConsumer(check.createQueue("t.in")).receive(500)).isNull(); // consumed by the commit
    }

    @Test
    @DisplayName("6.2.7 closing a transacted session rolls its transaction back")
    void closeRollsBack() throws Exception {
        tx.createProducer(tx.createQueue("t.closed")).send(tx.createTextMessage("never"));
        tx.close();
        assertThat(plain.createConsumer(plain.createQueue("t.closed")).receive(500)).isNull();
    }

    @Test
    @DisplayName("6.2.7 commit and rollback need a transacted session; recover needs a non-transacted one")
    void wrongSessionKind() {
        assertThatThrownBy(plain::commit).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(plain::rollback).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(tx::recover).isInstanceOf(IllegalStateException.class);
    }
}
