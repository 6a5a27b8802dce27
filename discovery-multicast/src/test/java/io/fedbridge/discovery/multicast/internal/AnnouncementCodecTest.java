package io.fedbridge.discovery.multicast.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fedbridge.discovery.multicast.MulticastSecret;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class AnnouncementCodecTest {

    private static final Announcement ALIVE = new Announcement(Announcement.Type.ALIVE, "orders",
            "6f1c0f4e-8d0b-4a4e-9f55-1b2a9e0c7d13", "broker-a", Duration.ofMillis(500),
            List.of("tcp://10.0.0.5:61613", "ssl://10.0.0.5:61614"));
    private static final MulticastSecret SECRET = MulticastSecret.of("correct horse battery staple");
    private static final AnnouncementCodec UNSIGNED = new AnnouncementCodec(null);
    private static final AnnouncementCodec SIGNED = new AnnouncementCodec(SECRET);
    private static final AnnouncementCodec.Seal SEAL = new AnnouncementCodec.Seal(1_700_000_000_123L, 0x0123456789abcdefL, 7);

    private static byte[] text(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String reason(byte[] datagram) {
        return invalid(UNSIGNED, datagram, AnnouncementCodec.Problem.MALFORMED).reason();
    }

    private static AnnouncementCodec.Invalid invalid(AnnouncementCodec codec, byte[] datagram,
                                                     AnnouncementCodec.Problem problem) {
        AnnouncementCodec.Decoded decoded = codec.decode(datagram);
        assertThat(decoded).as(new String(datagram, StandardCharsets.UTF_8)).isInstanceOf(AnnouncementCodec.Invalid.class);
        AnnouncementCodec.Invalid invalid = (AnnouncementCodec.Invalid) decoded;
        assertThat(invalid.problem()).as(invalid.reason()).isEqualTo(problem);
        assertThat(invalid.reason()).isNotBlank();
        return invalid;
    }

    private static AnnouncementCodec.Valid valid(AnnouncementCodec codec, byte[] datagram) {
        AnnouncementCodec.Decoded decoded = codec.decode(datagram);
        assertThat(decoded).as("%s", decoded).isInstanceOf(AnnouncementCodec.Valid.class);
        return (AnnouncementCodec.Valid) decoded;
    }

    @Test
    void shouldEncodeTheDocumentedTextFormat() {
        assertThat(new String(UNSIGNED.encode(ALIVE, null), StandardCharsets.UTF_8)).isEqualTo("FEDBRIDGE1 ALIVE orders "
                + "6f1c0f4e-8d0b-4a4e-9f55-1b2a9e0c7d13 broker-a 500 tcp://10.0.0.5:61613,ssl://10.0.0.5:61614");
    }

    @Test
    void shouldEncodeTheDocumentedSignedFormat() throws Exception {
        String wire = new String(SIGNED.encode(ALIVE, SEAL), StandardCharsets.UTF_8);
        String signedPart = "FEDBRIDGE2 ALIVE orders 6f1c0f4e-8d0b-4a4e-9f55-1b2a9e0c7d13 broker-a 500 "
                + "tcp://10.0.0.5:61613,ssl://10.0.0.5:61614 1700000000123 0123456789abcdef 7 ";
        javax.crypto.Mac mac = javax.crypto.Mac.getInstance("HmacSHA256");
        mac.init(new javax.crypto.spec.SecretKeySpec(text("correct horse battery staple"), "HmacSHA256"));
        String hmac = java.util.Base64.getUrlEncoder().withoutPadding().encodeToString(mac.doFinal(text(signedPart)));

        assertThat(wire).isEqualTo(signedPart + hmac);
        assertThat(hmac).hasSize(43);
    }

    @Test
    void shouldDecodeWhatItEncodes() {
        assertThat(valid(UNSIGNED, UNSIGNED.encode(ALIVE, null))).isEqualTo(new AnnouncementCodec.Valid(ALIVE, null));
        Announcement dead = ALIVE.withType(Announcement.Type.DEAD);
        assertThat(valid(UNSIGNED, UNSIGNED.encode(dead, null)).announcement()).isEqualTo(dead);
        assertThat(valid(SIGNED, SIGNED.encode(ALIVE, SEAL))).isEqualTo(new AnnouncementCodec.Valid(ALIVE, SEAL));
        AnnouncementCodec.Seal negativeSession = new AnnouncementCodec.Seal(0, -2L, Long.MAX_VALUE / 10);
        assertThat(valid(SIGNED, SIGNED.encode(dead, negativeSession)).seal()).isEqualTo(negativeSession);
    }

    @Test
    void shouldDecodeFromTheBuffersPositionWithoutMovingIt() {
        byte[] datagram = SIGNED.encode(ALIVE, SEAL);
        java.nio.ByteBuffer framed = java.nio.ByteBuffer.allocate(datagram.length + 20);
        framed.position(10);
        framed.put(datagram);
        framed.position(10).limit(10 + datagram.length);

        assertThat(SIGNED.decode(framed)).isEqualTo(new AnnouncementCodec.Valid(ALIVE, SEAL));
        assertThat(framed.position()).isEqualTo(10);
        assertThat(framed.remaining()).isEqualTo(datagram.length);
    }

    @Test
    void shouldRejectUnsignedDatagramsWhenASecretIsSetNamingTheGroup() {
        AnnouncementCodec.Invalid invalid = invalid(SIGNED, UNSIGNED.encode(ALIVE, null), AnnouncementCodec.Problem.UNSIGNED);
        assertThat(invalid.reason()).startsWith("unsigned (FEDBRIDGE1), but this group requires signed announcements");
        assertThat(invalid.claimedGroup()).isEqualTo("orders");
    }

    @Test
    void shouldRejectSignedDatagramsWithoutASecretAsUncheckable() {
        AnnouncementCodec.Invalid invalid = invalid(UNSIGNED, SIGNED.encode(ALIVE, SEAL),
                AnnouncementCodec.Problem.BAD_SIGNATURE);
        assertThat(invalid.reason()).contains("this agent has no secret to check the signature with");
    }

    @Test
    void shouldRejectAnotherSecretAndEveryAlteration() {
        byte[] datagram = SIGNED.encode(ALIVE, SEAL);
        AnnouncementCodec other = new AnnouncementCodec(MulticastSecret.of("correct horse battery stapler"));
        assertThat(invalid(other, datagram, AnnouncementCodec.Problem.BAD_SIGNATURE).reason())
                .startsWith("the signature does not match");

        String wire = new String(datagram, StandardCharsets.UTF_8);
        for (String[] change : new String[][] {{"broker-a", "broker-b"}, {"tcp://10.0.0.5:61613", "tcp://10.6.6.6:61613"},
                {" 7 ", " 8 "}, {"1700000000123", "1700000009123"}, {"ALIVE", "DEAD"}, {"0123456789abcdef", "0123456789abcdee"}}) {
            byte[] altered = text(wire.replace(change[0], change[1]));
            assertThat(invalid(SIGNED, altered, AnnouncementCodec.Problem.BAD_SIGNATURE).claimedGroup()).isEqualTo("orders");
        }
        // The hmac's last character carries 2 spare bits: another spelling of the same value is not accepted either.
        String alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
        char twin = alphabet.charAt(alphabet.indexOf(wire.charAt(wire.length() - 1)) ^ 1);
        byte[] respelled = text(wire.substring(0, wire.length() - 1) + twin);
        assertThat(java.util.Base64.getUrlDecoder().decode(wire.substring(wire.length() - 43)))
                .as("the same 32 bytes").isEqualTo(java.util.Base64.getUrlDecoder().decode(
                        new String(respelled, StandardCharsets.UTF_8).substring(wire.length() - 43)));
        invalid(SIGNED, respelled, AnnouncementCodec.Problem.BAD_SIGNATURE);
    }

    @Test
    void shouldRejectMalformedSealFields() {
        String wire = new String(SIGNED.encode(ALIVE, SEAL), StandardCharsets.UTF_8);
        String hmac = wire.substring(wire.lastIndexOf(' ') + 1);
        String head = "FEDBRIDGE2 ALIVE orders id broker-a 500 tcp://h:1 ";
        assertThat(invalid(SIGNED, text(head + "-5 0123456789abcdef 7 " + hmac), AnnouncementCodec.Problem.MALFORMED)
                .reason()).startsWith("timestampMillis must be a whole number");
        assertThat(invalid(SIGNED, text(head + "1 0123456789ABCDEF 7 " + hmac), AnnouncementCodec.Problem.MALFORMED)
                .reason()).startsWith("session must be 16 lower-case hex digits");
        assertThat(invalid(SIGNED, text(head + "1 0123456789abcdef 0 " + hmac), AnnouncementCodec.Problem.MALFORMED)
                .reason()).startsWith("sequence must be 1 to");
        assertThat(invalid(SIGNED, text(head + "1 0123456789abcdef 1 " + hmac.substring(1)), AnnouncementCodec.Problem.MALFORMED)
                .reason()).startsWith("hmac must be 43 base64url characters");
        assertThat(invalid(SIGNED, text(head + "1 0123456789abcdef 1 " + hmac.replace(hmac.charAt(0), '+')),
                AnnouncementCodec.Problem.MALFORMED).reason()).startsWith("hmac must be 43 base64url characters");
        assertThat(invalid(SIGNED, text(head + "1 0123456789abcdef " + hmac), AnnouncementCodec.Problem.MALFORMED)
                .reason()).isEqualTo("expected 11 space-separated fields in a FEDBRIDGE2 datagram, but found 10");
    }

    @Test
    void shouldEscapeSeparatorsPercentAndControlCharactersInFields() {
        Announcement odd = new Announcement(Announcement.Type.ALIVE, "g", "id with spaces", "näme,%\n\u007f",
                Duration.ofMillis(1), List.of("tcp://h:1?list=a,b&pct=%2B"));
        String wire = new String(UNSIGNED.encode(odd, null), StandardCharsets.UTF_8);

        assertThat(wire).isEqualTo("FEDBRIDGE1 ALIVE g id%20with%20spaces näme%2C%25%0A%7F 1 tcp://h:1?list=a%2Cb&pct=%252B");
        assertThat(valid(UNSIGNED, UNSIGNED.encode(odd, null)).announcement()).isEqualTo(odd);
        assertThat(valid(SIGNED, SIGNED.encode(odd, SEAL)).announcement()).isEqualTo(odd);
    }

    @Test
    void shouldRejectGarbage() {
        assertThat(reason(new byte[0])).startsWith("not a fedbridge announcement");
        assertThat(reason(text("hello world"))).startsWith("not a fedbridge announcement");
        assertThat(reason(text("default.ActiveMQ-4.alive.%localhost%tcp://host:61616")))
                .startsWith("not a fedbridge announcement");
        assertThat(reason(new byte[] {(byte) 0xff, (byte) 0xfe, 0, 1})).isEqualTo("not UTF-8 text");
        Random random = new Random(42);
        for (int i = 0; i < 1000; i++) {
            byte[] noise = new byte[random.nextInt(AnnouncementCodec.MAX_BYTES)];
            random.nextBytes(noise);
            assertThat(reason(noise)).isNotEmpty();
        }
    }

    @Test
    void shouldRejectEveryTruncationOfAValidDatagram() {
        byte[] full = UNSIGNED.encode(ALIVE, null);
        for (int length = 0; length < full.length; length++) {
            byte[] truncated = Arrays.copyOf(full, length);
            if (UNSIGNED.decode(truncated) instanceof AnnouncementCodec.Valid valid) {
                // Cutting inside the last URI may leave a shorter valid URI list; it must never invent a field.
                assertThat(valid.announcement().brokerId()).isEqualTo(ALIVE.brokerId());
                assertThat(valid.announcement().uris()).isNotEmpty();
            }
        }
        assertThat(reason(Arrays.copyOf(full, full.length - " tcp://10.0.0.5:61613,ssl://10.0.0.5:61614".length())))
                .isEqualTo("expected 7 space-separated fields in a FEDBRIDGE1 datagram, but found 6");
        byte[] signed = SIGNED.encode(ALIVE, SEAL);
        for (int length = 0; length < signed.length; length++) {
            assertThat(SIGNED.decode(Arrays.copyOf(signed, length))).isInstanceOf(AnnouncementCodec.Invalid.class);
        }
    }

    @Test
    void shouldRejectAnotherVersionByName() {
        assertThat(reason(text("FEDBRIDGE3 ALIVE g id n 500 tcp://h:1")))
                .isEqualTo("unsupported version 'FEDBRIDGE3', this broker reads FEDBRIDGE1 and FEDBRIDGE2");
        assertThat(reason(text("FEDBRIDGE ALIVE g id n 500 tcp://h:1"))).startsWith("unsupported version");
    }

    @Test
    void shouldRejectBadFields() {
        assertThat(reason(text("FEDBRIDGE1 HELLO g id n 500 tcp://h:1"))).isEqualTo("type must be ALIVE or DEAD, but was 'HELLO'");
        assertThat(reason(text("FEDBRIDGE1 ALIVE  id n 500 tcp://h:1"))).isEqualTo("group is empty");
        assertThat(reason(text("FEDBRIDGE1 ALIVE g id n 0 tcp://h:1"))).startsWith("heartbeatMillis must be 1 to 3600000");
        assertThat(reason(text("FEDBRIDGE1 ALIVE g id n -5 tcp://h:1"))).startsWith("heartbeatMillis must be a whole number");
        assertThat(reason(text("FEDBRIDGE1 ALIVE g id n 99999999 tcp://h:1"))).startsWith("heartbeatMillis must be a whole number");
        assertThat(reason(text("FEDBRIDGE1 ALIVE g id n 500 tcp://h"))).startsWith("uri must be a tcp:// or ssl:// URI with a port");
        assertThat(reason(text("FEDBRIDGE1 ALIVE g id n 500 vm://h:1"))).startsWith("uri must be a tcp:// or ssl:// URI");
        assertThat(reason(text("FEDBRIDGE1 ALIVE g id n 500 tcp://h:1,"))).isEqualTo("uri is empty");
        assertThat(reason(text("FEDBRIDGE1 ALIVE g id n 500 ::::"))).startsWith("uri '::::' does not parse");
        assertThat(reason(text("FEDBRIDGE1 ALIVE g i%2 n 500 tcp://h:1"))).startsWith("brokerId has a bad %-escape");
        assertThat(reason(text("FEDBRIDGE1 ALIVE g i%C3 n 500 tcp://h:1"))).startsWith("brokerId has a bad %-escape");
        assertThat(reason(text("FEDBRIDGE1 ALIVE g i\td n 500 tcp://h:1"))).startsWith("brokerId contains a raw control");
        assertThat(reason(text("FEDBRIDGE1 ALIVE g id n 500 tcp://h:1 extra"))).startsWith("expected 7 space-separated fields");
        assertThat(reason(text("FEDBRIDGE1 ALIVE g i%１１ n 500 tcp://h:1"))).startsWith("brokerId has a bad %-escape");
        assertThat(reason(text("FEDBRIDGE1 ALIVE g id n 500 tcp://h:1\n"))).startsWith("uri contains a raw control");
    }

    @Test
    void shouldRejectOversizedDatagramsBothWays() {
        String longUri = "tcp://h:1?x=" + "a".repeat(AnnouncementCodec.MAX_BYTES);
        Announcement big = new Announcement(Announcement.Type.ALIVE, "g", "id", "n", Duration.ofMillis(500), List.of(longUri));
        assertThatThrownBy(() -> UNSIGNED.encode(big, null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("must be at most 1400 bytes");
        assertThatThrownBy(() -> SIGNED.encode(big, SEAL)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("must be at most 1400 bytes");
        assertThat(reason(text("FEDBRIDGE1 ALIVE g id n 500 " + longUri))).startsWith("too long:");
    }
}
