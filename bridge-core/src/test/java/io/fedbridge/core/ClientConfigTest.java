package io.fedbridge.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class ClientConfigTest {

    @Test
    void shouldUseDefaultsForAPlainUri() {
        ClientConfig c = ClientConfig.fromUri("tcp://127.0.0.1:61613");

        assertThat(c.uri().toString()).isEqualTo("tcp://127.0.0.1:61613");
        assertThat(c.login()).isNull();
        assertThat(c.passcode()).isNull();
        assertThat(c.host()).isEqualTo("127.0.0.1");
        assertThat(c.heartBeatSend()).isEqualTo(Duration.ofSeconds(10));
        assertThat(c.heartBeatReceive()).isEqualTo(Duration.ofSeconds(10));
        assertThat(c.connectTimeout()).isEqualTo(Duration.ofSeconds(10));
        assertThat(c.closeTimeout()).isEqualTo(Duration.ofSeconds(5));
        assertThat(c.limits()).isEqualTo(FrameLimits.ofDefaults());
        assertThat(c.clientId()).isNull();
        assertThat(ClientConfig.ofDefaults("tcp://127.0.0.1:61613")).isEqualTo(c);
    }

    @Test
    void shouldReadEveryOptionFromTheUri() {
        ClientConfig c = ClientConfig.fromUri("tcp://broker:61613?login=app&passcode=s3cret&host=vhost"
                + "&heartBeatSend=2000&heartBeatReceive=3s&connectTimeout=PT1S&closeTimeout=250ms"
                + "&clientId=c1&maxFrameSize=1024");

        assertThat(c.login()).isEqualTo("app");
        assertThat(c.passcode()).isEqualTo("s3cret");
        assertThat(c.host()).isEqualTo("vhost");
        assertThat(c.heartBeatSend()).isEqualTo(Duration.ofSeconds(2));
        assertThat(c.heartBeatReceive()).isEqualTo(Duration.ofSeconds(3));
        assertThat(c.connectTimeout()).isEqualTo(Duration.ofSeconds(1));
        assertThat(c.closeTimeout()).isEqualTo(Duration.ofMillis(250));
        assertThat(c.clientId()).isEqualTo("c1");
        assertThat(c.limits().maxFrameSize()).isEqualTo(1024);
        assertThat(c.limits().maxHeaders()).isEqualTo(FrameLimits.DEFAULT_MAX_HEADERS);
        assertThat(c.uri().options()).as("options are consumed, not kept in the URI").isEmpty();
        assertThat(c.uri().toString()).isEqualTo("tcp://broker:61613");
    }

    @ParameterizedTest
    @CsvSource({"5000, 5000", "5s, 5000", "PT5S, 5000", "250ms, 250", "1m30s, 90000", "0, 0", "1.5s, 1500"})
    void shouldReadHeartBeatSendAsMillisOrWithAUnit(String value, long millis) {
        ClientConfig c = ClientConfig.fromUri("tcp://h:1?heartBeatSend=" + value);

        assertThat(c.heartBeatSend()).isEqualTo(Duration.ofMillis(millis));
    }

    @Test
    void shouldAcceptAVmUri() {
        ClientConfig c = ClientConfig.fromUri("vm://A?login=x");

        assertThat(c.uri().scheme()).isEqualTo("vm");
        assertThat(c.host()).isEqualTo("A");
    }

    @Test
    void shouldRejectAnUnknownOptionListingTheValidOnes() {
        assertThatThrownBy(() -> ClientConfig.fromUri("tcp://h:1?foo=bar"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("unknown option 'foo'")
                .hasMessageContaining("client URI 'tcp://h:1?foo=bar'")
                .hasMessageContaining("valid options are: ")
                .hasMessageContainingAll("login", "passcode", "host", "clientId", "heartBeatSend", "heartBeatReceive",
                        "connectTimeout", "closeTimeout", "maxFrameSize");
    }

    @Test
    void shouldSuggestTheOptionMeantByATypo() {
        assertThatThrownBy(() -> ClientConfig.fromUri("tcp://h:1?heartBeatSnd=1s"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("unknown option 'heartBeatSnd' (did you mean 'heartBeatSend'?)");
    }

    @Test
    void shouldNotShowThePasscodeInAnError() {
        assertThatThrownBy(() -> ClientConfig.fromUri("tcp://h:1?passcode=s3cret&nope=1"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("unknown option 'nope'")
                .message().doesNotContain("s3cret");
    }

    @Test
    void shouldRejectABadDurationNamingTheOption() {
        assertThatThrownBy(() -> ClientConfig.fromUri("tcp://h:1?heartBeatSend=soon"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("option 'heartBeatSend'")
                .hasMessageContaining("must be a duration")
                .hasMessageContaining("'soon'");
    }

    @Test
    void shouldRejectATooSmallMaxFrameSizeNamingTheOption() {
        assertThatThrownBy(() -> ClientConfig.fromUri("tcp://h:1?maxFrameSize=10"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("invalid option 'maxFrameSize'")
                .hasMessageContaining("maxFrameSize must be at least 256 bytes, but was 10");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "heartBeatSend=-1     | heartBeatSend must be >= 0, but was PT-0.001S",
        "heartBeatReceive=-5s | heartBeatReceive must be >= 0, but was PT-5S",
        "connectTimeout=0     | connectTimeout must be > 0, but was PT0S",
        "closeTimeout=-1s     | closeTimeout must be > 0, but was PT-1S",
    })
    void shouldRejectOutOfRangeDurationsFromTheUri(String option, String message) {
        assertThatThrownBy(() -> ClientConfig.fromUri("tcp://h:1?" + option))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(message);
    }

    @Test
    void shouldValidateInTheBuilder() {
        assertThatThrownBy(() -> ClientConfig.builder("tcp://h:1").heartBeatSend(Duration.ofMillis(-1)).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("heartBeatSend must be >= 0, but was PT-0.001S");
        assertThatThrownBy(() -> ClientConfig.builder("tcp://h:1").connectTimeout(Duration.ZERO).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("connectTimeout must be > 0, but was PT0S");
        assertThatThrownBy(() -> ClientConfig.builder("tcp://h:1").closeTimeout(Duration.ofSeconds(-1)).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("closeTimeout must be > 0, but was PT-1S");
    }

    @Test
    void shouldAllowZeroHeartBeats() {
        ClientConfig c = ClientConfig.builder("tcp://h:1").heartBeats(Duration.ZERO).build();

        assertThat(c.heartBeatSend()).isZero();
        assertThat(c.heartBeatReceive()).isZero();
    }

    @Test
    void shouldRejectANullUri() {
        assertThatThrownBy(() -> new ClientConfig(null, null, null, null, null, null, null, null, null, null))
                .isInstanceOf(NullPointerException.class)
                .hasMessageContaining("uri");
    }

    @Test
    void shouldCarryExtraConnectHeadersWithoutPrintingTheirValues() {
        ClientConfig c = ClientConfig.builder("tcp://h:1").connectHeader(FederationHeaders.PRODUCER_SECRET, "s3cret-value").build();

        assertThat(c.connectHeaders()).containsExactly(Map.entry(FederationHeaders.PRODUCER_SECRET, "s3cret-value"));
        assertThat(c.toBuilder().build()).isEqualTo(c);
        assertThat(c.toString()).doesNotContain("s3cret-value").contains(FederationHeaders.PRODUCER_SECRET);
        assertThat(ClientConfig.fromUri("tcp://h:1").connectHeaders()).isEmpty();
    }

    @Test
    void shouldRejectAnExtraConnectHeaderThatIsAStandardOne() {
        assertThatThrownBy(() -> ClientConfig.builder("tcp://h:1").connectHeader("login", "x").build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("connectHeaders must not set the standard CONNECT header 'login'");
    }

    @Test
    void shouldAcceptSslWithTlsDefaultsAndRejectTlsOptionsOnTcp() {
        assertThat(ClientConfig.fromUri("ssl://h:61614").tls().verifyHostName()).isTrue();
        assertThat(ClientConfig.fromUri("tcp://h:61613").tls()).isNull();
        assertThatThrownBy(() -> ClientConfig.fromUri("tcp://h:61613?trustStore=/x.p12"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("need an ssl:// or wss:// URI");
        assertThatThrownBy(() -> ClientConfig.fromUri("nio://h:61614"))
                .hasMessageContaining("supported schemes are: tcp, ssl, vm");
    }

    @ParameterizedTest
    @ValueSource(strings = {"http://h:80", "failover:(tcp://a:1,tcp://b:2)", "static:(tcp://a:1)"})
    void shouldRejectOtherSchemes(String uri) {
        assertThatThrownBy(() -> ClientConfig.fromUri(uri))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("unsupported transport scheme")
                .hasMessageContaining("supported schemes are: tcp, ssl, vm");
    }

    @ParameterizedTest
    @ValueSource(strings = {"tcp:(tcp://h:1)", "tcp://(tcp://h:1,tcp://h:2)", "vm:(vm://A)"})
    void shouldRejectACompositeUriWithATransportScheme(String uri) {
        // Regression (found by BrokerConfigFileFuzzTest): host() of the composite threw IllegalStateException.
        assertThatThrownBy(() -> ClientConfig.fromUri(uri))
                .isExactlyInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("must be plain, e.g. ")
                .hasMessageEndingWith(", not composite");
    }

    @Test
    void shouldRejectATcpUriWithoutAPort() {
        assertThatThrownBy(() -> ClientConfig.fromUri("tcp://h"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("must have a host and a port");
    }

    @Test
    void shouldNeverShowThePasscodeInToString() {
        ClientConfig c = ClientConfig.fromUri("tcp://h:1?login=app&passcode=s3cret");

        assertThat(c.toString()).doesNotContain("s3cret").contains("passcode=*****").contains("login=app");
        assertThat(ClientConfig.builder("tcp://h:1").build().toString()).contains("passcode=null");
    }

    @Test
    void shouldNotShowAPasscodeLeftInAUriGivenToTheBuilder() {
        ClientConfig c = ClientConfig.builder("tcp://h:1").uri("tcp://h:2?passcode=s3cret").build();

        assertThat(c.toString()).doesNotContain("s3cret");
    }

    @Test
    void shouldRoundTripThroughToBuilder() {
        ClientConfig c = ClientConfig.fromUri("tcp://h:1?login=a&passcode=b&host=v&heartBeatSend=1s"
                + "&heartBeatReceive=2s&connectTimeout=3s&closeTimeout=4s&clientId=x&maxFrameSize=4096");

        assertThat(c.toBuilder().build()).isEqualTo(c);
        assertThat(c.toBuilder().login("other").build().login()).isEqualTo("other");
        assertThat(c.toBuilder().login("other").build().passcode()).isEqualTo("b");
    }

    @Test
    void shouldNotKeepOptionsInTheUriGivenToBuilderUri() {
        ClientConfig viaBuilder = ClientConfig.builder("tcp://h:1").uri("tcp://h:2?login=x").build();

        assertThat(viaBuilder.uri().options()).isEmpty();
    }

    /*
     * The host header defaults to the URI's host. After toBuilder().uri(other) the defaulted host of the old
     * URI is carried over, so the client sends host:<old broker> to the new one.
     */
    @Test
    void shouldDefaultHostToTheNewUriWhenTheUriIsChangedThroughToBuilder() {
        ClientConfig c = ClientConfig.fromUri("tcp://old-broker:1");

        ClientConfig moved = c.toBuilder().uri("tcp://new-broker:2").build();

        assertThat(moved.host()).isEqualTo("new-broker");
    }

    @Test
    void shouldKeepAnExplicitHostWhenTheUriChanges() {
        ClientConfig c = ClientConfig.fromUri("tcp://old-broker:1?host=vhost");

        assertThat(c.toBuilder().uri("tcp://new-broker:2").build().host()).isEqualTo("vhost");
    }
}
