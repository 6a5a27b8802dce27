package io.fedbridge.core.selector;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.fedbridge.core.testing.SoakTries;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
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
 * Fuzzes {@link Selector#parse} ({@link Parser}, {@link Lexer}) and evaluation: any text either parses or is
 * rejected with an {@link InvalidSelectorException} naming a position inside it; deep nesting is a clear error,
 * not a stack overflow; a parsed selector evaluates against any headers without throwing, and never matches
 * together with its negation.
 */
@AddLifecycleHook(SoakTries.class)
class ParserFuzzTest {

    private static final List<String> VALID = List.of(
            "JMSPriority > 4 AND region IN ('eu', 'us') AND sku LIKE 'A-%'",
            "color = 'red' OR (price BETWEEN 1 AND 10.5 AND NOT qty IS NULL)",
            "a + b * -c / 2 >= 1e3 OR x NOT LIKE '\\_%' ESCAPE '\\'",
            "JMSDeliveryMode = 'PERSISTENT' AND JMSXGroupID <> 'g' AND flag = TRUE",
            "NOT (a = b) AND name NOT IN ('it''s') AND -(+n) < 9223372036854775807",
            "x IS NOT NULL OR y NOT BETWEEN -1 AND .5 OR JMSType = 'order'",
            "flag");

    private static final List<String> TOKENS = List.of(
            "a", "b", "color", "price", "JMSPriority", "JMSDeliveryMode", "JMSTimestamp", "JMSFoo", "JMSXGroupID",
            "JMS_x", "$x", "_y", "\u00e9t\u00e9", "correlation-id", "AND", "or", "Not", "BETWEEN", "LIKE", "ESCAPE",
            "IN", "IS", "NULL", "TRUE", "false", "'x'", "'it''s'", "''", "'%a_'", "'\\'", "'unterminated", "42", "-7",
            "1.5", ".5", "7.", "1e3", "1e", "1e+", "9223372036854775807", "9223372036854775808", "-9223372036854775808",
            "1e999", "0x10", "10L", "=", "<>", "<", "<=", ">", ">=", "+", "-", "*", "/", "(", ")", ",", "!=", "&&",
            "||", "\"", ".", "!", "\t", "\n", "\u00a0", "\ud83d", "\ud83d\ude00", "\0");

    private static final List<String> HEADER_NAMES = List.of("a", "b", "c", "n", "x", "y", "qty", "color", "price",
            "region", "sku", "name", "flag", "priority", "persistent", "type", "JMSXGroupID");

    private static final List<String> HEADER_VALUES = List.of("1", "-1", "0", "1.5", "-0.0", "1e3", "1e999", "abc",
            "true", "FALSE", "", " 1", "9223372036854775807", "9223372036854775808", "-9223372036854775808", "NaN",
            "Infinity", "%", "_", "red", "eu", "A-1", "it's", "\u00e9", "\ud83d");

    private static final List<String> IDENTIFIERS = List.of("a", "b", "n", "x", "qty", "color", "price", "flag",
            "JMSPriority", "JMSType", "JMSXGroupID");

    private static final List<String> LIKE_PATTERNS = List.of("'%'", "'r_d'", "'%e%'", "'a\\%' ESCAPE '\\'", "''",
            "'_%_'");

    // ------------------------------------------------------------------------------------------- properties

    @Property(tries = 3000)
    void tokenSoupIsParsedOrRejected(@ForAll("soup") String text, @ForAll("headers") Map<String, String> headers) {
        parseOrReject(text).ifPresent(s -> checkEvaluation(s, headers));
    }

    @Property(tries = 1000)
    void arbitraryTextIsParsedOrRejected(@ForAll String text) {
        parseOrReject(text);
    }

    @Property(tries = 2000)
    void mutatedValidSelectorsAreParsedOrRejected(@ForAll("valid") String selector, @ForAll("edits") List<Edit> edits,
                                                  @ForAll("headers") Map<String, String> headers) {
        String text = selector;
        for (Edit e : edits) {
            text = e.apply(text);
        }
        parseOrReject(text).ifPresent(s -> checkEvaluation(s, headers));
    }

    @Property(tries = 1000)
    void validSelectorsEvaluateAgainstAnyHeaders(@ForAll("valid") String selector,
                                                 @ForAll("headers") Map<String, String> headers) {
        checkEvaluation(Selector.parse(selector), headers);
    }

    @Property(tries = 2000)
    void generatedValidSelectorsParseAndEvaluate(@ForAll("conditions") String selector,
                                                @ForAll("headers") Map<String, String> headers) {
        assertThat(parseOrReject(selector)).as("parses: %s", selector).isPresent();
        checkEvaluation(Selector.parse(selector), headers);
    }

    // ------------------------------------------------------------------------------------------- large inputs

    @Example
    void deepNestingIsAClearErrorNotAStackOverflow() {
        assertRejectedQuickly("(".repeat(100_000) + "a" + ")".repeat(100_000), "exceeding the maximum length of 8192");
        assertRejectedQuickly("(".repeat(4000) + "a" + ")".repeat(4000), "maximum nesting depth of 200");
        assertRejectedQuickly("NOT ".repeat(2000) + "a", "maximum nesting depth of 200");
        assertRejectedQuickly("a = " + "-".repeat(8000) + "1", "maximum nesting depth of 200");
        assertRejectedQuickly("1" + "+1".repeat(4000) + " = a", "maximum nesting depth of 200");
        assertRejectedQuickly("(a = 1) = ".repeat(800) + "TRUE", "comparisons cannot be chained");
        assertRejectedQuickly("'" + "''".repeat(4000), "unterminated string literal");
        assertRejectedQuickly("a IN (" + "'x',".repeat(1600) + ")", "expected a string literal in the IN list");
    }

    @Example
    void largestSelectorsParseAndEvaluate() {
        Map<String, String> headers = Map.of("a", "1", "s", "a".repeat(64 << 10));
        assertTimeoutPreemptively(Duration.ofSeconds(30), () -> {
            String nested = "(".repeat(199) + "a = 1" + ")".repeat(199);
            assertThat(Selector.parse(nested).matches(headers::get)).isTrue();
            String chain = "a = 2" + " OR a = 2".repeat(900) + " OR a = 1";
            assertThat(Selector.parse(chain).matches(headers::get)).isTrue();
            String like = "s LIKE '" + "%a".repeat(4000) + "b'";
            assertThat(Selector.parse(like).matches(headers::get)).isFalse();
        });
    }

    // ------------------------------------------------------------------------------------------- the checks

    private static Optional<Selector> parseOrReject(String text) {
        try {
            Selector selector = Selector.parse(text);
            assertThat(Selector.parse(selector.expression())).as("the stripped expression parses").isEqualTo(selector);
            return Optional.of(selector);
        } catch (InvalidSelectorException e) {
            assertThat(e.reason()).isNotBlank();
            assertThat(e.position()).isBetween(0, text.length());
            assertThat(e.expression()).isEqualTo(text);
            assertThat(e.getMessage()).startsWith("invalid selector '").contains("at position " + e.position() + ": ");
            return Optional.empty();
        }
    }

    /** Evaluation never throws, and a selector never matches together with its negation (three-valued logic). */
    private static void checkEvaluation(Selector selector, Map<String, String> headers) {
        boolean matches = selector.matches(headers::get);
        parseOrReject("NOT (" + selector.expression() + ")").ifPresent(negated ->
                assertThat(matches && negated.matches(headers::get)).as("S and NOT (S) both match").isFalse());
    }

    private static void assertRejectedQuickly(String text, String reason) {
        assertTimeoutPreemptively(Duration.ofSeconds(30), () -> assertThatThrownBy(() -> Selector.parse(text))
                .isExactlyInstanceOf(InvalidSelectorException.class)
                .hasMessageContaining(reason));
    }

    // ------------------------------------------------------------------------------------------- generators

    @Provide
    Arbitrary<String> soup() {
        Arbitrary<String> token = Arbitraries.of(TOKENS);
        Arbitrary<String> separator = Arbitraries.of(" ", " ", " ", "", "  ");
        return Combinators.combine(
                        Arbitraries.frequencyOf(Tuple.of(8, token), Tuple.of(1, Arbitraries.strings().ofMaxLength(2)))
                                .list().ofMaxSize(25),
                        separator.list().ofSize(25))
                .as((tokens, separators) -> {
                    StringBuilder sb = new StringBuilder();
                    for (int i = 0; i < tokens.size(); i++) {
                        sb.append(tokens.get(i)).append(separators.get(i));
                    }
                    return sb.toString();
                });
    }

    @Provide
    Arbitrary<String> valid() {
        return Arbitraries.of(VALID);
    }

    /** Well-typed selectors built from the grammar, a few levels deep. */
    @Provide
    Arbitrary<String> conditions() {
        return condition(4);
    }

    private static Arbitrary<String> condition(int depth) {
        Arbitrary<String> header = Arbitraries.of(IDENTIFIERS);
        Arbitrary<String> string = Arbitraries.oneOf(header, Arbitraries.of("'red'", "''", "'it''s'", "'1'", "'\u00e9'"));
        Arbitrary<String> number = number(2);
        Arbitrary<String> leaf = Arbitraries.oneOf(
                header,
                Arbitraries.of("TRUE", "FALSE", "JMSDeliveryMode = 'PERSISTENT'"),
                Combinators.combine(number, Arbitraries.of("=", "<>", "<", "<=", ">", ">="), number)
                        .as((a, op, b) -> a + " " + op + " " + b),
                Combinators.combine(string, Arbitraries.of("=", "<>"), string).as((a, op, b) -> a + " " + op + " " + b),
                Combinators.combine(header, Arbitraries.of("= TRUE", "<> FALSE", "IS NULL", "IS NOT NULL"))
                        .as((h, rest) -> h + " " + rest),
                Combinators.combine(string, Arbitraries.of("", "NOT "), Arbitraries.of(LIKE_PATTERNS))
                        .as((v, not, p) -> v + " " + not + "LIKE " + p),
                Combinators.combine(string, Arbitraries.of("", "NOT "), Arbitraries.of("('red')", "('eu', 'us', '')"))
                        .as((v, not, list) -> v + " " + not + "IN " + list),
                Combinators.combine(number, Arbitraries.of("", "NOT "), number, number)
                        .as((v, not, lo, hi) -> v + " " + not + "BETWEEN " + lo + " AND " + hi));
        if (depth == 0) {
            return leaf;
        }
        Arbitrary<String> inner = Arbitraries.lazy(() -> condition(depth - 1));
        return Arbitraries.oneOf(leaf, leaf,
                Combinators.combine(inner, Arbitraries.of("AND", "OR"), inner)
                        .as((a, op, b) -> "(" + a + ") " + op + " (" + b + ")"),
                inner.map(c -> "NOT (" + c + ")"));
    }

    private static Arbitrary<String> number(int depth) {
        Arbitrary<String> leaf = Arbitraries.oneOf(
                Arbitraries.of(IDENTIFIERS),
                Arbitraries.of("0", "1", "-2", "1.5", ".5", "7.", "1e3", "-1e-3", "9223372036854775807",
                        "-9223372036854775808", "NULL"));
        if (depth == 0) {
            return leaf;
        }
        Arbitrary<String> inner = Arbitraries.lazy(() -> number(depth - 1));
        return Arbitraries.oneOf(leaf, leaf,
                Combinators.combine(inner, Arbitraries.of("+", "-", "*", "/"), inner)
                        .as((a, op, b) -> "(" + a + " " + op + " " + b + ")"),
                inner.map(n -> "-" + n), inner.map(n -> "+" + n));
    }

    @Provide
    Arbitrary<Map<String, String>> headers() {
        return Arbitraries.maps(Arbitraries.of(HEADER_NAMES), Arbitraries.of(HEADER_VALUES)).ofMaxSize(10)
                .map(HashMap::new);
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

    /** One edit of a selector at {@code position} (taken modulo its length). */
    record Edit(EditKind kind, int position, int length, String token) {

        String apply(String in) {
            int at = position % (in.length() + 1);
            int end = Math.min(in.length(), at + length);
            return switch (kind) {
                case INSERT -> in.substring(0, at) + " " + token + " " + in.substring(at);
                case DELETE -> in.substring(0, at) + in.substring(end);
                case REPLACE -> in.substring(0, at) + token + in.substring(end);
                case DUPLICATE -> in.substring(0, end) + in.substring(at);
                case WRAP -> (length % 2 == 0 ? "NOT " : "") + "(" + in + ")" + (length % 3 == 0 ? " AND " + token : "");
            };
        }
    }
}
