package io.fedbridge.camel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fedbridge.core.AckMode;
import java.lang.reflect.Field;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import org.apache.camel.ResolveEndpointFailedException;
import org.apache.camel.spi.HeaderFilterStrategy;
import org.apache.camel.spi.Metadata;
import org.apache.camel.spi.UriEndpoint;
import org.apache.camel.spi.UriParam;
import org.apache.camel.spi.UriPath;
import org.apache.camel.support.DefaultHeaderFilterStrategy;
import org.apache.camel.test.junit5.CamelTestSupport;
import org.junit.jupiter.api.Test;

/** Endpoint URIs and options; nothing connects (endpoints connect when a consumer or producer starts). */
class FedbridgeEndpointTest extends CamelTestSupport {

    private static final String URL = "?brokerUrl=tcp://localhost:61613";

    private FedbridgeEndpoint endpoint(String uri) {
        return context.getEndpoint(uri, FedbridgeEndpoint.class);
    }

    @Test
    void shouldBeFoundByItsSchemeWithoutRegistration() {
        assertThat(context.getComponent("fedbridge")).isInstanceOf(FedbridgeComponent.class);
    }

    @Test
    void shouldMapEachDestinationTypeToItsStompDestination() {
        assertThat(endpoint("fedbridge:queue:orders" + URL).destination()).isEqualTo("/queue/orders");
        assertThat(endpoint("fedbridge:topic:prices.>" + URL).destination()).isEqualTo("/topic/prices.>");
        assertThat(endpoint("fedbridge:temp-queue:replies" + URL).destination()).isEqualTo("/temp-queue/replies");
        assertThat(endpoint("fedbridge:temp-topic:events" + URL).destination()).isEqualTo("/temp-topic/events");
        assertThat(endpoint("fedbridge:plain" + URL).destination()).as("no type means a queue").isEqualTo("/queue/plain");
        assertThat(endpoint("fedbridge:queue:a:b" + URL).destination()).isEqualTo("/queue/a:b");
        assertThat(endpoint("fedbridge:topic:prices.>" + URL).destinationType()).isEqualTo(DestinationType.TOPIC);
    }

    @Test
    void shouldBindEveryOptionFromTheUri() {
        FedbridgeEndpoint e = endpoint("fedbridge:topic:news?brokerUrl=RAW(failover:(tcp://a:1,tcp://b:2)?randomize=false"
                + "&timeout=5000)&clientId=app&concurrentConsumers=4&selector=RAW(x > 1)&acknowledgementMode=AUTO"
                + "&durableSubscriptionName=news&prefetch=10&disableReplyTo=true&recoveryInterval=2s&persistent=false"
                + "&priority=9&timeToLive=1m&requestTimeout=1500");
        FedbridgeConfiguration c = e.getConfiguration();

        assertThat(c.getBrokerUrl()).isEqualTo("failover:(tcp://a:1,tcp://b:2)?randomize=false&timeout=5000");
        assertThat(c.getClientId()).isEqualTo("app");
        assertThat(c.getConcurrentConsumers()).isEqualTo(4);
        assertThat(c.getSelector()).isEqualTo("x > 1");
        assertThat(c.getAcknowledgementMode()).isEqualTo(AckMode.AUTO);
        assertThat(c.getDurableSubscriptionName()).isEqualTo("news");
        assertThat(c.getPrefetch()).isEqualTo(10);
        assertThat(c.isDisableReplyTo()).isTrue();
        assertThat(c.getRecoveryInterval()).isEqualTo(Duration.ofSeconds(2));
        assertThat(c.isPersistent()).isFalse();
        assertThat(c.getPriority()).isEqualTo(9);
        assertThat(c.getTimeToLive()).isEqualTo(Duration.ofMinutes(1));
        assertThat(c.getRequestTimeout()).as("plain numbers are milliseconds").isEqualTo(Duration.ofMillis(1500));
        assertThat(e.subscriptionRequest().extraHeaders()).containsEntry("durable-subscription-name", "news")
                .containsEntry("client-id", "app");
        assertThat(e.subscriptionRequest().selector()).isEqualTo("x > 1");
    }

    @Test
    void shouldTakeTheComponentsDefaultsAndLetEachEndpointOverrideThem() {
        FedbridgeComponent component = context.getComponent("fedbridge", FedbridgeComponent.class);
        component.setBrokerUrl("tcp://component:61613");
        component.getConfiguration().setRequestTimeout(Duration.ofSeconds(3));

        FedbridgeEndpoint inherits = endpoint("fedbridge:queue:x");
        FedbridgeEndpoint overrides = endpoint("fedbridge:queue:y?brokerUrl=tcp://own:61613&requestTimeout=4s");

        assertThat(inherits.getConfiguration().getBrokerUrl()).isEqualTo("tcp://component:61613");
        assertThat(inherits.getConfiguration().getRequestTimeout()).isEqualTo(Duration.ofSeconds(3));
        assertThat(overrides.getConfiguration().getBrokerUrl()).isEqualTo("tcp://own:61613");
        assertThat(overrides.getConfiguration().getRequestTimeout()).isEqualTo(Duration.ofSeconds(4));
        assertThat(component.getConfiguration().getRequestTimeout()).as("untouched by endpoints").isEqualTo(Duration.ofSeconds(3));
    }

    @Test
    void shouldUseTheComponentsHeaderFilterStrategyUnlessTheEndpointNamesOne() {
        assertThat(endpoint("fedbridge:queue:default" + URL).getHeaderFilterStrategy())
                .isInstanceOf(FedbridgeHeaderFilterStrategy.class);
        HeaderFilterStrategy custom = new DefaultHeaderFilterStrategy();
        context.getRegistry().bind("custom", custom);
        assertThat(endpoint("fedbridge:queue:custom" + URL + "&headerFilterStrategy=#custom").getHeaderFilterStrategy())
                .isSameAs(custom);
    }

    @Test
    void shouldRejectWrongOptionsWithAMessageNamingThem() {
        assertRejected("fedbridge:queue:x", "brokerUrl must be set");
        assertRejected("fedbridge:queue:x?brokerUrl=nope://x", "brokerUrl of");
        assertRejected("fedbridge:queue:x" + URL + "&durableSubscriptionName=d&clientId=c", "durableSubscriptionName is for topics");
        assertRejected("fedbridge:topic:x" + URL + "&durableSubscriptionName=d", "needs a client id");
        assertRejected("fedbridge:queue:x" + URL + "&priority=12", "priority must be 0-9, but was 12");
        assertRejected("fedbridge:queue:x" + URL + "&concurrentConsumers=0", "concurrentConsumers must be >= 1, but was 0");
        assertRejected("fedbridge:queue:x" + URL + "&prefetch=-1", "prefetch must be >= 0");
        assertRejected("fedbridge:queue:x" + URL + "&requestTimeout=0", "requestTimeout must be a positive duration");
        assertRejected("fedbridge:topic:x" + URL + "&concurrentConsumers=2&acknowledgementMode=CLIENT",
                "use CLIENT_INDIVIDUAL or concurrentConsumers=1");
        assertRejected("fedbridge:queue:x" + URL + "&acknowledgementMode=SOMETIMES", "acknowledgementMode");
        assertRejected("fedbridge:queue:x" + URL + "&noSuchOption=1", "noSuchOption");
        assertRejected("fedbridge:topic:" + URL, "destination name must not be blank");
    }

    @Test
    void shouldAcceptADurableSubscriptionWhoseClientIdIsInTheBrokerUrl() {
        FedbridgeEndpoint e = endpoint("fedbridge:topic:x?durableSubscriptionName=d"
                + "&brokerUrl=RAW(failover:(tcp://a:1)?clientId=app)");
        assertThat(e.subscriptionRequest().extraHeaders()).containsEntry("durable-subscription-name", "d")
                .doesNotContainKey("client-id");
    }

    private void assertRejected(String uri, String message) {
        assertThatThrownBy(() -> context.getEndpoint(uri)).as(uri).isInstanceOf(ResolveEndpointFailedException.class)
                .hasStackTraceContaining(message);
    }

    @Test
    void shouldDescribeItselfAndEveryOptionForTooling() {
        UriEndpoint meta = FedbridgeEndpoint.class.getAnnotation(UriEndpoint.class);
        assertThat(meta.scheme()).isEqualTo("fedbridge");
        assertThat(meta.syntax()).isEqualTo("fedbridge:destinationType:destinationName");
        assertThat(meta.headersClass()).isEqualTo(FedbridgeConstants.class);

        List<Field> paths = Arrays.stream(FedbridgeEndpoint.class.getDeclaredFields())
                .filter(f -> f.isAnnotationPresent(UriPath.class)).toList();
        assertThat(paths).extracting(Field::getName).containsExactly("destinationType", "destinationName");

        List<Field> options = Arrays.stream(FedbridgeConfiguration.class.getDeclaredFields())
                .filter(f -> !f.isSynthetic() && !java.lang.reflect.Modifier.isStatic(f.getModifiers())).toList();
        assertThat(options).isNotEmpty().allSatisfy(f -> {
            UriParam p = f.getAnnotation(UriParam.class);
            assertThat(p).as(f.getName() + " has @UriParam").isNotNull();
            assertThat(p.description()).as(f.getName() + " is described").isNotBlank();
        });
        assertThat(options).filteredOn(f -> f.getAnnotation(UriParam.class).label().contains("consumer"))
                .extracting(Field::getName).contains("concurrentConsumers", "selector", "acknowledgementMode",
                        "durableSubscriptionName", "prefetch");
        assertThat(options).filteredOn(f -> f.getAnnotation(UriParam.class).label().contains("producer"))
                .extracting(Field::getName).contains("persistent", "priority", "timeToLive", "requestTimeout");
        assertThat(Arrays.stream(FedbridgeConstants.class.getFields()).filter(f -> f.isAnnotationPresent(Metadata.class)))
                .extracting(Field::getName).contains("REQUEST_TIMEOUT", "REPLY_TO", "CORRELATION_ID");
    }
}
