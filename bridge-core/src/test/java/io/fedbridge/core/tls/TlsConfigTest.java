package io.fedbridge.core.tls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fedbridge.core.ClientConfig;
import io.fedbridge.core.bridge.BridgeConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TlsConfigTest {

    @Test
    void shouldDefaultToJdkTrustModernProtocolsAndHostNameVerification() {
        TlsConfig c = TlsConfig.ofDefaults();
        assertThat(c.keyStore()).isNull();
        assertThat(c.trustStore()).isNull();
        assertThat(c.enabledProtocols()).containsExactly("TLSv1.3", "TLSv1.2");
        assertThat(c.enabledCipherSuites()).isEmpty();
        assertThat(c.verifyHostName()).isTrue();
        assertThat(c.clientAuth()).isEqualTo(ClientAuth.NONE);
        assertThat(c.handshakeTimeout()).isEqualTo(Duration.ofSeconds(10));
    }

    @Test
    void shouldReadEveryOptionFromAUriQuery() {
        TlsConfig c = TlsConfig.fromOptions(Map.ofEntries(
                Map.entry("keyStore", "/etc/fb/broker.jks"), Map.entry("keyStorePassword", "k"),
                Map.entry("trustStore", "/etc/fb/ca.p12"), Map.entry("trustStorePassword", "t"),
                Map.entry("needClientAuth", "true"), Map.entry("enabledProtocols", "TLSv1.3"),
                Map.entry("enabledCipherSuites", "TLS_AES_128_GCM_SHA256"), Map.entry("verifyHostName", "false"),
                Map.entry("handshakeTimeout", "2s")), "test");
        assertThat(c.keyStore()).isEqualTo(Path.of("/etc/fb/broker.jks"));
        assertThat(c.keyStoreType()).as("by extension").isEqualTo("JKS");
        assertThat(c.trustStoreType()).isEqualTo("PKCS12");
        assertThat(c.clientAuth()).isEqualTo(ClientAuth.NEED);
        assertThat(c.enabledProtocols()).containsExactly("TLSv1.3");
        assertThat(c.enabledCipherSuites()).containsExactly("TLS_AES_128_GCM_SHA256");
        assertThat(c.verifyHostName()).isFalse();
        assertThat(c.handshakeTimeout()).isEqualTo(Duration.ofSeconds(2));
    }

    @Test
    void shouldLetNeedClientAuthWinOverWant() {
        assertThat(TlsConfig.builder().wantClientAuth(true).build().clientAuth()).isEqualTo(ClientAuth.WANT);
        assertThat(TlsConfig.builder().trustStore(Path.of("ca.p12")).wantClientAuth(true).needClientAuth(true).build()
                .clientAuth()).isEqualTo(ClientAuth.NEED);
        assertThat(TlsConfig.builder().clientAuth(ClientAuth.NEED).needClientAuth(false).build().clientAuth())
                .isEqualTo(ClientAuth.NONE);
    }

    @Test
    void shouldRefuseProtocolsOlderThanTls12AndBadValues() {
        assertThatThrownBy(() -> TlsConfig.builder().enabledProtocols(List.of("TLSv1.3", "SSLv3")).build())
                .hasMessage("enabledProtocols must be among [TLSv1.3, TLSv1.2], but had 'SSLv3'");
        assertThatThrownBy(() -> TlsConfig.builder().keyStoreType("BKS").build())
                .hasMessage("keyStoreType must be PKCS12 or JKS, but was 'BKS'");
        assertThatThrownBy(() -> TlsConfig.builder().keyStorePassword("x").build())
                .hasMessageContaining("keyStorePassword must come with a keyStore");
        assertThatThrownBy(() -> TlsConfig.builder().handshakeTimeout(Duration.ZERO).build())
                .hasMessageContaining("handshakeTimeout must be > 0");
        assertThatThrownBy(() -> TlsConfig.fromOptions(Map.of("trustStor", "/x"), "URI 'ssl://h:1'"))
                .hasMessageContaining("unknown option 'trustStor' (did you mean 'trustStore'?)");
    }

    @Test
    void shouldRefuseNeedClientAuthWithoutATrustStore() {
        // Without one, the JDK's cacerts would vouch for client certificates: any public CA's certificate would do.
        assertThatThrownBy(() -> TlsConfig.builder().keyStore(Path.of("broker.p12")).needClientAuth(true).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("needClientAuth requires trustStore");
        assertThatThrownBy(() -> TlsConfig.fromOptions(Map.of("keyStore", "/k.p12", "needClientAuth", "true"), "listener"))
                .hasMessageContaining("needClientAuth requires trustStore");
        assertThat(TlsConfig.builder().needClientAuth(true).trustStore(Path.of("ca.p12")).build().clientAuth())
                .isEqualTo(ClientAuth.NEED);
    }

    @Test
    void shouldNeverPrintPasswords() {
        TlsConfig c = TlsConfig.builder().keyStore(Path.of("k.p12")).keyStorePassword("s3cret-k")
                .trustStore(Path.of("t.p12")).trustStorePassword("s3cret-t").build();
        assertThat(c.toString()).doesNotContain("s3cret").contains("keyStorePassword=*****", "trustStorePassword=*****");
        ClientConfig client = ClientConfig.fromUri("ssl://h:61614?trustStore=t.p12&trustStorePassword=s3cret-t&passcode=s3cret-p");
        assertThat(client.toString()).doesNotContain("s3cret");
        assertThatThrownBy(() -> TlsConfig.fromOptions(Map.of("keyStorePassword", "s3cret-k", "verifyHostName", "maybe"), "ctx"))
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("s3cret"));
    }

    @Test
    void shouldTakeTlsOptionsOnSslClientUrisOnly() {
        ClientConfig ssl = ClientConfig.fromUri("ssl://h:61614?trustStore=/ca.p12&verifyHostName=false&login=a");
        assertThat(ssl.tls().trustStore()).isEqualTo(Path.of("/ca.p12"));
        assertThat(ssl.tls().verifyHostName()).isFalse();
        assertThat(ssl.login()).isEqualTo("a");
        assertThat(ssl.toBuilder().build()).isEqualTo(ssl);
        assertThat(ClientConfig.builder("tcp://h:1").tls(TlsConfig.ofDefaults()).build().tls())
                .as("ignored for tcp://, so one config can serve a mixed failover list").isNull();
        assertThatThrownBy(() -> ClientConfig.fromUri("vm://A?trustStore=/ca.p12"))
                .hasMessageContaining("TLS options (trustStore) need an ssl:// or wss:// URI");
    }

    @Test
    void shouldTakeTlsOptionsOnNetworkConnectorsForSslPeersAndMaskSecretsInBridgeNames() {
        BridgeConfig.Builder b = BridgeConfig.builder("vm://A", "vm://unset");
        Map<String, String> rest = b.bind(Map.of("trustStore", "/ca.p12", "trustStorePassword", "s3cret",
                "userName", "bridge", "maxReconnectDelay", "1s"), "network connector URI");
        assertThat(rest).containsOnlyKeys("maxReconnectDelay");
        BridgeConfig c = b.build();
        assertThat(c.tls().trustStore()).isEqualTo(Path.of("/ca.p12"));
        BridgeConfig named = c.toBuilder().remoteUri("ssl://b:61614?trustStorePassword=s3cret").name(null).build();
        assertThat(named.name()).doesNotContain("s3cret").endsWith("ssl://b:61614?trustStorePassword=*****");
        assertThat(named.toString()).doesNotContain("s3cret");
    }
}
