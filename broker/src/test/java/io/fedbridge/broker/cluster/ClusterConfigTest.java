package io.fedbridge.broker.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class ClusterConfigTest {

    @Test
    void shouldDefaultToA30SecondTempGraceAndNoMaster() {
        ClusterConfig c = ClusterConfig.ofDefaults();
        assertThat(c.tempDestinationReconnectGrace()).isEqualTo(Duration.ofSeconds(30));
        assertThat(c.masterBroker()).isNull();
        assertThat(c.toBuilder().build()).isEqualTo(c);
    }

    @Test
    void shouldRefuseANegativeGraceAndABlankMaster() {
        assertThatThrownBy(() -> ClusterConfig.builder().tempDestinationReconnectGrace(Duration.ofSeconds(-1)).build())
                .hasMessage("tempDestinationReconnectGrace must be >= 0 (0 = none), but was PT-1S");
        assertThatThrownBy(() -> ClusterConfig.builder().masterBroker(" ").build())
                .hasMessage("masterBroker must be a broker's name (not blank, no surrounding spaces), but was ' '");
    }
}
