package io.fedbridge.broker.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.fedbridge.core.AckMode;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ConsumerRanksTest {

    private static ServerConsumer network(String rank) {
        ServerConsumer c = new ServerConsumer(null, 1, "s", "/queue/q", AckMode.CLIENT, null, null, 10, 0, null);
        c.network = true;
        c.originId = "remote";
        String refused = ConsumerRanks.admit(c, rank);
        assertThat(refused).as("admit %s", rank).isNull();
        return c;
    }

    @Test
    void shouldOrderByRankWithUnrankedConsumersLast() {
        ServerConsumer unranked = network(null);
        ServerConsumer late = network("0000000002000/b/s/1");
        ServerConsumer early = network("0000000001000/c/s/1");
        List<ServerConsumer> l = new ArrayList<>(List.of(unranked, late, early));
        l.sort(ConsumerRanks.ORDER);

        assertThat(l).containsExactly(early, late, unranked);
        assertThat(ConsumerRanks.time(early.rank)).isEqualTo(1000);
    }

    @Test
    void shouldRefuseARankThatIsNotTimeAndId() {
        ServerConsumer c = new ServerConsumer(null, 1, "s", "/queue/q", AckMode.CLIENT, null, null, 10, 0, null);
        c.network = true;

        assertThat(ConsumerRanks.admit(c, "1000/x")).contains("fedbridge-consumer-rank").contains("'1000/x'");
        assertThat(ConsumerRanks.admit(c, "0000000001000/a,b")).contains("must be 13 digits");
    }

    @Test
    void shouldSpellARankAsTheFormatDid() {
        for (long time : new long[] {0, 7, 1_764_000_000_000L, 9_999_999_999_999L, 12_345_678_901_234L}) {
            assertThat(ConsumerRanks.rank(time, "c-1")).isEqualTo(String.format("%013d/%s", time, "c-1"));
        }
    }
}
