package io.fedbridge.broker.internal;

import io.fedbridge.broker.DestinationPolicy;
import io.fedbridge.broker.management.ManagementDestinations;
import io.fedbridge.core.FederationHeaders;
import io.fedbridge.core.StompHeaders;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The federation-wide destinations' way into the broker core (io.fedbridge.broker.cluster sees nothing else of it):
 * policies of defined destinations, creating and removing queues, publishing definitions to the bridges that relay
 * them, and the queues auto-deletion may remove. Thread-safe.
 */
public final class ClusterCore {

    private final BrokerCore core;

    public ClusterCore(BrokerCore core) {
        this.core = core;
    }

    /** Hands definitions received and snapshot requests to {@code hook} from now on. */
    public void hook(ClusterHook hook) {
        core.cluster = hook;
    }

    public String brokerId() {
        return core.brokerId;
    }

    public String brokerName() {
        return core.config.name();
    }

    /** The policy this broker's configuration file or builder gives {@code destination}, ignoring definitions. */
    public DestinationPolicy configuredPolicy(String destination) {
        return core.configuredPolicyFor(destination);
    }

    /** The configured policy whose pattern is exactly {@code destination}, or null. */
    public DestinationPolicy configuredExactPolicy(String destination) {
        for (DestinationPolicy p : core.config.policies()) {
            if (p.pattern().equals(destination)) {
                return p;
            }
        }
        return null;
    }

    /**
     * Applies a definition: {@code policy} holds for {@code destination} from now on (an existing queue's too), and a
     * queue is created if it does not exist.
     */
    public void define(String destination, DestinationPolicy policy) {
        core.definedPolicies.put(destination, policy);
        QueueDestination q = core.queues.get(destination);
        if (q != null) {
            q.policy = policy;
        }
        if (destination.startsWith(Destinations.QUEUE)) {
            core.queue(destination).policy = policy;
        }
    }

    /**
     * Removes a definition: the configured policy holds again; the queue goes with its messages unless consumers are
     * attached (then it stays, as an auto-created queue would). Returns how many messages were removed, -1 if the queue
     * stayed.
     */
    public int undefine(String destination) {
        core.definedPolicies.remove(destination);
        QueueDestination q = core.queues.get(destination);
        if (q == null) {
            return 0;
        }
        q.policy = core.configuredPolicyFor(destination);
        if (q.hasConsumers()) {
            return -1;
        }
        return remove(q);
    }

    private int remove(QueueDestination q) {
        List<QueueEntry> taken = q.takePending(Integer.MAX_VALUE);
        for (QueueEntry e : taken) {
            core.release(e);
        }
        if (core.queues.remove(q.name, q)) {
            q.delete();
            core.hook.destinationDeleted(q.name);
        }
        return taken.size();
    }

    /** Publishes a definition to the subscribers of the definitions topic (the bridges relaying it to peers). */
    public void publish(StompHeaders headers, byte[] body) {
        core.route(FederationHeaders.DEFINITIONS_TOPIC, headers, body);
    }

    /** Queues (not temporary, not the dead-letter queue, not defined) that have neither consumers nor messages. */
    public List<String> idleAutoCreatedQueues() {
        List<String> idle = new ArrayList<>();
        for (Map.Entry<String, QueueDestination> e : core.queues.entrySet()) {
            String name = e.getKey();
            if (name.startsWith(Destinations.QUEUE) && !core.definedPolicies.containsKey(name) && !name.equals(DestinationPolicy.DLQ)
                    && !ManagementDestinations.isReserved(name) && e.getValue().isIdle()) {
                idle.add(name);
            }
        }
        return idle;
    }

    /** A queue's counters (enqueued, consumers: auto-deletion's sign of activity between two looks), or null. */
    public io.fedbridge.broker.DestinationStats stats(String destination) {
        QueueDestination q = core.queues.get(destination);
        return q == null ? null : q.snapshot();
    }

    /** Removes an auto-created queue if it is still idle; true if removed. */
    public boolean removeIfIdle(String destination) {
        QueueDestination q = core.queues.get(destination);
        if (q == null || core.definedPolicies.containsKey(destination) || !q.isIdle()) {
            return false;
        }
        remove(q);
        return true;
    }

    /** Subscribes to the definitions topic and hands the subscriber every definition first (ServerSession's SUBSCRIBE). */
    static TopicRegistry.Registration subscribe(BrokerCore core, String pattern, QueueDestination queue, DeliveryFilter filter) {
        TopicRegistry.Registration r = core.topics.subscribe(pattern, queue, filter);
        for (ClusterHook.Definition d : core.cluster.snapshot()) {
            BrokerMessage m = core.newMessage(FederationHeaders.DEFINITIONS_TOPIC, d.headers(), d.body());
            core.memory.reserve(m.size);
            queue.enqueue(new QueueEntry(m, null, 0));
        }
        return r;
    }
}
