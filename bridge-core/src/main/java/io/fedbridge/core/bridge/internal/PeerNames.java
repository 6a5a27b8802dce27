package io.fedbridge.core.bridge.internal;

import io.fedbridge.core.ReceivedMessage;
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

    private final Dialect dialect;
    private final DestinationMap map;

    private PeerNames(Dialect dialect, DestinationMap map) {
        this.dialect = dialect;
        this.map = map;
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
        SubscriptionRequest.Builder r = SubscriptionRequest.builder(peerName(name));
        if (dialect == Dialect.ARTEMIS && map.toPeer(name) == null) {
            r.header("subscription-type", routingType(name));
        }
        return r;
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
        if (dialect == Dialect.ARTEMIS) {
            if (map.toPeer(name) == null) {
                h.set("destination-type", routingType(name));
            }
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
     * The id of {@code m} that stays the same when this broker delivers it again: its {@code message-id}, or for
     * RabbitMQ (whose {@code message-id} names the delivery) the producer's {@code amqp-message-id} when set.
     */
    public String stableMessageId(ReceivedMessage m) {
        if (dialect == Dialect.RABBITMQ) {
            String id = m.header(AMQP_MESSAGE_ID);
            if (id != null) {
                return id;
            }
        }
        return m.messageId();
    }

    @Override
    public String toString() {
        return "PeerNames[" + dialect + (map.rules().isEmpty() ? "" : ", " + map) + "]";
    }
}
