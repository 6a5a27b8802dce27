package io.fedbridge.broker.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;

class DefinitionVersionTest {

    @Test
    void shouldOrderByCounterThenByBrokerId() {
        DefinitionVersion a1 = new DefinitionVersion(1, "aaaa");
        DefinitionVersion b1 = new DefinitionVersion(1, "bbbb");
        DefinitionVersion a2 = new DefinitionVersion(2, "aaaa");
        List<DefinitionVersion> l = new ArrayList<>(List.of(a2, b1, a1));
        Collections.sort(l);

        assertThat(l).containsExactly(a1, b1, a2);
        assertThat(b1).isGreaterThan(a1);
        assertThat(a2).as("a later change beats a greater broker id").isGreaterThan(b1);
    }

    @Test
    void shouldRoundTripItsTextFormAndRefuseBadOnes() {
        DefinitionVersion v = new DefinitionVersion(42, "6f1c0d2e-0000-4000-8000-000000000001");

        assertThat(DefinitionVersion.parse(v.toString())).isEqualTo(v);
        assertThatThrownBy(() -> DefinitionVersion.parse("x:abc")).hasMessage("version must be COUNTER:BROKER-ID, but was 'x:abc'");
        assertThatThrownBy(() -> DefinitionVersion.parse("12")).hasMessage("version must be COUNTER:BROKER-ID, but was '12'");
        assertThatThrownBy(() -> new DefinitionVersion(-1, "a")).hasMessage("counter must be >= 0, but was -1");
    }
}
