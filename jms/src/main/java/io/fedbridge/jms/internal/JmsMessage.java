package io.fedbridge.jms.internal;

import jakarta.jms.DeliveryMode;
import jakarta.jms.Destination;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import jakarta.jms.MessageFormatException;
import jakarta.jms.MessageNotWriteableException;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.Enumeration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * A JMS message without a body, and the base of the typed ones: header fields and typed properties (JMS 3.4, 3.5).
 * Not thread-safe, as JMS allows.
 */
public class JmsMessage implements Message {

    /** JMS 3.8.1: words that cannot be property names. */
    private static final Set<String> SELECTOR_WORDS = Set.of("NULL", "TRUE", "FALSE", "NOT", "AND", "OR", "BETWEEN",
            "LIKE", "IN", "IS", "ESCAPE");

    private String messageId;
    private long timestamp;
    private String correlationId;
    private Destination replyTo;
    private Destination destination;
    private int deliveryMode = DeliveryMode.PERSISTENT;
    private boolean redelivered;
    private String type;
    private long expiration;
    private long deliveryTime;
    private int priority = Message.DEFAULT_PRIORITY;
    private final Map<String, Object> properties = new LinkedHashMap<>();
    private boolean propertiesReadOnly;
    protected boolean bodyReadOnly;
    private Acknowledger acknowledger;

    /** What {@link #acknowledge()} does for a received message (CLIENT_ACKNOWLEDGE: the session's acknowledge). */
    public interface Acknowledger {
        void acknowledge() throws JMSException;
    }

    void acknowledger(Acknowledger a) {
        this.acknowledger = a;
    }

    /** After receipt: properties and body read-only until cleared (JMS 3.10, 3.11.2). */
    void makeReadOnly() {
        propertiesReadOnly = true;
        bodyReadOnly = true;
        onReadOnly();
    }

    /** A subclass prepares its body for reading. */
    protected void onReadOnly() {
    }

    protected void checkWritable() throws MessageNotWriteableException {
        if (bodyReadOnly) {
            throw new MessageNotWriteableException("the body of a received message is read-only until clearBody()");
        }
    }

    // ------------------------------------------------------------------ header fields

    @Override
    public String getJMSMessageID() {
        return messageId;
    }

    @Override
    public void setJMSMessageID(String id) {
        this.messageId = id;
    }

    @Override
    public long getJMSTimestamp() {
        return timestamp;
    }

    @Override
    public void setJMSTimestamp(long ts) {
        this.timestamp = ts;
    }

    @Override
    public byte[] getJMSCorrelationIDAsBytes() {
        return correlationId == null ? null : correlationId.getBytes(StandardCharsets.UTF_8);
    }

    /** Bytes are carried as their UTF-8 text (STOMP headers are text); non-UTF-8 bytes do not survive. */
    @Override
    public void setJMSCorrelationIDAsBytes(byte[] id) {
        this.correlationId = id == null ? null : new String(id, StandardCharsets.UTF_8);
    }

    @Override
    public void setJMSCorrelationID(String id) {
        this.correlationId = id;
    }

    @Override
    public String getJMSCorrelationID() {
        return correlationId;
    }

    @Override
    public Destination getJMSReplyTo() {
        return replyTo;
    }

    @Override
    public void setJMSReplyTo(Destination d) {
        this.replyTo = d;
    }

    @Override
    public Destination getJMSDestination() {
        return destination;
    }

    @Override
    public void setJMSDestination(Destination d) {
        this.destination = d;
    }

    @Override
    public int getJMSDeliveryMode() {
        return deliveryMode;
    }

    @Override
    public void setJMSDeliveryMode(int mode) {
        this.deliveryMode = mode;
    }

    @Override
    public boolean getJMSRedelivered() {
        return redelivered;
    }

    @Override
    public void setJMSRedelivered(boolean r) {
        this.redelivered = r;
    }

    @Override
    public String getJMSType() {
        return type;
    }

    @Override
    public void setJMSType(String t) {
        this.type = t;
    }

    @Override
    public long getJMSExpiration() {
        return expiration;
    }

    @Override
    public void setJMSExpiration(long e) {
        this.expiration = e;
    }

    @Override
    public long getJMSDeliveryTime() {
        return deliveryTime;
    }

    @Override
    public void setJMSDeliveryTime(long t) {
        this.deliveryTime = t;
    }

    @Override
    public int getJMSPriority() {
        return priority;
    }

    @Override
    public void setJMSPriority(int p) {
        this.priority = p;
    }

    // ------------------------------------------------------------------ properties

    @Override
    public void clearProperties() {
        properties.clear();
        propertiesReadOnly = false;
    }

    @Override
    public boolean propertyExists(String name) {
        return properties.containsKey(name);
    }

    Map<String, Object> properties() {
        return Collections.unmodifiableMap(properties);
    }

    /** Sets a property as received, without the checks a sender's name and value go through. */
    void putReceivedProperty(String name, Object value) {
        properties.put(name, value);
    }

    @Override
    public boolean getBooleanProperty(String name) throws JMSException {
        Object v = properties.get(name);
        if (v == null || v instanceof String) {
            return Boolean.parseBoolean((String) v);
        }
        if (v instanceof Boolean b) {
            return b;
        }
        throw conversion(name, v, "boolean");
    }

    @Override
    public byte getByteProperty(String name) throws JMSException {
        Object v = properties.get(name);
        if (v == null || v instanceof String) {
            return Byte.parseByte((String) v);
        }
        if (v instanceof Byte b) {
            return b;
        }
        throw conversion(name, v, "byte");
    }

    @Override
    public short getShortProperty(String name) throws JMSException {
        Object v = properties.get(name);
        if (v == null || v instanceof String) {
            return Short.parseShort((String) v);
        }
        if (v instanceof Byte || v instanceof Short) {
            return ((Number) v).shortValue();
        }
        throw conversion(name, v, "short");
    }

    @Override
    public int getIntProperty(String name) throws JMSException {
        Object v = properties.get(name);
        if (v == null || v instanceof String) {
            return Integer.parseInt((String) v);
        }
        if (v instanceof Byte || v instanceof Short || v instanceof Integer) {
            return ((Number) v).intValue();
        }
        throw conversion(name, v, "int");
    }

    @Override
    public long getLongProperty(String name) throws JMSException {
        Object v = properties.get(name);
        if (v == null || v instanceof String) {
            return Long.parseLong((String) v);
        }
        if (v instanceof Byte || v instanceof Short || v instanceof Integer || v instanceof Long) {
            return ((Number) v).longValue();
        }
        throw conversion(name, v, "long");
    }

    @Override
    public float getFloatProperty(String name) throws JMSException {
        Object v = properties.get(name);
        if (v == null) {
            throw new NullPointerException("property '" + name + "' does not exist");
        }
        if (v instanceof String s) {
            return Float.parseFloat(s);
        }
        if (v instanceof Float f) {
            return f;
        }
        throw conversion(name, v, "float");
    }

    @Override
    public double getDoubleProperty(String name) throws JMSException {
        Object v = properties.get(name);
        if (v == null) {
            throw new NullPointerException("property '" + name + "' does not exist");
        }
        if (v instanceof String s) {
            return Double.parseDouble(s);
        }
        if (v instanceof Float || v instanceof Double) {
            return ((Number) v).doubleValue();
        }
        throw conversion(name, v, "double");
    }

    @Override
    public String getStringProperty(String name) {
        Object v = properties.get(name);
        return v == null ? null : v.toString();
    }

    @Override
    public Object getObjectProperty(String name) {
        return properties.get(name);
    }

    @Override
    public Enumeration<String> getPropertyNames() {
        return Collections.enumeration(new java.util.ArrayList<>(properties.keySet()));
    }

    @Override
    public void setBooleanProperty(String name, boolean value) throws JMSException {
        put(name, value);
    }

    @Override
    public void setByteProperty(String name, byte value) throws JMSException {
        put(name, value);
    }

    @Override
    public void setShortProperty(String name, short value) throws JMSException {
        put(name, value);
    }

    @Override
    public void setIntProperty(String name, int value) throws JMSException {
        put(name, value);
    }

    @Override
    public void setLongProperty(String name, long value) throws JMSException {
        put(name, value);
    }

    @Override
    public void setFloatProperty(String name, float value) throws JMSException {
        put(name, value);
    }

    @Override
    public void setDoubleProperty(String name, double value) throws JMSException {
        put(name, value);
    }

    @Override
    public void setStringProperty(String name, String value) throws JMSException {
        put(name, value);
    }

    @Override
    public void setObjectProperty(String name, Object value) throws JMSException {
        if (value != null && !(value instanceof Boolean || value instanceof Byte || value instanceof Short
                || value instanceof Integer || value instanceof Long || value instanceof Float || value instanceof Double
                || value instanceof String)) {
            throw new MessageFormatException("property '" + name + "' must be a Boolean, Byte, Short, Integer, Long, Float, "
                    + "Double or String, but was a " + value.getClass().getName());
        }
        put(name, value);
    }

    private void put(String name, Object value) throws MessageNotWriteableException {
        checkPropertyName(name);
        if (propertiesReadOnly) {
            throw new MessageNotWriteableException("the properties of a received message are read-only until clearProperties()");
        }
        if (value == null) {
            properties.remove(name);
        } else {
            properties.put(name, value);
        }
    }

    static void checkPropertyName(String name) {
        if (name == null || name.isEmpty()) {
            throw new IllegalArgumentException("property name must not be null or empty, but was " + (name == null ? null : "''"));
        }
        if (!Character.isJavaIdentifierStart(name.charAt(0)) || !name.chars().skip(1).allMatch(Character::isJavaIdentifierPart)) {
            throw new IllegalArgumentException("property name must be a Java identifier (JMS 3.5.1), but was '" + name + "'");
        }
        if (SELECTOR_WORDS.contains(name.toUpperCase(java.util.Locale.ROOT))) {
            throw new IllegalArgumentException("property name must not be a selector keyword " + SELECTOR_WORDS
                    + " (JMS 3.8.1), but was '" + name + "'");
        }
        if (MessageMapping.RESERVED_PROPERTY_NAMES.contains(name)) {
            throw new IllegalArgumentException("property name '" + name + "' is reserved: it is the STOMP header of a JMS "
                    + "header field or of the frame; reserved names are " + MessageMapping.RESERVED_PROPERTY_NAMES);
        }
    }

    private static MessageFormatException conversion(String name, Object v, String to) {
        return new MessageFormatException("property '" + name + "' is a " + v.getClass().getSimpleName()
                + " and cannot be read as " + to + " (JMS 3.5.4)");
    }

    // ------------------------------------------------------------------ acknowledgement and body

    @Override
    public void acknowledge() throws JMSException {
        if (acknowledger != null) {
            acknowledger.acknowledge();
        }
    }

    @Override
    public void clearBody() throws JMSException {
        bodyReadOnly = false;
    }

    @Override
    public <T> T getBody(Class<T> c) throws JMSException {
        if (!isBodyAssignableTo(c)) {
            throw new MessageFormatException("the body of a " + kind() + " cannot be read as " + c.getName());
        }
        return c.cast(bodyObject());
    }

    @Override
    @SuppressWarnings("rawtypes")
    public boolean isBodyAssignableTo(Class c) throws JMSException {
        Object body = bodyObject();
        return body == null || c.isInstance(body);
    }

    /** The body as {@link #getBody} returns it; null for a message without one. */
    protected Object bodyObject() throws JMSException {
        return null;
    }

    protected String kind() {
        return "Message";
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "[id=" + messageId + ", destination=" + destination + ", properties=" + properties + "]";
    }
}
