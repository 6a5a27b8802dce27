package io.fedbridge.core.uri;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.entry;

import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class CompositeUriTest {

    @Nested
    class PlainUris {

        @Test
        void shouldParseTcpUriWithHostPortAndOptions() {
            CompositeUri uri = CompositeUri.parse("tcp://broker1:61613?transport.tcpNoDelay=true&trace=false");

            assertThat(uri.scheme()).isEqualTo("tcp");
            assertThat(uri.isComposite()).isFalse();
            assertThat(uri.components()).isEmpty();
            assertThat(uri.host()).isEqualTo("broker1");
            assertThat(uri.port()).isEqualTo(61613);
            assertThat(uri.hasPort()).isTrue();
            assertThat(uri.path()).isEmpty();
            assertThat(uri.authority()).isEqualTo("broker1:61613");
            assertThat(uri.options()).containsExactly(entry("transport.tcpNoDelay", "true"), entry("trace", "false"));
        }

        @Test
        void shouldParseVmUriWithNameAsHostAndNoPort() {
            CompositeUri uri = CompositeUri.parse("vm://embedded-1?create=false");

            assertThat(uri.scheme()).isEqualTo("vm");
            assertThat(uri.host()).isEqualTo("embedded-1");
            assertThat(uri.port()).isEqualTo(-1);
            assertThat(uri.hasPort()).isFalse();
            assertThat(uri.authority()).isEqualTo("embedded-1");
            assertThat(uri.options()).containsExactly(entry("create", "false"));
            assertThat(uri).hasToString("vm://embedded-1?create=false");
        }

        @Test
        void shouldParseSslUriWithPathAndWithoutOptions() {
            CompositeUri uri = CompositeUri.parse("ssl://broker.example.com:61614/stomp");

            assertThat(uri.scheme()).isEqualTo("ssl");
            assertThat(uri.host()).isEqualTo("broker.example.com");
            assertThat(uri.port()).isEqualTo(61614);
            assertThat(uri.path()).isEqualTo("/stomp");
            assertThat(uri.options()).isEmpty();
            assertThat(uri).hasToString("ssl://broker.example.com:61614/stomp");
        }

        @Test
        void shouldAcceptSchemesWithPlusAndPortsAtTheLimits() {
            assertThat(CompositeUri.parse("nio+ssl://h:0").port()).isZero();
            assertThat(CompositeUri.parse("nio+ssl://h:65535").port()).isEqualTo(65535);
            assertThat(CompositeUri.parse("nio+ssl://h:65535").scheme()).isEqualTo("nio+ssl");
        }

        @Test
        void shouldLowerCaseTheSchemeButKeepTheHost() {
            CompositeUri uri = CompositeUri.parse("TCP://Broker1:61613");

            assertThat(uri.scheme()).isEqualTo("tcp");
            assertThat(uri.host()).isEqualTo("Broker1");
            assertThat(uri).isEqualTo(CompositeUri.parse("tcp://Broker1:61613"));
        }

        @Test
        void shouldParseBracketedIpv6AddressAndRenderItWithBrackets() {
            CompositeUri uri = CompositeUri.parse("tcp://[::1]:61613");

            assertThat(uri.host()).isEqualTo("::1");
            assertThat(uri.port()).isEqualTo(61613);
            assertThat(uri.authority()).isEqualTo("[::1]:61613");
            assertThat(uri).hasToString("tcp://[::1]:61613");
        }

        @Test
        void shouldParseIpv6AddressWithoutPortAndWithZone() {
            assertThat(CompositeUri.parse("tcp://[2001:db8::7]").port()).isEqualTo(-1);
            assertThat(CompositeUri.parse("tcp://[2001:db8::7]").host()).isEqualTo("2001:db8::7");

            CompositeUri zoned = CompositeUri.parse("tcp://[fe80::1%25eth0]:61613");
            assertThat(zoned.host()).isEqualTo("fe80::1%eth0");
            assertThat(zoned).hasToString("tcp://[fe80::1%25eth0]:61613");
        }

        @Test
        void shouldParseFromJavaNetUri() {
            assertThat(CompositeUri.of(URI.create("failover:(tcp://a:1,tcp://b:2)?randomize=false")))
                    .isEqualTo(CompositeUri.parse("failover:(tcp://a:1,tcp://b:2)?randomize=false"));
            assertThatThrownBy(() -> CompositeUri.of(null))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("URI must not be null");
        }

        @Test
        void shouldIgnoreWhitespaceAroundTheWholeUri() {
            assertThat(CompositeUri.parse("  tcp://a:1?x=1\n")).isEqualTo(CompositeUri.parse("tcp://a:1?x=1"));
        }
    }

    @Nested
    class CompositeUris {

        @Test
        void shouldParseFailoverUriWithComponentsAndOptions() {
            CompositeUri uri = CompositeUri.parse(
                    "failover:(tcp://a:61613,tcp://b:61613)?randomize=false&maxReconnectDelay=5000");

            assertThat(uri.scheme()).isEqualTo("failover");
            assertThat(uri.isComposite()).isTrue();
            assertThat(uri.components()).extracting(CompositeUri::host).containsExactly("a", "b");
            assertThat(uri.components()).extracting(CompositeUri::port).containsExactly(61613, 61613);
            assertThat(uri.options()).containsExactly(entry("randomize", "false"), entry("maxReconnectDelay", "5000"));
        }

        @Test
        void shouldParseStaticDiscoveryUriAsActiveMqWritesIt() {
            CompositeUri uri = CompositeUri.parse(
                    "static:(tcp://127.0.0.1:61614,tcp://127.0.0.1:61615)?networkTTL=2&duplex=true");

            assertThat(uri.scheme()).isEqualTo("static");
            assertThat(uri.components()).extracting(CompositeUri::authority)
                    .containsExactly("127.0.0.1:61614", "127.0.0.1:61615");
            assertThat(uri.options()).containsExactly(entry("networkTTL", "2"), entry("duplex", "true"));
        }

        @Test
        void shouldParseNestedComposites() {
            CompositeUri uri = CompositeUri.parse("failover:(static:(tcp://a:1,tcp://b:2),tcp://c:3)");

            assertThat(uri.components()).hasSize(2);
            CompositeUri inner = uri.components().get(0);
            assertThat(inner.isComposite()).isTrue();
            assertThat(inner.scheme()).isEqualTo("static");
            assertThat(inner.components()).extracting(CompositeUri::authority).containsExactly("a:1", "b:2");
            assertThat(uri.components().get(1).isComposite()).isFalse();
            assertThat(uri.components().get(1).authority()).isEqualTo("c:3");
        }

        @Test
        void shouldKeepEachLevelsOptionsWithItsOwnLevel() {
            CompositeUri uri = CompositeUri.parse(
                    "failover:(static:(tcp://a:1?x=1,tcp://b:2)?y=2,tcp://c:3?z=3&z2=4)?w=5");

            assertThat(uri.options()).containsExactly(entry("w", "5"));
            CompositeUri inner = uri.components().get(0);
            assertThat(inner.options()).containsExactly(entry("y", "2"));
            assertThat(inner.components().get(0).options()).containsExactly(entry("x", "1"));
            assertThat(inner.components().get(1).options()).isEmpty();
            assertThat(uri.components().get(1).options()).containsExactly(entry("z", "3"), entry("z2", "4"));
        }

        @Test
        void shouldAcceptWhitespaceAroundComponents() {
            assertThat(CompositeUri.parse("failover:( tcp://a:1 ,\ttcp://b:2 )?x=1"))
                    .isEqualTo(CompositeUri.parse("failover:(tcp://a:1,tcp://b:2)?x=1"));
        }

        @Test
        void shouldAcceptActiveMqShortFormWithoutParenthesesWhereTheQueryBelongsToTheLastComponent() {
            CompositeUri uri = CompositeUri.parse("failover:tcp://a:1,tcp://b:2?x=1");

            assertThat(uri.isComposite()).isTrue();
            assertThat(uri.options()).isEmpty();
            assertThat(uri.components()).extracting(CompositeUri::host).containsExactly("a", "b");
            assertThat(uri.components().get(1).options()).containsExactly(entry("x", "1"));
            assertThat(uri).hasToString("failover:(tcp://a:1,tcp://b:2?x=1)");
        }

        @Test
        void shouldAcceptActiveMqDoubleSlashBeforeParenthesis() {
            assertThat(CompositeUri.parse("failover://(tcp://a:1)?randomize=false"))
                    .isEqualTo(CompositeUri.parse("failover:(tcp://a:1)?randomize=false"));
        }

        @Test
        void shouldRejectPlainAccessorsOnCompositeUri() {
            CompositeUri uri = CompositeUri.parse("failover:(tcp://a:1)");

            assertThatThrownBy(uri::host)
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("host() is undefined for the composite URI 'failover:(tcp://a:1)'");
            assertThatThrownBy(uri::port).isInstanceOf(IllegalStateException.class);
            assertThatThrownBy(uri::path).isInstanceOf(IllegalStateException.class);
            assertThatThrownBy(uri::authority).isInstanceOf(IllegalStateException.class);
        }
    }

    @Nested
    class Options {

        @Test
        void shouldKeepOptionsInTheOrderWrittenAndUnmodifiable() {
            CompositeUri uri = CompositeUri.parse("tcp://a:1?zeta=1&alpha=2&mid=3");

            assertThat(uri.options().keySet()).containsExactly("zeta", "alpha", "mid");
            assertThatThrownBy(() -> uri.options().put("x", "y")).isInstanceOf(UnsupportedOperationException.class);
        }

        @Test
        void shouldDecodeOptionValuesLikeActiveMq() {
            CompositeUri uri = CompositeUri.parse("tcp://a:1?selector=color%3D%27red%27%20AND%20x%3E1"
                    + "&name=caf%C3%A9&space=a+b&plus=a%2Bb&empty=&uri=tcp://x:1&pct=100%25&ke%79=v");

            assertThat(uri.options()).containsExactly(
                    entry("selector", "color='red' AND x>1"),
                    entry("name", "café"),
                    entry("space", "a b"),
                    entry("plus", "a+b"),
                    entry("empty", ""),
                    entry("uri", "tcp://x:1"),
                    entry("pct", "100%"),
                    entry("key", "v"));
        }

        @Test
        void shouldEncodeOptionValuesSoTheRenderingParsesBackToTheSameValues() {
            CompositeUri uri = CompositeUri.parse("tcp://a:1?selector=color%3D%27red%27%20AND%20x%3E1&plus=a%2Bb");

            assertThat(uri).hasToString("tcp://a:1?selector=color%3D%27red%27%20AND%20x%3E1&plus=a%2Bb");
        }

        @Test
        void shouldIgnoreEmptyOptionSegments() {
            assertThat(CompositeUri.parse("tcp://a:1?x=1&&y=2&").options())
                    .containsExactly(entry("x", "1"), entry("y", "2"));
            assertThat(CompositeUri.parse("tcp://a:1?").options()).isEmpty();
        }

        @Test
        void shouldKeepRawCommasInTopLevelOptionsButEncodeThemInsideComponents() {
            CompositeUri uri = CompositeUri.parse(
                    "failover:(tcp://a:1?list=x%2Cy,tcp://b:2)?priorityURIs=tcp://a:1,tcp://b:2");

            assertThat(uri.options()).containsExactly(entry("priorityURIs", "tcp://a:1,tcp://b:2"));
            assertThat(uri.components().get(0).options()).containsExactly(entry("list", "x,y"));
            assertThat(uri).hasToString("failover:(tcp://a:1?list=x%2Cy,tcp://b:2)?priorityURIs=tcp://a:1,tcp://b:2");
        }

        @Test
        void shouldStripPrefixInOptionsWithPrefix() {
            CompositeUri uri = CompositeUri.parse(
                    "tcp://h:1?transport.tcpNoDelay=true&other=1&transport.soTimeout=5&transport.=x");

            assertThat(uri.optionsWithPrefix("transport."))
                    .containsExactly(entry("tcpNoDelay", "true"), entry("soTimeout", "5"));
            assertThat(uri.optionsWithPrefix("nothing.")).isEmpty();
            assertThat(uri.optionsWithPrefix("")).isEqualTo(uri.options());
            assertThatThrownBy(() -> uri.optionsWithPrefix("transport.").put("a", "b"))
                    .isInstanceOf(UnsupportedOperationException.class);
        }

        @Test
        void shouldReplaceOnlyTheTopLevelOptionsWithWithOptions() {
            CompositeUri uri = CompositeUri.parse("failover:(tcp://a:1?x=1)?randomize=true");
            Map<String, String> replacement = new LinkedHashMap<>();
            replacement.put("timeout", "5s");
            replacement.put("note", "a&b");

            CompositeUri changed = uri.withOptions(replacement);

            assertThat(changed.options()).containsExactly(entry("timeout", "5s"), entry("note", "a&b"));
            assertThat(changed.components()).isEqualTo(uri.components());
            assertThat(changed).hasToString("failover:(tcp://a:1?x=1)?timeout=5s&note=a%26b");
            assertThat(uri.options()).containsExactly(entry("randomize", "true"));
            replacement.put("late", "1");
            assertThat(changed.options()).doesNotContainKey("late");
        }

        @Test
        void shouldRemoveOnlyTheTopLevelOptionsWithWithoutOptions() {
            CompositeUri uri = CompositeUri.parse("failover:(tcp://a:1?x=1)?randomize=true");

            assertThat(uri.withoutOptions()).hasToString("failover:(tcp://a:1?x=1)");
            assertThat(CompositeUri.parse("vm://b?create=false").withoutOptions()).hasToString("vm://b");
        }

        @Test
        void shouldRejectInvalidOptionsInWithOptions() {
            CompositeUri uri = CompositeUri.parse("tcp://a:1");
            Map<String, String> nullValue = new LinkedHashMap<>();
            nullValue.put("x", null);

            assertThatThrownBy(() -> uri.withOptions(nullValue))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("value of option 'x' must not be null");
            assertThatThrownBy(() -> uri.withOptions(Map.of("", "1")))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("option key must not be null or empty");
        }
    }

    @Nested
    class RoundTrips {

        @ParameterizedTest
        @ValueSource(strings = {
                "tcp://a:61613",
                "tcp://a:61613?transport.tcpNoDelay=true",
                "vm://embedded",
                "vm://embedded?create=false&waitForStart=5s",
                "ssl://h:61614/stomp?needClientAuth=true",
                "tcp://[::1]:61613",
                "tcp://[::1]",
                "failover:(tcp://a:61613,tcp://b:61613)?randomize=false&maxReconnectDelay=5000",
                "static:(tcp://127.0.0.1:61614,tcp://127.0.0.1:61615)?networkTTL=2&duplex=true",
                "failover:(static:(tcp://a:1,tcp://b:2),tcp://c:3)",
                "failover:(static:(tcp://a:1?x=1,tcp://[::1]:2)?y=%2C,tcp://c:3?z=%28%29)?w=a,b",
                "failover:(failover:(failover:(vm://deep)))",
                "tcp://a:1?selector=color%3D%27red%27&name=caf%C3%A9&plus=a%2Bb&space=a%20b",
                "multicast://239.255.2.3:6155?group=default",
        })
        void shouldRenderCanonicalFormThatParsesBackEqual(String text) {
            CompositeUri uri = CompositeUri.parse(text);

            assertThat(uri).hasToString(text);
            assertThat(CompositeUri.parse(uri.toString())).isEqualTo(uri).hasSameHashCodeAs(uri);
        }

        @ParameterizedTest
        @CsvSource(delimiter = '|', value = {
                "failover:tcp://a:1,tcp://b:2            | failover:(tcp://a:1,tcp://b:2)",
                "failover://(tcp://a:1)?r=1              | failover:(tcp://a:1)?r=1",
                "FAILOVER:( tcp://a:1 , tcp://b:2 )      | failover:(tcp://a:1,tcp://b:2)",
                "tcp://a:1?space=a+b&q=it's              | tcp://a:1?space=a%20b&q=it%27s",
                "tcp://a:01                              | tcp://a:1",
        })
        void shouldRenderOtherSpellingsInCanonicalForm(String text, String canonical) {
            CompositeUri uri = CompositeUri.parse(text);

            assertThat(uri).hasToString(canonical);
            assertThat(CompositeUri.parse(canonical)).isEqualTo(uri);
        }

        @Test
        void shouldRoundTripRandomNestedUrisWithHostileOptionValues() {
            Random random = new Random(20_240_611L);
            for (int i = 0; i < 500; i++) {
                Node node = Node.random(random, 0);
                String text = node.render();

                CompositeUri uri = CompositeUri.parse(text);

                node.assertMatches(uri, text);
                assertThat(CompositeUri.parse(uri.toUnmaskedString())).as(text).isEqualTo(uri);
                assertThat(CompositeUri.parse(uri.toString())).as(text).isEqualTo(uri);
            }
        }
    }

    @Nested
    class Secrets {

        @Test
        void shouldMaskSecretOptionValuesInToStringOnly() {
            CompositeUri uri = CompositeUri.parse("tcp://h:1?login=admin&passcode=s3cret&password=pw1"
                    + "&transport.keyStorePassword=ks1&trustStorePassword=ts1&dbPASSWORD=db1");

            assertThat(uri.toString())
                    .isEqualTo("tcp://h:1?login=admin&passcode=*****&password=*****"
                            + "&transport.keyStorePassword=*****&trustStorePassword=*****&dbPASSWORD=*****");
            assertThat(uri.toUnmaskedString()).contains("passcode=s3cret", "password=pw1",
                    "transport.keyStorePassword=ks1", "trustStorePassword=ts1", "dbPASSWORD=db1");
            assertThat(uri.options()).containsEntry("passcode", "s3cret");
            assertThat(CompositeUri.parse(uri.toUnmaskedString())).isEqualTo(uri);
        }

        @Test
        void shouldMaskSecretsInNestedComponents() {
            CompositeUri uri = CompositeUri.parse("failover:(tcp://a:1?passcode=p1,tcp://b:2)?keyStorePassword=p2");

            assertThat(uri).hasToString("failover:(tcp://a:1?passcode=*****,tcp://b:2)?keyStorePassword=*****");
            assertThat(uri.toUnmaskedString())
                    .isEqualTo("failover:(tcp://a:1?passcode=p1,tcp://b:2)?keyStorePassword=p2");
        }

        @ParameterizedTest
        @ValueSource(strings = {"password", "passcode", "keyStorePassword", "trustStorePassword", "PassWord",
                "transport.keyStorePassword", "proxyPasscode", "secret", "sharedSecret"})
        void shouldTreatPasswordPasscodeAndSecretKeysAsSecret(String key) {
            assertThat(CompositeUri.isSecretOption(key)).isTrue();
        }

        @ParameterizedTest
        @ValueSource(strings = {"login", "passwordFile", "secretFile", "user", "pass"})
        void shouldNotTreatOtherKeysAsSecret(String key) {
            assertThat(CompositeUri.isSecretOption(key)).isFalse();
        }

        @ParameterizedTest
        @ValueSource(strings = {
                "failover:(tcp://a:1?password=hunter2,tcp://b:2?x=1",
                "tcp://a:1?passcode=hunter2&x",
                "tcp://a:70000?keyStorePassword=hunter2",
                "tcp://a:1?trustStorePassword=hunter2&x=1&x=2",
                "failover:(tcp://a:70000?password=hunter2,tcp://b:1)",
                "failover:(tcp://a:1?password=hun(ter2),tcp://b:1)?x",
                "failover:(tcp://a:1)?passcode=hunter2,more)x&x",
                "tcp://admin:hunter2@host:61613",
                "tcp://a:1?password=hunter2#frag",
                "tcp://a:1?password=%zzhunter2",
                // found by UriParserFuzzTest: the malformed host, port or IPv6 address was quoted unmasked
                "vm://broker&password=hunter2",
                "failover:(vm://broker&password=hunter2)",
                "tcp://h:1&passcode=hunter2",
                "tcp://[::1]&passcode=hunter2",
                "tcp://[::1&passcode=hunter2]:1",
                "tcp://h&passcode=hunter2:1",
        })
        void shouldNeverShowSecretsInErrorMessages(String text) {
            assertThatThrownBy(() -> CompositeUri.parse(text))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith("invalid URI '")
                    .hasMessageContaining("*****")
                    .hasMessageNotContaining("hunter2")
                    .hasMessageNotContaining("ter2");
        }

        @Test
        void shouldMaskSecretButKeepTheRestOfTheUriInErrorMessages() {
            assertThatThrownBy(() -> CompositeUri.parse("failover:(tcp://a:1?password=hunter2,tcp://b:2?x=1"))
                    .hasMessage("invalid URI 'failover:(tcp://a:1?password=*****,tcp://b:2?x=1': "
                            + "unbalanced parentheses: missing ')'");
        }
    }

    @Nested
    class Errors {

        @Test
        void shouldRejectNull() {
            assertThatThrownBy(() -> CompositeUri.parse(null))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("URI must not be null");
        }

        @ParameterizedTest
        @ValueSource(strings = {"", "   ", "\t\n"})
        void shouldRejectBlankInput(String text) {
            assertThatThrownBy(() -> CompositeUri.parse(text))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith("URI must not be blank, but was '");
        }

        @ParameterizedTest
        @CsvSource(delimiter = '|', value = {
                "//host:61613          | missing scheme",
                "host                  | missing scheme",
                "://host               | missing scheme",
                "localhost:61613       | missing scheme, expected e.g. 'tcp://localhost:61613'",
                "127.0.0.1:61613       | missing scheme, expected e.g. 'tcp://127.0.0.1:61613'",
                "1tcp://a:1            | scheme must start with a letter, but was '1tcp'",
                "tcp:host              | expected '//' or '(' after 'tcp:' at position 4",
                "tcp:                  | expected '//' or '(' after 'tcp:' at position 4",
        })
        void shouldRejectMissingOrInvalidScheme(String text, String problem) {
            assertThatThrownBy(() -> CompositeUri.parse(text))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith("invalid URI '" + text + "': ")
                    .hasMessageContaining(problem);
        }

        @Test
        void shouldRejectMissingClosingParenthesisNamingTheWholeUri() {
            assertThatThrownBy(() -> CompositeUri.parse("failover:(tcp://a:1,tcp://b:2?x=1"))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("invalid URI 'failover:(tcp://a:1,tcp://b:2?x=1': unbalanced parentheses: missing ')'");
        }

        @ParameterizedTest
        @CsvSource(delimiter = '|', value = {
                "failover:(static:(tcp://a:1,tcp://b:2)   | unbalanced parentheses: missing ')'",
                "failover:tcp://a:1,static:(tcp://b:2     | unbalanced parentheses: missing ')'",
                "failover:(tcp://a:1))                    | unbalanced parentheses: unexpected ')' at position 20",
                "tcp://a:1)                               | unbalanced parentheses: unexpected ')' at position 9",
                "failover:tcp://a:1)                      | unbalanced parentheses: unexpected ')' at position 18",
                "tcp://a(:1                               | unbalanced parentheses: unexpected '(' at position 7",
        })
        void shouldRejectUnbalancedParentheses(String text, String problem) {
            assertThatThrownBy(() -> CompositeUri.parse(text))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith("invalid URI '" + text + "': ")
                    .hasMessageContaining(problem);
        }

        @ParameterizedTest
        @CsvSource(delimiter = '|', value = {
                "failover:(tcp://a:1,,tcp://b:2)   | 20",
                "failover:(,tcp://b:2)             | 10",
                "failover:(tcp://a:1,)             | 20",
                "failover:()                       | 10",
                "failover:(tcp://a:1,  ,tcp://b:2) | 20",
        })
        void shouldRejectEmptyComponentNamingItsPosition(String text, int position) {
            assertThatThrownBy(() -> CompositeUri.parse(text))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("invalid URI '" + text + "': empty component at position " + position);
        }

        @Test
        void shouldNameTheComponentThatIsWrong() {
            assertThatThrownBy(() -> CompositeUri.parse("failover:(tcp://a:1,tcp://b:70000)"))
                    .hasMessage("invalid URI 'failover:(tcp://a:1,tcp://b:70000)': component 'tcp://b:70000' "
                            + "at position 20: port must be 0-65535, but was 70000");
            assertThatThrownBy(() -> CompositeUri.parse("failover:(static:(tcp://a:1,,tcp://b:2),tcp://c:3)"))
                    .hasMessageContaining("component 'static:(tcp://a:1,,tcp://b:2)' at position 10: "
                            + "empty component at position 28");
            assertThatThrownBy(() -> CompositeUri.parse("static:(tcp://a:1,b:2)"))
                    .hasMessageContaining("component 'b:2' at position 18: missing scheme");
        }

        @ParameterizedTest
        @CsvSource(delimiter = '|', value = {
                "tcp://a:1?x                | option 'x' has no value",
                "tcp://a:1?a=1&x&b=2        | option 'x' has no value",
                "failover:(tcp://a:1)?x     | option 'x' has no value",
                "tcp://a:1?=1               | option at position 10 has no name",
                "tcp://a:1?x=1&x=2          | duplicate option 'x'",
                "tcp://a:1?x=1&%78=2        | duplicate option 'x'",
                "tcp://a:1?x=%zz            | option 'x' has a malformed percent-encoding at position 12",
                "tcp://a:1?x=ab%2           | option 'x' has a malformed percent-encoding at position 14",
                "tcp://a:1?x=%E2%82         | option 'x' has a malformed percent-encoding at position 12",
                "tcp://a:1?%zz=1            | malformed percent-encoding in an option name at position 10",
        })
        void shouldRejectMalformedOptions(String text, String problem) {
            assertThatThrownBy(() -> CompositeUri.parse(text))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("invalid URI '" + text + "': " + problem);
        }

        @ParameterizedTest
        @CsvSource(delimiter = '|', value = {
                "tcp://a:70000              | port must be 0-65535, but was 70000",
                "tcp://a:99999999999        | port must be 0-65535, but was 99999999999",
                "tcp://a:abc                | port must be a number 0-65535, but was 'abc'",
                "tcp://a:-1                 | port must be a number 0-65535, but was '-1'",
                "tcp://a:                   | port must be a number 0-65535, but was ''",
                "tcp://[::1]:65536          | port must be 0-65535, but was 65536",
        })
        void shouldRejectInvalidPorts(String text, String problem) {
            assertThatThrownBy(() -> CompositeUri.parse(text))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("invalid URI '" + text + "': " + problem);
        }

        @ParameterizedTest
        @CsvSource(delimiter = '|', value = {
                "tcp://:61613            | missing host at position 6",
                "tcp://                  | missing host at position 6",
                "tcp://?x=1              | missing host at position 6",
                "tcp://a!b:1             | illegal character '!' in host 'a!b' at position 7",
                "tcp://::1:61613         | must be enclosed in brackets, e.g. 'tcp://[::1]:61613'",
                "tcp://[zz::1]:1         | invalid IPv6 address '[zz::1]' at position 6",
                "tcp://[::1:1            | missing ']' after IPv6 address at position 6",
                "tcp://[::1]x            | unexpected 'x' after IPv6 address at position 11",
                "tcp://a:1/p,q           | illegal character ',' in path at position 11",
                "tcp://a:1#frag          | illegal character '#' at position 9",
                "tcp://a:1?x=a b         | illegal whitespace at position 13",
                "tcp://a :1              | illegal whitespace at position 7",
                "failover:(tcp://a:1) ?x=1 | illegal whitespace at position 20",
                "failover: (tcp://a:1)   | illegal whitespace at position 9",
                "failover:(tcp://a:1)x   | unexpected 'x' at position 20, expected '?' or the end after ')'",
        })
        void shouldRejectMalformedAuthoritiesAndStructure(String text, String problem) {
            assertThatThrownBy(() -> CompositeUri.parse(text))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith("invalid URI '" + text + "': ")
                    .hasMessageContaining(problem);
        }

        @Test
        void shouldRejectUserInfoWithoutShowingIt() {
            assertThatThrownBy(() -> CompositeUri.parse("tcp://admin:s3cret@host:61613"))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("invalid URI 'tcp://*****@host:61613': user info ('*****@') is not supported; "
                            + "pass credentials as options, e.g. 'login' and 'passcode'");
        }

        // Regressions found by UriParserFuzzTest.

        @Test
        void shouldRejectDeepNestingInsteadOfOverflowingTheStack() {
            String deep = "failover:(".repeat(10_000) + "tcp://a:1" + ")".repeat(10_000);
            assertThatThrownBy(() -> CompositeUri.parse(deep))
                    .isExactlyInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("composite URIs nest more than 32 levels deep at position 330");
            assertThatThrownBy(() -> CompositeUri.parse("failover:".repeat(10_000) + "tcp://a:1"))
                    .isExactlyInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("composite URIs nest more than 32 levels deep at position 297");
            String limit = "failover:(".repeat(32) + "tcp://a:1" + ")".repeat(32);
            assertThat(CompositeUri.parse(limit).components()).hasSize(1);
        }

        @ParameterizedTest
        @CsvSource(delimiter = '|', value = {
                "tcp://a:1?x=a\uD83D         | option 'x' has an unpaired surrogate U+D83D at position 13",
                "tcp://a:1?x=\uDE00b         | option 'x' has an unpaired surrogate U+DE00 at position 12",
                "tcp://a:1?\uD83Dx=1         | unpaired surrogate U+D83D in an option name at position 10",
        })
        void shouldRejectUnpairedSurrogatesWhichCannotBeRenderedBack(String text, String problem) {
            assertThatThrownBy(() -> CompositeUri.parse(text))
                    .isExactlyInstanceOf(IllegalArgumentException.class)
                    .hasMessageEndingWith(problem);
            CompositeUri paired = CompositeUri.parse("tcp://a:1?x=a\uD83D\uDE00");
            assertThat(paired.options()).containsEntry("x", "a\uD83D\uDE00");
            assertThat(CompositeUri.parse(paired.toUnmaskedString())).isEqualTo(paired);
        }
    }

    /** A random URI tree with the values it must parse to, for the generated round-trip test. */
    private record Node(String scheme, String host, int port, Map<String, String> options, List<Node> children) {

        private static final String[] HOSTILE = {",", "(", ")", "&", "=", "?", "+", "%", " ", "#", "'", "é", "€",
                "😀", ":", "/", "a", "Z", "9", "-", "*", "\"", "\\", ";", "@"};

        static Node random(Random random, int depth) {
            Map<String, String> options = new LinkedHashMap<>();
            int optionCount = random.nextInt(4);
            for (int i = 0; i < optionCount; i++) {
                String key = (random.nextInt(5) == 0 ? "transport." : "") + "k" + i + hostile(random, 2);
                options.put(key, hostile(random, random.nextInt(6)));
            }
            if (depth < 3 && random.nextInt(3) == 0) {
                List<Node> children = new ArrayList<>();
                int childCount = 1 + random.nextInt(3);
                for (int i = 0; i < childCount; i++) {
                    children.add(random(random, depth + 1));
                }
                return new Node(random.nextBoolean() ? "failover" : "static", null, -1, options, children);
            }
            String host = random.nextInt(4) == 0 ? "::" + random.nextInt(1000) : "h" + random.nextInt(1000);
            return new Node(random.nextBoolean() ? "tcp" : "vm", host, random.nextInt(3) == 0 ? -1
                    : random.nextInt(65_536), options, List.of());
        }

        private static String hostile(Random random, int length) {
            StringBuilder sb = new StringBuilder();
            for (int i = 0; i < length; i++) {
                sb.append(HOSTILE[random.nextInt(HOSTILE.length)]);
            }
            return sb.toString();
        }

        String render() {
            StringBuilder sb = new StringBuilder(scheme).append(':');
            if (children.isEmpty()) {
                sb.append("//").append(host.contains(":") ? "[" + host + "]" : host);
                if (port >= 0) {
                    sb.append(':').append(port);
                }
            } else {
                sb.append(children.stream().map(Node::render).collect(Collectors.joining(",", "(", ")")));
            }
            if (!options.isEmpty()) {
                sb.append(options.entrySet().stream()
                        .map(e -> encode(e.getKey()) + "=" + encode(e.getValue()))
                        .collect(Collectors.joining("&", "?", "")));
            }
            return sb.toString();
        }

        private static String encode(String text) {
            return URLEncoder.encode(text, StandardCharsets.UTF_8);
        }

        void assertMatches(CompositeUri uri, String text) {
            assertThat(uri.scheme()).as(text).isEqualTo(scheme);
            assertThat(uri.options()).as(text).containsExactlyEntriesOf(options);
            assertThat(uri.isComposite()).as(text).isEqualTo(!children.isEmpty());
            if (children.isEmpty()) {
                assertThat(uri.host()).as(text).isEqualTo(host);
                assertThat(uri.port()).as(text).isEqualTo(port);
            } else {
                assertThat(uri.components()).as(text).hasSameSizeAs(children);
                for (int i = 0; i < children.size(); i++) {
                    children.get(i).assertMatches(uri.components().get(i), text);
                }
            }
        }
    }
}
