package io.fedbridge.metrics.internal;

import io.fedbridge.broker.Broker;
import io.fedbridge.broker.BrokerExtension;
import io.fedbridge.metrics.MetricsEndpoint;

/** Starts a {@link MetricsEndpoint} for a broker whose configuration sets {@code metrics}. */
public final class MetricsExtension implements BrokerExtension {

    @Override
    public AutoCloseable start(Broker broker) {
        String uri = broker.config().metrics();
        return uri == null ? null : MetricsEndpoint.start(broker, uri);
    }
}
