package io.fedbridge.jms.internal;

import jakarta.jms.MessageFormatException;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The body encoding of MapMessage and StreamMessage (docs/jms.md), big-endian as {@code DataOutput} writes it:
 * a version byte (1); for a map an int count then per entry a string name and a value; for a stream the values one
 * after another to the end. A value is a tag byte and its data: 0 null, 1 boolean (1 byte), 2 byte, 3 short, 4 char,
 * 5 int, 6 long, 7 float, 8 double, 9 string (int length, UTF-8 bytes), 10 bytes (int length, bytes). A string name is
 * written as a tag-9 value without the tag. Also the JMS conversion rules for reading typed values (JMS 3.11.3).
 */
final class TypedValues {

    static final byte VERSION = 1;

    private TypedValues() {
    }

    static byte[] encodeMap(Map<String, Object> map) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(b)) {
            out.writeByte(VERSION);
            out.writeInt(map.size());
            for (Map.Entry<String, Object> e : map.entrySet()) {
                writeString(out, e.getKey());
                writeValue(out, e.getValue());
            }
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        return b.toByteArray();
    }

    static byte[] encodeList(List<Object> values) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(b)) {
            out.writeByte(VERSION);
            for (Object v : values) {
                writeValue(out, v);
            }
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        return b.toByteArray();
    }

    static Map<String, Object> decodeMap(byte[] body) throws MessageFormatException {
        Map<String, Object> map = new LinkedHashMap<>();
        if (body.length == 0) {
            return map;
        }
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(body))) {
            checkVersion(in.readByte());
            int n = in.readInt();
            if (n < 0 || n > body.length) {
                throw new IOException("entry count " + n + " does not fit a body of " + body.length + " bytes");
            }
            for (int i = 0; i < n; i++) {
                map.put(readString(in, body.length), readValue(in, body.length));
            }
        } catch (IOException e) {
            throw malformed("MapMessage", e);
        }
        return map;
    }

    static List<Object> decodeList(byte[] body) throws MessageFormatException {
        List<Object> list = new ArrayList<>();
        if (body.length == 0) {
            return list;
        }
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(body))) {
            checkVersion(in.readByte());
            while (in.available() > 0) {
                list.add(readValue(in, body.length));
            }
        } catch (IOException e) {
            throw malformed("StreamMessage", e);
        }
        return list;
    }

    private static void checkVersion(byte v) throws IOException {
        if (v != VERSION) {
            throw new IOException("encoding version " + v + " is not " + VERSION);
        }
    }

    private static MessageFormatException malformed(String kind, IOException e) {
        MessageFormatException x = new MessageFormatException("malformed " + kind + " body: " + e.getMessage());
        x.setLinkedException(e);
        return x;
    }

    private static void writeString(DataOutputStream out, String s) throws IOException {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        out.writeInt(b.length);
        out.write(b);
    }

    private static String readString(DataInputStream in, int max) throws IOException {
        return new String(readBytes(in, max), StandardCharsets.UTF_8);
    }

    private static byte[] readBytes(DataInputStream in, int max) throws IOException {
        int n = in.readInt();
        if (n < 0 || n > max) {
            throw new IOException("length " + n + " does not fit a body of " + max + " bytes");
        }
        byte[] b = new byte[n];
        in.readFully(b);
        return b;
    }

    private static void writeValue(DataOutputStream out, Object v) throws IOException {
        if (v == null) {
            out.writeByte(0);
        } else if (v instanceof Boolean x) {
            out.writeByte(1);
            out.writeBoolean(x);
        } else if (v instanceof Byte x) {
            out.writeByte(2);
            out.writeByte(x);
        } else if (v instanceof Short x) {
            out.writeByte(3);
            out.writeShort(x);
        } else if (v instanceof Character x) {
            out.writeByte(4);
            out.writeChar(x);
        } else if (v instanceof Integer x) {
            out.writeByte(5);
            out.writeInt(x);
        } else if (v instanceof Long x) {
            out.writeByte(6);
            out.writeLong(x);
        } else if (v instanceof Float x) {
            out.writeByte(7);
            out.writeFloat(x);
        } else if (v instanceof Double x) {
            out.writeByte(8);
            out.writeDouble(x);
        } else if (v instanceof String x) {
            out.writeByte(9);
            writeString(out, x);
        } else if (v instanceof byte[] x) {
            out.writeByte(10);
            out.writeInt(x.length);
            out.write(x);
        } else {
            throw new IllegalArgumentException("value must be a boxed primitive, String or byte[], but was " + v.getClass().getName());
        }
    }

    private static Object readValue(DataInputStream in, int max) throws IOException {
        int tag = in.readByte();
        return switch (tag) {
            case 0 -> null;
            case 1 -> in.readBoolean();
            case 2 -> in.readByte();
            case 3 -> in.readShort();
            case 4 -> in.readChar();
            case 5 -> in.readInt();
            case 6 -> in.readLong();
            case 7 -> in.readFloat();
            case 8 -> in.readDouble();
            case 9 -> readString(in, max);
            case 10 -> readBytes(in, max);
            default -> throw new IOException("unknown value tag " + tag);
        };
    }

    /** Checks a value given to MapMessage.setObject / StreamMessage.writeObject. */
    static Object checkValue(Object v) throws MessageFormatException {
        if (v == null || v instanceof Boolean || v instanceof Byte || v instanceof Short || v instanceof Character
                || v instanceof Integer || v instanceof Long || v instanceof Float || v instanceof Double || v instanceof String) {
            return v;
        }
        if (v instanceof byte[] b) {
            return b.clone();
        }
        throw new MessageFormatException("value must be a boxed primitive, String or byte[], but was a " + v.getClass().getName());
    }

    // ------------------------------------------------------------------ JMS 3.11.3 conversions

    static boolean toBoolean(Object v) throws MessageFormatException {
        if (v instanceof Boolean b) {
            return b;
        }
        if (v == null || v instanceof String) {
            return Boolean.parseBoolean((String) v);
        }
        throw cannot(v, "boolean");
    }

    static byte toByte(Object v) throws MessageFormatException {
        if (v instanceof Byte b) {
            return b;
        }
        if (v == null || v instanceof String) {
            return Byte.parseByte((String) v);
        }
        throw cannot(v, "byte");
    }

    static short toShort(Object v) throws MessageFormatException {
        if (v instanceof Byte || v instanceof Short) {
            return ((Number) v).shortValue();
        }
        if (v == null || v instanceof String) {
            return Short.parseShort((String) v);
        }
        throw cannot(v, "short");
    }

    static char toChar(Object v) throws MessageFormatException {
        if (v instanceof Character c) {
            return c;
        }
        if (v == null) {
            throw new NullPointerException("the value is null and cannot be read as char");
        }
        throw cannot(v, "char");
    }

    static int toInt(Object v) throws MessageFormatException {
        if (v instanceof Byte || v instanceof Short || v instanceof Integer) {
            return ((Number) v).intValue();
        }
        if (v == null || v instanceof String) {
            return Integer.parseInt((String) v);
        }
        throw cannot(v, "int");
    }

    static long toLong(Object v) throws MessageFormatException {
        if (v instanceof Byte || v instanceof Short || v instanceof Integer || v instanceof Long) {
            return ((Number) v).longValue();
        }
        if (v == null || v instanceof String) {
            return Long.parseLong((String) v);
        }
        throw cannot(v, "long");
    }

    static float toFloat(Object v) throws MessageFormatException {
        if (v instanceof Float f) {
            return f;
        }
        if (v == null || v instanceof String) {
            return Float.parseFloat((String) v);
        }
        throw cannot(v, "float");
    }

    static double toDouble(Object v) throws MessageFormatException {
        if (v instanceof Float || v instanceof Double) {
            return ((Number) v).doubleValue();
        }
        if (v == null || v instanceof String) {
            return Double.parseDouble((String) v);
        }
        throw cannot(v, "double");
    }

    static String toStringValue(Object v) throws MessageFormatException {
        if (v instanceof byte[]) {
            throw cannot(v, "String");
        }
        return v == null ? null : v.toString();
    }

    static byte[] toBytes(Object v) throws MessageFormatException {
        if (v == null || v instanceof byte[]) {
            return (byte[]) v;
        }
        throw cannot(v, "byte[]");
    }

    private static MessageFormatException cannot(Object v, String to) {
        return new MessageFormatException("a " + v.getClass().getSimpleName() + " cannot be read as " + to + " (JMS 3.11.3)");
    }
}
