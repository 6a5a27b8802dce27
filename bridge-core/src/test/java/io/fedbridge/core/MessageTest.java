package io.fedbridge.core;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.entry;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.NullAndEmptySource;
import org.junit.jupiter.params.provider.ValueSource;

class MessageTest {

    @Test
    void shouldBuildAMessage() {
        Message m = Message.builder("/queue/orders").body("hello").persistent(true).priority(7)
                .contentType("text/plain").header("type", "order").build();

        assertThat(m.destination()).isEqualTo("/queue/orders");
        assertThat(m.bodyAsString()).isEqualTo("hello");
        assertThat(m.isPersistent()).isTrue();
        assertThat(m.headers()).containsExactly(entry("persistent", "true"), entry("priority", "7"),
                entry("content-type", "text/plain"), entry("type", "order"));
    }

    @Test
    void shouldMakeASimpleMessageWithOf() {
        Message m = Message.of("/topic/t", "h\u00e9");

        assertThat(m.body()).containsExactly("h\u00e9".getBytes(UTF_8));
        assertThat(m.headers()).isEmpty();
        assertThat(m.isPersistent()).isFalse();
    }

    @Test
    void shouldDefaultToAnEmptyBody() {
        assertThat(Message.builder("/q").build().body()).isEmpty();
        assertThat(Message.builder("/q").body((byte[]) null).build().body()).isEmpty();
        assertThat(new Message("/q", null, null).headers()).isEmpty();
    }

    @Test
    void shouldKeepBinaryBodyAsGiven() {
        byte[] body = {0, 1, 0, (byte) 0xff};

        assertThat(Message.builder("/q").body(body).build().body()).containsExactly(body);
    }

    @ParameterizedTest
    @NullAndEmptySource
    @ValueSource(strings = {"  ", "\t"})
    void shouldRejectABlankDestination(String destination) {
        assertThatThrownBy(() -> Message.builder(destination).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("destination must not be blank, but was '" + destination + "'");
    }

    @ParameterizedTest
    @ValueSource(ints = {-1, 10, Integer.MIN_VALUE, 100})
    void shouldRejectAPriorityOutsideZeroToNine(int priority) {
        assertThatThrownBy(() -> Message.builder("/q").priority(priority))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("priority must be 0-9, but was " + priority);
    }

    @Test
    void shouldAcceptPriorityBounds() {
        assertThat(Message.builder("/q").priority(0).build().headers()).containsEntry("priority", "0");
        assertThat(Message.builder("/q").priority(9).build().headers()).containsEntry("priority", "9");
    }

    @Test
    void shouldRejectANullHeaderNameOrValue() {
        assertThatThrownBy(() -> Message.builder("/q").header(null, "v")).hasMessageContaining("name");
        assertThatThrownBy(() -> Message.builder("/q").header("n", null)).hasMessageContaining("value");
        assertThatThrownBy(() -> Message.builder("/q").contentType(null)).hasMessageContaining("value");
    }

    /*
     * header(n, null) is refused, but headers(map) let a null value through; it then only fails when the
     * message is sent (StompHeaders.add in StompConnection.toFrame), far from the mistake.
     */
    @Test
    void shouldRejectANullHeaderValueGivenAsAMap() {
        Map<String, String> all = new HashMap<>();
        all.put("ok", "1");
        all.put("broken", null);

        assertThatThrownBy(() -> Message.builder("/q").headers(all).build())
                .hasMessageContaining("broken");
    }

    @Test
    void shouldRejectANullHeaderNameGivenAsAMap() {
        Map<String, String> all = new HashMap<>();
        all.put(null, "v");

        assertThatThrownBy(() -> Message.builder("/q").headers(all).build())
                .isInstanceOfAny(IllegalArgumentException.class, NullPointerException.class);
    }

    @Test
    void shouldLetTheLastHeaderOfTheSameNameWinInTheBuilder() {
        Message m = Message.builder("/q").persistent(true).persistent(false).header("a", "1")
                .headers(Map.of("a", "2")).build();

        assertThat(m.headers()).containsExactly(entry("persistent", "false"), entry("a", "2"));
    }

    @Test
    void shouldCopyHeadersSoLaterChangesDoNotLeakIn() {
        Map<String, String> source = new LinkedHashMap<>(Map.of("a", "1"));
        Message.Builder b = Message.builder("/q").headers(source);
        Message first = b.build();

        source.put("b", "2");
        b.header("c", "3");
        Message second = b.build();

        assertThat(first.headers()).containsExactly(entry("a", "1"));
        assertThat(second.headers()).containsExactly(entry("a", "1"), entry("c", "3"));
    }

    @Test
    void shouldExposeUnmodifiableHeaders() {
        Message m = Message.builder("/q").header("a", "1").build();

        assertThatThrownBy(() -> m.headers().put("b", "2")).isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void shouldBePersistentOnlyWhenTheHeaderSaysSo() {
        assertThat(Message.builder("/q").header("persistent", "true").build().isPersistent()).isTrue();
        assertThat(Message.builder("/q").persistent(false).build().isPersistent()).isFalse();
        assertThat(Message.builder("/q").build().isPersistent()).isFalse();
    }
}
