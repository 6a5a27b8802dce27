package io.fedbridge.broker.integration.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fedbridge.broker.Broker;
import io.fedbridge.broker.BrokerConfig;
import io.fedbridge.broker.security.AuthorizationRules;
import io.fedbridge.broker.security.PropertiesUserStore;
import io.fedbridge.broker.security.SecurityConfig;
import io.fedbridge.core.FederationHeaders;
import io.fedbridge.core.Message;
import io.fedbridge.core.StompConnection;
import io.fedbridge.core.StompErrorException;
import io.fedbridge.core.Subscription;
import io.fedbridge.core.SubscriptionRequest;
import java.time.Duration;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** SEND and SUBSCRIBE checked against destination rules; a denial is an ERROR and delivers nothing. */
class AuthorizationIT extends SecurityTestSupport {

    private static final String RULES = """
            # pattern                     operations   principals
            /queue/app.>                  read,write   group:apps
            /queue/app.payroll            read         user:admin
            /topic/prices.>               read         *
            /topic/prices.>               write        user:alice
            /topic/fedbridge.advisory.>   admin        user:admin
            """;

    private final String password = "pw-" + System.nanoTime();
    private Broker broker;

    @BeforeEach
    void startSecuredBroker() {
        PropertiesUserStore users = PropertiesUserStore.parse(userLine("alice", password, "apps") + "\n"
                + userLine("bob", password, "others") + "\n" + userLine("admin", password, "apps") + "\n", "users");
        broker = start(BrokerConfig.builder(uniqueName("authz")).listen("tcp://127.0.0.1:0")
                .security(SecurityConfig.builder().authenticator(users)
                        .authorizer(AuthorizationRules.parse(RULES, "rules")).build()));
    }

    private StompConnection login(String user) {
        return connect(client(broker.connectUris().get(0), user, password).build());
    }

    @Test
    void shouldRejectASendWithoutWriteRightsAndDeliverNothing() throws Exception {
        StompConnection alice = login("alice");
        Subscription orders = alice.subscribeAndWait(SubscriptionRequest.of("/queue/app.orders"), null, WAIT);
        StompConnection bob = login("bob");
        assertThatThrownBy(() -> bob.send(Message.of("/queue/app.orders", "forged")).get())
                .hasCauseInstanceOf(StompErrorException.class)
                .hasMessageContaining("SEND denied: user 'bob' has no write permission on /queue/app.orders");
        assertThat(bob.closeFuture()).succeedsWithin(WAIT);
        alice.send(Message.of("/queue/app.orders", "genuine")).get();
        assertThat(orders.receive(WAIT).bodyAsString()).as("the first message there is alice's").isEqualTo("genuine");
        assertThat(orders.receive(Duration.ofMillis(300))).isNull();
    }

    @Test
    void shouldRejectASubscribeWithoutReadRights() throws Exception {
        StompConnection alice = login("alice");
        alice.send(Message.of("/queue/app.payroll", "salaries")).get(); // write comes from /queue/app.>
        assertThatThrownBy(() -> alice.subscribeAndWait(SubscriptionRequest.of("/queue/app.payroll"), null, WAIT))
                .hasMessageContaining("SUBSCRIBE denied: user 'alice' has no read permission on /queue/app.payroll");
        assertThat(broker.queue("/queue/app.payroll").pending()).isEqualTo(1);
        Subscription payroll = login("admin").subscribeAndWait(SubscriptionRequest.of("/queue/app.payroll"), null, WAIT);
        assertThat(payroll.receive(WAIT).bodyAsString()).isEqualTo("salaries");
    }

    @Test
    void shouldAllowAWildcardSubscriptionOnlyIfEveryDestinationItMatchesIsReadable() throws Exception {
        StompConnection bob = login("bob");
        Subscription prices = bob.subscribeAndWait(SubscriptionRequest.of("/topic/prices.>"), null, WAIT);
        login("alice").send(Message.of("/topic/prices.eur", "1.08")).get();
        assertThat(prices.receive(WAIT).bodyAsString()).isEqualTo("1.08");
        assertThatThrownBy(() -> login("alice").subscribeAndWait(SubscriptionRequest.of("/topic/>"), null, WAIT))
                .hasMessageContaining("SUBSCRIBE denied: user 'alice' has no read permission on /topic/>");
        assertThatThrownBy(() -> bob.send(Message.of("/topic/prices.eur", "0.01")).get())
                .hasMessageContaining("SEND denied: user 'bob' has no write permission on /topic/prices.eur");
    }

    @Test
    void shouldKeepAdvisoriesForAdmins() throws Exception {
        assertThatThrownBy(() -> login("alice").subscribeAndWait(
                SubscriptionRequest.of(FederationHeaders.CONSUMER_ADVISORY_TOPIC), null, WAIT))
                .hasMessageContaining("SUBSCRIBE denied: user 'alice' has no admin permission on /topic/fedbridge.advisory.consumer");
        assertThatThrownBy(() -> login("alice").send(Message.of(FederationHeaders.CONSUMER_ADVISORY_TOPIC, "forged demand")).get())
                .hasMessageContaining("SEND denied: advisory topics are written by the federation's brokers and links only");
        Subscription advisories = login("admin").subscribeAndWait(
                SubscriptionRequest.of(FederationHeaders.CONSUMER_ADVISORY_TOPIC), null, WAIT);
        login("alice").subscribeAndWait(SubscriptionRequest.of("/queue/app.orders"), null, WAIT);
        assertThat(advisories.receive(WAIT).header(FederationHeaders.ADVISORY_DESTINATION)).isEqualTo("/queue/app.orders");
    }

    @Test
    void shouldDenyInTransactionsToo() {
        StompConnection bob = login("bob");
        io.fedbridge.core.Transaction tx = bob.begin();
        assertThatThrownBy(() -> {
            tx.send(Message.of("/queue/app.orders", "sneaky"));
            tx.commit().get();
        }).hasMessageContaining("SEND denied");
        assertThat(broker.queue("/queue/app.orders")).isNull();
    }
}
