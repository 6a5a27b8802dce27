package io.fedbridge.broker.management;

import java.util.List;

/** Everything management shows, read at one moment ({@code timestamp}, epoch millis). */
public record ManagementSnapshot(BrokerInfo broker, List<ListenerInfo> listeners, List<ConnectionInfo> connections,
                                 List<ConsumerInfo> consumers, List<QueueInfo> queues, List<TopicInfo> topics,
                                 List<DurableSubscriptionInfo> durableSubscriptions, List<BridgeInfo> bridges,
                                 List<DiscoveryAgentInfo> discoveryAgents, long timestamp) {
    public ManagementSnapshot {
        listeners = List.copyOf(listeners);
        connections = List.copyOf(connections);
        consumers = List.copyOf(consumers);
        queues = List.copyOf(queues);
        topics = List.copyOf(topics);
        durableSubscriptions = List.copyOf(durableSubscriptions);
        bridges = List.copyOf(bridges);
        discoveryAgents = List.copyOf(discoveryAgents);
    }
}
