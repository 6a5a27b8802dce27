package io.fedbridge.broker.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fedbridge.broker.BrokerConfig;
import io.fedbridge.core.tls.ClientAuth;
import io.fedbridge.core.tls.TlsConfig;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class ListenerConfigTest {

    private static final SecurityConfig WITH_TLS = SecurityConfig.builder()
            .tls(TlsConfig.builder().keyStore(Path.of("/etc/fb/broker.p12")).keyStorePassword("s3cret")
                    .trustStore(Path.of("/etc/fb/ca.p12")).build())
            .connectionLimits(ConnectionLimits.builder().maximumConnections(100).build()).build();

    @Test
    void shouldApplyUriOptionsOverTheSecurityDefaults() {
        ListenerConfig l = ListenerConfig.of("ssl://0.0.0.0:61614?needClientAuth=true&maximumConnectionsPerAddress=5", WITH_TLS);
        assertThat(l.uri().toString()).isEqualTo("ssl://0.0.0.0:61614");
        assertThat(l.tls().keyStore()).isEqualTo(Path.of("/etc/fb/broker.p12"));
        assertThat(l.tls().clientAuth()).isEqualTo(ClientAuth.NEED);
        assertThat(l.limits()).isEqualTo(new ConnectionLimits(100, 5));
        assertThat(ListenerConfig.of("tcp://0.0.0.0:61613", WITH_TLS).tls()).isNull();
        assertThat(ListenerConfig.of("vm://A", WITH_TLS).limits().isUnlimited()).isTrue();
    }

    @Test
    void shouldReadWebSocketListenersLikeTheirSocketCounterparts() {
        ListenerConfig ws = ListenerConfig.of("ws://0.0.0.0:61623/stomp?maximumConnections=7", WITH_TLS);
        assertThat(ws.uri().toString()).isEqualTo("ws://0.0.0.0:61623/stomp");
        assertThat(ws.uri().path()).isEqualTo("/stomp");
        assertThat(ws.tls()).isNull();
        assertThat(ws.limits().maximumConnections()).isEqualTo(7);
        ListenerConfig wss = ListenerConfig.of("wss://0.0.0.0:61624/stomp?needClientAuth=true", WITH_TLS);
        assertThat(wss.tls().clientAuth()).isEqualTo(ClientAuth.NEED);
        assertThatThrownBy(() -> ListenerConfig.of("wss://0.0.0.0:61624/stomp", SecurityConfig.ofDefaults()))
                .hasMessageContaining("needs a keyStore");
        assertThatThrownBy(() -> ListenerConfig.of("ws://0.0.0.0:1/stomp?keyStore=/k.p12", WITH_TLS))
                .hasMessageContaining("TLS options need an ssl:// or wss:// listener");
        assertThatThrownBy(() -> ListenerConfig.of("ws://0.0.0.0/stomp", WITH_TLS)).hasMessageContaining("must have a host and a port");
        assertThatThrownBy(() -> ListenerConfig.of("http://0.0.0.0:1/", WITH_TLS))
                .hasMessageContaining("supported schemes are: tcp, ssl, vm, ws, wss");
    }

    @Test
    void shouldRejectWhatCannotWork() {
        assertThatThrownBy(() -> ListenerConfig.of("ssl://0.0.0.0:61614", SecurityConfig.ofDefaults()))
                .hasMessageContaining("needs a keyStore");
        assertThatThrownBy(() -> ListenerConfig.of("tcp://0.0.0.0:1?keyStore=/k.p12", WITH_TLS))
                .hasMessageContaining("TLS options need an ssl:// or wss:// listener");
        assertThatThrownBy(() -> ListenerConfig.of("tcp://0.0.0.0:1?maximumConnections=-1", WITH_TLS))
                .hasMessageContaining("maximumConnections must be >= 0");
        assertThatThrownBy(() -> ListenerConfig.of("ssl://0.0.0.0:1?enabledProtocols=TLSv1", WITH_TLS))
                .hasMessageContaining("enabledProtocols must be among");
    }

    @Test
    void shouldKeepSecretsOutOfBrokerConfigToString() {
        BrokerConfig c = BrokerConfig.builder("A").listen("ssl://0.0.0.0:0?keyStore=/k.p12&keyStorePassword=s3cret")
                .networkConnector("static:(ssl://b:1)?userName=br&password=s3cret").security(WITH_TLS).build();
        assertThat(c.toString()).doesNotContain("s3cret").contains("keyStorePassword=*****", "password=*****");
    }

    @Test
    void shouldNeedAnAuthenticatorToRefuseAnonymousConnections() {
        assertThat(SecurityConfig.ofDefaults().isOpen()).isTrue();
        assertThat(SecurityConfig.ofDefaults().allowAnonymous()).isTrue();
        assertThat(SecurityConfig.builder().authenticator((l, p, c) -> null).build().allowAnonymous()).isFalse();
        assertThatThrownBy(() -> SecurityConfig.builder().allowAnonymous(false).build())
                .hasMessageContaining("allowAnonymous must be true without an authenticator");
    }
}
