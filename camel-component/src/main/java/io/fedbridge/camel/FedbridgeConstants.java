package io.fedbridge.camel;

import io.fedbridge.core.FederationHeaders;
import io.fedbridge.core.StompHeaders;
import org.apache.camel.spi.Metadata;

/**
 * Header names a {@code fedbridge:} route sees or sets. STOMP headers keep their wire names on the Camel message
 * ({@code reply-to}, {@code correlation-id}, any application header); the {@code CamelFedbridge*} ones are the
 * component's own and never go on the wire.
 */
public final class FedbridgeConstants {

    /** The component's scheme. */
    public static final String SCHEME = "fedbridge";

    @Metadata(label = "producer", javaType = "java.time.Duration",
              description = "Overrides the endpoint's requestTimeout for this InOut exchange (a Duration, or milliseconds).")
    public static final String REQUEST_TIMEOUT = "CamelFedbridgeRequestTimeout";

    @Metadata(label = "producer", javaType = "String",
              description = "Set after an InOnly send: the fedbridge-id of the message the broker confirmed.")
    public static final String SENT_FEDERATION_ID = "CamelFedbridgeFederationId";

    @Metadata(label = "consumer", javaType = "String",
              description = "Where a received message was sent, e.g. /queue/orders (the STOMP destination header).")
    public static final String DESTINATION = StompHeaders.DESTINATION;

    @Metadata(javaType = "String",
              description = "Consumer: the destination a reply goes to (the exchange is then InOut). Producer: sent"
                      + " as is on InOnly sends; InOut sets its own temporary reply queue.")
    public static final String REPLY_TO = StompHeaders.REPLY_TO;

    @Metadata(javaType = "String",
              description = "Matches a reply to its request. InOut sets a fresh one; a consumer copies the request's"
                      + " (or its message-id) onto the reply.")
    public static final String CORRELATION_ID = StompHeaders.CORRELATION_ID;

    @Metadata(label = "consumer", javaType = "String",
              description = "How many times the broker delivered the message before this delivery (absent the first time).")
    public static final String REDELIVERY_COUNT = StompHeaders.REDELIVERY_COUNT;

    @Metadata(label = "consumer", javaType = "String",
              description = "The federation-wide message id (origin broker id and sequence); also the Camel message id.")
    public static final String FEDERATION_ID = FederationHeaders.FEDERATION_ID;

    private FedbridgeConstants() {
    }
}
