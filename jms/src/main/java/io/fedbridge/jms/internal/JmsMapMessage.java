package io.fedbridge.jms.internal;

import jakarta.jms.JMSException;
import jakarta.jms.MapMessage;
import java.util.Collections;
import java.util.Enumeration;
import java.util.LinkedHashMap;
import java.util.Map;

/** A message whose body is a map of names to typed values (JMS MapMessage), encoded as {@link TypedValues} says. */
public final class JmsMapMessage extends JmsMessage implements MapMessage {

    private final Map<String, Object> map = new LinkedHashMap<>();

    byte[] encode() {
        return TypedValues.encodeMap(map);
    }

    void decode(byte[] body) throws JMSException {
        map.clear();
        map.putAll(TypedValues.decodeMap(body));
    }

    private void set(String name, Object value) throws JMSException {
        checkWritable();
        if (name == null || name.isEmpty()) {
            throw new IllegalArgumentException("MapMessage name must not be null or empty, but was " + (name == null ? null : "''"));
        }
        map.put(name, TypedValues.checkValue(value));
    }

    @Override
    public boolean getBoolean(String name) throws JMSException {
        return TypedValues.toBoolean(map.get(name));
    }

    @Override
    public byte getByte(String name) throws JMSException {
        return TypedValues.toByte(map.get(name));
    }

    @Override
    public short getShort(String name) throws JMSException {
        return TypedValues.toShort(map.get(name));
    }

    @Override
    public char getChar(String name) throws JMSException {
        return TypedValues.toChar(map.get(name));
    }

    @Override
    public int getInt(String name) throws JMSException {
        return TypedValues.toInt(map.get(name));
    }

    @Override
    public long getLong(String name) throws JMSException {
        return TypedValues.toLong(map.get(name));
    }

    @Override
    public float getFloat(String name) throws JMSException {
        return TypedValues.toFloat(map.get(name));
    }

    @Override
    public double getDouble(String name) throws JMSException {
        return TypedValues.toDouble(map.get(name));
    }

    @Override
    public String getString(String name) throws JMSException {
        return TypedValues.toStringValue(map.get(name));
    }

    @Override
    public byte[] getBytes(String name) throws JMSException {
        byte[] b = TypedValues.toBytes(map.get(name));
        return b == null ? null : b.clone();
    }

    @Override
    public Object getObject(String name) {
        Object v = map.get(name);
        return v instanceof byte[] b ? b.clone() : v;
    }

    @Override
    public Enumeration<String> getMapNames() {
        return Collections.enumeration(new java.util.ArrayList<>(map.keySet()));
    }

    @Override
    public void setBoolean(String name, boolean value) throws JMSException {
        set(name, value);
    }

    @Override
    public void setByte(String name, byte value) throws JMSException {
        set(name, value);
    }

    @Override
    public void setShort(String name, short value) throws JMSException {
        set(name, value);
    }

    @Override
    public void setChar(String name, char value) throws JMSException {
        set(name, value);
    }

    @Override
    public void setInt(String name, int value) throws JMSException {
        set(name, value);
    }

    @Override
    public void setLong(String name, long value) throws JMSException {
        set(name, value);
    }

    @Override
    public void setFloat(String name, float value) throws JMSException {
        set(name, value);
    }

    @Override
    public void setDouble(String name, double value) throws JMSException {
        set(name, value);
    }

    @Override
    public void setString(String name, String value) throws JMSException {
        set(name, value);
    }

    @Override
    public void setBytes(String name, byte[] value) throws JMSException {
        set(name, value);
    }

    @Override
    public void setBytes(String name, byte[] value, int offset, int length) throws JMSException {
        set(name, java.util.Arrays.copyOfRange(value, offset, offset + length));
    }

    @Override
    public void setObject(String name, Object value) throws JMSException {
        set(name, value);
    }

    @Override
    public boolean itemExists(String name) {
        return map.containsKey(name);
    }

    @Override
    public void clearBody() throws JMSException {
        super.clearBody();
        map.clear();
    }

    @Override
    protected Object bodyObject() {
        return map.isEmpty() ? null : Collections.unmodifiableMap(new LinkedHashMap<>(map));
    }

    @Override
    protected String kind() {
        return "MapMessage";
    }
}
