package io.fedbridge.failover.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class SequenceAuditTest {

    @Test
    void shouldRememberAProducersNumbersWithoutGapsAsOneRangeHoweverManyThereAre() {
        SequenceAudit audit = new SequenceAudit(2);
        for (int n = 1; n <= 1_000_000; n++) {
            audit.add("pScope:client:1:" + n);
        }
        assertThat(audit.size()).isEqualTo(1);
        assertThat(audit.contains("pScope:client:1:1")).as("the first, a million messages ago").isTrue();
        assertThat(audit.contains("pScope:client:1:1000000")).isTrue();
        assertThat(audit.contains("pScope:client:1:1000001")).isFalse();
        assertThat(audit.contains("pScope:client:2:1")).as("another destination's stream").isFalse();
    }

    @Test
    void shouldKeepTheHolesOfLateMessagesOpenUntilTheyArrive() {
        SequenceAudit audit = new SequenceAudit(100);
        for (int n : new int[] {1, 2, 3, 7, 8, 5}) {
            audit.add("s:" + n);
        }
        assertThat(audit.size()).as("1-3, 5, 7-8").isEqualTo(3);
        assertThat(audit.contains("s:4")).as("a late first delivery is not a copy").isFalse();
        assertThat(audit.contains("s:6")).isFalse();
        assertThat(audit.contains("s:5")).isTrue();

        audit.add("s:4");
        audit.add("s:6");
        assertThat(audit.size()).as("the holes closed: 1-8").isEqualTo(1);
        audit.add("s:6");
        assertThat(audit.size()).isEqualTo(1);
    }

    @Test
    void shouldSplitARangeWhenAMessageIsForgotten() {
        SequenceAudit audit = new SequenceAudit(100);
        for (int n = 1; n <= 10; n++) {
            audit.add("s:" + n);
        }
        audit.remove("s:5");
        assertThat(audit.contains("s:5")).isFalse();
        assertThat(audit.contains("s:4")).isTrue();
        assertThat(audit.contains("s:6")).isTrue();
        assertThat(audit.size()).isEqualTo(2);
        audit.remove("s:1");
        audit.remove("s:10");
        audit.remove("s:11");
        assertThat(audit.size()).isEqualTo(2);
        assertThat(audit.contains("s:1")).isFalse();
        assertThat(audit.contains("s:10")).isFalse();
        audit.add("s:5");
        assertThat(audit.size()).isEqualTo(1);
    }

    @Test
    void shouldMakeAFragmentedStreamPayForItselfAndSpareAnUnbrokenOne() {
        SequenceAudit audit = new SequenceAudit(10);
        for (int n = 1; n <= 1000; n++) {
            audit.add("dense:" + n);
            audit.add("sparse:" + (2 * n)); // a selector or a competing consumer took the odd ones
        }
        assertThat(audit.size()).isEqualTo(10);
        assertThat(audit.contains("dense:1")).as("the unbroken stream kept whole").isTrue();
        assertThat(audit.contains("sparse:2000")).as("the fragmented one keeps its latest").isTrue();
        assertThat(audit.contains("sparse:1984")).as("its 9 latest, the dense one's range the 10th").isTrue();
        assertThat(audit.contains("sparse:1982")).as("and gives up its lowest").isFalse();
        assertThat(audit.contains("sparse:2")).isFalse();
    }

    @Test
    void shouldAgeOutTheProducerHandedAMessageLongestAgoOnceEveryStreamIsOneRange() {
        SequenceAudit audit = new SequenceAudit(3);
        audit.add("gone:1");
        audit.add("b:1");
        audit.add("c:1");
        audit.add("gone:2"); // still one range; now b is the least recently used
        audit.add("b:2");
        audit.add("d:1");
        assertThat(audit.streamCount()).isEqualTo(3);
        assertThat(audit.contains("c:1")).as("least recently used: aged out").isFalse();
        assertThat(audit.contains("gone:1")).isTrue();
        assertThat(audit.contains("b:1")).isTrue();
        assertThat(audit.contains("d:1")).isTrue();
    }

    @Test
    void shouldRememberIdsWithoutANumberOneByOneOldestFirst() {
        SequenceAudit audit = new SequenceAudit(3);
        for (String id : new String[] {"a", "b:007", "connection:c1/message-id:5", "d:12345678901234567890"}) {
            audit.add(id);
        }
        assertThat(audit.size()).isEqualTo(3);
        assertThat(audit.contains("a")).as("the oldest single id went").isFalse();
        assertThat(audit.contains("b:007")).isTrue();
        assertThat(audit.contains("b:7")).as("a leading zero is not a number of a stream").isFalse();
        assertThat(audit.contains("connection:c1/message-id:5")).isTrue();
        assertThat(audit.contains("connection:c1/message-id:6")).as("a foreign broker's id is never a stream").isFalse();
        audit.remove("b:007");
        assertThat(audit.contains("b:007")).isFalse();
    }

    @Test
    void shouldFindWhereTheNumberOfAnIdStarts() {
        assertThat(SequenceAudit.numberStart("p:k:3:41977")).isEqualTo(6);
        assertThat(SequenceAudit.numberStart("ID-B-lq2x-0")).isEqualTo(10);
        assertThat(SequenceAudit.numberStart("42")).isZero();
        assertThat(SequenceAudit.numberStart("p:x")).isEqualTo(-1);
        assertThat(SequenceAudit.numberStart("p:01")).isEqualTo(-1);
        assertThat(SequenceAudit.numberStart("p:1234567890123456789")).as("19 digits").isEqualTo(-1);
        assertThat(SequenceAudit.numberStart(Delivery.CONNECTION_SCOPED + "c/message-id:1")).isEqualTo(-1);
    }

    @Test
    void shouldStartAStreamAfreshOnceItsLastRangeWasRemovedThoughItWasTheOneFoundLast() {
        SequenceAudit audit = new SequenceAudit(100);
        audit.add("p:1:1");
        audit.remove("p:1:1");
        assertThat(audit.streamCount()).isZero();
        audit.add("p:1:1");
        audit.add("q:1:7");
        audit.add("p:1:2");
        assertThat(audit.streamCount()).isEqualTo(2);
        assertThat(audit.size()).isEqualTo(2);
        assertThat(audit.contains("p:1:1")).isTrue();
        assertThat(audit.contains("p:1:2")).isTrue();
        assertThat(audit.contains("q:1:7")).isTrue();
        assertThat(audit.contains("q:1:1")).isFalse();
    }

    @Test
    void shouldRefuseABudgetBelowOne() {
        assertThatThrownBy(() -> new SequenceAudit(0)).hasMessageContaining("budget must be >= 1, but was 0");
    }
}
