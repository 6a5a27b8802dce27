package io.fedbridge.discovery.multicast.internal;

import io.fedbridge.core.uri.CompositeUri;
import io.fedbridge.discovery.multicast.MulticastSecret;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Set;
import javax.crypto.Mac;

/**
 * The multicast discovery datagram: one line of UTF-8 text, no line terminator, at most {@value #MAX_BYTES} bytes,
 * fields separated by single spaces. Two versions, told apart by the first field:
 *
 * <pre>
 * FEDBRIDGE1 ALIVE|DEAD &lt;group&gt; &lt;brokerId&gt; &lt;brokerName&gt; &lt;heartbeatMillis&gt; &lt;uri&gt;[,&lt;uri&gt;...]
 * FEDBRIDGE2 ALIVE|DEAD &lt;group&gt; &lt;brokerId&gt; &lt;brokerName&gt; &lt;heartbeatMillis&gt; &lt;uri&gt;[,&lt;uri&gt;...]
 *            &lt;timestampMillis&gt; &lt;session&gt; &lt;sequence&gt; &lt;hmac&gt;
 * </pre>
 *
 * Version 1 is unsigned; version 2 is signed and written only by an agent with a {@link MulticastSecret}:
 * {@code timestampMillis} is the sender's clock (milliseconds since the epoch), {@code session} 16 lower-case hex
 * digits drawn at random when the sender started, {@code sequence} a decimal counting up from 1 within a session,
 * and {@code hmac} the HMAC-SHA256, with the shared secret as key, of every byte before it (the trailing space
 * included), in unpadded base64url (43 characters). In the other fields a space, a comma, a {@code '%'} and the
 * control characters are written {@code %XX} (two hex digits), so that no field contains a separator.
 * {@code heartbeatMillis} is 1 to 3 600 000; the URIs are plain {@code tcp://} or {@code ssl://} URIs with a port.
 *
 * <p>{@link #decode} never throws: a datagram is either {@link Valid} or {@link Invalid}, with the reason. A codec
 * without a secret reads version 1 and rejects version 2 (it cannot check the signature); a codec with a secret
 * reads version 2 with a matching signature and rejects version 1 as unsigned. Checking the timestamp and the
 * sequence (stale, replayed) is up to the receiver, which has a clock and a memory: see {@link ReplayGuard}.
 *
 * <p>Thread-safe.
 */
public final class AnnouncementCodec {

    /** The largest datagram, in bytes: one Ethernet frame with IPv4 and UDP headers, so never fragmented. */
    public static final int MAX_BYTES = 1400;

    /** The first field of an unsigned datagram. */
    public static final String UNSIGNED_VERSION = "FEDBRIDGE1";

    /** The first field of a signed datagram. */
    public static final String SIGNED_VERSION = "FEDBRIDGE2";

    private static final String MAGIC = "FEDBRIDGE";
    private static final int UNSIGNED_FIELDS = 7;
    private static final int SIGNED_FIELDS = 11;
    private static final int MAC_CHARS = 43;
    private static final int SESSION_CHARS = 16;
    private static final Set<String> URI_SCHEMES = Set.of("tcp", "ssl");
    private static final char[] HEX = "0123456789ABCDEF".toCharArray();
    private static final Base64.Encoder BASE64URL = Base64.getUrlEncoder().withoutPadding();

    /** When, in which sender session and as which of its datagrams a signed datagram was sent. */
    public record Seal(long timestampMillis, long session, long sequence) {
        public Seal {
            if (timestampMillis < 0 || sequence < 1) {
                throw new IllegalArgumentException("timestampMillis must be >= 0 and sequence >= 1, but were "
                        + timestampMillis + " and " + sequence);
            }
        }
    }

    /** Why a datagram was not accepted. */
    public enum Problem {
        /** Not a valid announcement of any version: garbage, truncated, oversized, another protocol or version. */
        MALFORMED,
        /** An unsigned (version 1) announcement, read by a codec that requires a signature. */
        UNSIGNED,
        /** A signed announcement whose signature does not match, or that a codec without a secret cannot check. */
        BAD_SIGNATURE
    }

    /** What {@link #decode} made of a datagram. */
    public sealed interface Decoded permits Valid, Invalid {
    }

    /** An announcement to act on; {@code seal} is null for an unsigned one (read only without a secret). */
    public record Valid(Announcement announcement, Seal seal) implements Decoded {
    }

    /**
     * A datagram to ignore. {@code claimedGroup} is the group it names if it parsed (unverified: only good for
     * telling another group's traffic from an attack on this one), else null.
     */
    public record Invalid(Problem problem, String reason, String claimedGroup) implements Decoded {
    }

    private final MulticastSecret secret;

    /** A codec that signs and requires signatures with {@code secret}, or, if null, reads and writes version 1. */
    public AnnouncementCodec(MulticastSecret secret) {
        this.secret = secret;
    }

    /** Whether this codec signs. */
    public boolean isSigning() {
        return secret != null;
    }

    /**
     * The datagram for {@code a}: signed with {@code seal} if this codec has a secret, else version 1 and
     * {@code seal} is ignored (may be null).
     *
     * @throws IllegalArgumentException if the datagram would exceed {@value #MAX_BYTES} bytes
     */
    public byte[] encode(Announcement a, Seal seal) {
        StringBuilder sb = new StringBuilder(256).append(secret == null ? UNSIGNED_VERSION : SIGNED_VERSION)
                .append(' ').append(a.type().name());
        for (String field : List.of(a.group(), a.brokerId(), a.brokerName())) {
            escape(sb.append(' '), field);
        }
        sb.append(' ').append(a.heartbeatInterval().toMillis()).append(' ');
        for (int i = 0; i < a.uris().size(); i++) {
            escape(i == 0 ? sb : sb.append(','), a.uris().get(i));
        }
        byte[] bytes;
        if (secret == null) {
            bytes = sb.toString().getBytes(StandardCharsets.UTF_8);
        } else {
            sb.append(' ').append(seal.timestampMillis()).append(' ').append(session(seal.session())).append(' ')
                    .append(seal.sequence()).append(' ');
            byte[] signed = sb.toString().getBytes(StandardCharsets.UTF_8);
            byte[] mac = BASE64URL.encode(secret.newMac().doFinal(signed));
            bytes = new byte[signed.length + mac.length];
            System.arraycopy(signed, 0, bytes, 0, signed.length);
            System.arraycopy(mac, 0, bytes, signed.length, mac.length);
        }
        if (bytes.length > MAX_BYTES) {
            throw new IllegalArgumentException("announcement must be at most " + MAX_BYTES + " bytes, but was "
                    + bytes.length + " bytes: " + a);
        }
        return bytes;
    }

    /** Reads {@code datagram} from its position to its limit, without moving either; never throws. */
    public Decoded decode(ByteBuffer datagram) {
        int length = datagram.remaining();
        if (length > MAX_BYTES) {
            return malformed("too long: " + length + " bytes, more than " + MAX_BYTES);
        }
        String text;
        try {
            text = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(datagram.duplicate()).toString();
        } catch (CharacterCodingException e) {
            return malformed("not UTF-8 text");
        }
        String[] fields = text.split(" ", -1);
        boolean signed = fields[0].equals(SIGNED_VERSION);
        if (!signed && !fields[0].equals(UNSIGNED_VERSION)) {
            if (fields[0].startsWith(MAGIC)) {
                return malformed("unsupported version '" + printable(fields[0]) + "', this broker reads "
                        + UNSIGNED_VERSION + " and " + SIGNED_VERSION);
            }
            return malformed("not a fedbridge announcement (starts with '"
                    + printable(text.length() > 16 ? text.substring(0, 16) : text) + "')");
        }
        int expected = signed ? SIGNED_FIELDS : UNSIGNED_FIELDS;
        if (fields.length != expected) {
            return malformed("expected " + expected + " space-separated fields in a " + fields[0]
                    + " datagram, but found " + fields.length);
        }
        Announcement a;
        Seal seal;
        try {
            a = announcement(fields);
            seal = signed ? seal(fields) : null;
        } catch (MalformedAnnouncementException e) {
            return malformed(e.getMessage());
        }
        if (!signed) {
            return secret == null ? new Valid(a, null) : new Invalid(Problem.UNSIGNED, "unsigned (" + UNSIGNED_VERSION
                    + "), but this group requires signed announcements (" + SIGNED_VERSION + ")", a.group());
        }
        if (secret == null) {
            return new Invalid(Problem.BAD_SIGNATURE, "signed (" + SIGNED_VERSION + "), but this agent has no secret "
                    + "to check the signature with: give it the group's secret", a.group());
        }
        Mac mac = secret.newMac();
        ByteBuffer content = datagram.duplicate();
        content.limit(content.position() + length - MAC_CHARS);
        mac.update(content);
        // Compared as text, so that only the one canonical base64url spelling of the right value is accepted.
        byte[] expectedMac = BASE64URL.encode(mac.doFinal());
        byte[] claimedMac = fields[SIGNED_FIELDS - 1].getBytes(StandardCharsets.US_ASCII);
        if (!MessageDigest.isEqual(expectedMac, claimedMac)) {
            return new Invalid(Problem.BAD_SIGNATURE, "the signature does not match: signed with another secret, "
                    + "or altered on the way", a.group());
        }
        return new Valid(a, seal);
    }

    /** Decodes a whole array. */
    public Decoded decode(byte[] datagram) {
        return decode(ByteBuffer.wrap(datagram));
    }

    private static Invalid malformed(String reason) {
        return new Invalid(Problem.MALFORMED, reason, null);
    }

    private static Announcement announcement(String[] fields) throws MalformedAnnouncementException {
        Announcement.Type type;
        try {
            type = Announcement.Type.valueOf(fields[1]);
        } catch (IllegalArgumentException e) {
            throw new MalformedAnnouncementException("type must be ALIVE or DEAD, but was '" + printable(fields[1]) + "'");
        }
        String group = unescape(fields[2], "group");
        String brokerId = unescape(fields[3], "brokerId");
        String brokerName = unescape(fields[4], "brokerName");
        Duration heartbeat = Duration.ofMillis(number(fields[5], "heartbeatMillis", 7, 1,
                Announcement.MAX_HEARTBEAT_INTERVAL.toMillis()));
        List<String> uris = new ArrayList<>();
        for (String uri : fields[6].split(",", -1)) {
            uris.add(checkUri(unescape(uri, "uri")));
        }
        return new Announcement(type, group, brokerId, brokerName, heartbeat, uris);
    }

    private static Seal seal(String[] fields) throws MalformedAnnouncementException {
        long timestamp = number(fields[7], "timestampMillis", 15, 0, Long.MAX_VALUE);
        String session = fields[8];
        if (session.length() != SESSION_CHARS || !session.chars().allMatch(c -> c >= '0' && c <= '9' || c >= 'a' && c <= 'f')) {
            throw new MalformedAnnouncementException("session must be " + SESSION_CHARS + " lower-case hex digits, but was '"
                    + printable(session) + "'");
        }
        long sequence = number(fields[9], "sequence", 18, 1, Long.MAX_VALUE);
        String mac = fields[10];
        if (mac.length() != MAC_CHARS || !mac.chars().allMatch(AnnouncementCodec::isBase64Url)) {
            throw new MalformedAnnouncementException("hmac must be " + MAC_CHARS + " base64url characters, but was '"
                    + printable(mac) + "'");
        }
        return new Seal(timestamp, Long.parseUnsignedLong(session, 16), sequence);
    }

    private static boolean isBase64Url(int c) {
        return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_';
    }

    /** A decimal of at most {@code maxDigits} digits, {@code min} to {@code max}. */
    private static long number(String field, String name, int maxDigits, long min, long max)
            throws MalformedAnnouncementException {
        if (field.isEmpty() || field.length() > maxDigits || !field.chars().allMatch(c -> c >= '0' && c <= '9')) {
            throw new MalformedAnnouncementException(name + " must be a whole number of at most " + maxDigits
                    + " digits, but was '" + printable(field) + "'");
        }
        long value = Long.parseLong(field);
        if (value < min || value > max) {
            throw new MalformedAnnouncementException(name + " must be " + min + " to " + max + ", but was " + value);
        }
        return value;
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
                    + printable(parsed.toString()) + "'");
        }
        return uri;
    }

    private static String session(long session) {
        String hex = Long.toHexString(session);
        return "0".repeat(SESSION_CHARS - hex.length()) + hex;
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

    /** An ASCII hex digit's value; anything else makes the escape negative. */
    private static int hex(char c) {
        if (c >= '0' && c <= '9') {
            return c - '0';
        }
        if (c >= 'A' && c <= 'F' || c >= 'a' && c <= 'f') {
            return (c | 0x20) - 'a' + 10;
        }
        return -0x100;
    }

    /** Text from a datagram, safe to put in a log line. */
    private static String printable(String s) {
        StringBuilder sb = new StringBuilder(s.length());
        s.codePoints().forEach(c -> sb.appendCodePoint(Character.isISOControl(c) ? '?' : c));
        return sb.toString();
    }
}
