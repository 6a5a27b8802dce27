package io.fedbridge.core.selector;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.fedbridge.core.testing.Fuzz;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Fuzzes {@link Selector#parse} ({@link Parser}, {@link Lexer}) and evaluation: any text either parses or is
 * rejected with an {@link InvalidSelectorException} naming a position inside it; deep nesting is a clear error,
 * not a stack overflow; a parsed selector evaluates against any headers without throwing, and never matches
 * together with its negation. Inputs come from {@link Fuzz}: the same ones in every build, fifty times as many
 * with {@code -Dfedbridge.soak=true}.
 */
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

    @Test
    void tokenSoupIsParsedOrRejected() {
        Fuzz.run("tokenSoupIsParsedOrRejected", Fuzz.tries(3000), random -> {
            String text = soup(random);
            Map<String, String> headers = headers(random);
            parseOrReject(text).ifPresent(s -> checkEvaluation(s, headers));
        });
    }

    @Test
    void arbitraryTextIsParsedOrRejected() {
        Fuzz.run("arbitraryTextIsParsedOrRejected", Fuzz.tries(1000), random ->
                parseOrReject(Fuzz.anyString(random, 255)));
    }

    @Test
    void mutatedValidSelectorsAreParsedOrRejected() {
        Fuzz.run("mutatedValidSelectorsAreParsedOrRejected", Fuzz.tries(2000), random -> {
            String text = Fuzz.pick(random, VALID);
            for (Edit e : edits(random)) {
                text = e.apply(text);
            }
            Map<String, String> headers = headers(random);
            parseOrReject(text).ifPresent(s -> checkEvaluation(s, headers));
        });
    }

    @Test
    void validSelectorsEvaluateAgainstAnyHeaders() {
        Fuzz.run("validSelectorsEvaluateAgainstAnyHeaders", Fuzz.tries(1000), random ->
                checkEvaluation(Selector.parse(Fuzz.pick(random, VALID)), headers(random)));
    }

    @Test
    void generatedValidSelectorsParseAndEvaluate() {
        Fuzz.run("generatedValidSelectorsParseAndEvaluate", Fuzz.tries(2000), random -> {
            String selector = condition(random, 4);
            assertThat(parseOrReject(selector)).as("parses: %s", selector).isPresent();
            checkEvaluation(Selector.parse(selector), headers(random));
        });
    }

    // ------------------------------------------------------------------------------------------- large inputs

    @Test
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

    @Test
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

    /** Up to 25 tokens (eight times in nine; else up to 2 random characters), each followed by a separator. */
    private static String soup(Random random) {
        return Fuzz.concat(random, 0, 25, r -> (Fuzz.oneIn(r, 9) ? Fuzz.anyString(r, 2) : Fuzz.pick(r, TOKENS))
                + Fuzz.pick(r, " ", " ", " ", "", "  "));
    }

    /** Well-typed selectors built from the grammar, up to {@code depth} levels deep. */
    private static String condition(Random random, int depth) {
        return switch (depth == 0 ? 0 : random.nextInt(4)) {
            case 0, 1 -> leafCondition(random);
            case 2 -> "(" + condition(random, depth - 1) + ") " + Fuzz.pick(random, "AND", "OR") + " ("
                    + condition(random, depth - 1) + ")";
            default -> "NOT (" + condition(random, depth - 1) + ")";
        };
    }

    private static String leafCondition(Random random) {
        return switch (random.nextInt(8)) {
            case 0 -> Fuzz.pick(random, IDENTIFIERS);
            case 1 -> Fuzz.pick(random, "TRUE", "FALSE", "JMSDeliveryMode = 'PERSISTENT'");
            case 2 -> number(random, 2) + " " + Fuzz.pick(random, "=", "<>", "<", "<=", ">", ">=") + " "
                    + number(random, 2);
            case 3 -> string(random) + " " + Fuzz.pick(random, "=", "<>") + " " + string(random);
            case 4 -> Fuzz.pick(random, IDENTIFIERS) + " "
                    + Fuzz.pick(random, "= TRUE", "<> FALSE", "IS NULL", "IS NOT NULL");
            case 5 -> string(random) + " " + Fuzz.pick(random, "", "NOT ") + "LIKE " + Fuzz.pick(random, LIKE_PATTERNS);
            case 6 -> string(random) + " " + Fuzz.pick(random, "", "NOT ") + "IN "
                    + Fuzz.pick(random, "('red')", "('eu', 'us', '')");
            default -> number(random, 2) + " " + Fuzz.pick(random, "", "NOT ") + "BETWEEN " + number(random, 2)
                    + " AND " + number(random, 2);
        };
    }

    private static String string(Random random) {
        return random.nextBoolean() ? Fuzz.pick(random, IDENTIFIERS)
                : Fuzz.pick(random, "'red'", "''", "'it''s'", "'1'", "'\u00e9'");
    }

    private static String number(Random random, int depth) {
        return switch (depth == 0 ? 0 : random.nextInt(5)) {
            case 0, 1 -> random.nextBoolean() ? Fuzz.pick(random, IDENTIFIERS) : Fuzz.pick(random, "0", "1", "-2",
                    "1.5", ".5", "7.", "1e3", "-1e-3", "9223372036854775807", "-9223372036854775808", "NULL");
            case 2 -> "(" + number(random, depth - 1) + " " + Fuzz.pick(random, "+", "-", "*", "/") + " "
                    + number(random, depth - 1) + ")";
            case 3 -> "-" + number(random, depth - 1);
            default -> "+" + number(random, depth - 1);
        };
    }

    /** Up to 10 headers, names and values from the lists above. */
    private static Map<String, String> headers(Random random) {
        int size = Fuzz.between(random, 0, 10);
        Map<String, String> headers = new HashMap<>();
        while (headers.size() < size) {
            headers.put(Fuzz.pick(random, HEADER_NAMES), Fuzz.pick(random, HEADER_VALUES));
        }
        return headers;
    }

    private static List<Edit> edits(Random random) {
        return Fuzz.list(random, 1, 4, r -> new Edit(Fuzz.pick(r, EditKind.class), Fuzz.between(r, 0, 1000),
                Fuzz.between(r, 1, 10), Fuzz.pick(r, TOKENS)));
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
