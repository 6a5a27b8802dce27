package io.fedbridge.broker.integration.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fedbridge.broker.Broker;
import io.fedbridge.broker.BrokerConfig;
import io.fedbridge.broker.security.ConnectionLimits;
import io.fedbridge.broker.security.SecurityConfig;
import io.fedbridge.core.Message;
import io.fedbridge.core.StompConnection;
import org.junit.jupiter.api.Test;

/** Per-listener connection limits: in total and per source address; over a limit, closed at once. */
class ConnectionLimitsIT extends SecurityTestSupport {

    @Test
    void shouldCloseConnectionsOverTheListenersLimitsAndOnlyThose() throws Exception {
        Broker broker = start(BrokerConfig.builder(uniqueName("limits"))
                .listen("tcp://127.0.0.1:0?maximumConnections=3&maximumConnectionsPerAddress=2"));
        String uri = broker.connectUris().get(0);
        StompConnection first = connect(client(uri, null, null).build());
        connect(client(uri, null, null).build());
        try (RawClient third = RawClient.connect(uri, "127.0.0.1")) {
            assertThat(third.isClosedByPeer()).as("a third connection from 127.0.0.1").isTrue();
        }
        try (RawClient other = RawClient.connect(uri, "127.0.0.2")) {
            assertThat(other.login(null, null).command()).as("another address may still connect").isEqualTo("CONNECTED");
            try (RawClient fourth = RawClient.connect(uri, "127.0.0.3")) {
                assertThat(fourth.isClosedByPeer()).as("but not beyond maximumConnections").isTrue();
            }
        }
        first.send(Message.of("/queue/q", "unaffected")).get();
        first.close();
        await("a closed connection frees its place").atMost(WAIT).until(() -> {
            try (RawClient again = RawClient.connect(uri, "127.0.0.1")) {
                return again.login(null, null).command().equals("CONNECTED");
            } catch (Exception e) {
                return false;
            }
        });
    }

    @Test
    void shouldApplyTheSecurityConfigsLimitsToEveryListenerUnlessItsUriOverridesThem() throws Exception {
        Broker broker = start(BrokerConfig.builder(uniqueName("limits")).listen("tcp://127.0.0.1:0")
                .listen("tcp://127.0.0.1:0?maximumConnectionsPerAddress=2")
                .security(SecurityConfig.builder().connectionLimits(ConnectionLimits.builder()
                        .maximumConnectionsPerAddress(1).build()).build()));
        String strict = broker.connectUris().get(0);
        String relaxed = broker.connectUris().get(1);
        connect(client(strict, null, null).build());
        try (RawClient second = RawClient.connect(strict, "127.0.0.1")) {
            assertThat(second.isClosedByPeer()).isTrue();
        }
        connect(client(relaxed, null, null).build());
        connect(client(relaxed, null, null).build());
        assertThat(broker.connectionCount()).isEqualTo(3);
    }
}
