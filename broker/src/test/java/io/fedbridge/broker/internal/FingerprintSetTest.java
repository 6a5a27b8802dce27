package io.fedbridge.broker.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

class FingerprintSetTest {

    @Test
    void shouldAddFindAndRemove() {
        FingerprintSet s = new FingerprintSet(4);
        assertThat(s.add(1, 2)).isTrue();
        assertThat(s.add(1, 2)).as("held already").isFalse();
        assertThat(s.contains(1, 2)).isTrue();
        assertThat(s.contains(1, 4)).as("same high, other low").isFalse();
        assertThat(s.contains(1, 3)).as("the lowest bit is the mark's, not the fingerprint's").isTrue();
        assertThat(s.remove(1, 2)).isTrue();
        assertThat(s.remove(1, 2)).as("gone").isFalse();
        assertThat(s.contains(1, 2)).isFalse();
        assertThat(s.size()).isZero();
    }

    @Test
    void shouldMarkAnEntryWithoutChangingWhatItMatches() {
        FingerprintSet s = new FingerprintSet(4);
        s.add(7, 8);
        assertThat(s.mark(7, 10)).as("not held").isFalse();
        assertThat(s.isMarked(7, 8)).isFalse();
        assertThat(s.mark(7, 8)).isTrue();
        assertThat(s.isMarked(7, 8)).isTrue();
        assertThat(s.contains(7, 8)).isTrue();
        assertThat(s.add(7, 8)).isFalse();
        for (long i = 100; i < 200; i++) {
            s.add(i, i); // grows: the mark moves with its entry
        }
        assertThat(s.isMarked(7, 8)).isTrue();
        assertThat(s.remove(7, 8)).isTrue();
        assertThat(s.isMarked(7, 8)).isFalse();
        assertThat(s.contains(0, 0)).isFalse();
        s.add(0, 0);
        s.mark(0, 0);
        assertThat(s.isMarked(0, 0)).isTrue();
    }

    @Test
    void shouldKeepTheFingerprintThatLooksLikeAnEmptyEntry() {
        FingerprintSet s = new FingerprintSet(2);
        assertThat(s.contains(0, 0)).isFalse();
        assertThat(s.add(0, 0)).isTrue();
        assertThat(s.contains(0, 0)).isTrue();
        assertThat(s.remove(0, 0)).isTrue();
        assertThat(s.contains(0, 0)).isFalse();
    }

    @Test
    void shouldGrowBeyondWhatItExpectedAndKeepEverything() {
        FingerprintSet s = new FingerprintSet(2);
        for (long i = 1; i <= 10_000; i++) {
            assertThat(s.add(i * 0x9E3779B97F4A7C15L, i)).isTrue();
        }
        assertThat(s.size()).isEqualTo(10_000);
        for (long i = 1; i <= 10_000; i++) {
            assertThat(s.contains(i * 0x9E3779B97F4A7C15L, i)).isTrue();
        }
    }

    @Test
    void shouldFindEveryRemainingEntryAfterRemovalsInCollidingRuns() {
        // few distinct home slots: long probe runs that wrap around the table's end, where removal must shift back
        FingerprintSet s = new FingerprintSet(64);
        Set<List<Long>> reference = new HashSet<>();
        Random random = new Random(7);
        List<long[]> held = new ArrayList<>();
        for (int round = 0; round < 20_000; round++) {
            long h = ((long) random.nextInt(4) << 32) | (127 - random.nextInt(4)); // homes near the end of 128 entries
            long l = 2L * random.nextInt(64); // the lowest bit is the mark's
            if (random.nextInt(3) == 0 && !held.isEmpty()) {
                long[] victim = held.remove(random.nextInt(held.size()));
                assertThat(s.remove(victim[0], victim[1])).isEqualTo(reference.remove(List.of(victim[0], victim[1])));
            } else if (s.size() < 60) {
                boolean added = s.add(h, l);
                assertThat(added).isEqualTo(reference.add(List.of(h, l)));
                if (added) {
                    held.add(new long[] {h, l});
                }
            }
            assertThat(s.size()).isEqualTo(reference.size());
        }
        for (List<Long> f : reference) {
            assertThat(s.contains(f.get(0), f.get(1))).as("held %s", f).isTrue();
        }
        for (long h = 0; h < 4; h++) {
            for (long l = 0; l < 128; l += 2) {
                long fh = (h << 32) | 127;
                assertThat(s.contains(fh, l)).isEqualTo(reference.contains(List.of(fh, l)));
            }
        }
    }
}
