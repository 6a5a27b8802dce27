package io.fedbridge.core.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.fedbridge.core.FederationHeaders;
import io.fedbridge.core.StompHeaders;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
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
}
