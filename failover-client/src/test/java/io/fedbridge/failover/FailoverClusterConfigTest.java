package io.fedbridge.failover;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fedbridge.core.uri.CompositeUri;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class FailoverClusterConfigTest {

    @ParameterizedTest
    @CsvSource({
            "'*.prod.example.com:*', tcp://a.prod.example.com:61613, true",
            "'*.prod.example.com:*', ssl://A.PROD.example.com:61614, true",
            "'*.prod.example.com:*', tcp://prod.example.com.evil.org:61613, false",
            "'*.prod.example.com:*', tcp://aprod.example.com:61613, false",
            "'127.0.0.1:616??', tcp://127.0.0.1:61613, true",
            "'127.0.0.1:616??', tcp://127.0.0.1:6161, false",
            "'broker-?.internal', tcp://broker-3.internal:1, true",
            "'[::1]:*', tcp://[::1]:61613, true",
            "'[::1]:61613', tcp://[::1]:61614, false",
            "'node-*', vm://node-2, true",
            "'node-*:*', vm://node-2, true",
            "'node-*:1', vm://node-2, false",
    })
    void shouldMatchLearnedBrokersAgainstHostPortGlobs(String pattern, String uri, boolean allowed) {
        FailoverClusterConfig c = new FailoverClusterConfig(true, true, List.of(pattern), false);

        assertThat(c.allows(CompositeUri.parse(uri))).isEqualTo(allowed);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", ":61613", "a:b", "::1:*", "[::1", "[::1]61613"})
    void shouldRejectAMalformedPatternNamingTheOption(String pattern) {
        assertThatThrownBy(() -> FailoverConfig.builder().uri("tcp://a:1").updateURIsAllowed(List.of(pattern)).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("updateURIsAllowed must be host:port glob patterns")
                .hasMessageContaining("but was '" + pattern + "'");
    }

    @ParameterizedTest
    @ValueSource(strings = {"tcp://anything:1", "vm://x"})
    void shouldAllowEveryBrokerWithoutPatterns(String uri) {
        assertThat(FailoverClusterConfig.ofDefaults().allows(CompositeUri.parse(uri))).isTrue();
    }
}
