package io.fedbridge.camel;

import io.fedbridge.core.AckMode;
import java.time.Duration;
import org.apache.camel.RuntimeCamelException;
import org.apache.camel.spi.UriParam;
import org.apache.camel.spi.UriParams;

/**
 * The options of {@code fedbridge:} endpoints. The component holds one instance whose values are every endpoint's
 * defaults; each endpoint gets a {@link #copy()} and overrides it with its URI options.
 *
 * <p>Unlike fedbridge's {@code *Config} records this is a mutable bean, because Camel binds options through setters
 * (URI options, {@code camel.component.fedbridge.configuration.*} properties). The endpoint checks the combination when
 * it is created. Times are {@link Duration}s: {@code requestTimeout=5000} (milliseconds), {@code 5s} or
 * {@code PT5S}.
 */
@UriParams
public class FedbridgeConfiguration implements Cloneable {

    @UriParam(description = "The broker(s) to connect to: any fedbridge client URI - tcp://host:port, vm://NAME, or a"
            + " failover:(tcp://a:61613,tcp://b:61613) URI with its options. In an endpoint URI, wrap a brokerUrl that has"
            + " options of its own in RAW(...). Endpoints with the same brokerUrl share one connection per component."
            + " Required, here or on the component.")
    private String brokerUrl;

    @UriParam(label = "consumer", description = "The client id of durable subscriptions, sent on their SUBSCRIBE."
            + " Needed with durableSubscriptionName unless the brokerUrl has clientId=...")
    private String clientId;

    @UriParam(label = "consumer", defaultValue = "1", description = "Threads processing messages at once. On queues each"
            + " thread has its own subscription (with its own prefetch); on topics the threads share one subscription,"
            + " so every message is processed once.")
    private int concurrentConsumers = 1;

    @UriParam(label = "consumer", description = "A JMS SQL-92 selector over headers, e.g. type = 'order' AND region IN ('eu', 'us')")
    private String selector;

    @UriParam(label = "consumer", defaultValue = "CLIENT_INDIVIDUAL", enums = "AUTO,CLIENT,CLIENT_INDIVIDUAL",
              description = "CLIENT_INDIVIDUAL: each message is acknowledged when its exchange completes and NACKed when"
                      + " it fails, so the broker redelivers it and, after its maxRedeliveries, dead-letters it."
                      + " CLIENT: the same with cumulative acknowledgements (needs concurrentConsumers=1 on topics)."
                      + " AUTO: acknowledged when received, before the route runs; a failed exchange is not redelivered.")
    private AckMode acknowledgementMode = AckMode.CLIENT_INDIVIDUAL;

    @UriParam(label = "consumer", description = "Makes a topic subscription durable under this name: messages"
            + " published while the route is stopped wait for it. Needs a client id (clientId).")
    private String durableSubscriptionName;

    @UriParam(label = "consumer", defaultValue = "0", description = "Most unacknowledged messages the broker sends each"
            + " subscription at once; 0 = the broker's default (1000 on fedbridge brokers).")
    private int prefetch;

    @UriParam(label = "consumer", defaultValue = "false", description = "Ignore a received message's reply-to: the"
            + " exchange keeps the endpoint's exchange pattern and no reply is sent (the header stays on the message).")
    private boolean disableReplyTo;

    @UriParam(label = "consumer,advanced", defaultValue = "5s", javaType = "java.time.Duration",
              description = "How long a consumer waits before subscribing again after its client gave up reconnecting"
                      + " (a plain tcp:// brokerUrl gives up at the first failure; failover:(...) by its"
                      + " maxReconnectAttempts).")
    private Duration recoveryInterval = Duration.ofSeconds(5);

    @UriParam(label = "producer", defaultValue = "true", description = "Send messages as persistent: a fedbridge broker"
            + " with a data directory confirms them once they are on disk, and they survive its restart.")
    private boolean persistent = true;

    @UriParam(label = "producer", description = "Message priority 0-9 (higher first). Unset: a priority header on the"
            + " Camel message is used as is; without one the broker's default (4).")
    private Integer priority;

    @UriParam(label = "producer", javaType = "java.time.Duration", description = "How long a sent message lives: the"
            + " broker drops it (to the DLQ) once it is older. Unset: an expires header on the Camel message (absolute"
            + " epoch milliseconds) is used as is; without one the message does not expire.")
    private Duration timeToLive;

    @UriParam(label = "producer", defaultValue = "20s", javaType = "java.time.Duration", description = "InOut: how long"
            + " to wait for the reply once the broker confirmed the request, before the exchange fails with"
            + " ExchangeTimedOutException. The CamelFedbridgeRequestTimeout header overrides it per exchange.")
    private Duration requestTimeout = Duration.ofSeconds(20);

    /** An independent copy: the component's defaults for a new endpoint. */
    public FedbridgeConfiguration copy() {
        try {
            return (FedbridgeConfiguration) clone();
        } catch (CloneNotSupportedException e) {
            throw new RuntimeCamelException(e);
        }
    }

    public String getBrokerUrl() {
        return brokerUrl;
    }

    public void setBrokerUrl(String brokerUrl) {
        this.brokerUrl = brokerUrl;
    }

    public String getClientId() {
        return clientId;
    }

    public void setClientId(String clientId) {
        this.clientId = clientId;
    }

    public int getConcurrentConsumers() {
        return concurrentConsumers;
    }

    public void setConcurrentConsumers(int concurrentConsumers) {
        this.concurrentConsumers = concurrentConsumers;
    }

    public String getSelector() {
        return selector;
    }

    public void setSelector(String selector) {
        this.selector = selector;
    }

    public AckMode getAcknowledgementMode() {
        return acknowledgementMode;
    }

    public void setAcknowledgementMode(AckMode acknowledgementMode) {
        this.acknowledgementMode = acknowledgementMode;
    }

    public String getDurableSubscriptionName() {
        return durableSubscriptionName;
    }

    public void setDurableSubscriptionName(String durableSubscriptionName) {
        this.durableSubscriptionName = durableSubscriptionName;
    }

    public int getPrefetch() {
        return prefetch;
    }

    public void setPrefetch(int prefetch) {
        this.prefetch = prefetch;
    }

    public boolean isDisableReplyTo() {
        return disableReplyTo;
    }

    public void setDisableReplyTo(boolean disableReplyTo) {
        this.disableReplyTo = disableReplyTo;
    }

    public Duration getRecoveryInterval() {
        return recoveryInterval;
    }

    public void setRecoveryInterval(Duration recoveryInterval) {
        this.recoveryInterval = recoveryInterval;
    }

    public boolean isPersistent() {
        return persistent;
    }

    public void setPersistent(boolean persistent) {
        this.persistent = persistent;
    }

    public Integer getPriority() {
        return priority;
    }

    public void setPriority(Integer priority) {
        this.priority = priority;
    }

    public Duration getTimeToLive() {
        return timeToLive;
    }

    public void setTimeToLive(Duration timeToLive) {
        this.timeToLive = timeToLive;
    }

    public Duration getRequestTimeout() {
        return requestTimeout;
    }

    public void setRequestTimeout(Duration requestTimeout) {
        this.requestTimeout = requestTimeout;
    }
}
