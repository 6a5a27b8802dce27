package io.fedbridge.broker.internal;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ProducerIdSharesTest {

    private static BoundedIdSet.Fingerprint id(String s) {
        return BoundedIdSet.fingerprint(s);
    }

    @Test
    void shouldEvictOnlyTheFloodingProducersOwnIds() {
        ProducerIdShares shares = new ProducerIdShares(100, 10_000);
        shares.add("user:alice", id("alice-1"));
        for (int i = 0; i < 5_000; i++) {
            shares.add("user:mallory", id("flood-" + i));
        }
        assertThat(shares.contains(id("alice-1"))).isTrue();
        assertThat(shares.contains(id("flood-4999"))).isTrue();
        assertThat(shares.contains(id("flood-4899"))).as("mallory's oldest made room for its newest").isFalse();
        assertThat(shares.size()).isEqualTo(101);
    }

    @Test
    void shouldGiveUpTheLeastRecentlyActiveProducersOldestIdsBeyondTheTotal() {
        ProducerIdShares shares = new ProducerIdShares(10, 20);
        for (int i = 0; i < 10; i++) {
            shares.add("a", id("a-" + i));
        }
        for (int i = 0; i < 10; i++) {
            shares.add("b", id("b-" + i));
        }
        shares.add("c", id("c-0"));
        assertThat(shares.size()).isEqualTo(20);
        assertThat(shares.contains(id("a-0"))).as("a sent longest ago").isFalse();
        assertThat(shares.contains(id("a-1"))).isTrue();
        assertThat(shares.contains(id("b-0"))).isTrue();
        assertThat(shares.contains(id("c-0"))).isTrue();
    }

    @Test
    void shouldKeepAnIdOnceAndGrowAProducersRingInOrder() {
        ProducerIdShares shares = new ProducerIdShares(1000, 10_000);
        for (int i = 0; i < 1000; i++) {
            shares.add("p", id("x-" + i));
            shares.add("p", id("x-" + i));
        }
        assertThat(shares.size()).isEqualTo(1000);
        shares.add("p", id("x-1000"));
        assertThat(shares.contains(id("x-0"))).isFalse();
        assertThat(shares.contains(id("x-1"))).isTrue();
        assertThat(shares.producers()).isEqualTo(1);
    }
}
