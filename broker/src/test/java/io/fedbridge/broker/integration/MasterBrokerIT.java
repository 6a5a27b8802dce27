package io.fedbridge.broker.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fedbridge.broker.Broker;
import io.fedbridge.broker.BrokerConfig;
import io.fedbridge.broker.DestinationPolicy;
import io.fedbridge.broker.management.ManagementException;
import io.fedbridge.core.bridge.BridgeState;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * masterBroker mode (OpenMQ's): the master changes definitions at any time; another broker only while its own link to
 * the master is up, and refuses with a message naming the master otherwise.
 */
class MasterBrokerIT extends BrokerTestSupport {

    private static final Duration WAIT = Duration.ofSeconds(20);

    private static boolean linkUp(Broker b) {
        return b.links().stream().anyMatch(l -> l.state() == BridgeState.UP);
    }

    @Test
    void shouldRefuseDefinitionChangesWhileTheMasterIsUnreachable() {
        Broker master = startBroker(BrokerConfig.builder("mb-M").masterBroker("mb-M"));
        Broker other = startBroker(BrokerConfig.builder("mb-X").masterBroker("mb-M"));
        master.cluster().define(DestinationPolicy.builder("/queue/mb.alone").build()); // the master needs nobody

        other.addNetworkConnector("static:(" + uri(master, "tcp") + ")?duplex=true&initialReconnectDelay=50&maxReconnectDelay=500");
        await("X's link to the master").atMost(WAIT).until(() -> linkUp(other));
        await("the master's definition reaches X").atMost(WAIT).until(() -> other.cluster().definition("/queue/mb.alone").isPresent());
        other.cluster().define(DestinationPolicy.builder("/queue/mb.linked").maxNumMsgs(5).build());
        await("X's change reaches the master").atMost(WAIT).until(() -> master.cluster().definition("/queue/mb.linked").isPresent());

        master.close();
        await("X sees the master gone").atMost(WAIT).until(() -> !linkUp(other));
        assertThatThrownBy(() -> other.cluster().define(DestinationPolicy.builder("/queue/mb.cut").build()))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("broker mb-X refuses to define /queue/mb.cut: definitions change only with the master broker "
                        + "'mb-M' (masterBroker), and this broker's link to it is not up");
        assertThatThrownBy(() -> other.management().undefine("/queue/mb.linked")).isInstanceOf(ManagementException.class)
                .hasMessageContaining("refuses to delete /queue/mb.linked");
        assertThat(other.cluster().definition("/queue/mb.cut")).isEmpty();
        assertThat(other.cluster().definition("/queue/mb.linked")).get().extracting(d -> d.deleted()).isEqualTo(false);
    }
}
