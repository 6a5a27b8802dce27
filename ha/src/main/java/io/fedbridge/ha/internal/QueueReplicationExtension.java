package io.fedbridge.ha.internal;

import io.fedbridge.broker.Broker;
import io.fedbridge.broker.BrokerExtension;

/**
 * Plugs single-queue replication into every broker started with module {@code fedbridge-ha} on its class path (found
 * with {@link java.util.ServiceLoader}): the broker can then serve its queues to replicas and keep replicas of other
 * brokers' queues. The replicator is closed with the broker's core, so this returns null.
 */
public final class QueueReplicationExtension implements BrokerExtension {

    @Override
    public AutoCloseable start(Broker broker) {
        QueueReplicator.install(broker);
        return null;
    }
}
