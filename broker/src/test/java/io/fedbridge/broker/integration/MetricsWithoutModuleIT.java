package io.fedbridge.broker.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fedbridge.broker.Broker;
import io.fedbridge.broker.BrokerConfig;
import io.fedbridge.broker.BrokerException;
import org.junit.jupiter.api.Test;

/** {@code metrics = URI} needs the module fedbridge-metrics, which the broker module's tests do not have. */
class MetricsWithoutModuleIT extends BrokerTestSupport {

    @Test
    void shouldRefuseToStartAndNameTheMissingModule() {
        assertThatThrownBy(() -> startBroker(BrokerConfig.builder("noMetrics").metrics("http://127.0.0.1:0")))
                .isInstanceOf(BrokerException.class)
                .hasMessageContaining("metrics = http://127.0.0.1:0")
                .hasMessageContaining("io.fedbridge:fedbridge-metrics");
        // nothing left running: the name is free again
        Broker again = startBroker(BrokerConfig.builder("noMetrics"));
        assertThat(again.extension(AutoCloseable.class)).isNull();
    }
}
