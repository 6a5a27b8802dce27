package io.fedbridge.samples.failover;

import static org.assertj.core.api.Assertions.assertThat;

import io.fedbridge.failover.SendReceipt;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The failover client sample still builds, runs and does what its Javadoc says. */
@Timeout(60)
class FailoverClientSampleTest {

    @Test
    void shouldCarryOnAtTheSecondBrokerWithNothingLostOrDuplicated() throws Exception {
        FailoverClientSample.Outcome outcome = FailoverClientSample.run();

        assertThat(outcome.lastBroker()).as("moved to the other broker").isNotEqualTo(outcome.firstBroker()).isNotNull();
        assertThat(outcome.received()).as("every order once, in order")
                .containsExactlyElementsOf(IntStream.rangeClosed(1, 10).mapToObj(i -> "order " + i).toList());
        assertThat(outcome.duplicates()).isZero();
        assertThat(outcome.receipts()).hasSize(10).noneMatch(SendReceipt::duplicate);
        assertThat(outcome.receipts().subList(0, 5)).allMatch(r -> r.brokerUri().equals(outcome.firstBroker()));
        assertThat(outcome.receipts().subList(5, 10)).allMatch(r -> r.brokerUri().equals(outcome.lastBroker()));
        assertThat(outcome.events()).anyMatch(e -> e.startsWith("lost " + outcome.firstBroker()))
                .anyMatch(e -> e.startsWith("reconnected to " + outcome.lastBroker()) && e.contains("1 subscription(s) restored"));
        assertThat(outcome.stats().connectionsLost()).isEqualTo(1);
    }

    @Test
    void shouldRunItsMain() throws Exception {
        FailoverClientSample.main(new String[0]);
    }
}
