package io.fedbridge.broker.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayDeque;
import java.util.HashSet;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

class BoundedIdSetTest {

    @Test
    void shouldHoldWhatWasAddedAndRefuseItTwice() {
        BoundedIdSet ids = new BoundedIdSet(10);
        assertThat(ids.add("broker-a:ID-a-1")).isTrue();
        assertThat(ids.contains("broker-a:ID-a-1")).isTrue();
        assertThat(ids.contains("broker-a:ID-a-2")).isFalse();
        assertThat(ids.add("broker-a:ID-a-1")).isFalse();
        assertThat(ids.size()).isEqualTo(1);
    }

    @Test
    void shouldForgetTheOldestBeyondItsCapacity() {
        BoundedIdSet ids = new BoundedIdSet(3);
        ids.add("m1");
        ids.add("m2");
        ids.add("m3");
        ids.add("m1"); // held already: does not make m1 the newest
        ids.add("m4");
        assertThat(ids.contains("m1")).isFalse();
        assertThat(ids.contains("m2")).isTrue();
        assertThat(ids.contains("m4")).isTrue();
        assertThat(ids.size()).isEqualTo(3);
    }

    @Test
    void shouldWorkWithACapacityOfOne() {
        BoundedIdSet ids = new BoundedIdSet(1);
        ids.add("a");
        ids.add("b");
        assertThat(ids.contains("a")).isFalse();
        assertThat(ids.contains("b")).isTrue();
    }

    @Test
    void shouldKeepTheFingerprintThatLooksLikeAnEmptyEntry() {
        BoundedIdSet ids = new BoundedIdSet(2);
        assertThat(ids.add(0, 0)).isTrue();
        assertThat(ids.add(0, 0)).as("held").isFalse();
        ids.add(5, 5);
        ids.add(6, 6); // forgets (0, 0)
        assertThat(ids.add(0, 0)).as("forgotten, so new again").isTrue();
        assertThat(ids.size()).isEqualTo(2);
    }

    @Test
    void shouldKeepAMarkAsLongAsItsIdAndAddAnIdThatIsMarkedFirst() {
        BoundedIdSet ids = new BoundedIdSet(3);
        ids.add("m1");
        ids.add("m2");
        ids.mark(BoundedIdSet.fingerprint("m1"));
        ids.mark(BoundedIdSet.fingerprint("m9")); // not held: added, marked, the newest
        assertThat(ids.isMarked("m1")).isTrue();
        assertThat(ids.isMarked("m2")).isFalse();
        assertThat(ids.isMarked("m9")).isTrue();
        assertThat(ids.add("m1")).as("a mark does not make it another id").isFalse();
        assertThat(ids.size()).isEqualTo(3);

        ids.add("m3"); // forgets m1, with its mark
        assertThat(ids.contains("m1")).isFalse();
        assertThat(ids.isMarked("m1")).isFalse();
        assertThat(ids.isMarked("m9")).isTrue();
    }

    @Test
    void shouldRejectANonPositiveCapacity() {
        assertThatThrownBy(() -> new BoundedIdSet(0)).hasMessageContaining("capacity must be at least 1, was 0");
    }

    /** Against a plain model, through many turnovers, so every deletion path of the hash table is exercised. */
    @Test
    void shouldAgreeWithAFifoModelThroughManyTurnovers() {
        for (int capacity : new int[] {2, 7, 64, 1000}) {
            BoundedIdSet ids = new BoundedIdSet(capacity);
            ArrayDeque<String> order = new ArrayDeque<>();
            Set<String> model = new HashSet<>();
            Random random = new Random(capacity);
            for (int i = 0; i < 50_000; i++) {
                // a small id space, so re-adds and lookups of held and forgotten ids are all frequent
                String id = "peer-" + random.nextInt(3) + ":ID-x-" + random.nextInt(capacity * 3);
                boolean added = ids.add(id);
                assertThat(added).isEqualTo(!model.contains(id));
                if (added) {
                    if (order.size() == capacity) {
                        model.remove(order.pollFirst());
                    }
                    order.addLast(id);
                    model.add(id);
                }
                String probe = "peer-" + random.nextInt(3) + ":ID-x-" + random.nextInt(capacity * 3);
                assertThat(ids.contains(probe)).as("%s at step %d, capacity %d", probe, i, capacity).isEqualTo(model.contains(probe));
            }
            assertThat(ids.size()).isEqualTo(model.size());
        }
    }

    @Test
    void shouldNotConfuseIdsThatDifferInOneCharacter() {
        BoundedIdSet ids = new BoundedIdSet(300_000);
        for (int i = 0; i < 100_000; i++) {
            ids.add("b1:ID-B-mk2x9-" + i);
        }
        for (int i = 100_000; i < 200_000; i++) {
            assertThat(ids.contains("b1:ID-B-mk2x9-" + i)).isFalse();
        }
        assertThat(ids.contains("b1:ID-B-mk2x9-99999")).isTrue();
        assertThat(BoundedIdSet.fingerprint("ab")).isNotEqualTo(BoundedIdSet.fingerprint("ba"))
                .isEqualTo(BoundedIdSet.fingerprint("ab"));
        assertThat(BoundedIdSet.fingerprint("ab").high()).isNotEqualTo(BoundedIdSet.fingerprint("ab").low());
    }
}
