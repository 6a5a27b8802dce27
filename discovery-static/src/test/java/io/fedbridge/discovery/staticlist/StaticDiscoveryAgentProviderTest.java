package io.fedbridge.discovery.staticlist;

import io.fedbridge.core.testing.ManualScheduler;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fedbridge.core.ReconnectConfig;
import io.fedbridge.core.discovery.DiscoveryAgent;
import io.fedbridge.core.discovery.DiscoveryAgents;
import io.fedbridge.core.discovery.DiscoveryContext;
import io.fedbridge.core.discovery.PeerInfo;
import io.fedbridge.core.uri.CompositeUri;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class StaticDiscoveryAgentProviderTest {

    /** What a network connector would pass: its own options plus the agent's. */
    private static final Set<String> VALID_OPTIONS = validOptions("duplex", "networkTTL", "prefetchSize");

    private final ManualScheduler scheduler = new ManualScheduler();
    private final DiscoveryContext context =
            new DiscoveryContext("broker-1", "one", List.of("tcp://127.0.0.1:61613"), scheduler, scheduler.clock());
    private final StaticDiscoveryAgentProvider provider = new StaticDiscoveryAgentProvider();

    @Test
    void shouldBeFoundThroughTheServiceLoaderByItsScheme() {
        assertThat(DiscoveryAgents.provider(CompositeUri.parse("static:(tcp://127.0.0.1:1)")))
                .isInstanceOf(StaticDiscoveryAgentProvider.class);
        assertThat(DiscoveryAgents.schemes()).contains("static");
        assertThat(provider.scheme()).isEqualTo("static");
        assertThat(provider.optionNames()).isEqualTo(ReconnectConfig.OPTION_NAMES);
    }

    @Test
    void shouldListStaticAmongTheKnownSchemesWhenTheSchemeIsUnknown() {
        assertThatThrownBy(() -> DiscoveryAgents.provider(CompositeUri.parse("foo:(tcp://127.0.0.1:1)")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("unknown discovery scheme 'foo'")
                .hasMessageContaining("known schemes are: ")
                .hasMessageContaining("static");
    }

    @Test
    void shouldCreateAnAgentDiscoveringEveryListedPeerWithActiveMqDefaults() {
        StaticDiscoveryAgent agent = create("static:(tcp://a:61613,ssl://[::1]:61614,vm://broker2)");
        RecordingListener listener = new RecordingListener();

        agent.start(listener);
        scheduler.runDue();

        assertThat(agent.config()).isEqualTo(ReconnectConfig.ofDefaults());
        assertThat(listener.events()).containsExactly(
                "discovered tcp://a:61613", "discovered ssl://[::1]:61614", "discovered vm://broker2");
    }

    @Test
    void shouldBindEveryReconnectOption() {
        StaticDiscoveryAgent agent = create("static:(tcp://a:1)?initialReconnectDelay=250&maxReconnectDelay=10s"
                + "&useExponentialBackOff=false&backOffMultiplier=1.5&maxReconnectAttempts=7&minConnectTime=PT2S");

        assertThat(agent.config()).isEqualTo(ReconnectConfig.builder()
                .initialReconnectDelay(Duration.ofMillis(250))
                .maxReconnectDelay(Duration.ofSeconds(10))
                .useExponentialBackOff(false)
                .backOffMultiplier(1.5)
                .maxReconnectAttempts(7)
                .minConnectTime(Duration.ofSeconds(2))
                .build());
    }

    @Test
    void shouldRejectAnUnknownOptionListingEveryValidOptionOfTheUri() {
        assertThatThrownBy(() -> create("static:(tcp://a:1)?foo=1"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("unknown option 'foo' in network connector URI 'static:(tcp://a:1)?foo=1'; valid options are: "
                        + "backOffMultiplier, duplex, initialReconnectDelay, maxReconnectAttempts, maxReconnectDelay, "
                        + "minConnectTime, networkTTL, prefetchSize, useExponentialBackOff");
    }

    @ParameterizedTest
    @CsvSource({"maxReconectDelay, maxReconnectDelay", "minconnecttime, minConnectTime", "duplx, duplex"})
    void shouldSuggestTheClosestValidOption(String typo, String suggestion) {
        assertThatThrownBy(() -> create("static:(tcp://a:1)?" + typo + "=1"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("unknown option '" + typo + "' (did you mean '" + suggestion + "'?) in network connector URI");
    }

    @Test
    void shouldRejectAValueThatDoesNotConvertNamingOptionAndUri() {
        assertThatThrownBy(() -> create("static:(tcp://a:1)?maxReconnectAttempts=abc"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("option 'maxReconnectAttempts' in network connector URI "
                        + "'static:(tcp://a:1)?maxReconnectAttempts=abc' must be an integer, but was 'abc'");
        assertThatThrownBy(() -> create("static:(tcp://a:1)?useExponentialBackOff=yes"))
                .hasMessageContaining("option 'useExponentialBackOff'")
                .hasMessageContaining("must be 'true' or 'false', but was 'yes'");
        assertThatThrownBy(() -> create("static:(tcp://a:1)?initialReconnectDelay=soon"))
                .hasMessageContaining("option 'initialReconnectDelay'")
                .hasMessageContaining("must be a duration");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "initialReconnectDelay=1000&maxReconnectDelay=500 | maxReconnectDelay must be >= initialReconnectDelay (PT1S), but was PT0.5S",
            "maxReconnectAttempts=-1                          | maxReconnectAttempts must be >= 0 (0 = unlimited), but was -1",
            "backOffMultiplier=0.5                            | backOffMultiplier must be >= 1, but was 0.5",
            "initialReconnectDelay=0                          | initialReconnectDelay must be > 0, but was PT0S",
            "minConnectTime=-1                                | minConnectTime must be >= 0, but was PT-0.001S"})
    void shouldRejectOutOfRangeOrConflictingOptionsNamingTheUri(String query, String problem) {
        String uri = "static:(tcp://a:1)?" + query;
        assertThatThrownBy(() -> create(uri))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("invalid network connector URI '" + uri + "': " + problem)
                .hasCauseInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void shouldRejectACompositePeerNamingIt() {
        assertThatThrownBy(() -> create("static:(tcp://a:1,failover:(tcp://b:2,tcp://c:3))"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("peer 'failover:(tcp://b:2,tcp://c:3)' in network connector URI "
                        + "'static:(tcp://a:1,failover:(tcp://b:2,tcp://c:3))' must be a plain transport URI "
                        + "(tcp://, ssl:// or vm://), but is composite");
    }

    @Test
    void shouldRejectAPeerThatIsNotATransportUri() {
        assertThatThrownBy(() -> create("static:(tcp://a:1,http://b:80)"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("peer 'http://b:80' in network connector URI 'static:(tcp://a:1,http://b:80)' "
                        + "must have scheme tcp, ssl or vm, but was 'http'");
    }

    @Test
    void shouldRejectAUriWithoutPeers() {
        assertThatThrownBy(() -> create("static://a:1"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("network connector URI 'static://a:1' must list its peers in parentheses, e.g. "
                        + "static:(tcp://host1:61613,tcp://host2:61613), but lists none");
        assertThatThrownBy(() -> create("static:()"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'static:()'")
                .hasMessageContaining("empty component");
    }

    @Test
    void shouldRejectAnotherSchemeWhenCalledDirectly() {
        assertThatThrownBy(() -> create("multicast://239.255.2.3:6155"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("scheme of network connector URI 'multicast://239.255.2.3:6155' must be 'static', "
                        + "but was 'multicast'");
    }

    @Test
    void shouldCollapseDuplicatePeersWhateverTheirOptionOrder() {
        StaticDiscoveryAgent agent = create("static:(tcp://a:1?x=1&y=2,tcp://b:2,tcp://a:1?y=2&x=1,tcp://b:2)");

        assertThat(agent.peers()).extracting(PeerInfo::uri).containsExactly("tcp://a:1?x=1&y=2", "tcp://b:2");
    }

    @Test
    void shouldHandPeerSecretsToTheConnectorButMaskThemInErrors() {
        StaticDiscoveryAgent agent = create("static:(tcp://a:1?passcode=s3cret)");
        assertThat(agent.peers()).extracting(PeerInfo::uri).containsExactly("tcp://a:1?passcode=s3cret");

        assertThatThrownBy(() -> create("static:(tcp://a:1?passcode=s3cret,http://b:1)"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("passcode=" + CompositeUri.MASK)
                .hasMessageNotContaining("s3cret");
    }

    /** Parses {@code uri} and calls the provider as a network connector does, all options being the agent's. */
    private StaticDiscoveryAgent create(String uri) {
        CompositeUri parsed = CompositeUri.parse(uri);
        Map<String, String> options = parsed.options();
        DiscoveryAgent agent = provider.create(parsed, options, VALID_OPTIONS, context);
        assertThat(agent).isInstanceOf(StaticDiscoveryAgent.class);
        return (StaticDiscoveryAgent) agent;
    }

    private static Set<String> validOptions(String... bridgeOptions) {
        Set<String> all = new TreeSet<>(ReconnectConfig.OPTION_NAMES);
        all.addAll(List.of(bridgeOptions));
        return Set.copyOf(all);
    }
}
