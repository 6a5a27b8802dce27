package io.fedbridge.core.uri;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.fedbridge.core.testing.Fuzz;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * Fuzzes {@link CompositeUri#parse} ({@link UriParser}): any text either parses into a URI that renders and
 * re-parses to itself, or is rejected with an {@link IllegalArgumentException} that quotes the URI, names the
 * problem and never shows a secret option's value; nothing else is thrown, deep nesting included, and large
 * inputs finish in linear time. Inputs come from {@link Fuzz}: the same ones in every build, fifty times as many
 * with {@code -Dfedbridge.soak=true}.
 */
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

    @Test
    void tokenSoupIsParsedOrRejected() {
        Fuzz.run("tokenSoupIsParsedOrRejected", Fuzz.tries(2000), random -> parseOrReject(soup(random)));
    }

    @Test
    void arbitraryTextIsParsedOrRejected() {
        Fuzz.run("arbitraryTextIsParsedOrRejected", Fuzz.tries(1000), random ->
                parseOrReject(Fuzz.anyString(random, 255)));
    }

    @Test
    void mutatedValidUrisAreParsedOrRejected() {
        Fuzz.run("mutatedValidUrisAreParsedOrRejected", Fuzz.tries(3000), random -> {
            String input = Fuzz.pick(random, VALID);
            for (Edit e : edits(random)) {
                input = e.apply(input);
            }
            parseOrReject(input);
        });
    }

    @Test
    void validUrisParse() {
        for (String uri : VALID) {
            assertThat(parseOrReject(uri)).as(uri).isPresent();
        }
    }

    // ------------------------------------------------------------------------------------------- large inputs

    @Test
    void deepNestingIsRejectedNotAStackOverflow() {
        int n = 100_000;
        String nested = "failover:(".repeat(n) + "tcp://a:1" + ")".repeat(n);
        assertRejectedQuickly(nested, "nest");
        assertRejectedQuickly("failover:".repeat(n) + "tcp://a:1", "nest");
        assertRejectedQuickly("failover://(".repeat(n) + "tcp://a:1" + ")".repeat(n), "nest");
        assertRejectedQuickly("failover:(" + "(".repeat(n) + "tcp://a:1", "missing ')'");
        assertRejectedQuickly("failover:(tcp://a:1" + ")".repeat(n), "unexpected ')'");
    }

    @Test
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

    /** Up to 30 pieces: tokens six times in seven, else up to 3 random characters. */
    private static String soup(Random random) {
        return Fuzz.concat(random, 0, 30, r -> Fuzz.oneIn(r, 7) ? Fuzz.anyString(r, 3) : Fuzz.pick(r, TOKENS));
    }

    private static List<Edit> edits(Random random) {
        return Fuzz.list(random, 1, 4, r -> new Edit(Fuzz.pick(r, EditKind.class), Fuzz.between(r, 0, 1000),
                Fuzz.between(r, 1, 10), Fuzz.pick(r, TOKENS)));
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
