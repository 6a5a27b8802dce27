package io.fedbridge.jms.internal;

import jakarta.jms.CompletionListener;
import jakarta.jms.DeliveryMode;
import jakarta.jms.Destination;
import jakarta.jms.JMSProducer;
import jakarta.jms.JMSRuntimeException;
import jakarta.jms.Message;
import jakarta.jms.MessageFormatRuntimeException;
import java.io.Serializable;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/** The JMSContext producer: settings and properties applied to each message it sends (JMS 7.4-7.10). */
final class JmsContextProducer implements JMSProducer {

    private final JmsMessageProducer producer;
    private final JmsSession session;
    private final Map<String, Object> properties = new LinkedHashMap<>();
    private int deliveryMode = DeliveryMode.PERSISTENT;
    private int priority = Message.DEFAULT_PRIORITY;
    private long timeToLive;
    private long deliveryDelay;
    private String correlationId;
    private String type;
    private Destination replyTo;
    private CompletionListener async;
    private boolean disableId;
    private boolean disableTimestamp;

    JmsContextProducer(JmsMessageProducer producer) {
        this.producer = producer;
        this.session = producerSession(producer);
    }

    private static JmsSession producerSession(JmsMessageProducer p) {
        return p.session();
    }

    @Override
    public JMSProducer send(Destination destination, Message message) {
        JmsContext.run(() -> {
            if (message == null) {
                throw new jakarta.jms.MessageFormatException("message must not be null");
            }
            for (Map.Entry<String, Object> e : properties.entrySet()) {
                message.setObjectProperty(e.getKey(), e.getValue());
            }
            if (correlationId != null) {
                message.setJMSCorrelationID(correlationId);
            }
            if (type != null) {
                message.setJMSType(type);
            }
            if (replyTo != null) {
                message.setJMSReplyTo(replyTo);
            }
            if (destination == null) {
                throw new jakarta.jms.InvalidDestinationException("destination must not be null");
            }
            producer.setDisableMessageID(disableId);
            producer.setDisableMessageTimestamp(disableTimestamp);
            producer.send(MessageMapping.destination(destination, "destination"), message, deliveryMode, priority, timeToLive,
                    deliveryDelay, async);
        });
        return this;
    }

    @Override
    public JMSProducer send(Destination destination, String body) {
        return send(destination, JmsContext.call(() -> session.createTextMessage(body)));
    }

    @Override
    public JMSProducer send(Destination destination, Map<String, Object> body) {
        return send(destination, JmsContext.call(() -> {
            jakarta.jms.MapMessage m = session.createMapMessage();
            if (body != null) {
                for (Map.Entry<String, Object> e : body.entrySet()) {
                    m.setObject(e.getKey(), e.getValue());
                }
            }
            return m;
        }));
    }

    @Override
    public JMSProducer send(Destination destination, byte[] body) {
        return send(destination, JmsContext.call(() -> {
            jakarta.jms.BytesMessage m = session.createBytesMessage();
            if (body != null) {
                m.writeBytes(body);
            }
            return m;
        }));
    }

    @Override
    public JMSProducer send(Destination destination, Serializable body) {
        return send(destination, JmsContext.call(() -> session.createObjectMessage(body)));
    }

    @Override
    public JMSProducer setDisableMessageID(boolean value) {
        disableId = value;
        return this;
    }

    @Override
    public boolean getDisableMessageID() {
        return disableId;
    }

    @Override
    public JMSProducer setDisableMessageTimestamp(boolean value) {
        disableTimestamp = value;
        return this;
    }

    @Override
    public boolean getDisableMessageTimestamp() {
        return disableTimestamp;
    }

    @Override
    public JMSProducer setDeliveryMode(int mode) {
        deliveryMode = JmsContext.call(() -> JmsMessageProducer.checkMode(mode));
        return this;
    }

    @Override
    public int getDeliveryMode() {
        return deliveryMode;
    }

    @Override
    public JMSProducer setPriority(int p) {
        priority = JmsContext.call(() -> JmsMessageProducer.checkPriority(p));
        return this;
    }

    @Override
    public int getPriority() {
        return priority;
    }

    @Override
    public JMSProducer setTimeToLive(long ttl) {
        timeToLive = ttl;
        return this;
    }

    @Override
    public long getTimeToLive() {
        return timeToLive;
    }

    /** Delays delivery by {@code delay} ms (see {@link JmsMessageProducer#setDeliveryDelay}). */
    @Override
    public JMSProducer setDeliveryDelay(long delay) {
        deliveryDelay = JmsContext.call(() -> JmsMessageProducer.checkDelay(delay));
        return this;
    }

    @Override
    public long getDeliveryDelay() {
        return deliveryDelay;
    }

    @Override
    public JMSProducer setAsync(CompletionListener listener) {
        async = listener;
        return this;
    }

    @Override
    public CompletionListener getAsync() {
        return async;
    }

    private JMSProducer property(String name, Object value) {
        try {
            JmsMessage.checkPropertyName(name);
        } catch (IllegalArgumentException e) {
            throw new JMSRuntimeException(e.getMessage());
        }
        properties.put(name, value);
        return this;
    }

    @Override
    public JMSProducer setProperty(String name, boolean value) {
        return property(name, value);
    }

    @Override
    public JMSProducer setProperty(String name, byte value) {
        return property(name, value);
    }

    @Override
    public JMSProducer setProperty(String name, short value) {
        return property(name, value);
    }

    @Override
    public JMSProducer setProperty(String name, int value) {
        return property(name, value);
    }

    @Override
    public JMSProducer setProperty(String name, long value) {
        return property(name, value);
    }

    @Override
    public JMSProducer setProperty(String name, float value) {
        return property(name, value);
    }

    @Override
    public JMSProducer setProperty(String name, double value) {
        return property(name, value);
    }

    @Override
    public JMSProducer setProperty(String name, String value) {
        return property(name, value);
    }

    @Override
    public JMSProducer setProperty(String name, Object value) {
        if (value != null && !(value instanceof Boolean || value instanceof Number || value instanceof String)) {
            throw new MessageFormatRuntimeException("property '" + name + "' must be a boxed primitive or String, but was "
                    + value.getClass().getName());
        }
        return property(name, value);
    }

    @Override
    public JMSProducer clearProperties() {
        properties.clear();
        return this;
    }

    @Override
    public boolean propertyExists(String name) {
        return properties.containsKey(name);
    }

    private JmsMessage view() {
        JmsMessage m = new JmsMessage();
        properties.forEach(m::putReceivedProperty);
        return m;
    }

    @Override
    public boolean getBooleanProperty(String name) {
        return JmsContext.call(() -> view().getBooleanProperty(name));
    }

    @Override
    public byte getByteProperty(String name) {
        return JmsContext.call(() -> view().getByteProperty(name));
    }

    @Override
    public short getShortProperty(String name) {
        return JmsContext.call(() -> view().getShortProperty(name));
    }

    @Override
    public int getIntProperty(String name) {
        return JmsContext.call(() -> view().getIntProperty(name));
    }

    @Override
    public long getLongProperty(String name) {
        return JmsContext.call(() -> view().getLongProperty(name));
    }

    @Override
    public float getFloatProperty(String name) {
        return JmsContext.call(() -> view().getFloatProperty(name));
    }

    @Override
    public double getDoubleProperty(String name) {
        return JmsContext.call(() -> view().getDoubleProperty(name));
    }

    @Override
    public String getStringProperty(String name) {
        return view().getStringProperty(name);
    }

    @Override
    public Object getObjectProperty(String name) {
        return properties.get(name);
    }

    @Override
    public Set<String> getPropertyNames() {
        return Collections.unmodifiableSet(new java.util.LinkedHashSet<>(properties.keySet()));
    }

    @Override
    public JMSProducer setJMSCorrelationIDAsBytes(byte[] id) {
        correlationId = id == null ? null : new String(id, java.nio.charset.StandardCharsets.UTF_8);
        return this;
    }

    @Override
    public byte[] getJMSCorrelationIDAsBytes() {
        return correlationId == null ? null : correlationId.getBytes(java.nio.charset.StandardCharsets.UTF_8);
    }

    @Override
    public JMSProducer setJMSCorrelationID(String id) {
        correlationId = id;
        return this;
    }

    @Override
    public String getJMSCorrelationID() {
        return correlationId;
    }

    @Override
    public JMSProducer setJMSType(String t) {
        type = t;
        return this;
    }

    @Override
    public String getJMSType() {
        return type;
    }

    @Override
    public JMSProducer setJMSReplyTo(Destination d) {
        replyTo = d;
        return this;
    }

    @Override
    public Destination getJMSReplyTo() {
        return replyTo;
    }

}
