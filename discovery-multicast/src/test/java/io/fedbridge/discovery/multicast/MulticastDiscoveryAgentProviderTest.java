package io.fedbridge.discovery.multicast;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fedbridge.core.ReconnectConfig;
import io.fedbridge.core.bridge.BridgeConfig;
import io.fedbridge.core.discovery.DiscoveryAgents;
import io.fedbridge.core.uri.CompositeUri;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MulticastDiscoveryAgentProviderTest {

    private static final Set<String> VALID = valid();

    private static Set<String> valid() {
        Set<String> all = new HashSet<>(BridgeConfig.OPTION_NAMES);
        all.addAll(MulticastDiscoveryConfig.OPTION_NAMES);
        return all;
    }

    /** As the network connector does: the bridge options are taken out before the agent sees the rest. */
    private static MulticastDiscoveryConfig parse(String uri) {
        CompositeUri parsed = CompositeUri.parse(uri);
        Map<String, String> agentOptions = new java.util.LinkedHashMap<>(parsed.options());
        agentOptions.keySet().removeAll(BridgeConfig.OPTION_NAMES);
        return MulticastDiscoveryAgentProvider.config(parsed, agentOptions, VALID);
    }

    @Test
    void shouldBeFoundByItsSchemeThroughServiceLoader() {
        assertThat(DiscoveryAgents.providers()).containsKey("multicast");
        assertThat(DiscoveryAgents.provider(CompositeUri.parse("multicast://default")))
                .isInstanceOf(MulticastDiscoveryAgentProvider.class);
        assertThat(new MulticastDiscoveryAgentProvider().optionNames())
                .containsAll(ReconnectConfig.OPTION_NAMES)
                .contains("group", "interface", "heartbeatInterval", "expiry", "timeToLive", "advertise", "discover",
                        "secret", "secretFile", "maxClockSkew", "maxPeers");
    }

    @Test
    void shouldDefaultToActiveMqsAddressGroupAndTimingsOnTheLoopbackInterface() {
        MulticastDiscoveryConfig c = parse("multicast://default");

        assertThat(c.endpoint()).isEqualTo("239.255.2.3:6155");
        assertThat(c.group()).isEqualTo("default");
        assertThat(c.networkInterface()).as("null: the loopback interface").isNull();
        assertThat(c.heartbeatInterval()).isEqualTo(Duration.ofMillis(500));
        assertThat(c.expiry()).isEqualTo(10);
        assertThat(c.timeToLive()).isEqualTo(1);
        assertThat(c.advertise()).isTrue();
        assertThat(c.discover()).isTrue();
        assertThat(c.reconnect()).isEqualTo(ReconnectConfig.ofDefaults());
        assertThat(c.secret()).as("unsigned, fine on loopback").isNull();
        assertThat(c.maxClockSkew()).isEqualTo(Duration.ofSeconds(30));
        assertThat(c.maxPeers()).isEqualTo(64);
        assertThat(parse("multicast://239.255.2.3").port()).isEqualTo(6155);
    }

    @Test
    void shouldBindEveryOption() {
        MulticastDiscoveryConfig c = parse("multicast://239.255.9.8:7000?group=orders&interface=lo"
                + "&heartbeatInterval=100ms&expiry=3&timeToLive=0&advertise=false&initialReconnectDelay=50"
                + "&maxReconnectDelay=2s&useExponentialBackOff=false&backOffMultiplier=3&maxReconnectAttempts=4"
                + "&minConnectTime=1s&networkTTL=2&duplex=false&secret=0123456789abcdef&maxClockSkew=5s&maxPeers=8");

        assertThat(c).isEqualTo(MulticastDiscoveryConfig.builder().address("239.255.9.8").port(7000).group("orders")
                .networkInterface("lo").heartbeatInterval(Duration.ofMillis(100)).expiry(3).timeToLive(0)
                .advertise(false).secret("0123456789abcdef").maxClockSkew(Duration.ofSeconds(5)).maxPeers(8)
                .reconnect(ReconnectConfig.builder().initialReconnectDelay(Duration.ofMillis(50))
                        .maxReconnectDelay(Duration.ofSeconds(2)).useExponentialBackOff(false).backOffMultiplier(3)
                        .maxReconnectAttempts(4).minConnectTime(Duration.ofSeconds(1)).build())
                .build());
    }

    @Test
    void shouldAcceptActiveMqsKeepAliveIntervalButNotBothSpellings() {
        assertThat(parse("multicast://default?keepAliveInterval=250").heartbeatInterval()).isEqualTo(Duration.ofMillis(250));
        assertThatThrownBy(() -> parse("multicast://default?keepAliveInterval=250&heartbeatInterval=250"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("give either heartbeatInterval or keepAliveInterval, not both");
    }

    @Test
    void shouldListEveryValidOptionForAnUnknownOne() {
        assertThatThrownBy(() -> parse("multicast://default?heartbeatIntervall=100"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("unknown option 'heartbeatIntervall'")
                .hasMessageContaining("did you mean 'heartbeatInterval'")
                .hasMessageContaining("network connector URI 'multicast://default?heartbeatIntervall=100'")
                .hasMessageContaining("expiry").hasMessageContaining("initialReconnectDelay")
                .hasMessageContaining("networkTTL");
    }

    @Test
    void shouldRejectWhatIsNotAnIpv4MulticastAddress() {
        assertThatThrownBy(() -> parse("multicast://10.0.0.1:6155")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("invalid network connector URI 'multicast://10.0.0.1:6155': address must be an IPv4 "
                        + "multicast address (224.0.0.0 to 239.255.255.255), but was 10.0.0.1");
        assertThatThrownBy(() -> parse("multicast://mcast.example.com:6155")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("address must be an IPv4 multicast address such as 239.255.2.3, or 'default', "
                        + "but was 'mcast.example.com'");
        assertThatThrownBy(() -> parse("multicast://239.256.1.1")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("but was '239.256.1.1'");
        assertThatThrownBy(() -> parse("multicast://[ff02::1]:6155")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("IPv4 multicast address");
        assertThatThrownBy(() -> parse("multicast:(tcp://a:1)")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("must be a plain URI such as multicast://239.255.2.3:6155?group=NAME");
        assertThatThrownBy(() -> parse("multicast://default/x")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("must have no path, but has '/x'");
    }

    @Test
    void shouldRejectBadValuesAndConflicts() {
        assertThatThrownBy(() -> parse("multicast://default?advertise=false&discover=false"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("advertise and discover must not both be false");
        assertThatThrownBy(() -> parse("multicast://default?group=has%20space"))
                .hasMessageContaining("group must be 1-64 letters, digits, '.', '_' or '-', but was 'has space'");
        assertThatThrownBy(() -> parse("multicast://default?expiry=0")).hasMessageContaining("expiry must be >= 1");
        assertThatThrownBy(() -> parse("multicast://default?timeToLive=256")).hasMessageContaining("timeToLive must be 0 to 255");
        assertThatThrownBy(() -> parse("multicast://default?heartbeatInterval=1")).hasMessageContaining("heartbeatInterval must be 10 ms");
        assertThatThrownBy(() -> parse("multicast://default?interface=")).hasMessageContaining("interface must be");
        assertThatThrownBy(() -> parse("multicast://default?initialReconnectDelay=5s&maxReconnectDelay=1s"))
                .hasMessageContaining("maxReconnectDelay must be >= initialReconnectDelay");
    }

    @Test
    void shouldReadTheSecretFromAFileTrimmed(@TempDir Path dir) throws Exception {
        Path file = Files.writeString(dir.resolve("group.secret"), "  0123456789abcdefXYZ\n");

        MulticastDiscoveryConfig c = parse("multicast://default?secretFile=" + file);

        assertThat(c.secret()).isEqualTo(MulticastSecret.of("0123456789abcdefXYZ"));
        assertThat(c.secret()).isNotEqualTo(MulticastSecret.of("0123456789abcdefXY"));
    }

    @Test
    void shouldRefuseAShortEmptyOrMissingSecretWithoutShowingIt(@TempDir Path dir) throws Exception {
        assertThatThrownBy(() -> parse("multicast://default?secret=short-s3cret"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("invalid option 'secret'")
                .hasMessageContaining("secret must be at least 16 characters, but was 12 characters")
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("short-s3cret"));
        assertThatThrownBy(() -> parse("multicast://default?secret=")).hasMessageContaining("secret must be at least 16");

        Path empty = Files.writeString(dir.resolve("empty.secret"), " \n\t\n");
        assertThatThrownBy(() -> parse("multicast://default?secretFile=" + empty))
                .hasMessageContaining("secretFile must hold a secret of at least 16 characters, but " + empty
                        + " holds 0 (it is empty)");
        Path shortOne = Files.writeString(dir.resolve("short.secret"), "tiny-s3cret\n");
        assertThatThrownBy(() -> parse("multicast://default?secretFile=" + shortOne))
                .hasMessageContaining("holds 11").satisfies(e -> assertThat(e.getMessage()).doesNotContain("tiny-s3cret"));
        assertThatThrownBy(() -> parse("multicast://default?secretFile=" + dir.resolve("missing")))
                .hasMessageContaining("secretFile must be a readable UTF-8 file, but reading " + dir.resolve("missing"))
                .hasMessageContaining("NoSuchFileException");
    }

    @Test
    void shouldRefuseBothSecretAndSecretFile(@TempDir Path dir) throws Exception {
        Path file = Files.writeString(dir.resolve("group.secret"), "0123456789abcdefXYZ");

        assertThatThrownBy(() -> parse("multicast://default?secret=0123456789abcdef&secretFile=" + file))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("give either secret or secretFile, not both")
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("0123456789abcdef"));
    }

    @Test
    void shouldMaskTheSecretWhereverTheUriOrConfigIsShown() {
        String uri = "multicast://default?secret=0123456789abcdef-s3cret&maxPeers=x";

        assertThatThrownBy(() -> parse(uri)).hasMessageContaining("maxPeers")
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("s3cret"));
        assertThat(CompositeUri.parse(uri).toString()).doesNotContain("s3cret");
        assertThat(parse("multicast://default?secret=0123456789abcdef-s3cret").toString())
                .doesNotContain("s3cret").contains("secret=*****");
    }

    @Test
    void shouldRejectBadClockSkewAndPeerLimits() {
        assertThatThrownBy(() -> parse("multicast://default?maxClockSkew=500ms"))
                .hasMessageContaining("maxClockSkew must be PT1S to PT1H, but was PT0.5S");
        assertThatThrownBy(() -> parse("multicast://default?maxClockSkew=2h")).hasMessageContaining("maxClockSkew must be");
        assertThatThrownBy(() -> parse("multicast://default?maxPeers=0"))
                .hasMessageContaining("maxPeers must be 1 to 65536, but was 0");
    }

    @Test
    void shouldKeepTheConfigInvariantsInTheRecordItself() {
        MulticastDiscoveryConfig c = MulticastDiscoveryConfig.ofDefaults();
        assertThat(c.toBuilder().build()).isEqualTo(c);
        MulticastDiscoveryConfig signed = c.toBuilder().secret("0123456789abcdef").build();
        assertThat(signed.toBuilder().build()).isEqualTo(signed);
        assertThat(c.expiryAfter(Duration.ofMillis(200))).isEqualTo(Duration.ofSeconds(2));
        assertThatThrownBy(() -> c.toBuilder().port(0).build()).hasMessage("port must be 1 to 65535, but was 0");
    }
}
