package io.fedbridge.samples.embedding;

import static org.assertj.core.api.Assertions.assertThat;

import io.fedbridge.core.bridge.BridgeState;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The embedding sample still builds, runs and does what its Javadoc says. */
@Timeout(60)
class EmbeddedFederationSampleTest {

    @Test
    void shouldCarryTheOrderOverTheBridgeAndTheConfirmationBackOverTheSameDuplexBridge() throws Exception {
        EmbeddedFederationSample.Outcome outcome = EmbeddedFederationSample.run();

        assertThat(outcome.order()).isEqualTo("order 42: 3 croissants");
        assertThat(outcome.orderHops()).as("bridges the order crossed").isEqualTo("1");
        assertThat(outcome.confirmation()).isEqualTo("confirmed: order 42: 3 croissants");
        assertThat(outcome.bridges()).singleElement().satisfies(b -> {
            assertThat(b.state()).isEqualTo(BridgeState.UP);
            assertThat(b.forwarded()).as("both directions").isEqualTo(2);
            assertThat(b.duplicates()).isZero();
        });
    }

    @Test
    void shouldRunItsMain() throws Exception {
        EmbeddedFederationSample.main(new String[0]);
    }
}
