package io.fedbridge.jms.internal;

import jakarta.jms.JMSException;
import jakarta.jms.MessageEOFException;
import jakarta.jms.MessageFormatException;
import jakarta.jms.MessageNotReadableException;
import jakarta.jms.StreamMessage;
import java.util.ArrayList;
import java.util.List;

/**
 * A message whose body is a sequence of typed values (JMS StreamMessage), encoded as {@link TypedValues} says.
 * A read that fails to convert leaves the position where it was (JMS 3.11.3).
 */
public final class JmsStreamMessage extends JmsMessage implements StreamMessage {

    private final List<Object> values = new ArrayList<>();
    private int position;
    private int bytesOffset = -1; // within a byte[] value partly read by readBytes, else -1
    private boolean reading;

    byte[] encode() {
        return TypedValues.encodeList(values);
    }

    void decode(byte[] body) throws JMSException {
        values.clear();
        values.addAll(TypedValues.decodeList(body));
        reset();
    }

    @Override
    protected void onReadOnly() {
        reset();
    }

    private interface Convert<T> {
        T apply(Object v) throws JMSException;
    }

    private <T> T next(Convert<T> convert) throws JMSException {
        if (!reading) {
            throw new MessageNotReadableException("the StreamMessage is write-only until it is sent or reset()");
        }
        if (bytesOffset >= 0) {
            throw new MessageFormatException("a byte[] value is partly read: finish it with readBytes first");
        }
        if (position >= values.size()) {
            throw new MessageEOFException("end of the StreamMessage body");
        }
        T out = convert.apply(values.get(position));
        position++;
        return out;
    }

    private void write(Object v) throws JMSException {
        checkWritable();
        if (reading) {
            throw new jakarta.jms.MessageNotWriteableException("the StreamMessage is read-only");
        }
        values.add(TypedValues.checkValue(v));
    }

    @Override
    public boolean readBoolean() throws JMSException {
        return next(TypedValues::toBoolean);
    }

    @Override
    public byte readByte() throws JMSException {
        return next(TypedValues::toByte);
    }

    @Override
    public short readShort() throws JMSException {
        return next(TypedValues::toShort);
    }

    @Override
    public char readChar() throws JMSException {
        return next(TypedValues::toChar);
    }

    @Override
    public int readInt() throws JMSException {
        return next(TypedValues::toInt);
    }

    @Override
    public long readLong() throws JMSException {
        return next(TypedValues::toLong);
    }

    @Override
    public float readFloat() throws JMSException {
        return next(TypedValues::toFloat);
    }

    @Override
    public double readDouble() throws JMSException {
        return next(TypedValues::toDouble);
    }

    @Override
    public String readString() throws JMSException {
        return next(TypedValues::toStringValue);
    }

    @Override
    public int readBytes(byte[] value) throws JMSException {
        if (!reading) {
            throw new MessageNotReadableException("the StreamMessage is write-only until it is sent or reset()");
        }
        if (bytesOffset < 0) {
            if (position >= values.size()) {
                throw new MessageEOFException("end of the StreamMessage body");
            }
            Object v = values.get(position);
            if (v == null) {
                position++;
                return -1;
            }
            if (!(v instanceof byte[])) {
                throw new MessageFormatException("a " + v.getClass().getSimpleName() + " cannot be read as byte[] (JMS 3.11.3)");
            }
            bytesOffset = 0;
        }
        byte[] b = (byte[]) values.get(position);
        int left = b.length - bytesOffset;
        if (left == 0) {
            bytesOffset = -1;
            position++;
            return -1;
        }
        int n = Math.min(left, value.length);
        System.arraycopy(b, bytesOffset, value, 0, n);
        bytesOffset += n;
        if (n < value.length) {
            bytesOffset = -1;
            position++;
        }
        return n;
    }

    @Override
    public Object readObject() throws JMSException {
        return next(v -> v instanceof byte[] b ? b.clone() : v);
    }

    @Override
    public void writeBoolean(boolean v) throws JMSException {
        write(v);
    }

    @Override
    public void writeByte(byte v) throws JMSException {
        write(v);
    }

    @Override
    public void writeShort(short v) throws JMSException {
        write(v);
    }

    @Override
    public void writeChar(char v) throws JMSException {
        write(v);
    }

    @Override
    public void writeInt(int v) throws JMSException {
        write(v);
    }

    @Override
    public void writeLong(long v) throws JMSException {
        write(v);
    }

    @Override
    public void writeFloat(float v) throws JMSException {
        write(v);
    }

    @Override
    public void writeDouble(double v) throws JMSException {
        write(v);
    }

    @Override
    public void writeString(String v) throws JMSException {
        write(v);
    }

    @Override
    public void writeBytes(byte[] v) throws JMSException {
        write(v);
    }

    @Override
    public void writeBytes(byte[] v, int offset, int length) throws JMSException {
        write(java.util.Arrays.copyOfRange(v, offset, offset + length));
    }

    @Override
    public void writeObject(Object v) throws JMSException {
        write(v);
    }

    @Override
    public void reset() {
        reading = true;
        bodyReadOnly = true;
        position = 0;
        bytesOffset = -1;
    }

    @Override
    public void clearBody() throws JMSException {
        super.clearBody();
        values.clear();
        reading = false;
        position = 0;
        bytesOffset = -1;
    }

    @Override
    public boolean isBodyAssignableTo(@SuppressWarnings("rawtypes") Class c) {
        return false;
    }

    @Override
    public <T> T getBody(Class<T> c) throws JMSException {
        throw new MessageFormatException("a StreamMessage has no body getBody can return (JMS 3.11)");
    }

    @Override
    protected String kind() {
        return "StreamMessage";
    }
}
