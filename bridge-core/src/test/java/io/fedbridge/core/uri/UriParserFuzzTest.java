package io.fedbridge.core.uri;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.fedbridge.core.testing.SoakTries;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.lifecycle.AddLifecycleHook;

/**
 * Fuzzes {@link CompositeUri#parse} ({@link UriParser}): any text either parses into a URI that renders and
 * re-parses to itself, or is rejected with an {@link IllegalArgumentException} that quotes the URI, names the
 * problem and never shows a secret option's value; nothing else is thrown, deep nesting included, and large
 * inputs finish in linear time.
 */
@AddLifecycleHook(SoakTries.class)
class UriParserFuzzTest {

    private static final String SECRET = "s3cr3tXYZ";

    private static final List<String> VALID = List.of(
            "static:(tcp://a:1,tcp://b:2)?networkTTL=2",
            "failover:(tcp://a:61613,tcp://b:61613)?randomize=false&maxReconnectAttempts=3",
            "failover:(static:(tcp://a:1,tcp://b:2),tcp://c:3)?initialReconnectDelay=10ms",
            "failover://(tcp://a:1?x=1, tcp://b:2)",
            "failover:tcp://a:1,tcp://b:2?k=v",
            "tcp://[::1]:61613?transport.tcpNoDelay=true",
            "ssl://[fe80::1%25eth0]:61614?keyStorePassword=" + SECRET + "&trustStore=a%20b.p12",
            "vm://broker1/path/x?name=%E2%82%AC+x&passcode=" + SECRET,
            "failover:(tcp://a:1?password=" + SECRET + ",tcp://b:2)?priorityURIs=tcp://a:1,tcp://b:2",
            "multicast://224.1.2.3:6155?group=default",
            "tcp://host:0001/?a=%2B%26%3D&b=");

    /** What random and mutated URIs are made of: the grammar's delimiters, escapes good and bad, odd characters. */
    private static final List<String> TOKENS = List.of(
            "(", ")", "((", "))", ",", ",,", "?", "&", "=", "%", "%2", "%ZZ", "%41", "%C3", "%C3%A9", "%E2%82",
            "%ED%A0%80", "%00", "[", "]", "[::1]", ":", "::", "//", "/", "#", " ", "\t", "\n", "+", "@", "user@",
            "failover:(", "static:", "tcp://", "tcp://h:1", "a:1", "vm://x", "?passcode=", "&password=x",
            "\u00e9", "\ud83d", "\ude00", "\ud83d\ude00", "\0", "0", "65536", "99999999999", "x", "-", ".", "~");

    // ------------------------------------------------------------------------------------------- properties

    @Property(tries = 2000)
    void tokenSoupIsParsedOrRejected(@ForAll("soup") String input) {
        parseOrReject(input);
    }

    @Property(tries = 1000)
    void arbitraryTextIsParsedOrRejected(@ForAll String input) {
        parseOrReject(input);
    }

    @Property(tries = 3000)
    void mutatedValidUrisAreParsedOrRejected(@ForAll("valid") String uri, @ForAll("edits") List<Edit> edits) {
        String input = uri;
        for (Edit e : edits) {
            input = e.apply(input);
        }
        parseOrReject(input);
    }

    @Property(tries = 500)
    void validUrisParse(@ForAll("valid") String uri) {
        assertThat(parseOrReject(uri)).isPresent();
    }

    // ------------------------------------------------------------------------------------------- large inputs

    @Example
    void deepNestingIsRejectedNotAStackOverflow() {
        int n = 100_000;
        String nested = "failover:(".repeat(n) + "tcp://a:1" + ")".repeat(n);
        assertRejectedQuickly(nested, "nest");
        assertRejectedQuickly("failover:".repeat(n) + "tcp://a:1", "nest");
        assertRejectedQuickly("failover://(".repeat(n) + "tcp://a:1" + ")".repeat(n), "nest");
        assertRejectedQuickly("failover:(" + "(".repeat(n) + "tcp://a:1", "missing ')'");
        assertRejectedQuickly("failover:(tcp://a:1" + ")".repeat(n), "unexpected ')'");
    }

    @Example
    void largeInputsFinishInLinearTime() {
        // 4 MiB each: these took a minute when every percent-escape run or component looked at the rest of the input
        assertParsesQuickly("tcp://h:1?k=" + "%41a".repeat(1 << 20));
        assertParsesQuickly("failover:(" + "tcp://a:1,".repeat(400_000) + "tcp://b:2)");
        int n = 1 << 20;
        assertParsesQuickly("tcp://h:1?k=" + "%41".repeat(n / 3));
        assertParsesQuickly("tcp://h:1?k=" + "+".repeat(n));
        assertParsesQuickly("tcp://h:1?" + IntStream.range(0, n / 16).mapToObj(i -> "k" + i + "=v")
                .collect(Collectors.joining("&")));
        assertParsesQuickly("tcp://" + "h".repeat(n) + ":1");
        assertRejectedQuickly("failover:(" + ",".repeat(n) + ")", "empty component");
        assertRejectedQuickly("tcp://h:1?" + "&password=x".repeat(n / 11) + "#", "'#'");
        assertRejectedQuickly("//".repeat(n / 2) + "@", "missing scheme");
        assertRejectedQuickly("tcp://h:1?" + "?&".repeat(n / 2) + "=", "has no value");
    }

    // ------------------------------------------------------------------------------------------- the checks

    /** Parses, or checks the rejection; a parsed URI must render to text that parses back to an equal URI. */
    private static Optional<CompositeUri> parseOrReject(String input) {
        CompositeUri uri;
        try {
            uri = CompositeUri.parse(input);
        } catch (IllegalArgumentException e) {
            assertThat(e).isExactlyInstanceOf(IllegalArgumentException.class);
            assertThat(e.getMessage()).matches("(?s)(invalid URI '.*': \\S.*|URI must not be blank, but was '.*')");
            int secret = input.indexOf(SECRET);
            if (secret >= 0 && secret == input.lastIndexOf(SECRET) && input.startsWith("passcode=", secret - 9)
                    && "?&".indexOf(input.charAt(secret - 10)) >= 0) {
                assertThat(e.getMessage()).as("the secret is masked").doesNotContain(SECRET);
            }
            return Optional.empty();
        }
        checkRoundTrip(uri);
        return Optional.of(uri);
    }

    private static void checkRoundTrip(CompositeUri uri) {
        assertThat(CompositeUri.parse(uri.toUnmaskedString())).as("parse(toUnmaskedString())").isEqualTo(uri);
        CompositeUri masked = CompositeUri.parse(uri.toString());
        assertThat(masked.scheme()).isEqualTo(uri.scheme());
        if (uri.isComposite()) {
            uri.components().forEach(UriParserFuzzTest::checkRoundTrip);
        } else {
            assertThat(uri.authority()).isNotEmpty();
            assertThat(uri.port()).isBetween(-1, 65_535);
            assertThat(uri.path()).isNotNull();
        }
    }

    private static void assertRejectedQuickly(String input, String problem) {
        assertTimeoutPreemptively(Duration.ofSeconds(30), () ->
                assertThatThrownBy(() -> CompositeUri.parse(input))
                        .isExactlyInstanceOf(IllegalArgumentException.class)
                        .hasMessageContaining(problem));
    }

    private static void assertParsesQuickly(String input) {
        assertTimeoutPreemptively(Duration.ofSeconds(30), () -> CompositeUri.parse(input));
    }

    // ------------------------------------------------------------------------------------------- generators

    @Provide
    Arbitrary<String> soup() {
        Arbitrary<String> token = Arbitraries.of(TOKENS);
        Arbitrary<String> random = Arbitraries.strings().ofMaxLength(3);
        return Arbitraries.frequencyOf(Tuple.of(6, token), Tuple.of(1, random)).list().ofMaxSize(30)
                .map(parts -> String.join("", parts));
    }

    @Provide
    Arbitrary<String> valid() {
        return Arbitraries.of(VALID);
    }

    @Provide
    Arbitrary<List<Edit>> edits() {
        Arbitrary<Edit> edit = Combinators.combine(
                Arbitraries.of(EditKind.class),
                Arbitraries.integers().between(0, 1000),
                Arbitraries.integers().between(1, 10),
                Arbitraries.of(TOKENS)).as(Edit::new);
        return edit.list().ofMinSize(1).ofMaxSize(4);
    }

    enum EditKind { INSERT, DELETE, REPLACE, DUPLICATE, WRAP }

    /** One edit of a string at {@code position} (taken modulo its length). */
    record Edit(EditKind kind, int position, int length, String token) {

        String apply(String in) {
            int at = position % (in.length() + 1);
            int end = Math.min(in.length(), at + length);
            return switch (kind) {
                case INSERT -> in.substring(0, at) + token + in.substring(at);
                case DELETE -> in.substring(0, at) + in.substring(end);
                case REPLACE -> in.substring(0, at) + token + in.substring(end);
                case DUPLICATE -> in.substring(0, end) + in.substring(at);
                case WRAP -> "failover:(" + in + (length % 2 == 0 ? ")" : ",tcp://z:9)") + (length % 3 == 0 ? "?k=v" : "");
            };
        }
    }
}
