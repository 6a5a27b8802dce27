package io.fedbridge.core.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.fedbridge.core.FederationHeaders;
import io.fedbridge.core.StompHeaders;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.lang.reflect.Field;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class HeaderNamesTest {

    private static String lookup(String text, int start, int len) {
        ByteBuf b = Unpooled.copiedBuffer(text, StandardCharsets.UTF_8);
        try {
            return HeaderNames.lookup(b, start, len);
        } finally {
            b.release();
        }
    }

    @Test
    void shouldHandOutTheConstantForAKnownName() {
        assertThat(lookup("destination:/queue/a", 0, 11)).isSameAs(StompHeaders.DESTINATION);
        assertThat(lookup("xxfedbridge-id:1", 2, 12)).isSameAs(FederationHeaders.FEDERATION_ID);
        assertThat(lookup("ack:1", 0, 3)).isSameAs(StompHeaders.ACK);
        assertThat(lookup("id:1", 0, 2)).isSameAs(StompHeaders.ID);
    }

    @Test
    void shouldNotMistakeANameThatDiffersAnywhere() {
        assertThat(lookup("destinatiom:x", 0, 11)).isNull();
        assertThat(lookup("Destination:x", 0, 11)).isNull();
        assertThat(lookup("destinatioN:x", 0, 11)).isNull();
        assertThat(lookup("destination:x", 0, 10)).as("a prefix").isNull();
        assertThat(lookup("x-custom:1", 0, 8)).isNull();
        assertThat(lookup(":empty", 0, 0)).isNull();
        assertThat(lookup("a".repeat(100), 0, 100)).isNull();
    }

    private static String lookupInArray(String text, int start, int len) {
        byte[] a = text.getBytes(StandardCharsets.ISO_8859_1);
        return HeaderNames.lookup(a, start, len, HeaderNames.hash(a, start, len));
    }

    @Test
    void shouldFindEveryKnownNameInAnArrayByItsHash() throws IllegalAccessException {
        for (Class<?> c : List.of(StompHeaders.class, FederationHeaders.class)) {
            for (Field f : c.getFields()) {
                if (f.getType() == String.class && ((String) f.get(null)).matches("[a-z][a-z-]*")) {
                    String name = (String) f.get(null);
                    assertThat(lookupInArray("x" + name + ":v", 1, name.length())).as(name).isSameAs(name);
                    assertThat(HeaderNames.hash(name.getBytes(StandardCharsets.ISO_8859_1), 0, name.length()))
                            .isEqualTo(name.hashCode());
                }
            }
        }
        assertThat(lookupInArray("destination:/queue/a", 0, 11)).isSameAs(StompHeaders.DESTINATION);
    }

    @Test
    void shouldNotMistakeANameInAnArrayThatDiffersAnywhere() {
        assertThat(lookupInArray("destinatiom:x", 0, 11)).isNull();
        assertThat(lookupInArray("Destination:x", 0, 11)).isNull();
        assertThat(lookupInArray("destination:x", 0, 10)).as("a prefix").isNull();
        assertThat(lookupInArray("x-custom:1", 0, 8)).isNull();
        assertThat(lookupInArray(":empty", 0, 0)).isNull();
        assertThat(lookupInArray("a".repeat(100), 0, 100)).isNull();
        assertThat("jE".hashCode()).as("the same hash code as 'id', other bytes").isEqualTo("id".hashCode());
        assertThat(lookupInArray("id", 0, 2)).isSameAs(StompHeaders.ID);
        assertThat(lookupInArray("jE", 0, 2)).isNull();
    }

    @Test
    void shouldCompareBytesOfAnyLengthAndOffset() {
        byte[] s = "fedbridge-broker-path".getBytes(StandardCharsets.ISO_8859_1);
        for (int len = 0; len <= s.length; len++) {
            byte[] name = Arrays.copyOf(s, len);
            byte[] a = ("xyz" + new String(name, StandardCharsets.ISO_8859_1) + "!").getBytes(StandardCharsets.ISO_8859_1);
            assertThat(HeaderNames.spells(a, 3, len, name)).isTrue();
            assertThat(HeaderNames.spells(a, 3, len + 1, name)).isFalse();
            for (int k = 0; k < len; k++) {
                byte[] other = a.clone();
                other[3 + k] ^= 1;
                assertThat(HeaderNames.spells(other, 3, len, name)).as("differs at %d of %d", k, len).isFalse();
            }
        }
    }
}
