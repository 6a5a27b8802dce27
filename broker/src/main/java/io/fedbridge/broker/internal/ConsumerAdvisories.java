package io.fedbridge.broker.internal;

import io.fedbridge.core.FederationHeaders;
import io.fedbridge.core.StompHeaders;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Publishes one event per consumer added or removed on {@link FederationHeaders#CONSUMER_ADVISORY_TOPIC},
 * and replays every current consumer to a new advisory subscriber. Registration of a subscriber and the
 * replay happen under the same lock as publishing, so a subscriber sees each consumer exactly once as added.
 */
final class ConsumerAdvisories {

    private final BrokerCore core;
    private final Map<ServerConsumer, StompHeaders> consumers = new LinkedHashMap<>();

    ConsumerAdvisories(BrokerCore core) {
        this.core = core;
    }

    static boolean isAdvisory(String destination) {
        return destination.startsWith("/topic/fedbridge.advisory.");
    }

    synchronized void added(ServerConsumer c, String originId, String path, boolean network) {
        ManagedCore.consumerAdded(core, c);
        if (isAdvisory(c.subscribedDestination) || core.policyFor(c.subscribedDestination).isLocalOnly()
                || io.fedbridge.broker.management.ManagementDestinations.isReserved(c.subscribedDestination)) {
            return; // local-only destinations create no demand elsewhere
        }
        StompHeaders info = new StompHeaders(8);
        info.add(FederationHeaders.ORIGIN_CONSUMER, originId);
        info.add(FederationHeaders.ADVISORY_DESTINATION, c.subscribedDestination);
        if (c.selectorText != null) {
            info.add(FederationHeaders.ADVISORY_SELECTOR, c.selectorText);
        }
        info.add(FederationHeaders.CONSUMER_PATH, path);
        info.add(FederationHeaders.NETWORK_CONSUMER, Boolean.toString(network));
        if (c.rank != null && (network || ConsumerRanks.isRanked(c.queue))) {
            info.add(FederationHeaders.CONSUMER_RANK, c.rank);
        }
        consumers.put(c, info);
        publish(FederationHeaders.CONSUMER_ADDED, info);
    }

    synchronized void removed(ServerConsumer c) {
        ManagedCore.consumerRemoved(core, c);
        StompHeaders info = consumers.remove(c);
        if (info != null) {
            publish(FederationHeaders.CONSUMER_REMOVED, info);
        }
    }

    /** Subscribes a new advisory subscriber and replays every current consumer to it. */
    synchronized TopicRegistry.Registration subscribe(String pattern, QueueDestination queue, DeliveryFilter filter) {
        TopicRegistry.Registration r = core.topics.subscribe(pattern, queue, filter);
        for (StompHeaders info : consumers.values()) {
            BrokerMessage m = core.newMessage(FederationHeaders.CONSUMER_ADVISORY_TOPIC, event(FederationHeaders.CONSUMER_ADDED, info));
            if (r.accepts(m.headers)) {
                core.memory.reserve(m.size);
                queue.enqueue(new QueueEntry(m, null, 0));
            }
        }
        return r;
    }

    private void publish(String type, StompHeaders info) {
        core.route(FederationHeaders.CONSUMER_ADVISORY_TOPIC, event(type, info), new byte[0]);
    }

    private static StompHeaders event(String type, StompHeaders info) {
        StompHeaders h = info.copy();
        h.add(FederationHeaders.ADVISORY, type);
        return h;
    }

    synchronized int size() {
        return consumers.size();
    }
}
