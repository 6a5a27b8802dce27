package io.fedbridge.camel;

import io.fedbridge.camel.internal.SharedConnection;
import io.fedbridge.camel.internal.SharedConnections;
import io.fedbridge.failover.FailoverConfig;
import java.util.Map;
import org.apache.camel.CamelContext;
import org.apache.camel.Endpoint;
import org.apache.camel.spi.Metadata;
import org.apache.camel.spi.annotations.Component;
import org.apache.camel.support.HeaderFilterStrategyComponent;

/**
 * The {@code fedbridge:} Camel component: routes that produce to and consume from a fedbridge federation, over the
 * failover client. Camel finds it by its scheme; no registration is needed.
 *
 * <pre>{@code
 * from("fedbridge:queue:orders?brokerUrl=RAW(failover:(tcp://a:61613,tcp://b:61613)?randomize=false)")
 *     .to("fedbridge:topic:orders.accepted");
 * }</pre>
 *
 * <p>Options set on the component ({@link #setBrokerUrl}, or {@code camel.component.fedbridge.brokerUrl} and
 * {@code camel.component.fedbridge.configuration.*} in properties) are the defaults of every endpoint. Consumers and
 * producers with the same {@code brokerUrl} share one connection, opened when the first of them starts and closed when
 * the last stops. Thread-safe.
 */
@Component(FedbridgeConstants.SCHEME)
public class FedbridgeComponent extends HeaderFilterStrategyComponent {

    @Metadata(label = "advanced", description = "The defaults of every endpoint of this component.")
    private FedbridgeConfiguration configuration = new FedbridgeConfiguration();

    private final SharedConnections connections = new SharedConnections();

    public FedbridgeComponent() {
    }

    public FedbridgeComponent(CamelContext context) {
        super(context);
    }

    /** A component whose endpoints connect to {@code brokerUrl} unless they name another. */
    public static FedbridgeComponent of(String brokerUrl) {
        FedbridgeComponent c = new FedbridgeComponent();
        c.setBrokerUrl(brokerUrl);
        return c;
    }

    @Override
    protected Endpoint createEndpoint(String uri, String remaining, Map<String, Object> parameters) throws Exception {
        int colon = remaining.indexOf(':');
        DestinationType type = DestinationType.QUEUE;
        String name = remaining;
        if (colon >= 0) {
            String prefix = remaining.substring(0, colon);
            for (DestinationType t : DestinationType.values()) {
                if (t.uriName().equals(prefix)) {
                    type = t;
                    name = remaining.substring(colon + 1);
                }
            }
        }
        if (name.isBlank()) {
            throw new IllegalArgumentException("destination name must not be blank, but was '" + name + "' in " + uri
                    + "; expected fedbridge:queue:NAME, fedbridge:topic:NAME, fedbridge:temp-queue:NAME or"
                    + " fedbridge:temp-topic:NAME");
        }
        FedbridgeEndpoint endpoint = new FedbridgeEndpoint(uri, this, type, name, configuration.copy());
        if (getHeaderFilterStrategy() != null) {
            endpoint.setHeaderFilterStrategy(getHeaderFilterStrategy());
        }
        // The generated configurer binds the configuration's options through the endpoint; binding the configuration
        // bean itself afterwards covers a build without the generated configurers.
        setProperties(endpoint, parameters);
        setProperties(endpoint.getConfiguration(), parameters);
        return endpoint;
    }

    @Override
    protected void afterConfiguration(String uri, String remaining, Endpoint endpoint, Map<String, Object> parameters)
            throws Exception {
        super.afterConfiguration(uri, remaining, endpoint, parameters);
        ((FedbridgeEndpoint) endpoint).validate();
    }

    SharedConnection acquireConnection(String brokerUrl, FailoverConfig config) {
        return connections.acquire(brokerUrl, config);
    }

    void releaseConnection(SharedConnection connection) {
        connections.release(connection);
    }

    /** How many distinct connections the component holds open (or ready to open) for started routes. */
    public int connectionCount() {
        return connections.size();
    }

    @Override
    protected void doStop() throws Exception {
        connections.close();
        super.doStop();
    }

    public FedbridgeConfiguration getConfiguration() {
        return configuration;
    }

    /** Replaces the endpoints' defaults. */
    public void setConfiguration(FedbridgeConfiguration configuration) {
        this.configuration = configuration;
    }

    public String getBrokerUrl() {
        return configuration.getBrokerUrl();
    }

    /**
     * The broker(s) every endpoint connects to unless it names its own {@code brokerUrl}: any fedbridge client URI,
     * {@code tcp://host:port}, {@code vm://NAME} or {@code failover:(...)?options}.
     */
    @Metadata(description = "The default brokerUrl of every endpoint: tcp://host:port, vm://NAME, or a"
            + " failover:(tcp://a:61613,tcp://b:61613) URI with its options")
    public void setBrokerUrl(String brokerUrl) {
        configuration.setBrokerUrl(brokerUrl);
    }
}
