package io.fedbridge.core.bridge;

import java.util.Locale;

/**
 * The STOMP dialect a bridge speaks to one broker: how fedbridge's destination names ({@code /queue/NAME},
 * {@code /topic/NAME}) become that product's names, and which of its headers a forward carries. Chosen per
 * peer with the peer URI's {@code dialect} option ({@code static:(tcp://rabbit:61613?dialect=rabbitmq)}); the
 * default {@link #AUTO} picks one from the {@code server} header of the broker's CONNECTED frame. A fedbridge
 * broker (one that sends a broker id) is always spoken to as it is. See docs/foreign-brokers.md.
 */
public enum Dialect {

    /** Chosen from the CONNECTED {@code server} header: {@link #ARTEMIS}, {@link #RABBITMQ}, else {@link #STOMP}. */
    AUTO,

    /** Names as they are: fedbridge, ActiveMQ Classic and any broker that reads {@code /queue/} and {@code /topic/}. */
    STOMP,

    /**
     * Apache ActiveMQ Artemis: {@code /queue/NAME} is the anycast address {@code NAME} and {@code /topic/NAME} the
     * multicast address {@code NAME} (with {@code destination-type} on SEND and {@code subscription-type} on
     * SUBSCRIBE, so the acceptor needs no prefix settings); {@code >} becomes Artemis' {@code #}. A forward carries its
     * {@code fedbridge-id} as {@code _AMQ_DUPL_ID}, so Artemis drops a resend; a message's id across redeliveries is
     * the message part of Artemis' {@code message-id} ({@code CONSUMER,MESSAGE}).
     */
    ARTEMIS,

    /**
     * RabbitMQ's STOMP plugin: names as they are ({@code /queue/NAME} is the durable queue {@code NAME},
     * {@code /topic/NAME} routes through {@code amq.topic}), {@code >} becomes {@code #}; network subscriptions
     * ask for {@code prefetch-count}; a message's id across redeliveries is its {@code amqp-message-id} when the
     * producer set one (RabbitMQ's {@code message-id} changes with every delivery). A forward carries its
     * {@code fedbridge-id} as {@code amqp-message-id} (RabbitMQ does not deduplicate: its consumers can).
     */
    RABBITMQ;

    /** The dialect a CONNECTED {@code server} header (e.g. {@code ActiveMQ-Artemis/2.44.0}, {@code RabbitMQ/3.10.8}) names. */
    public static Dialect fromServer(String server) {
        String s = server == null ? "" : server.toLowerCase(Locale.ROOT);
        if (s.contains("artemis")) {
            return ARTEMIS;
        }
        if (s.contains("rabbitmq")) {
            return RABBITMQ;
        }
        return STOMP;
    }
}
