package io.fedbridge.failover.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.fedbridge.core.uri.CompositeUri;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class BrokerListTest {

    private static final CompositeUri A = CompositeUri.parse("tcp://a:1?login=x");
    private static final CompositeUri B = CompositeUri.parse("tcp://b:1");
    private static final CompositeUri C = CompositeUri.parse("tcp://c:1");

    @Test
    void shouldKeepTheConfiguredOrderAndPutTheBrokerThatFailedLast() {
        BrokerList l = new BrokerList(List.of(A, B, C), List.of(), false, new Random(1));

        assertThat(l.connectOrder(null)).containsExactly(A, B, C);
        assertThat(l.connectOrder(CompositeUri.parse("tcp://a:1"))).as("matched without its options").containsExactly(B, C, A);
        assertThat(l.connectOrder(B)).containsExactly(A, C, B);
    }

    @Test
    void shouldShuffleEachRoundWithRandomize() {
        BrokerList l = new BrokerList(List.of(A, B, C), List.of(), true, new Random(7));
        List<CompositeUri> expected = new ArrayList<>(List.of(A, B, C));
        Collections.shuffle(expected, new Random(7));

        assertThat(l.connectOrder(null)).containsExactlyElementsOf(expected);
        assertThat(l.connectOrder(C).get(2)).as("the failed one still goes last").isEqualTo(C);
    }

    @Test
    void shouldTryPriorityBrokersFirstUnlessTheyJustFailed() {
        BrokerList l = new BrokerList(List.of(A, B, C), List.of(C), true, new Random(3));

        assertThat(l.connectOrder(null).get(0)).isEqualTo(C);
        assertThat(l.connectOrder(C).get(2)).isEqualTo(C);
        assertThat(l.isPriority(CompositeUri.parse("tcp://c:1"))).isTrue();
        assertThat(l.isPriority(B)).isFalse();
    }

    @Test
    void shouldAddLearnedBrokersAfterTheConfiguredOnesAndReplaceThemOnEachAnnouncement() {
        BrokerList l = new BrokerList(List.of(A, B), List.of(), false, new Random(1));
        CompositeUri d = CompositeUri.parse("tcp://d:1");

        assertThat(l.updateLearned(List.of(CompositeUri.parse("tcp://a:1"), C, d))).isTrue();
        assertThat(l.all()).as("a configured broker keeps its options").containsExactly(A, B, C, d);
        assertThat(l.updateLearned(List.of(d, C))).as("same set").isFalse();
        assertThat(l.updateLearned(List.of(d))).isTrue();
        assertThat(l.all()).containsExactly(A, B, d);
        assertThat(l.updateLearned(List.of())).isTrue();
        assertThat(l.all()).containsExactly(A, B);
        assertThat(l.resolve(CompositeUri.parse("tcp://a:1"))).isEqualTo(A);
    }
}
