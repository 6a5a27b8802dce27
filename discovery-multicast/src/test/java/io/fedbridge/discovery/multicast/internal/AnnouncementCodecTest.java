package io.fedbridge.discovery.multicast.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class AnnouncementTest {

    private static final Announcement ALIVE = new Announcement(Announcement.Type.ALIVE, "orders",
            "6f1c0f4e-8d0b-4a4e-9f55-1b2a9e0c7d13", "broker-a", Duration.ofMillis(500),
            List.of("tcp://10.0.0.5:61613", "ssl://10.0.0.5:61614"));

    private static byte[] text(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String reason(byte[] datagram) {
        try {
            Announcement.decode(datagram);
        } catch (MalformedAnnouncementException e) {
            return e.getMessage();
        }
        throw new AssertionError("decoded " + new String(datagram, StandardCharsets.UTF_8));
    }

    @Test
    void shouldEncodeTheDocumentedTextFormat() {
        assertThat(new String(ALIVE.encode(), StandardCharsets.UTF_8)).isEqualTo("FEDBRIDGE1 ALIVE orders "
                + "6f1c0f4e-8d0b-4a4e-9f55-1b2a9e0c7d13 broker-a 500 tcp://10.0.0.5:61613,ssl://10.0.0.5:61614");
    }

    @Test
    void shouldDecodeWhatItEncodes() throws Exception {
        assertThat(Announcement.decode(ALIVE.encode())).isEqualTo(ALIVE);
        Announcement dead = ALIVE.withType(Announcement.Type.DEAD);
        assertThat(Announcement.decode(dead.encode())).isEqualTo(dead);
    }

    @Test
    void shouldEscapeSeparatorsPercentAndControlCharactersInFields() throws Exception {
        Announcement odd = new Announcement(Announcement.Type.ALIVE, "g", "id with spaces", "näme,%\n\u007f",
                Duration.ofMillis(1), List.of("tcp://h:1?list=a,b&pct=%2B"));
        String wire = new String(odd.encode(), StandardCharsets.UTF_8);

        assertThat(wire).isEqualTo("FEDBRIDGE1 ALIVE g id%20with%20spaces näme%2C%25%0A%7F 1 tcp://h:1?list=a%2Cb&pct=%252B");
        assertThat(Announcement.decode(odd.encode())).isEqualTo(odd);
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
            byte[] noise = new byte[random.nextInt(Announcement.MAX_BYTES)];
            random.nextBytes(noise);
            assertThat(reason(noise)).isNotEmpty();
        }
    }

    @Test
    void shouldRejectEveryTruncationOfAValidDatagram() {
        byte[] full = ALIVE.encode();
        for (int length = 0; length < full.length; length++) {
            byte[] truncated = Arrays.copyOf(full, length);
            try {
                Announcement a = Announcement.decode(truncated);
                // Cutting inside the last URI may leave a shorter valid URI list; it must never invent a field.
                assertThat(a.brokerId()).isEqualTo(ALIVE.brokerId());
                assertThat(a.uris()).isNotEmpty();
            } catch (MalformedAnnouncementException e) {
                assertThat(e.getMessage()).isNotEmpty();
            }
        }
        assertThat(reason(Arrays.copyOf(full, full.length - " tcp://10.0.0.5:61613,ssl://10.0.0.5:61614".length())))
                .isEqualTo("expected 7 space-separated fields, but found 6");
    }

    @Test
    void shouldRejectAnotherVersionByName() {
        assertThat(reason(text("FEDBRIDGE2 ALIVE g id n 500 tcp://h:1")))
                .isEqualTo("unsupported version 'FEDBRIDGE2', this broker reads FEDBRIDGE1");
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
        assertThat(reason(text("FEDBRIDGE1 ALIVE g id n 500 tcp://h:1\n"))).startsWith("uri contains a raw control");
    }

    @Test
    void shouldRejectOversizedDatagramsBothWays() {
        String longUri = "tcp://h:1?x=" + "a".repeat(Announcement.MAX_BYTES);
        Announcement big = new Announcement(Announcement.Type.ALIVE, "g", "id", "n", Duration.ofMillis(500), List.of(longUri));
        assertThatThrownBy(big::encode).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("must be at most 1400 bytes");
        assertThat(reason(text("FEDBRIDGE1 ALIVE g id n 500 " + longUri))).startsWith("too long:");
    }
}
