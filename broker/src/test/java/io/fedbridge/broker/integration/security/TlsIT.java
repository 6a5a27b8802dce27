package io.fedbridge.broker.integration.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fedbridge.broker.Broker;
import io.fedbridge.broker.BrokerConfig;
import io.fedbridge.broker.BrokerException;
import io.fedbridge.broker.security.AuthorizationRules;
import io.fedbridge.broker.security.Operation;
import io.fedbridge.broker.security.PropertiesUserStore;
import io.fedbridge.broker.security.SecurityConfig;
import io.fedbridge.core.ClientConfig;
import io.fedbridge.core.Message;
import io.fedbridge.core.ReceivedMessage;
import io.fedbridge.core.StompConnection;
import io.fedbridge.core.StompErrorException;
import io.fedbridge.core.StompException;
import io.fedbridge.core.Subscription;
import io.fedbridge.core.SubscriptionRequest;
import io.fedbridge.core.tls.TlsConfig;
import java.io.InputStream;
import java.net.URI;
import java.nio.file.Files;
import java.security.KeyStore;
import java.util.EnumSet;
import java.util.List;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.Test;

/** TLS on listeners and clients: round trip, host-name verification, trust, mutual TLS, protocols. */
class TlsIT extends SecurityTestSupport {

    private Broker tlsBroker(TlsConfig serverTls) {
        return start(BrokerConfig.builder(uniqueName("tls")).listen("ssl://127.0.0.1:0")
                .security(SecurityConfig.builder().tls(serverTls).build()));
    }

    private static String sslUri(Broker b) {
        return b.connectUris().get(0);
    }

    @Test
    void shouldRoundTripOverTls() throws Exception {
        Broker broker = tlsBroker(certs().serverTls());
        assertThat(sslUri(broker)).startsWith("ssl://127.0.0.1:");
        StompConnection c = connect(ClientConfig.fromUri(sslUri(broker) + "?" + certs().clientTlsOptions()
                + "&heartBeatSend=0&heartBeatReceive=0"));
        Subscription s = c.subscribeAndWait(SubscriptionRequest.of("/queue/tls"), null, WAIT);
        c.send(Message.of("/queue/tls", "over TLS")).get();
        ReceivedMessage m = s.receive(WAIT);
        assertThat(m).isNotNull();
        assertThat(m.bodyAsString()).isEqualTo("over TLS");
    }

    @Test
    void shouldRefuseAServerWhoseCertificateNamesAnotherHostUnlessVerificationIsOff() {
        TlsConfig wrongHost = certs().serverTls().toBuilder().keyStore(certs().wrongHostKeyStore()).build();
        Broker broker = tlsBroker(wrongHost);
        ClientConfig.Builder client = client(sslUri(broker), null, null).tls(certs().clientTls());
        assertThatThrownBy(() -> connect(client.build()))
                .isInstanceOf(StompException.class)
                .hasStackTraceContaining("No subject alternative names matching IP address 127.0.0.1");
        StompConnection c = connect(client.tls(certs().clientTls().toBuilder().verifyHostName(false).build()).build());
        assertThat(c.isConnected()).isTrue();
    }

    @Test
    void shouldRefuseAServerNotSignedByATrustedCa() {
        Broker broker = tlsBroker(certs().serverTls());
        assertThatThrownBy(() -> connect(client(sslUri(broker), null, null).build())) // JDK cacerts only
                .isInstanceOf(StompException.class)
                .hasStackTraceContaining("PKIX path building failed");
    }

    @Test
    void shouldAcceptATrustedClientCertificateAndKnowItsUserByDn() throws Exception {
        Broker broker = mutualTlsBroker();
        TlsConfig aliceTls = certs().clientTls().toBuilder().keyStore(certs().aliceKeyStore())
                .keyStorePassword(certs().password()).build();
        StompConnection alice = connect(client(sslUri(broker), null, null).tls(aliceTls).build());
        // Only alice may write here: the certificate made this connection alice, without a login.
        alice.send(Message.of("/queue/alice.inbox", "mine")).get();
        assertThat(broker.queue("/queue/alice.inbox").pending()).isEqualTo(1);
    }

    @Test
    void shouldRejectAClientWithoutACertificateWhenOneIsNeeded() {
        Broker broker = mutualTlsBroker();
        assertThatThrownBy(() -> connect(client(sslUri(broker), null, null).tls(certs().clientTls()).build()))
                .isInstanceOf(StompException.class)
                .hasStackTraceContaining("bad_certificate");
    }

    @Test
    void shouldRejectAClientCertificateFromAnUntrustedCa() {
        Broker broker = mutualTlsBroker();
        TlsConfig rogue = certs().clientTls().toBuilder().keyStore(certs().rogueAliceKeyStore())
                .keyStorePassword(certs().password()).build();
        assertThatThrownBy(() -> connect(client(sslUri(broker), null, null).tls(rogue).build()))
                .isInstanceOf(StompException.class)
                .hasStackTraceContaining("bad_certificate");
        assertThat(broker.queue("/queue/alice.inbox")).isNull();
    }

    private Broker mutualTlsBroker() {
        String users = "alice = -; groups=apps; dn=" + TestCertificates.ALICE_DN + "\n";
        AuthorizationRules rules = AuthorizationRules.builder()
                .allow("/queue/alice.>", EnumSet.allOf(Operation.class), "user:alice").build();
        return start(BrokerConfig.builder(uniqueName("mtls")).listen("ssl://127.0.0.1:0?needClientAuth=true")
                .security(SecurityConfig.builder().tls(certs().serverTls())
                        .authenticator(PropertiesUserStore.parse(users, "users")).authorizer(rules).build()));
    }

    @Test
    void shouldSpeakOnlyTls13And12() throws Exception {
        assertThatThrownBy(() -> TlsConfig.builder().enabledProtocols(List.of("TLSv1.1")).build())
                .hasMessageContaining("enabledProtocols must be among [TLSv1.3, TLSv1.2], but had 'TLSv1.1'");
        Broker both = tlsBroker(certs().serverTls());
        assertThat(handshake(sslUri(both), "TLSv1.3")).isEqualTo("TLSv1.3");
        assertThat(handshake(sslUri(both), "TLSv1.2")).isEqualTo("TLSv1.2");
        Broker only13 = tlsBroker(certs().serverTls().toBuilder().enabledProtocols(List.of("TLSv1.3")).build());
        assertThatThrownBy(() -> handshake(sslUri(only13), "TLSv1.2")).isInstanceOf(javax.net.ssl.SSLException.class);
    }

    /** Handshakes with a plain JSSE socket limited to {@code protocol}; returns the negotiated protocol. */
    private static String handshake(String sslUri, String protocol) throws Exception {
        KeyStore ts = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(certs().trustStore())) {
            ts.load(in, certs().password().toCharArray());
        }
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(ts);
        SSLContext ctx = SSLContext.getInstance("TLS");
        ctx.init(null, tmf.getTrustManagers(), null);
        URI u = URI.create(sslUri);
        try (SSLSocket s = (SSLSocket) ctx.getSocketFactory().createSocket(u.getHost(), u.getPort())) {
            s.setEnabledProtocols(new String[] {protocol});
            s.setSoTimeout(10_000);
            s.startHandshake();
            return s.getSession().getProtocol();
        }
    }

    @Test
    void shouldFailAtBuildForAnSslListenerWithoutAKeyStoreOrWithTlsOptionsOnTcp() {
        assertThatThrownBy(() -> BrokerConfig.builder("x").listen("ssl://127.0.0.1:0").build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("needs a keyStore");
        assertThatThrownBy(() -> BrokerConfig.builder("x").listen("tcp://127.0.0.1:0?needClientAuth=true").build())
                .hasMessageContaining("TLS options need an ssl:// or wss:// listener");
        assertThatThrownBy(() -> BrokerConfig.builder("x").listen("ssl://127.0.0.1:0?keyStore=/k.p12&maxConections=1").build())
                .hasMessageContaining("unknown option 'maxConections'")
                .hasMessageContaining("maximumConnections");
    }

    @Test
    void shouldNameTheKeyStoreButNotItsPasswordWhenItCannotBeRead() {
        String wrong = "not-the-password-" + System.nanoTime();
        String listener = "ssl://127.0.0.1:0?keyStore=" + certs().serverKeyStore() + "&keyStorePassword=" + wrong;
        BrokerConfig config = BrokerConfig.builder(uniqueName("badks")).listen(listener).build();
        assertThat(config.toString()).doesNotContain(wrong).contains("keyStorePassword=*****");
        assertThatThrownBy(() -> start(BrokerConfig.builder(uniqueName("badks")).listen(listener)))
                .isInstanceOf(BrokerException.class)
                .hasMessageContaining(certs().serverKeyStore().toString())
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain(wrong));
    }

    @Test
    void shouldRejectAWrongPasswordAsAnErrorFrameOverTlsToo() {
        String users = userLine("alice", "right-" + System.nanoTime(), "apps");
        Broker broker = start(BrokerConfig.builder(uniqueName("tlsauth")).listen("ssl://127.0.0.1:0")
                .security(SecurityConfig.builder().tls(certs().serverTls())
                        .authenticator(PropertiesUserStore.parse(users, "users")).build()));
        assertThatThrownBy(() -> connect(client(sslUri(broker), "alice", "wrong").tls(certs().clientTls()).build()))
                .isInstanceOf(StompErrorException.class)
                .hasMessageContaining("login failed for user 'alice'");
    }
}
