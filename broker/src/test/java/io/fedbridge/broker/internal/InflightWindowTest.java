package io.fedbridge.broker.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fedbridge.core.StompHeaders;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The inflight window against the ordered map it replaced: the same deliveries held, in the same order, after any
 * mix of deliveries, individual and cumulative acknowledgements and drains.
 */
class InflightWindowTest {

    private static QueueEntry entry(long n) {
        return new QueueEntry(new BrokerMessage(n, "m-" + n, "/queue/q", new StompHeaders(), new byte[0]), null, 0);
    }

    @Test
    void shouldHoldWhatAnOrderedMapHoldsUnderRandomAcks() {
        Random random = new Random(24);
        for (int round = 0; round < 200; round++) {
            InflightWindow window = new InflightWindow();
            Map<Long, QueueEntry> reference = new LinkedHashMap<>();
            long tag = random.nextInt(5);
            for (int step = 0; step < 2_000; step++) {
                int op = random.nextInt(10);
                if (op < 5 || reference.isEmpty()) {
                    tag += 1 + random.nextInt(3);
                    QueueEntry e = entry(tag);
                    window.add(tag, e);
                    reference.put(tag, e);
                } else if (op < 8) {
                    long t = pick(random, reference, tag);
                    assertThat(window.remove(t)).isSameAs(reference.remove(t));
                } else if (op < 9) {
                    long t = pick(random, reference, tag);
                    List<QueueEntry> expected = through(reference, t);
                    assertThat(window.removeThrough(t)).isEqualTo(expected);
                } else if (random.nextInt(20) == 0) {
                    assertThat(window.removeAll()).containsExactlyElementsOf(new ArrayList<>(reference.values()));
                    reference.clear();
                }
                assertThat(window.size()).isEqualTo(reference.size());
            }
            assertThat(window.values()).containsExactlyElementsOf(reference.values());
            for (Map.Entry<Long, QueueEntry> e : reference.entrySet()) {
                assertThat(window.contains(e.getKey())).isTrue();
                assertThat(window.tagOfMessageId(e.getValue().message.messageId)).isEqualTo(e.getKey());
            }
        }
    }

    /** A held tag mostly, sometimes one that is not (acked already, never delivered). */
    private static long pick(Random random, Map<Long, QueueEntry> reference, long last) {
        if (random.nextInt(8) == 0 || reference.isEmpty()) {
            return random.nextInt((int) last + 2);
        }
        List<Long> held = new ArrayList<>(reference.keySet());
        return held.get(random.nextInt(held.size()));
    }

    private static List<QueueEntry> through(Map<Long, QueueEntry> reference, long tag) {
        if (!reference.containsKey(tag)) {
            return null;
        }
        List<QueueEntry> taken = new ArrayList<>();
        var it = reference.entrySet().iterator();
        while (it.hasNext()) {
            Map.Entry<Long, QueueEntry> e = it.next();
            taken.add(e.getValue());
            it.remove();
            if (e.getKey() == tag) {
                break;
            }
        }
        return taken;
    }

    @Test
    void shouldStayWithinTwiceWhatItHoldsWhenTheOldestIsNeverAcknowledged() throws Exception {
        InflightWindow window = new InflightWindow();
        window.add(1, entry(1)); // held for ever
        for (long t = 2; t < 100_000; t++) {
            window.add(t, entry(t));
            assertThat(window.remove(t)).isNotNull();
        }
        assertThat(window.size()).isEqualTo(1);
        java.lang.reflect.Field tags = InflightWindow.class.getDeclaredField("tags");
        tags.setAccessible(true);
        assertThat(((long[]) tags.get(window)).length).as("slots").isLessThanOrEqualTo(32);
        assertThat(window.removeThrough(1)).extracting(e -> e.message.messageId).containsExactly("m-1");
        assertThat(window.isEmpty()).isTrue();
    }

    @Test
    void shouldRefuseATagThatDoesNotGrow() {
        InflightWindow window = new InflightWindow();
        window.add(5, entry(5));
        assertThatThrownBy(() -> window.add(5, entry(5))).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("tag must grow, but was 5 after 5");
    }
}
