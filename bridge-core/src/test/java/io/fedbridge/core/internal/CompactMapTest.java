package io.fedbridge.core.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CompactMapTest {

    @Test
    void shouldKeepInsertionOrderAndEqualTheMapItCopies() {
        Map<String, String> source = new LinkedHashMap<>();
        source.put("z", "1");
        source.put("a", "2");
        source.put("m", null);
        Map<String, String> copy = CompactMap.copyOf(source);
        assertThat(copy).containsExactly(Map.entry("z", "1"), Map.entry("a", "2"), new java.util.AbstractMap.SimpleEntry<>("m", null));
        assertThat(copy).isEqualTo(source).hasSameHashCodeAs(source);
        assertThat(copy.get("a")).isEqualTo("2");
        assertThat(copy.containsKey("m")).isTrue();
        assertThat(copy.get("absent")).isNull();
        assertThat(copy.getOrDefault("absent", "d")).isEqualTo("d");
        assertThat(copy).hasToString(source.toString());
    }

    @Test
    void shouldBeImmutableAndIndependentOfItsSource() {
        Map<String, String> source = new LinkedHashMap<>(Map.of("k", "v"));
        Map<String, String> copy = CompactMap.copyOf(source);
        source.put("later", "x");
        assertThat(copy).containsOnlyKeys("k");
        assertThatThrownBy(() -> copy.put("k", "w")).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> copy.entrySet().iterator().next().setValue("w")).isInstanceOf(UnsupportedOperationException.class);
        assertThat(CompactMap.copyOf(Map.of())).isEmpty();
    }
}
