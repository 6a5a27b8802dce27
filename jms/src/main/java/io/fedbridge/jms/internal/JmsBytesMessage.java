package io.fedbridge.jms.internal;

import jakarta.jms.BytesMessage;
import jakarta.jms.JMSException;
import jakarta.jms.MessageEOFException;
import jakarta.jms.MessageFormatException;
import jakarta.jms.MessageNotReadableException;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.util.Arrays;

/**
 * A message whose body is a stream of bytes, written and read in Java's {@code DataOutput} format (JMS 3.11
 * BytesMessage); the STOMP body is exactly those bytes. Write-only until sent (or {@link #reset()}), then read-only.
 */
public final class JmsBytesMessage extends JmsMessage implements BytesMessage {

    private static final byte[] EMPTY = new byte[0];

    /** Write mode (bytes null): what was written, made on the first write. Read mode: the body and its reader. */
    private ByteArrayOutputStream buffer;
    private DataOutputStream out;
    private byte[] bytes;
    /** Made on the first read: a received message read by {@link #bodyBytes} alone never needs one. */
    private DataInputStream in;

    /** The body as it stands (what has been written, or what was received). */
    byte[] bodyBytes() {
        return bytes != null ? bytes : buffer == null ? EMPTY : buffer.toByteArray();
    }

    void setReceivedBody(byte[] body) {
        this.bytes = body;
        this.buffer = null;
        this.out = null;
        this.in = null;
    }

    @Override
    protected void onReadOnly() {
        if (bytes == null) {
            setReceivedBody(bodyBytes());
        }
    }

    private DataInputStream in() throws MessageNotReadableException {
        if (bytes == null) {
            throw new MessageNotReadableException("the BytesMessage is write-only until it is sent or reset()");
        }
        if (in == null) {
            in = new DataInputStream(new ByteArrayInputStream(bytes));
        }
        return in;
    }

    private DataOutputStream out() throws JMSException {
        checkWritable();
        if (bytes != null) {
            throw new MessageNotReadableException("the BytesMessage is read-only");
        }
        if (out == null) {
            buffer = new ByteArrayOutputStream();
            out = new DataOutputStream(buffer);
        }
        return out;
    }

    @Override
    public long getBodyLength() throws JMSException {
        if (bytes == null) {
            throw new MessageNotReadableException("the BytesMessage is write-only until it is sent or reset()");
        }
        return bytes.length;
    }

    @Override
    public void reset() {
        bodyReadOnly = true;
        setReceivedBody(bodyBytes());
    }

    @Override
    public void clearBody() throws JMSException {
        super.clearBody();
        buffer = null;
        out = null;
        bytes = null;
        in = null;
    }

    @Override
    protected Object bodyObject() {
        byte[] b = bodyBytes();
        return b.length == 0 ? null : Arrays.copyOf(b, b.length);
    }

    @Override
    protected String kind() {
        return "BytesMessage";
    }

    private interface Read<T> {
        T read(DataInputStream in) throws IOException;
    }

    private interface Write {
        void write(DataOutputStream out) throws IOException;
    }

    private <T> T read(Read<T> r) throws JMSException {
        DataInputStream d = in();
        try {
            return r.read(d);
        } catch (EOFException e) {
            MessageEOFException x = new MessageEOFException("end of the BytesMessage body");
            x.setLinkedException(e);
            throw x;
        } catch (IOException e) {
            MessageFormatException x = new MessageFormatException("cannot read the BytesMessage body: " + e.getMessage());
            x.setLinkedException(e);
            throw x;
        }
    }

    private void write(Write w) throws JMSException {
        DataOutputStream d = out();
        try {
            w.write(d);
        } catch (IOException e) {
            JMSException x = new JMSException("cannot write the BytesMessage body: " + e.getMessage());
            x.setLinkedException(e);
            throw x;
        }
    }

    @Override
    public boolean readBoolean() throws JMSException {
        return read(DataInputStream::readBoolean);
    }

    @Override
    public byte readByte() throws JMSException {
        return read(DataInputStream::readByte);
    }

    @Override
    public int readUnsignedByte() throws JMSException {
        return read(DataInputStream::readUnsignedByte);
    }

    @Override
    public short readShort() throws JMSException {
        return read(DataInputStream::readShort);
    }

    @Override
    public int readUnsignedShort() throws JMSException {
        return read(DataInputStream::readUnsignedShort);
    }

    @Override
    public char readChar() throws JMSException {
        return read(DataInputStream::readChar);
    }

    @Override
    public int readInt() throws JMSException {
        return read(DataInputStream::readInt);
    }

    @Override
    public long readLong() throws JMSException {
        return read(DataInputStream::readLong);
    }

    @Override
    public float readFloat() throws JMSException {
        return read(DataInputStream::readFloat);
    }

    @Override
    public double readDouble() throws JMSException {
        return read(DataInputStream::readDouble);
    }

    @Override
    public String readUTF() throws JMSException {
        return read(d -> d.readUTF());
    }

    @Override
    public int readBytes(byte[] value) throws JMSException {
        return readBytes(value, value.length);
    }

    @Override
    public int readBytes(byte[] value, int length) throws JMSException {
        if (length < 0 || length > value.length) {
            throw new IndexOutOfBoundsException("length must be 0.." + value.length + ", but was " + length);
        }
        return read(d -> {
            int n = d.read(value, 0, length);
            return n;
        });
    }

    @Override
    public void writeBoolean(boolean v) throws JMSException {
        write(d -> d.writeBoolean(v));
    }

    @Override
    public void writeByte(byte v) throws JMSException {
        write(d -> d.writeByte(v));
    }

    @Override
    public void writeShort(short v) throws JMSException {
        write(d -> d.writeShort(v));
    }

    @Override
    public void writeChar(char v) throws JMSException {
        write(d -> d.writeChar(v));
    }

    @Override
    public void writeInt(int v) throws JMSException {
        write(d -> d.writeInt(v));
    }

    @Override
    public void writeLong(long v) throws JMSException {
        write(d -> d.writeLong(v));
    }

    @Override
    public void writeFloat(float v) throws JMSException {
        write(d -> d.writeFloat(v));
    }

    @Override
    public void writeDouble(double v) throws JMSException {
        write(d -> d.writeDouble(v));
    }

    @Override
    public void writeUTF(String v) throws JMSException {
        write(d -> d.writeUTF(v));
    }

    @Override
    public void writeBytes(byte[] v) throws JMSException {
        write(d -> d.write(v));
    }

    @Override
    public void writeBytes(byte[] v, int offset, int length) throws JMSException {
        write(d -> d.write(v, offset, length));
    }

    @Override
    public void writeObject(Object v) throws JMSException {
        if (v == null) {
            throw new NullPointerException("BytesMessage.writeObject(null)");
        }
        if (v instanceof Boolean b) {
            writeBoolean(b);
        } else if (v instanceof Byte b) {
            writeByte(b);
        } else if (v instanceof Short s) {
            writeShort(s);
        } else if (v instanceof Character c) {
            writeChar(c);
        } else if (v instanceof Integer i) {
            writeInt(i);
        } else if (v instanceof Long l) {
            writeLong(l);
        } else if (v instanceof Float f) {
            writeFloat(f);
        } else if (v instanceof Double d) {
            writeDouble(d);
        } else if (v instanceof String s) {
            writeUTF(s);
        } else if (v instanceof byte[] b) {
            writeBytes(b);
        } else {
            throw new MessageFormatException("BytesMessage.writeObject takes boxed primitives, String or byte[], but got a "
                    + v.getClass().getName());
        }
    }
}
