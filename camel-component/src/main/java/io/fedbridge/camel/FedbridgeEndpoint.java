package io.fedbridge.camel;

import io.fedbridge.camel.internal.FedbridgeBinding;
import io.fedbridge.camel.internal.SharedConnection;
import io.fedbridge.core.AckMode;
import io.fedbridge.core.SubscriptionRequest;
import io.fedbridge.failover.FailoverConfig;
import java.time.Duration;
import org.apache.camel.Category;
import org.apache.camel.Consumer;
import org.apache.camel.Processor;
import org.apache.camel.Producer;
import org.apache.camel.spi.HeaderFilterStrategy;
import org.apache.camel.spi.HeaderFilterStrategyAware;
import org.apache.camel.spi.Metadata;
import org.apache.camel.spi.UriEndpoint;
import org.apache.camel.spi.UriParam;
import org.apache.camel.spi.UriPath;
import org.apache.camel.support.DefaultEndpoint;

/**
 * Send and receive messages across a fedbridge federation of STOMP brokers: queues, topics and temporary destinations,
 * with request-reply and broker failover.
 *
 * <p>URIs: {@code fedbridge:queue:NAME}, {@code fedbridge:topic:NAME}, {@code fedbridge:temp-queue:NAME} or
 * {@code fedbridge:temp-topic:NAME} ({@code fedbridge:NAME} is a queue). Options in {@link FedbridgeConfiguration}.
 *
 * <ul>
 * <li>As a consumer it subscribes ({@code concurrentConsumers}, {@code selector}, {@code prefetch},
 *     {@code durableSubscriptionName}) and acknowledges each message when its exchange completes; a failed exchange is
 *     NACKed, so the broker redelivers it and finally dead-letters it to {@code /queue/DLQ}. A message with a
 *     {@code reply-to} makes an InOut exchange whose result is sent back with the request's {@code correlation-id}.</li>
 * <li>As a producer it sends and completes the exchange when the broker confirms the message (RECEIPT). InOut sends a
 *     request with a temporary reply queue and a correlation id and waits up to {@code requestTimeout} for the reply.</li>
 * </ul>
 */
@UriEndpoint(firstVersion = "0.1.0", scheme = FedbridgeConstants.SCHEME, title = "Fedbridge",
             syntax = "fedbridge:destinationType:destinationName", category = {Category.MESSAGING},
             headersClass = FedbridgeConstants.class, remote = true)
public class FedbridgeEndpoint extends DefaultEndpoint implements HeaderFilterStrategyAware {

    @UriPath(defaultValue = "queue", enums = "queue,topic,temp-queue,temp-topic",
             description = "The kind of destination")
    private final String destinationType;

    @UriPath(description = "The destination name, e.g. orders (on topics, consumers may use the wildcards * and >)")
    @Metadata(required = true)
    private final String destinationName;

    @UriParam
    private FedbridgeConfiguration configuration;

    @UriParam(label = "advanced", description = "Which headers cross between Camel and the wire;"
            + " default FedbridgeHeaderFilterStrategy")
    private HeaderFilterStrategy headerFilterStrategy = new FedbridgeHeaderFilterStrategy();

    private final DestinationType type;
    private volatile FailoverConfig failoverConfig;

    FedbridgeEndpoint(String uri, FedbridgeComponent component, DestinationType type, String name,
                      FedbridgeConfiguration configuration) {
        super(uri, component);
        this.type = type;
        this.destinationType = type.uriName();
        this.destinationName = name;
        this.configuration = configuration;
    }

    @Override
    public FedbridgeComponent getComponent() {
        return (FedbridgeComponent) super.getComponent();
    }

    @Override
    public Producer createProducer() throws Exception {
        return new FedbridgeProducer(this);
    }

    @Override
    public Consumer createConsumer(Processor processor) throws Exception {
        FedbridgeConsumer consumer = new FedbridgeConsumer(this, processor);
        configureConsumer(consumer);
        return consumer;
    }

    /**
     * Checks the options together; called once they are all bound.
     *
     * @throws IllegalArgumentException naming the first option that is wrong
     */
    void validate() {
        FedbridgeConfiguration c = configuration;
        String url = c.getBrokerUrl();
        if (url == null || url.isBlank()) {
            throw new IllegalArgumentException("brokerUrl must be set on the fedbridge component or on " + this
                    + ", e.g. brokerUrl=tcp://localhost:61613, but was " + (url == null ? "unset" : "'" + url + "'"));
        }
        FailoverConfig parsed;
        try {
            parsed = FailoverConfig.fromUri(url);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("brokerUrl of " + this + " is invalid: " + e.getMessage()
                    + (url.contains("(") ? "" : "; in an endpoint URI wrap a brokerUrl that has options in RAW(...)"), e);
        }
        if (c.getConcurrentConsumers() < 1) {
            throw new IllegalArgumentException("concurrentConsumers must be >= 1, but was " + c.getConcurrentConsumers());
        }
        if (c.getPrefetch() < 0) {
            throw new IllegalArgumentException("prefetch must be >= 0 (0 = the broker's default), but was " + c.getPrefetch());
        }
        if (c.getPriority() != null && (c.getPriority() < 0 || c.getPriority() > 9)) {
            throw new IllegalArgumentException("priority must be 0-9, but was " + c.getPriority());
        }
        positive("requestTimeout", c.getRequestTimeout(), false);
        positive("timeToLive", c.getTimeToLive(), true);
        positive("recoveryInterval", c.getRecoveryInterval(), false);
        if (c.getAcknowledgementMode() == null) {
            throw new IllegalArgumentException("acknowledgementMode must be one of AUTO, CLIENT, CLIENT_INDIVIDUAL, but was null");
        }
        if (c.getDurableSubscriptionName() != null) {
            if (type != DestinationType.TOPIC) {
                throw new IllegalArgumentException("durableSubscriptionName is for topics, but " + this + " is a "
                        + type.uriName() + "; use fedbridge:topic:" + destinationName);
            }
            if (c.getClientId() == null && parsed.clientId() == null) {
                throw new IllegalArgumentException("durableSubscriptionName '" + c.getDurableSubscriptionName()
                        + "' needs a client id: set clientId on " + this + ", or clientId=... in its brokerUrl");
            }
        }
        if (type.isTopic() && c.getConcurrentConsumers() > 1 && c.getAcknowledgementMode() == AckMode.CLIENT) {
            throw new IllegalArgumentException("acknowledgementMode=CLIENT acknowledges cumulatively, so on a topic, where"
                    + " the " + c.getConcurrentConsumers() + " concurrentConsumers share one subscription, a success"
                    + " would acknowledge messages other threads may still fail; use CLIENT_INDIVIDUAL or"
                    + " concurrentConsumers=1");
        }
        failoverConfig = parsed;
    }

    private static void positive(String name, Duration d, boolean optional) {
        if (d == null && optional) {
            return;
        }
        if (d == null || d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException(name + " must be a positive duration, but was " + d);
        }
    }

    /** The STOMP destination, e.g. {@code /queue/orders}. */
    public String destination() {
        return type.destination(destinationName);
    }

    public DestinationType destinationType() {
        return type;
    }

    /** What a consumer subscribes with (each of its subscriptions). */
    SubscriptionRequest subscriptionRequest() {
        FedbridgeConfiguration c = configuration;
        SubscriptionRequest.Builder b = SubscriptionRequest.builder(destination())
                .ackMode(c.getAcknowledgementMode()).selector(c.getSelector()).prefetch(c.getPrefetch());
        if (c.getDurableSubscriptionName() != null) {
            b.header("durable-subscription-name", c.getDurableSubscriptionName());
            if (c.getClientId() != null) {
                b.header("client-id", c.getClientId());
            }
        }
        return b.build();
    }

    SharedConnection acquireConnection() {
        if (failoverConfig == null) {
            validate();
        }
        return getComponent().acquireConnection(configuration.getBrokerUrl(), failoverConfig);
    }

    void releaseConnection(SharedConnection connection) {
        getComponent().releaseConnection(connection);
    }

    FedbridgeBinding binding() {
        return new FedbridgeBinding(headerFilterStrategy);
    }

    public FedbridgeConfiguration getConfiguration() {
        return configuration;
    }

    public void setConfiguration(FedbridgeConfiguration configuration) {
        this.configuration = configuration;
        this.failoverConfig = null;
    }

    public String getDestinationType() {
        return destinationType;
    }

    public String getDestinationName() {
        return destinationName;
    }

    @Override
    public HeaderFilterStrategy getHeaderFilterStrategy() {
        return headerFilterStrategy;
    }

    @Override
    public void setHeaderFilterStrategy(HeaderFilterStrategy strategy) {
        this.headerFilterStrategy = strategy;
    }

    @Override
    protected String createEndpointUri() {
        return FedbridgeConstants.SCHEME + ":" + destinationType + ":" + destinationName;
    }
}
