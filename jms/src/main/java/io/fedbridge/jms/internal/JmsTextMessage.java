package io.fedbridge.jms.internal;

import jakarta.jms.JMSException;
import jakarta.jms.TextMessage;

/** A message whose body is a String (JMS 3.11 TextMessage); UTF-8 on the wire. */
public final class JmsTextMessage extends JmsMessage implements TextMessage {

    private String text;

    @Override
    public void setText(String s) throws JMSException {
        checkWritable();
        this.text = s;
    }

    @Override
    public String getText() {
        return text;
    }

    @Override
    public void clearBody() throws JMSException {
        super.clearBody();
        text = null;
    }

    @Override
    protected Object bodyObject() {
        return text;
    }

    @Override
    protected String kind() {
        return "TextMessage";
    }
}
