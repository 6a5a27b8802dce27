package io.fedbridge.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.entry;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class StompHeadersTest {

    @Test
    void shouldKeepHeadersInWireOrder() {
        StompHeaders h = new StompHeaders().add("b", "1").add("a", "2").add("c", "3");

        assertThat(h.names()).containsExactly("b", "a", "c");
        assertThat(h.size()).isEqualTo(3);
        assertThat(h.name(1)).isEqualTo("a");
        assertThat(h.value(1)).isEqualTo("2");
        List<String> seen = new ArrayList<>();
        h.forEach((n, v) -> seen.add(n + "=" + v));
        assertThat(seen).containsExactly("b=1", "a=2", "c=3");
    }

    @Test
    void shouldLetTheFirstOfRepeatedHeadersWin() {
        StompHeaders h = new StompHeaders().add("foo", "first").add("bar", "x").add("foo", "second");

        assertThat(h.get("foo")).isEqualTo("first");
        assertThat(h.size()).isEqualTo(3);
        assertThat(h.toMap()).containsExactly(entry("foo", "first"), entry("bar", "x"));
    }

    @Test
    void shouldAnswerNullOrTheDefaultForAMissingHeader() {
        StompHeaders h = StompHeaders.of("a", "1");

        assertThat(h.get("missing")).isNull();
        assertThat(h.get("missing", "dflt")).isEqualTo("dflt");
        assertThat(h.get("a", "dflt")).isEqualTo("1");
        assertThat(h.contains("a")).isTrue();
        assertThat(h.contains("missing")).isFalse();
    }

    @Test
    void shouldTreatNamesCaseSensitively() {
        StompHeaders h = StompHeaders.of("Destination", "/q");

        assertThat(h.get("destination")).isNull();
    }

    @Test
    void shouldKeepAnEmptyValue() {
        StompHeaders h = StompHeaders.of("empty", "");

        assertThat(h.get("empty")).isEmpty();
        assertThat(h.contains("empty")).isTrue();
    }

    @Test
    void shouldRejectNullNameOrValue() {
        assertThatThrownBy(() -> new StompHeaders().add(null, "v"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("must not be null");
        assertThatThrownBy(() -> new StompHeaders().add("n", null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("n=null");
    }

    @Test
    void shouldRejectAnOddNumberOfNamesAndValues() {
        assertThatThrownBy(() -> StompHeaders.of("a", "1", "b"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("namesAndValues must be pairs, but had 3 entries");
    }

    @Test
    void shouldGrowBeyondItsInitialCapacity() {
        StompHeaders h = new StompHeaders(0);
        for (int i = 0; i < 100; i++) {
            h.add("h" + i, Integer.toString(i));
        }

        assertThat(h.size()).isEqualTo(100);
        assertThat(h.get("h0")).isEqualTo("0");
        assertThat(h.get("h99")).isEqualTo("99");
    }

    @Test
    void shouldSetByReplacingEveryOccurrenceInThePlaceOfTheFirst() {
        StompHeaders h = new StompHeaders().add("a", "1").add("foo", "x").add("b", "2").add("foo", "y").add("c", "3");

        h.set("foo", "z");

        assertThat(h.names()).containsExactly("a", "foo", "b", "c");
        assertThat(h.get("foo")).isEqualTo("z");
        assertThat(h.size()).isEqualTo(4);
    }

    @Test
    void shouldSetANewHeaderAtTheEnd() {
        StompHeaders h = StompHeaders.of("a", "1");

        h.set("b", "2");

        assertThat(h.toMap()).containsExactly(entry("a", "1"), entry("b", "2"));
    }

    @Test
    void shouldRemoveWhenSetToNull() {
        StompHeaders h = StompHeaders.of("a", "1", "b", "2", "a", "3");

        h.set("a", null);

        assertThat(h.names()).containsExactly("b");
    }

    @Test
    void shouldRemoveEveryOccurrenceAndReturnTheFirstValue() {
        StompHeaders h = StompHeaders.of("a", "1", "b", "2", "a", "3", "c", "4");

        assertThat(h.remove("a")).isEqualTo("1");

        assertThat(h.names()).containsExactly("b", "c");
        assertThat(h.value(1)).isEqualTo("4");
        assertThat(h.remove("a")).isNull();
        assertThat(h.remove("never")).isNull();
        assertThat(h.size()).isEqualTo(2);
    }

    @Test
    void shouldAddAgainAfterRemoving() {
        StompHeaders h = StompHeaders.of("a", "1", "b", "2");
        h.remove("a");
        h.remove("b");

        assertThat(h.isEmpty()).isTrue();
        h.add("c", "3");
        assertThat(h.toMap()).containsExactly(entry("c", "3"));
    }

    @Test
    void shouldCopyIndependently() {
        StompHeaders original = StompHeaders.of("a", "1", "a", "2");
        StompHeaders copy = original.copy();

        copy.set("a", "changed");
        copy.add("b", "new");
        original.add("c", "orig");

        assertThat(original.names()).containsExactly("a", "a", "c");
        assertThat(original.get("a")).isEqualTo("1");
        assertThat(copy.names()).containsExactly("a", "b");
        assertThat(copy.get("a")).isEqualTo("changed");
    }

    @Test
    void shouldCopyEmptyHeaders() {
        StompHeaders copy = new StompHeaders().copy();

        assertThat(copy.isEmpty()).isTrue();
        copy.add("a", "1");
        assertThat(copy.size()).isEqualTo(1);
    }

    @Test
    void shouldPrintHeadersInOrder() {
        assertThat(StompHeaders.of("destination", "/q", "receipt", "7")).hasToString("{destination=/q, receipt=7}");
        assertThat(new StompHeaders()).hasToString("{}");
    }

    @ParameterizedTest
    @ValueSource(strings = {"passcode", "password", "keyStorePassword", "PASSWORD", "x-db-Password", "fedbridge-producer-secret"})
    void shouldMaskSecretsInToString(String name) {
        StompHeaders h = StompHeaders.of("login", "app", name, "s3cret");

        assertThat(h.toString()).doesNotContain("s3cret").isEqualTo("{login=app, " + name + "=*****}");
    }

    @Test
    void shouldMaskEveryOccurrenceOfASecret() {
        StompHeaders h = StompHeaders.of("passcode", "one", "passcode", "two");

        assertThat(h.toString()).doesNotContain("one").doesNotContain("two");
    }

    @Test
    void shouldKeepTheSecretValueItself() {
        assertThat(StompHeaders.of("passcode", "s3cret").get("passcode")).isEqualTo("s3cret");
    }
}
