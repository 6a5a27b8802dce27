package io.fedbridge.jms.internal;

import jakarta.jms.JMSConsumer;
import jakarta.jms.Message;
import jakarta.jms.MessageListener;

/** The JMSContext form of a {@link JmsMessageConsumer}. */
final class JmsContextConsumer implements JMSConsumer {

    private final JmsMessageConsumer consumer;

    JmsContextConsumer(JmsMessageConsumer consumer) {
        this.consumer = consumer;
    }

    @Override
    public String getMessageSelector() {
        return JmsContext.call(consumer::getMessageSelector);
    }

    @Override
    public MessageListener getMessageListener() {
        return JmsContext.call(consumer::getMessageListener);
    }

    @Override
    public void setMessageListener(MessageListener listener) {
        JmsContext.run(() -> consumer.setMessageListener(listener));
    }

    @Override
    public Message receive() {
        return JmsContext.call(consumer::receive);
    }

    @Override
    public Message receive(long timeout) {
        return JmsContext.call(() -> consumer.receive(timeout));
    }

    @Override
    public Message receiveNoWait() {
        return JmsContext.call(consumer::receiveNoWait);
    }

    @Override
    public void close() {
        JmsContext.run(consumer::close);
    }

    @Override
    public <T> T receiveBody(Class<T> c) {
        return JmsContext.call(() -> consumer.bodyOf(consumer.receive(), c));
    }

    @Override
    public <T> T receiveBody(Class<T> c, long timeout) {
        return JmsContext.call(() -> consumer.bodyOf(consumer.receive(timeout), c));
    }

    @Override
    public <T> T receiveBodyNoWait(Class<T> c) {
        return JmsContext.call(() -> consumer.bodyOf(consumer.receiveNoWait(), c));
    }
}
