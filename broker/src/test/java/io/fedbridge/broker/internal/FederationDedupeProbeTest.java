package io.fedbridge.broker.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.fedbridge.core.FederationHeaders;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What a broker answers a peer that holds one of its forwards in doubt (FederationHeaders#IN_DOUBT_PROBE). */
class FederationDedupeProbeTest {

    private final FederationDedupe dedupe = new FederationDedupe(1_000, null, List.of());

    @Test
    void shouldSayStoredOnlyOnceTheForwardWasAccepted() {
        assertThat(dedupe.probe("B:1", null)).isEqualTo(FederationHeaders.IN_DOUBT_ABSENT);
        BoundedIdSet.Fingerprint claimed = dedupe.claim("B:1");
        assertThat(dedupe.probe("B:1", null)).as("being stored: the peer must ask again, not release its copy")
                .isEqualTo(FederationHeaders.IN_DOUBT_PENDING);
        dedupe.accepted(claimed, true);
        assertThat(dedupe.probe("B:1", null)).isEqualTo(FederationHeaders.IN_DOUBT_STORED);
        assertThat(dedupe.probe("B:2", null)).isEqualTo(FederationHeaders.IN_DOUBT_ABSENT);
    }

    @Test
    void shouldSayAbsentWhenTheStoreFailed() {
        dedupe.failed(dedupe.claim("B:3"));
        assertThat(dedupe.probe("B:3", null)).isEqualTo(FederationHeaders.IN_DOUBT_ABSENT);
    }

    @Test
    void shouldKeyAReplayByItsCountAndKnowACopyALocalConsumerTook() {
        dedupe.accepted(dedupe.claimReplay("B:4#r1", "B:4"), true);
        assertThat(dedupe.probe("B:4", "1")).isEqualTo(FederationHeaders.IN_DOUBT_STORED);
        assertThat(dedupe.probe("B:4", "2")).isEqualTo(FederationHeaders.IN_DOUBT_ABSENT);

        dedupe.recoveredRemoved("B:5", true); // a local consumer here took the message (learned from the journal)
        assertThat(dedupe.probe("B:5", "3")).as("any replay of a message consumed here is a copy of it")
                .isEqualTo(FederationHeaders.IN_DOUBT_STORED);
        assertThat(dedupe.probe("B:5", null)).isEqualTo(FederationHeaders.IN_DOUBT_STORED);
    }
}
