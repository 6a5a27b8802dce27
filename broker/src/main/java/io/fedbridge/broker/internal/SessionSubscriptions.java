package io.fedbridge.broker.internal;

import io.fedbridge.broker.security.internal.SecurityGuard;
import io.fedbridge.core.AckMode;
import io.fedbridge.core.FederationHeaders;
import io.fedbridge.core.StompFrame;
import io.fedbridge.core.StompHeaders;
import io.fedbridge.core.selector.InvalidSelectorException;
import io.fedbridge.core.selector.Selector;
import java.util.Map;

/**
 * SUBSCRIBE and UNSUBSCRIBE on one {@link ServerSession}: checks a subscription (rights, federation headers,
 * limits, selector, durable ownership), creates its {@link ServerConsumer} on a queue, a topic subscription queue or
 * a durable subscription, and detaches it again; removes durable subscriptions; and gives the connection's temporary
 * destinations their federation-wide names ({@link #ownTemp}).
 *
 * <p>Confined to the connection's I/O thread (the event loop), like the session whose consumer maps it fills.
 */
final class SessionSubscriptions {

    private final ServerSession session;
    private final BrokerCore core;
    private final SecurityGuard guard;
    private final Map<String, ServerConsumer> consumers;
    private final Map<Integer, ServerConsumer> consumersByNumber;
    private int consumerNumbers;

    SessionSubscriptions(ServerSession session, BrokerCore core, SecurityGuard guard, Map<String, ServerConsumer> consumers,
                         Map<Integer, ServerConsumer> consumersByNumber) {
        this.session = session;
        this.core = core;
        this.guard = guard;
        this.consumers = consumers;
        this.consumersByNumber = consumersByNumber;
    }

    void onSubscribe(StompFrame f) {
        String receipt = f.header(StompHeaders.RECEIPT);
        String invalid = Destinations.validate(f.header(StompHeaders.DESTINATION));
        if (invalid != null) {
            session.error("SUBSCRIBE rejected: " + invalid, null, receipt);
            return;
        }
        String dest = ownTemp(f.header(StompHeaders.DESTINATION));
        if (session.backupAdmin && !Destinations.isTemp(dest) && !dest.equals(io.fedbridge.broker.management.ManagementDestinations.EVENTS)) {
            session.error("SUBSCRIBE refused: broker " + core.config.name() + " is an HA backup; an administrator's connection may "
                    + "only subscribe to its temporary queues (management replies) and to the management events", null, receipt);
            return;
        }
        String denied = guard.denySubscribe(session.identity, session.federationLink, dest);
        if (denied != null) {
            session.error("SUBSCRIBE denied: " + denied, null, receipt);
            return;
        }
        String replica = core.replicas.refuseConsumer(dest);
        if (replica != null) {
            session.error("SUBSCRIBE refused: " + replica, null, receipt);
            return;
        }
        if (!session.federationLink || !session.mayFederate(dest)) {
            String why = session.federationLink ? "user '" + session.identity.name() + "' has no federate permission on " + dest
                    : "this connection did not announce itself as a federation link";
            String federation = SessionHeaders.federationHeader(f);
            if (federation != null) {
                session.error("SUBSCRIBE denied: " + federation + " is for the federation's bridges only (" + why + ")", null, receipt);
                return;
            }
            if (Destinations.isTemp(dest) && !isOwnTemp(dest)) {
                session.error("SUBSCRIBE denied: " + dest + " is a temporary destination of another connection: only its owner (and "
                        + "the federation's bridges) may read it", null, receipt);
                return;
            }
        }
        String id = f.header(StompHeaders.ID);
        if (id == null) {
            if (!session.version.equals("1.0")) {
                session.error("SUBSCRIBE to " + dest + " has no id header (required by STOMP " + session.version + ")", null, receipt);
                return;
            }
            id = dest;
        }
        if (QueueBrowse.isBrowse(f)) { // a QueueBrowser: answered at once, nothing registered
            String refused = QueueBrowse.browse(core, session, f, dest, id);
            if (refused != null) {
                session.error(refused, null, receipt);
            }
            return;
        }
        if (consumers.containsKey(id)) {
            session.error("SUBSCRIBE with id '" + id + "' which is already in use on this connection", null, receipt);
            return;
        }
        String refused = session.sessionLimits.refuseSubscribe(f, dest, consumers.size(), session.clientId);
        if (refused != null) {
            session.error(refused, null, receipt);
            return;
        }
        AckMode ack;
        try {
            ack = AckMode.fromWire(f.header(StompHeaders.ACK));
        } catch (IllegalArgumentException e) {
            session.error("SUBSCRIBE to " + dest + " rejected: " + e.getMessage(), null, receipt);
            return;
        }
        Selector selector = null;
        String sel = f.header(StompHeaders.SELECTOR);
        if (sel != null && !sel.isBlank()) {
            try {
                selector = Selector.parse(sel);
            } catch (InvalidSelectorException e) {
                session.error("SUBSCRIBE to " + dest + " rejected: " + e.getMessage(), null, receipt);
                return;
            }
        }
        int prefetch = SessionHeaders.intHeader(f, core.config.defaultPrefetch(), StompHeaders.PREFETCH, "activemq.prefetchSize");
        int priority = SessionHeaders.intHeader(f, 0, StompHeaders.CONSUMER_PRIORITY, "activemq.priority");
        if (prefetch < 1 || priority == Integer.MIN_VALUE) {
            session.error("SUBSCRIBE to " + dest + " rejected: prefetch-size must be a positive integer and consumer-priority an integer", null, receipt);
            return;
        }
        int flowLimit = core.policyFor(dest).consumerFlowLimit();
        if (flowLimit != -1) {
            prefetch = Math.min(prefetch, flowLimit);
        }
        boolean network = "true".equals(f.header(FederationHeaders.NETWORK_CONSUMER));
        int maxHops = network ? SessionHeaders.intHeader(f, 0, FederationHeaders.MAX_HOPS) : 0;
        if (maxHops == Integer.MIN_VALUE || maxHops < 0) {
            session.error("SUBSCRIBE to " + dest + " rejected: " + FederationHeaders.MAX_HOPS + " must be a non-negative integer", null, receipt);
            return;
        }
        String selText = sel == null || sel.isBlank() ? null : sel;
        DeliveryFilter filter = DeliveryFilter.of(selector, network ? f.header(FederationHeaders.EXCLUDE_BROKER) : null, maxHops);
        int number = ++consumerNumbers;
        ServerConsumer c;
        String durableName = SessionHeaders.durableName(f);
        if (durableName != null) {
            if (!Destinations.isTopic(dest)) {
                session.error("SUBSCRIBE rejected: durable subscriptions are for topics, but got '" + dest + "'", null, receipt);
                return;
            }
            String cid = f.header("client-id") != null ? f.header("client-id") : session.clientId;
            if (cid == null) {
                session.error("SUBSCRIBE rejected: durable subscription '" + durableName + "' needs a client-id header on CONNECT or SUBSCRIBE", null, receipt);
                return;
            }
            if (core.clientIdHeldByOther(cid, session)) {
                session.error("SUBSCRIBE rejected: client-id '" + cid + "' belongs to another connection", null, receipt);
                return;
            }
            cid = ProducerIds.durableClientId(session.identity, cid);
            BrokerCore.DurableSubscription d = core.durable(cid, durableName, dest, selText);
            if (d.queue().hasActiveConsumer()) {
                session.error("SUBSCRIBE rejected: durable subscription '" + durableName + "' of client-id '" + cid + "' is already active", null, receipt);
                return;
            }
            // The subscription's own selector filters at routing time; the consumer takes everything queued.
            c = new ServerConsumer(session, number, id, dest, ack, null, selText, prefetch, priority, d.queue());
            c.durable = true;
        } else if (Destinations.isTopic(dest)) {
            QueueDestination subQueue = new QueueDestination(core, dest + "#" + session.id() + "/" + id, null, core.policyFor(dest), false);
            // The registration's selector filters at routing time; the consumer takes everything queued.
            c = new ServerConsumer(session, number, id, dest, ack, null, selText, prefetch, priority, subQueue);
            if (network && core.policyFor(dest).isLocalOnly()) {
                c.topicRegistration = new TopicRegistry.Registration(dest, subQueue, null); // never routed to: local only
            } else if (dest.equals(FederationHeaders.CLUSTER_TOPIC)) {
                c.topicRegistration = core.subscribeCluster(dest, subQueue, filter);
            } else if (dest.equals(FederationHeaders.DEFINITIONS_TOPIC)) {
                c.topicRegistration = ClusterCore.subscribe(core, dest, subQueue, filter);
            } else if (dest.equals(FederationHeaders.IN_DOUBT_TOPIC)) {
                c.topicRegistration = new TopicRegistry.Registration(dest, subQueue, null); // a snapshot, never routed to
                String peer = f.header(FederationHeaders.EXCLUDE_BROKER);
                if (network && session.federationLink && peer != null) {
                    for (BrokerMessage m : core.inDoubtEvents(peer)) {
                        core.memory.reserve(m.size);
                        subQueue.enqueue(new QueueEntry(m, null, 0));
                    }
                }
            } else {
                c.topicRegistration = ConsumerAdvisories.isAdvisory(dest)
                        ? core.advisories.subscribe(dest, subQueue, filter)
                        : core.topics.subscribe(dest, subQueue, filter);
            }
        } else {
            if (Destinations.isWildcard(dest)) {
                session.error("SUBSCRIBE rejected: wildcards are supported on topics only, but got '" + dest + "'", null, receipt);
                return;
            }
            c = new ServerConsumer(session, number, id, dest, ack, filter, selText, prefetch, priority, core.queue(dest));
        }
        c.network = network;
        c.ackThrough = network && "true".equals(f.header(FederationHeaders.ACK_THROUGH));
        c.peer = network ? f.header(FederationHeaders.EXCLUDE_BROKER) : null;
        if (network && f.header(FederationHeaders.REPLAY_DELAY) != null && !Destinations.isTopic(dest)) {
            long delay = SessionHeaders.intHeader(f, -1, FederationHeaders.REPLAY_DELAY);
            c.replayDelayMillis = delay < 0 ? -1 : delay;
            c.replaySelectorAware = "true".equals(f.header(FederationHeaders.REPLAY_SELECTOR_AWARE));
        }
        String origin = network ? f.header(FederationHeaders.ORIGIN_CONSUMER) : null;
        c.originId = origin != null ? origin : core.brokerId + "/" + session.id() + "/" + id;
        String ranked = ConsumerRanks.admit(c, network ? f.header(FederationHeaders.CONSUMER_RANK) : null);
        if (ranked != null) {
            session.error("SUBSCRIBE to " + dest + " refused: " + ranked, null, receipt);
            return;
        }
        consumers.put(id, c);
        consumersByNumber.put(number, c);
        // Receipt first, so a client waiting for it sees the subscription confirmed before any message.
        session.receipt(f);
        c.queue.addConsumer(c);
        if (network) {
            String path = f.header(FederationHeaders.CONSUMER_PATH);
            core.advisories.added(c, c.originId, (path == null || path.isEmpty() ? "" : path + ",") + core.brokerId, true);
        } else {
            core.advisories.added(c, c.originId, core.brokerId, false);
        }
    }

    /**
     * Gives a connection's temporary destination a federation-wide name: {@code /temp-queue/X} becomes
     * {@code /temp-queue/@OWNER@X}, where OWNER names this broker and connection. A name that already has
     * an owner (a reply-to received from elsewhere) is left alone. The owner's temporary queues are deleted
     * when it disconnects; other brokers drop theirs when the last (network) consumer leaves.
     */
    String ownTemp(String dest) {
        if (!Destinations.isTemp(dest)) {
            return dest;
        }
        String prefix = Destinations.prefixOf(dest);
        String name = dest.substring(prefix.length());
        if (name.startsWith("@")) {
            return dest;
        }
        String owned = prefix + "@" + session.tempOwner + "@" + name;
        if (session.ownedTemps.add(owned)) {
            core.temps.used(session.tempOwner, owned);
        }
        return owned;
    }

    /** Whether {@code dest} (a temporary destination with its owner in its name) is one of this connection's. */
    private boolean isOwnTemp(String dest) {
        return dest.startsWith("@" + session.tempOwner + "@", Destinations.prefixOf(dest).length());
    }

    void onUnsubscribe(StompFrame f) {
        String id = f.header(StompHeaders.ID);
        if (id == null && session.version.equals("1.0")) {
            id = f.header(StompHeaders.DESTINATION);
        }
        ServerConsumer c = id == null ? null : consumers.remove(id);
        String durableName = SessionHeaders.durableName(f);
        if (c == null && durableName == null && !QueueBrowse.isBrowse(f)) { // a browse ended itself
            session.error("UNSUBSCRIBE of unknown subscription id '" + id + "'", null, f.header(StompHeaders.RECEIPT));
            return;
        }
        if (c != null) {
            detach(c, true);
        }
        if (durableName != null) {
            String cid = f.header("client-id") != null ? f.header("client-id") : session.clientId;
            String refused = cid == null ? null : removeDurable(cid, durableName);
            if (refused != null) {
                session.error(refused, null, f.header(StompHeaders.RECEIPT));
                return;
            }
            if (cid == null) {
                session.error("UNSUBSCRIBE of unknown durable subscription '" + durableName + "' of client-id '" + cid + "'", null,
                        f.header(StompHeaders.RECEIPT));
                return;
            }
        }
        session.receipt(f);
    }

    /**
     * Removes the durable subscription {@code name} of {@code cid}, if this connection owns it: the client-id is not
     * another live connection's, and on a broker with logins it was created by this user (its key carries the user);
     * an {@code admin} of its topic may remove another user's by naming the stored client-id ({@code alice/app-1}).
     * Null when removed; else the ERROR message.
     */
    private String removeDurable(String cid, String name) {
        if (core.clientIdHeldByOther(cid, session)) {
            return "UNSUBSCRIBE rejected: client-id '" + cid + "' belongs to another connection";
        }
        if (core.removeDurable(BrokerCore.durableKey(ProducerIds.durableClientId(session.identity, cid), name))) {
            return null;
        }
        String other = BrokerCore.durableKey(cid, name);
        String topic = core.durableDestination(other);
        if (topic != null && !session.identity.anonymous()) {
            String denied = guard.deny(session.identity, io.fedbridge.broker.security.Operation.ADMIN, topic);
            if (denied != null) {
                return "UNSUBSCRIBE denied: durable subscription '" + name + "' of client-id '" + cid + "' belongs to another "
                        + "user, and " + denied;
            }
            core.removeDurable(other);
            return null;
        }
        return "UNSUBSCRIBE of unknown durable subscription '" + name + "' of client-id '" + cid + "'";
    }

    void detach(ServerConsumer c) {
        detach(c, false);
    }

    /** @param unsubscribed by the client's UNSUBSCRIBE (not its connection's end) */
    void detach(ServerConsumer c, boolean unsubscribed) {
        consumersByNumber.remove(c.number);
        core.advisories.removed(c);
        if (c.topicRegistration != null) {
            core.topics.unsubscribe(c.topicRegistration);
            c.queue.removeConsumer(c, unsubscribed);
            c.queue.delete();
        } else {
            c.queue.removeConsumer(c, unsubscribed);
        }
    }
}
