package io.fedbridge.jms;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Properties;
import org.junit.jupiter.api.Test;

class FedbridgeJmsConfigTest {

    @Test
    void shouldReadEveryPropertyByItsName() {
        Properties p = new Properties();
        p.setProperty("brokerURL", "failover:(tcp://a:61613,tcp://b:61613)?randomize=false");
        p.setProperty("userName", "app");
        p.setProperty("password", "secret");
        p.setProperty("clientID", "orders-1");
        p.setProperty("prefetch", "50");
        p.setProperty("trustedPackages", "com.acme.model, java.util");
        p.setProperty("trustAllPackages", "false");

        FedbridgeJmsConfig c = FedbridgeJmsConfig.fromProperties(p);

        assertThat(c.brokerUrl()).isEqualTo("failover:(tcp://a:61613,tcp://b:61613)?randomize=false");
        assertThat(c.userName()).isEqualTo("app");
        assertThat(c.clientId()).isEqualTo("orders-1");
        assertThat(c.prefetch()).isEqualTo(50);
        assertThat(c.trustedPackages()).containsExactly("com.acme.model", "java.util");
        assertThat(c.toString()).doesNotContain("secret");
        assertThat(c.toBuilder().build()).isEqualTo(c);
    }

    @Test
    void shouldPassCredentialsAndClientIdToTheFailoverClient() {
        FedbridgeJmsConfig c = FedbridgeJmsConfig.of("tcp://127.0.0.1:61613");
        var fc = c.failoverConfig("u", "p", "cid");
        assertThat(fc.nested()).containsEntry("login", "u").containsEntry("passcode", "p");
        assertThat(fc.clientId()).isEqualTo("cid");
    }

    @Test
    void shouldRejectBadValuesNamingThem() {
        Properties unknown = new Properties();
        unknown.setProperty("brokerUrl", "tcp://a:1");
        assertThatThrownBy(() -> FedbridgeJmsConfig.fromProperties(unknown)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("unknown fedbridge JMS property 'brokerUrl'").hasMessageContaining("brokerURL");
        assertThatThrownBy(() -> FedbridgeJmsConfig.of(null)).hasMessageContaining("brokerURL must be");
        assertThatThrownBy(() -> FedbridgeJmsConfig.of("failover:(tcp://a:1)?bogus=1")).hasMessageContaining("bogus");
        assertThatThrownBy(() -> FedbridgeJmsConfig.builder("tcp://a:1").prefetch(-1).build())
                .hasMessageContaining("prefetch must be >= 0");
        assertThatThrownBy(() -> FedbridgeJmsConfig.builder("tcp://a:1").trustedPackages(List.of("com.acme.*")).build())
                .hasMessageContaining("trustedPackages must be Java package names");
        assertThatThrownBy(() -> FedbridgeJmsConfig.builder("tcp://a:1").set("trustAllPackages", "yes"))
                .hasMessageContaining("trustAllPackages must be true or false");
    }

    @Test
    void destinationsShouldNameTheirStompDestination() {
        assertThat(new FedbridgeQueue("orders").stompName()).isEqualTo("/queue/orders");
        assertThat(new FedbridgeQueue("/queue/orders")).isEqualTo(new FedbridgeQueue("orders"));
        assertThat(new FedbridgeTopic("prices.>").getTopicName()).isEqualTo("prices.>");
        assertThatThrownBy(() -> new FedbridgeQueue("")).hasMessageContaining("queue name must not be blank");
    }
}
