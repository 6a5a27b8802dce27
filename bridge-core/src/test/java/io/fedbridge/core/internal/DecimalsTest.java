package io.fedbridge.core.internal;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class DecimalsTest {

    @Test
    void shouldSpellEveryIntAsIntegerToStringDoes() {
        for (int n : new int[] {Integer.MIN_VALUE, -1, 0, 1, 9, 10, 1024, 16_383, 16_384, 65_536, Integer.MAX_VALUE}) {
            assertThat(Decimals.of(n)).isEqualTo(Integer.toString(n));
        }
        for (int n = 0; n < 20_000; n++) {
            assertThat(Decimals.of(n)).isEqualTo(Integer.toString(n));
        }
    }

    @Test
    void shouldShareTheStringOfASmallInt() {
        assertThat(Decimals.of(1024)).isSameAs(Decimals.of(1024));
        assertThat(Decimals.of(100_000)).isNotSameAs(Decimals.of(100_000));
    }
}
