package io.fedbridge.camel.integration;

import static org.assertj.core.api.Assertions.assertThat;

import io.fedbridge.broker.Broker;
import io.fedbridge.camel.SampleRoute;
import org.junit.jupiter.api.Test;

/** The sample route runs end to end, so it cannot rot unnoticed. */
class SampleRouteIT extends FedbridgeTestSupport {

    private Broker a;
    private Broker b;

    @Override
    protected void startBrokers() {
        b = startBroker("sample-B");
        a = startBroker("sample-A");
        a.addNetworkConnector("static:(" + tcp(b) + ")?duplex=true&" + FAST_BRIDGE);
        awaitBridgesUp(a, 1);
    }

    @Test
    void shouldPriceAndAuditEveryOrderAcrossTheTwoBrokers() throws Exception {
        assertThat(SampleRoute.run(tcp(a), tcp(b), 10, WAIT)).isEqualTo(10);
    }
}
