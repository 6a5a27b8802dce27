package io.fedbridge.jms.internal;

import io.fedbridge.core.StompHeaders;
import io.fedbridge.failover.FailoverMessage;
import io.fedbridge.jms.FedbridgeDestination;
import io.fedbridge.jms.FedbridgeQueue;
import io.fedbridge.jms.FedbridgeTopic;
import jakarta.jms.BytesMessage;
import jakarta.jms.DeliveryMode;
import jakarta.jms.Destination;
import jakarta.jms.InvalidDestinationException;
import jakarta.jms.JMSException;
import jakarta.jms.MapMessage;
import jakarta.jms.Message;
import jakarta.jms.MessageEOFException;
import jakarta.jms.ObjectMessage;
import jakarta.jms.StreamMessage;
import jakarta.jms.TextMessage;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.Charset;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * JMS messages to STOMP frames and back (the table in docs/jms.md). Header fields go to the STOMP headers ActiveMQ and
 * the fedbridge selector use ({@code correlation-id}, {@code reply-to}, {@code priority}, {@code expires},
 * {@code persistent}, {@code type}, {@code timestamp}); JMSMessageID travels as {@code jms-message-id} (a broker replaces
 * {@code message-id}); properties are headers of their own name, their values as text, and the non-String ones listed
 * with their type in {@code jms-property-types} ({@code count:int,ok:boolean}). The body kind is the content-type.
 */
final class MessageMapping {

    static final String MESSAGE_ID = "jms-message-id";
    static final String PROPERTY_TYPES = "jms-property-types";
    static final String TYPE = "type";
    /** The delivery time of a delayed message (epoch ms), the header the broker schedules by. */
    static final String SCHEDULED_TIME = "AMQ_SCHEDULED_TIME";

    static final String TEXT = "text/plain;charset=UTF-8";
    static final String BYTES = "application/octet-stream";
    static final String MAP = "application/x-fedbridge-jms-map";
    static final String STREAM = "application/x-fedbridge-jms-stream";
    static final String OBJECT = "application/x-java-serialized-object";
    static final String EMPTY = "application/x-fedbridge-jms-message";

    /** Headers that are not properties on receipt: the frame's own and those of JMS header fields. */
    private static final Set<String> NOT_PROPERTIES = Set.of(StompHeaders.DESTINATION, StompHeaders.MESSAGE_ID,
            StompHeaders.SUBSCRIPTION, StompHeaders.ACK, StompHeaders.CONTENT_LENGTH, StompHeaders.CONTENT_TYPE,
            StompHeaders.CORRELATION_ID, StompHeaders.REPLY_TO, StompHeaders.PRIORITY, StompHeaders.EXPIRES,
            StompHeaders.PERSISTENT, TYPE, StompHeaders.TIMESTAMP, StompHeaders.REDELIVERED, StompHeaders.REDELIVERY_COUNT,
            StompHeaders.RECEIPT, StompHeaders.TRANSACTION, MESSAGE_ID, PROPERTY_TYPES, JmsConnection.ORIGIN,
            SCHEDULED_TIME);

    /** Property names that would collide with those headers (the ones that are Java identifiers). */
    static final Set<String> RESERVED_PROPERTY_NAMES = Set.of(StompHeaders.DESTINATION, StompHeaders.SUBSCRIPTION,
            StompHeaders.ACK, StompHeaders.PRIORITY, StompHeaders.EXPIRES, StompHeaders.PERSISTENT, TYPE,
            StompHeaders.TIMESTAMP, StompHeaders.REDELIVERED, StompHeaders.RECEIPT, StompHeaders.TRANSACTION);

    private MessageMapping() {
    }

    // ------------------------------------------------------------------ sending

    /** The STOMP message for {@code m}, whose header fields the producer has set. Works for any provider's message. */
    static io.fedbridge.core.Message toStomp(Message m, FedbridgeDestination destination, JmsConnection sender)
            throws JMSException {
        io.fedbridge.core.Message.Builder b = io.fedbridge.core.Message.builder(JmsConnection.wireName(destination, sender));
        if (m.getJMSMessageID() != null) {
            b.header(MESSAGE_ID, m.getJMSMessageID());
        }
        if (m.getJMSCorrelationID() != null) {
            b.header(StompHeaders.CORRELATION_ID, m.getJMSCorrelationID());
        }
        if (m.getJMSReplyTo() != null) {
            b.header(StompHeaders.REPLY_TO, JmsConnection.wireName(destination(m.getJMSReplyTo(), "JMSReplyTo"), sender));
        }
        b.header(StompHeaders.PRIORITY, Integer.toString(m.getJMSPriority()));
        if (m.getJMSExpiration() != 0) {
            b.header(StompHeaders.EXPIRES, Long.toString(m.getJMSExpiration()));
        }
        if (m.getJMSDeliveryMode() == DeliveryMode.PERSISTENT) {
            b.persistent(true); // no header means NON_PERSISTENT to STOMP brokers and on receipt: one header less per hop
        }
        if (m.getJMSType() != null) {
            b.header(TYPE, m.getJMSType());
        }
        if (m.getJMSTimestamp() != 0) {
            b.header(StompHeaders.TIMESTAMP, Long.toString(m.getJMSTimestamp()));
        }
        if (m.getJMSDeliveryTime() > System.currentTimeMillis()) {
            b.header(SCHEDULED_TIME, Long.toString(m.getJMSDeliveryTime())); // delivery delay (JMS 7.9)
        }
        if (destination instanceof jakarta.jms.Topic) {
            b.header(JmsConnection.ORIGIN, sender.origin()); // for noLocal subscribers
        }
        List<String> types = null;
        if (m instanceof JmsMessage own) {
            for (Map.Entry<String, Object> e : own.properties().entrySet()) { // no copy of the names, as getPropertyNames makes
                types = property(b, e.getKey(), e.getValue(), types);
            }
        } else {
            for (Enumeration<?> e = m.getPropertyNames(); e.hasMoreElements(); ) {
                String name = (String) e.nextElement();
                types = property(b, name, m.getObjectProperty(name), types);
            }
        }
        if (types != null) {
            b.header(PROPERTY_TYPES, String.join(",", types));
        }
        body(m, b);
        return b.build();
    }

    /** Adds property {@code name} as a header; returns {@code types} with its type if it is not a String. */
    private static List<String> property(io.fedbridge.core.Message.Builder b, String name, Object v, List<String> types) {
        if (v == null || name.equals("JMSXDeliveryCount")) { // set by the receiving side
            return types;
        }
        if (NOT_PROPERTIES.contains(name) || name.startsWith("fedbridge-")) {
            throw new IllegalArgumentException("property name '" + name + "' is reserved (a STOMP header of the frame or "
                    + "of a JMS header field)");
        }
        b.header(name, v.toString());
        if (v instanceof String) {
            return types;
        }
        List<String> t = types != null ? types : new ArrayList<>();
        t.add(name + ":" + typeName(v));
        return t;
    }

    private static void body(Message m, io.fedbridge.core.Message.Builder b) throws JMSException {
        if (m instanceof JmsTextMessage t) {
            b.contentType(TEXT).body(t.getText() == null ? new byte[0] : t.getText().getBytes(StandardCharsets.UTF_8));
        } else if (m instanceof JmsBytesMessage x) {
            b.contentType(BYTES).body(x.bodyBytes());
        } else if (m instanceof JmsMapMessage x) {
            b.contentType(MAP).body(x.encode());
        } else if (m instanceof JmsStreamMessage x) {
            b.contentType(STREAM).body(x.encode());
        } else if (m instanceof JmsObjectMessage x) {
            b.contentType(OBJECT).body(x.serialized());
        } else if (m instanceof JmsMessage) {
            b.contentType(EMPTY);
        } else {
            foreignBody(m, b);
        }
    }

    /** JMS 3.12: a message of another provider is sent as ours would be. */
    private static void foreignBody(Message m, io.fedbridge.core.Message.Builder b) throws JMSException {
        if (m instanceof TextMessage t) {
            b.contentType(TEXT).body(t.getText() == null ? new byte[0] : t.getText().getBytes(StandardCharsets.UTF_8));
        } else if (m instanceof BytesMessage x) {
            x.reset();
            byte[] all = new byte[(int) x.getBodyLength()];
            x.readBytes(all);
            x.reset();
            b.contentType(BYTES).body(all);
        } else if (m instanceof MapMessage x) {
            Map<String, Object> map = new LinkedHashMap<>();
            for (Enumeration<?> e = x.getMapNames(); e.hasMoreElements(); ) {
                String n = (String) e.nextElement();
                map.put(n, x.getObject(n));
            }
            b.contentType(MAP).body(TypedValues.encodeMap(map));
        } else if (m instanceof StreamMessage x) {
            x.reset();
            List<Object> values = new ArrayList<>();
            try {
                while (true) {
                    values.add(x.readObject());
                }
            } catch (MessageEOFException end) {
                x.reset();
            }
            b.contentType(STREAM).body(TypedValues.encodeList(values));
        } else if (m instanceof ObjectMessage x) {
            JmsObjectMessage copy = new JmsObjectMessage(List.of(), false);
            copy.setObject(x.getObject());
            b.contentType(OBJECT).body(copy.serialized());
        } else {
            b.contentType(EMPTY);
        }
    }

    private static String typeName(Object v) {
        return v.getClass().getSimpleName().toLowerCase(Locale.ROOT).replace("integer", "int");
    }

    /** Ours, or an error naming the foreign destination (JMS 3.12 allows refusing those). */
    static FedbridgeDestination destination(Destination d, String what) throws InvalidDestinationException {
        if (d instanceof FedbridgeDestination f) {
            return f;
        }
        throw new InvalidDestinationException(what + " must be a fedbridge destination (from a fedbridge session or "
                + "new FedbridgeQueue/FedbridgeTopic), but was " + (d == null ? null : d.getClass().getName() + " " + d));
    }

    /** The last queue or topic made by {@link #fromStomp(String)}: a consumer's messages mostly name one destination. */
    private static volatile FedbridgeDestination lastDestination;

    /** The destination object for a STOMP destination a broker named. */
    static Destination fromStomp(String stompName) {
        if (stompName == null) {
            return null;
        }
        FedbridgeDestination last = lastDestination;
        if (last != null && last.stompName().equals(stompName)) {
            return last; // immutable, so one instance serves every message that names it
        }
        if (stompName.startsWith(FedbridgeDestination.QUEUE_PREFIX)) {
            return lastDestination = new FedbridgeQueue(stompName);
        }
        if (stompName.startsWith(FedbridgeDestination.TOPIC_PREFIX)) {
            return lastDestination = new FedbridgeTopic(stompName);
        }
        if (stompName.startsWith(FedbridgeDestination.TEMP_QUEUE_PREFIX)) {
            return new JmsTemporaryQueue(stompName, null);
        }
        if (stompName.startsWith(FedbridgeDestination.TEMP_TOPIC_PREFIX)) {
            return new JmsTemporaryTopic(stompName, null);
        }
        return new FedbridgeQueue(stompName); // another broker's naming: a queue of that name
    }

    // ------------------------------------------------------------------ receiving

    static JmsMessage fromStomp(FailoverMessage f, List<String> trustedPackages, boolean trustAll) throws JMSException {
        Map<String, String> h = f.headers();
        JmsMessage m = body(h.get(StompHeaders.CONTENT_TYPE), f.body(), trustedPackages, trustAll);
        String id = h.get(MESSAGE_ID);
        m.setJMSMessageID(id != null ? id : f.messageId() == null ? null : "ID:" + f.messageId());
        m.setJMSDestination(fromStomp(f.destination()));
        m.setJMSCorrelationID(h.get(StompHeaders.CORRELATION_ID));
        m.setJMSReplyTo(fromStomp(h.get(StompHeaders.REPLY_TO)));
        m.setJMSPriority(intOr(h.get(StompHeaders.PRIORITY), Message.DEFAULT_PRIORITY));
        m.setJMSExpiration(longOr(h.get(StompHeaders.EXPIRES), 0));
        m.setJMSTimestamp(longOr(h.get(StompHeaders.TIMESTAMP), 0));
        m.setJMSDeliveryTime(longOr(h.get(SCHEDULED_TIME), m.getJMSTimestamp()));
        m.setJMSDeliveryMode("true".equals(h.get(StompHeaders.PERSISTENT)) ? DeliveryMode.PERSISTENT : DeliveryMode.NON_PERSISTENT);
        m.setJMSType(h.get(TYPE));
        int redeliveries = f.redeliveryCount();
        m.setJMSRedelivered(redeliveries > 0 || "true".equals(h.get(StompHeaders.REDELIVERED)));
        Map<String, String> types = types(h.get(PROPERTY_TYPES));
        for (Map.Entry<String, String> e : h.entrySet()) {
            String n = e.getKey();
            if (NOT_PROPERTIES.contains(n) || n.startsWith("fedbridge-")) {
                continue;
            }
            m.putReceivedProperty(n, typed(e.getValue(), types.get(n)));
        }
        m.putReceivedProperty("JMSXDeliveryCount", Math.max(redeliveries, m.getJMSRedelivered() ? 1 : 0) + 1);
        m.makeReadOnly();
        return m;
    }

    private static JmsMessage body(String contentType, byte[] body, List<String> trusted, boolean trustAll) throws JMSException {
        String ct = contentType == null ? null : contentType.trim().toLowerCase(Locale.ROOT);
        String base = ct == null ? null : ct.split(";", 2)[0].trim();
        if (base == null) {
            String text = strictUtf8(body);
            if (text != null) {
                return text(text);
            }
            return bytes(body);
        }
        switch (base) {
            case MAP -> {
                JmsMapMessage m = new JmsMapMessage();
                m.decode(body);
                return m;
            }
            case STREAM -> {
                JmsStreamMessage m = new JmsStreamMessage();
                m.decode(body);
                return m;
            }
            case OBJECT -> {
                JmsObjectMessage m = new JmsObjectMessage(trusted, trustAll);
                m.setReceivedBody(body);
                return m;
            }
            case EMPTY -> {
                return new JmsMessage();
            }
            default -> {
                if (base.startsWith("text/") || base.equals("application/json") || base.equals("application/xml")
                        || base.endsWith("+json") || base.endsWith("+xml")) {
                    return text(new String(body, charset(ct)));
                }
                return bytes(body);
            }
        }
    }

    private static JmsTextMessage text(String s) throws JMSException {
        JmsTextMessage t = new JmsTextMessage();
        t.setText(s);
        return t;
    }

    private static JmsBytesMessage bytes(byte[] body) {
        JmsBytesMessage b = new JmsBytesMessage();
        b.setReceivedBody(body);
        return b;
    }

    private static Charset charset(String contentType) {
        for (String part : contentType.split(";")) {
            String p = part.trim();
            if (p.startsWith("charset=")) {
                try {
                    return Charset.forName(p.substring("charset=".length()).replace("\"", ""));
                } catch (IllegalArgumentException e) {
                    return StandardCharsets.UTF_8;
                }
            }
        }
        return StandardCharsets.UTF_8;
    }

    private static String strictUtf8(byte[] body) {
        try {
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(body)).toString();
        } catch (CharacterCodingException e) {
            return null;
        }
    }

    private static Map<String, String> types(String header) {
        if (header == null) {
            return Map.of();
        }
        Map<String, String> out = new LinkedHashMap<>();
        for (String item : header.split(",")) {
            int colon = item.lastIndexOf(':');
            if (colon > 0) {
                out.put(item.substring(0, colon).trim(), item.substring(colon + 1).trim());
            }
        }
        return out;
    }

    /** A header value as the type its sender gave it; a value that does not parse stays a String. */
    private static Object typed(String value, String type) {
        if (type == null) {
            return value;
        }
        try {
            return switch (type) {
                case "boolean" -> Boolean.parseBoolean(value);
                case "byte" -> Byte.parseByte(value);
                case "short" -> Short.parseShort(value);
                case "int" -> Integer.parseInt(value);
                case "long" -> Long.parseLong(value);
                case "float" -> Float.parseFloat(value);
                case "double" -> Double.parseDouble(value);
                default -> value;
            };
        } catch (NumberFormatException e) {
            return value;
        }
    }

    private static int intOr(String v, int dflt) {
        try {
            return v == null ? dflt : Integer.parseInt(v.trim());
        } catch (NumberFormatException e) {
            return dflt;
        }
    }

    private static long longOr(String v, long dflt) {
        try {
            return v == null ? dflt : Long.parseLong(v.trim());
        } catch (NumberFormatException e) {
            return dflt;
        }
    }

}
