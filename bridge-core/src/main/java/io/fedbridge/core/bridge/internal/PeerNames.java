package io.fedbridge.core.bridge.internal;

import io.fedbridge.core.FederationHeaders;
import io.fedbridge.core.StompHeaders;
import io.fedbridge.core.SubscriptionRequest;
import io.fedbridge.core.bridge.DestinationMap;
import io.fedbridge.core.bridge.Dialect;
import io.fedbridge.core.bridge.PeerProfile;

/**
 * One connection's names: turns fedbridge destinations into the broker's ({@link PeerProfile}'s rename rules,
 * then its {@link Dialect}) and back, and adds the dialect's headers to a forward or a network subscription.
 * Immutable; one per connection of a bridge, fixed once its CONNECTED frame is known.
 */
public final class PeerNames {

    /** A fedbridge broker, or any broker spoken to with fedbridge's names. */
    public static final PeerNames AS_IS = new PeerNames(Dialect.STOMP, DestinationMap.NONE);

    /** Artemis' routing types, for {@code destination-type} (SEND) and {@code subscription-type} (SUBSCRIBE). */
    private static final String ANYCAST = "ANYCAST";
    private static final String MULTICAST = "MULTICAST";
    /** RabbitMQ's header for the AMQP message-id property, which stays with the message across redeliveries. */
    static final String AMQP_MESSAGE_ID = "amqp-message-id";
    /**
     * Artemis' duplicate-detection property: a STOMP header becomes a message property, and Artemis drops a second
     * message with the same value on the same address, across restarts too (its id cache, 20,000 per address by default).
     */
    static final String ARTEMIS_DUPLICATE_ID = "_AMQ_DUPL_ID";

    private final Dialect dialect;
    private final DestinationMap map;
    /** The stable name of this broker's durable subscriptions for statically included topics, or null: not durable. */
    private final String durableName;

    private PeerNames(Dialect dialect, DestinationMap map) {
        this(dialect, map, null);
    }

    private PeerNames(Dialect dialect, DestinationMap map, String durableName) {
        this.dialect = dialect;
        this.map = map;
        this.durableName = durableName;
    }

    /**
     * These names, reading statically included topics through durable subscriptions named after {@code name} (the
     * CONNECT {@code client-id} this connection sent, for Artemis and ActiveMQ); for a foreign broker only, which a bridge
     * cannot ask to keep a topic's messages otherwise.
     */
    public PeerNames withDurableSubscriptions(String name) {
        return new PeerNames(dialect, map, java.util.Objects.requireNonNull(name, "name"));
    }

    /** The stable name of durable subscriptions on this broker, or null if the bridge subscribes to topics plainly. */
    public String durableName() {
        return durableName;
    }

    /**
     * The names for a connection whose URI chose {@code profile}, that answered with {@code connected};
     * {@code fedbridge}: it sent a broker id.
     */
    public static PeerNames of(PeerProfile profile, StompHeaders connected, boolean fedbridge) {
        Dialect d = profile.dialect();
        if (d == Dialect.AUTO) {
            d = fedbridge ? Dialect.STOMP : Dialect.fromServer(connected == null ? null : connected.get(StompHeaders.SERVER));
        }
        return d == Dialect.STOMP && profile.destinationMap().rules().isEmpty() ? AS_IS : new PeerNames(d, profile.destinationMap());
    }

    public Dialect dialect() {
        return dialect;
    }

    /** The broker's name for the fedbridge destination {@code name} (wildcards included). */
    public String peerName(String name) {
        String renamed = map.toPeer(name);
        if (renamed != null) {
            return renamed;
        }
        return switch (dialect) {
            case ARTEMIS -> toWords(name.substring(name.indexOf('/', 1) + 1));
            case RABBITMQ -> name.startsWith("/topic/") ? toWords(name) : name;
            default -> name;
        };
    }

    /** AMQP-style wildcards: fedbridge's trailing {@code >} (the rest) is {@code #}; {@code *} is the same. */
    private static String toWords(String name) {
        return name.endsWith(".>") || name.equals(">") ? name.substring(0, name.length() - 1) + "#" : name;
    }

    /** The SUBSCRIBE for the network subscription on fedbridge destination {@code name}. */
    public SubscriptionRequest.Builder subscription(String name) {
        return subscription(name, false);
    }

    /**
     * The SUBSCRIBE for the network subscription on fedbridge destination {@code name}; {@code statically}: it is a
     * statically included destination, which a topic reads durably when {@link #withDurableSubscriptions} said so
     * (a renamed destination is read exactly as written).
     */
    public SubscriptionRequest.Builder subscription(String name, boolean statically) {
        SubscriptionRequest.Builder r = SubscriptionRequest.builder(peerName(name));
        boolean renamed = map.toPeer(name) != null;
        if (dialect == Dialect.ARTEMIS && !renamed) {
            r.header("subscription-type", routingType(name));
        }
        if (statically && durableName != null && !renamed && name.startsWith("/topic/")) {
            durable(r, name);
        }
        return r;
    }

    /**
     * Makes {@code r} a durable subscription on the topic {@code name}, under each product's own headers. Artemis keeps
     * it as the queue {@code CLIENT-ID.TOPIC}, ActiveMQ as the subscription TOPIC of the client-id, RabbitMQ as the
     * durable queue {@code NAME.TOPIC} bound to the topic.
     */
    private void durable(SubscriptionRequest.Builder r, String name) {
        String topic = subscriptionName(name);
        switch (dialect) {
            case ARTEMIS -> r.header("durable-subscription-name", topic);
            case RABBITMQ -> {
                String queue = durableName + "." + topic;
                r.header(StompHeaders.ID, queue).header("durable", "true").header("auto-delete", "false")
                        .header("x-queue-name", queue);
            }
            default -> r.header("activemq.subscriptionName", topic).header("durable-subscription-name", topic);
        }
    }

    /** A topic's part of a durable subscription's name: its name without {@code /topic/}, wildcards as {@code _}. */
    static String subscriptionName(String topic) {
        return topic.substring("/topic/".length()).replaceAll("[^A-Za-z0-9._-]+", "_");
    }

    /**
     * Readies a forward's SEND for this broker: its destination (a fedbridge name) becomes the broker's, and the
     * dialect's headers are added.
     */
    public void prepareSend(StompHeaders h) {
        if (this == AS_IS) {
            return;
        }
        String name = h.get(StompHeaders.DESTINATION);
        h.set(StompHeaders.DESTINATION, peerName(name));
        String replyTo = h.get(StompHeaders.REPLY_TO);
        if (replyTo != null && (replyTo.startsWith("/queue/") || replyTo.startsWith("/topic/"))) {
            h.set(StompHeaders.REPLY_TO, peerName(replyTo)); // so a responder on this broker replies to a name it knows
        }
        String federationId = h.get(FederationHeaders.FEDERATION_ID);
        if (dialect == Dialect.ARTEMIS) {
            if (map.toPeer(name) == null) {
                h.set("destination-type", routingType(name));
            }
            if (federationId != null && h.get(ARTEMIS_DUPLICATE_ID) == null) {
                h.add(ARTEMIS_DUPLICATE_ID, federationId); // a resend after a lost RECEIPT is dropped by Artemis
            }
        } else if (dialect == Dialect.RABBITMQ && federationId != null && h.get(AMQP_MESSAGE_ID) == null) {
            // RabbitMQ does not deduplicate; its consumers (and a bridge out of it) can, by this AMQP message-id.
            h.add(AMQP_MESSAGE_ID, federationId);
        }
        if (dialect == Dialect.RABBITMQ && "false".equals(h.get(StompHeaders.PERSISTENT))) {
            // RabbitMQ's STOMP plugin declares a /queue/ destination with durable = the SEND's persistent header, so
            // persistent:false to an existing durable queue fails (RESOURCE_LOCKED) and closes the link. Without the
            // header the message is transient all the same.
            h.remove(StompHeaders.PERSISTENT);
        }
    }

    private static String routingType(String name) {
        return name.startsWith("/topic/") ? MULTICAST : ANYCAST;
    }

    /**
     * The fedbridge name of a message's destination {@code peerName}, received on the network subscription for
     * {@code subscribed} (a fedbridge name, maybe with wildcards).
     */
    public String fedbridgeName(String peerName, String subscribed) {
        if (this == AS_IS || peerName == null) {
            return peerName == null ? subscribed : peerName;
        }
        if (subscribed.indexOf('*') < 0 && subscribed.indexOf('>') < 0) {
            return subscribed;
        }
        String renamed = map.fromPeer(peerName);
        if (renamed != null) {
            return renamed;
        }
        if (dialect == Dialect.ARTEMIS && !peerName.startsWith("/")) {
            return subscribed.substring(0, subscribed.indexOf('/', 1) + 1) + peerName;
        }
        return peerName;
    }

    /**
     * The fedbridge name of a {@code reply-to} this broker gave: renamed back, and for Artemis a bare address is taken
     * for a queue (replies go to queues).
     */
    public String fedbridgeReplyTo(String replyTo) {
        if (this == AS_IS) {
            return replyTo;
        }
        String renamed = map.fromPeer(replyTo);
        if (renamed != null) {
            return renamed;
        }
        return dialect == Dialect.ARTEMIS && !replyTo.startsWith("/") ? "/queue/" + replyTo : replyTo;
    }

    /**
     * The id of a MESSAGE with these headers that stays the same when this broker delivers it again: its
     * {@code message-id}; for Artemis (whose {@code message-id} is {@code CONSUMER,MESSAGE}, and the consumer's id
     * changes with a reconnect or restart) the message's own part; for RabbitMQ (whose {@code message-id} names the
     * delivery) the producer's {@code amqp-message-id} when set.
     */
    public String stableMessageId(StompHeaders message) {
        String id = message.get(StompHeaders.MESSAGE_ID);
        if (dialect == Dialect.RABBITMQ) {
            String amqp = message.get(AMQP_MESSAGE_ID);
            return amqp != null ? amqp : id;
        }
        if (dialect == Dialect.ARTEMIS && id != null) {
            int comma = id.lastIndexOf(',');
            return comma < 0 ? id : id.substring(comma + 1);
        }
        return id;
    }

    @Override
    public String toString() {
        return "PeerNames[" + dialect + (map.rules().isEmpty() ? "" : ", " + map) + (durableName == null ? "" : ", durable " + durableName) + "]";
    }
}
