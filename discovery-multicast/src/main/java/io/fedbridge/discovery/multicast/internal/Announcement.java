package io.fedbridge.discovery.multicast.internal;

import io.fedbridge.core.uri.CompositeUri;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * One multicast discovery datagram, version 1: a line of UTF-8 text with seven fields separated by single spaces,
 * no line terminator, at most {@value #MAX_BYTES} bytes:
 *
 * <pre>
 * FEDBRIDGE1 ALIVE|DEAD &lt;group&gt; &lt;brokerId&gt; &lt;brokerName&gt; &lt;heartbeatMillis&gt; &lt;uri&gt;[,&lt;uri&gt;...]
 * </pre>
 *
 * In every field a space, a comma, a {@code '%'} and the control characters are written as {@code %XX}
 * (two hex digits), so that no field contains a separator. {@code heartbeatMillis} is the sender's announcement
 * interval in milliseconds (1 to 3 600 000); receivers expire the sender after their {@code expiry} of these
 * intervals. The URIs are plain {@code tcp://} or {@code ssl://} URIs with a port. A datagram that breaks any of
 * these rules, or has another version token ({@code FEDBRIDGE2 ...}), is malformed; a later version that keeps
 * the token {@code FEDBRIDGE1} must stay readable by this decoder.
 *
 * @param type              alive (a heartbeat) or dead (a clean departure)
 * @param group             the discovery group
 * @param brokerId          the sender's broker id
 * @param brokerName        the sender's broker name
 * @param heartbeatInterval how often the sender announces itself
 * @param uris              the connector URIs peers should use, best first
 */
public record Announcement(Type type, String group, String brokerId, String brokerName, Duration heartbeatInterval,
                           List<String> uris) {

    /** The first field of every version-1 datagram. */
    public static final String VERSION_TOKEN = "FEDBRIDGE1";

    /** The largest datagram, in bytes: one Ethernet frame with IPv4 and UDP headers, so never fragmented. */
    public static final int MAX_BYTES = 1400;

    /** The longest heartbeat interval a datagram may state. */
    public static final Duration MAX_HEARTBEAT_INTERVAL = Duration.ofHours(1);

    private static final String MAGIC = "FEDBRIDGE";
    private static final int FIELDS = 7;
    private static final Set<String> URI_SCHEMES = Set.of("tcp", "ssl");
    private static final char[] HEX = "0123456789ABCDEF".toCharArray();

    /** What a datagram announces. */
    public enum Type {
        /** The sender is up; sent every heartbeat interval. */
        ALIVE,
        /** The sender is shutting down cleanly; forget it now. */
        DEAD
    }

    public Announcement {
        Objects.requireNonNull(type, "type");
        requireText(group, "group");
        requireText(brokerId, "brokerId");
        requireText(brokerName, "brokerName");
        Objects.requireNonNull(heartbeatInterval, "heartbeatInterval");
        if (heartbeatInterval.toMillis() < 1 || heartbeatInterval.compareTo(MAX_HEARTBEAT_INTERVAL) > 0) {
            throw new IllegalArgumentException("heartbeatInterval must be 1 ms to " + MAX_HEARTBEAT_INTERVAL
                    + ", but was " + heartbeatInterval);
        }
        uris = List.copyOf(uris);
        if (uris.isEmpty()) {
            throw new IllegalArgumentException("uris must not be empty, but was " + uris);
        }
        uris.forEach(uri -> requireText(uri, "uri"));
    }

    /** This announcement with another type, e.g. the {@code DEAD} twin of an {@code ALIVE}. */
    public Announcement withType(Type newType) {
        return new Announcement(newType, group, brokerId, brokerName, heartbeatInterval, uris);
    }

    /**
     * The datagram.
     *
     * @throws IllegalArgumentException if it would exceed {@value #MAX_BYTES} bytes
     */
    public byte[] encode() {
        StringBuilder sb = new StringBuilder(256).append(VERSION_TOKEN).append(' ').append(type.name());
        for (String field : List.of(group, brokerId, brokerName)) {
            escape(sb.append(' '), field);
        }
        sb.append(' ').append(heartbeatInterval.toMillis()).append(' ');
        for (int i = 0; i < uris.size(); i++) {
            escape(i == 0 ? sb : sb.append(','), uris.get(i));
        }
        byte[] bytes = sb.toString().getBytes(StandardCharsets.UTF_8);
        if (bytes.length > MAX_BYTES) {
            throw new IllegalArgumentException("announcement must be at most " + MAX_BYTES + " bytes, but was "
                    + bytes.length + " bytes: " + this);
        }
        return bytes;
    }

    /**
     * Reads a datagram.
     *
     * @throws MalformedAnnouncementException saying what is wrong, if {@code datagram} is not a valid version-1
     *                                        announcement
     */
    public static Announcement decode(ByteBuffer datagram) throws MalformedAnnouncementException {
        int length = datagram.remaining();
        if (length > MAX_BYTES) {
            throw new MalformedAnnouncementException("too long: " + length + " bytes, more than " + MAX_BYTES);
        }
        String text;
        try {
            CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT);
            CharBuffer chars = decoder.decode(datagram);
            text = chars.toString();
        } catch (CharacterCodingException e) {
            throw new MalformedAnnouncementException("not UTF-8 text");
        }
        String[] fields = text.split(" ", -1);
        if (!fields[0].equals(VERSION_TOKEN)) {
            if (fields[0].startsWith(MAGIC)) {
                throw new MalformedAnnouncementException("unsupported version '" + printable(fields[0])
                        + "', this broker reads " + VERSION_TOKEN);
            }
            throw new MalformedAnnouncementException("not a fedbridge announcement (starts with '"
                    + printable(text.length() > 16 ? text.substring(0, 16) : text) + "')");
        }
        if (fields.length != FIELDS) {
            throw new MalformedAnnouncementException("expected " + FIELDS + " space-separated fields, but found "
                    + fields.length);
        }
        Type type;
        try {
            type = Type.valueOf(fields[1]);
        } catch (IllegalArgumentException e) {
            throw new MalformedAnnouncementException("type must be ALIVE or DEAD, but was '" + printable(fields[1]) + "'");
        }
        String group = unescape(fields[2], "group");
        String brokerId = unescape(fields[3], "brokerId");
        String brokerName = unescape(fields[4], "brokerName");
        Duration heartbeat = heartbeat(fields[5]);
        List<String> uris = new ArrayList<>();
        for (String uri : fields[6].split(",", -1)) {
            uris.add(checkUri(unescape(uri, "uri")));
        }
        return new Announcement(type, group, brokerId, brokerName, heartbeat, uris);
    }

    /** Decodes {@code datagram} without moving its position. */
    public static Announcement decode(byte[] datagram) throws MalformedAnnouncementException {
        return decode(ByteBuffer.wrap(datagram));
    }

    private static Duration heartbeat(String field) throws MalformedAnnouncementException {
        if (field.isEmpty() || field.length() > 7 || !field.chars().allMatch(c -> c >= '0' && c <= '9')) {
            throw new MalformedAnnouncementException("heartbeatMillis must be a whole number, but was '"
                    + printable(field) + "'");
        }
        long millis = Long.parseLong(field);
        if (millis < 1 || millis > MAX_HEARTBEAT_INTERVAL.toMillis()) {
            throw new MalformedAnnouncementException("heartbeatMillis must be 1 to " + MAX_HEARTBEAT_INTERVAL.toMillis()
                    + ", but was " + millis);
        }
        return Duration.ofMillis(millis);
    }

    private static String checkUri(String uri) throws MalformedAnnouncementException {
        CompositeUri parsed;
        try {
            parsed = CompositeUri.parse(uri);
        } catch (IllegalArgumentException e) {
            throw new MalformedAnnouncementException("uri '" + printable(uri) + "' does not parse");
        }
        if (parsed.isComposite() || !URI_SCHEMES.contains(parsed.scheme()) || !parsed.hasPort()) {
            throw new MalformedAnnouncementException("uri must be a tcp:// or ssl:// URI with a port, but was '"
                    + parsed + "'");
        }
        return uri;
    }

    private static void escape(StringBuilder sb, String field) {
        for (int i = 0; i < field.length(); i++) {
            char c = field.charAt(i);
            if (c == ' ' || c == ',' || c == '%' || c < 0x20 || c == 0x7f) {
                sb.append('%').append(HEX[c >> 4]).append(HEX[c & 0xf]);
            } else {
                sb.append(c);
            }
        }
    }

    private static String unescape(String field, String name) throws MalformedAnnouncementException {
        if (field.isEmpty()) {
            throw new MalformedAnnouncementException(name + " is empty");
        }
        StringBuilder sb = null;
        for (int i = 0; i < field.length(); i++) {
            char c = field.charAt(i);
            if (c < 0x20 || c == 0x7f) {
                throw new MalformedAnnouncementException(name + " contains a raw control character");
            }
            if (c != '%') {
                if (sb != null) {
                    sb.append(c);
                }
                continue;
            }
            int value = i + 2 < field.length() ? hex(field.charAt(i + 1)) << 4 | hex(field.charAt(i + 2)) : -1;
            if (value < 0 || value > 0x7f) {
                throw new MalformedAnnouncementException(name + " has a bad %-escape at position " + i);
            }
            if (sb == null) {
                sb = new StringBuilder(field.length()).append(field, 0, i);
            }
            sb.append((char) value);
            i += 2;
        }
        return sb == null ? field : sb.toString();
    }

    private static int hex(char c) {
        int v = Character.digit(c, 16);
        return v < 0 ? -0x100 : v;
    }

    /** Text from a datagram, safe to put in a log line. */
    private static String printable(String s) {
        StringBuilder sb = new StringBuilder(s.length());
        s.codePoints().forEach(c -> {
            if (Character.isISOControl(c)) {
                sb.append('?');
            } else {
                sb.appendCodePoint(c);
            }
        });
        return sb.toString();
    }

    private static void requireText(String value, String name) {
        if (value == null || value.isEmpty()) {
            throw new IllegalArgumentException(name + " must not be empty, but was " + (value == null ? "null" : "''"));
        }
    }

    @Override
    public String toString() {
        return type + " " + group + " " + brokerName + " (" + brokerId + ") " + uris.stream()
                .map(Announcement::masked).toList() + " every " + heartbeatInterval.toMillis() + " ms";
    }

    private static String masked(String uri) {
        try {
            return CompositeUri.parse(uri).toString();
        } catch (IllegalArgumentException e) {
            return "(unparseable URI)";
        }
    }
}
