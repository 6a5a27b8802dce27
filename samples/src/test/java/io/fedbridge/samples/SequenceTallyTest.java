package io.fedbridge.samples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.BitSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class SequenceTallyTest {

    @Test
    void shouldCountEachSequenceOnceAndTheRestAsDuplicates() {
        SequenceTally tally = new SequenceTally(3);

        assertThat(tally.record("1")).isTrue();
        assertThat(tally.record("2")).isTrue();
        assertThat(tally.record("2")).isFalse();
        assertThat(tally.record("1")).isFalse();

        assertThat(tally.distinct()).isEqualTo(2);
        assertThat(tally.duplicates()).isEqualTo(2);
    }

    @Test
    void shouldCountSentSequencesNeverReceivedAsMissing() {
        SequenceTally tally = new SequenceTally(5);
        tally.record("1");
        tally.record("3");

        assertThat(tally.missing(sent(1, 2, 3, 4))).isEqualTo(2);
        assertThat(tally.missing(sent(1, 3))).isZero();
    }

    @Test
    void shouldSetAsideValuesThatAreNotExpectedSequenceNumbers() {
        SequenceTally tally = new SequenceTally(2);

        assertThat(tally.record(null)).isFalse();
        assertThat(tally.record("x")).isFalse();
        assertThat(tally.record("0")).isFalse();
        assertThat(tally.record("3")).isFalse();

        assertThat(tally.unexpected()).isEqualTo(4);
        assertThat(tally.distinct()).isZero();
        assertThat(tally.duplicates()).isZero();
    }

    @Test
    void shouldReturnFromAwaitAllOnceTheLastMissingSequenceArrives() throws Exception {
        SequenceTally tally = new SequenceTally(2);
        tally.record("1");
        CompletableFuture<Integer> missing = CompletableFuture.supplyAsync(() -> {
            try {
                return tally.awaitAll(sent(1, 2), Duration.ofMinutes(1));
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });

        tally.record("2");

        assertThat(missing.get(10, TimeUnit.SECONDS)).isZero();
    }

    @Test
    void shouldGiveUpWaitingAfterTheIdleTimeout() throws Exception {
        SequenceTally tally = new SequenceTally(2);

        assertThat(tally.awaitAll(sent(1, 2), Duration.ofMillis(50))).isEqualTo(2);
    }

    @Test
    void shouldRejectANegativeExpectedCount() {
        assertThatThrownBy(() -> new SequenceTally(-1)).hasMessageContaining("expected must be >= 0, but was -1");
    }

    private static BitSet sent(int... seqs) {
        BitSet b = new BitSet();
        for (int s : seqs) {
            b.set(s);
        }
        return b;
    }
}
