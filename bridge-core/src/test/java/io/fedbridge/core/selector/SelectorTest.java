package io.fedbridge.core.selector;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class SelectorTest {

    /** The message most tests run against. */
    private static final Map<String, String> MESSAGE = Map.ofEntries(
            Map.entry("price", "100"),
            Map.entry("discount", "2.5"),
            Map.entry("qty", "3"),
            Map.entry("neg", "-7"),
            Map.entry("plus", "+4"),
            Map.entry("sci", "1.5e3"),
            Map.entry("big", "9223372036854775807"),
            Map.entry("huge", "12345678901234567890"),
            Map.entry("overflowing", "1e999"),
            Map.entry("hex", "0x10"),
            Map.entry("nan", "NaN"),
            Map.entry("padded", " 5"),
            Map.entry("name", "widget"),
            Map.entry("region", "eu"),
            Map.entry("text", "abc"),
            Map.entry("empty", ""),
            Map.entry("quote", "it's"),
            Map.entry("flag", "true"),
            Map.entry("off", "FALSE"),
            Map.entry("five", "5"),
            Map.entry("fivePointZero", "5.0"),
            Map.entry("abc", "abc"));

    private static boolean matches(String selector) {
        return Selector.parse(selector).matches(MESSAGE::get);
    }

    private static boolean matches(String selector, Map<String, String> headers) {
        return Selector.parse(selector).matches(headers::get);
    }

    private static Map<String, String> headers(String... keyValues) {
        Map<String, String> map = new HashMap<>();
        for (int i = 0; i < keyValues.length; i += 2) {
            map.put(keyValues[i], keyValues[i + 1]);
        }
        return map;
    }

    /**
     * The three-valued result of a condition, told apart through NOT: TRUE matches, FALSE makes the
     * negation match, UNKNOWN makes neither match.
     */
    private static String truth(String condition) {
        boolean isTrue = matches(condition);
        boolean isFalse = matches("NOT (" + condition + ")");
        assertThat(isTrue && isFalse).as("%s and its negation both match", condition).isFalse();
        return isTrue ? "TRUE" : isFalse ? "FALSE" : "UNKNOWN";
    }

    @Nested
    class Comparisons {

        @ParameterizedTest(name = "{0} -> {1}")
        @CsvSource(delimiter = '|', textBlock = """
                price = 100      | true
                price = 101      | false
                100 = price      | true
                price <> 100     | false
                price <> 101     | true
                price < 101      | true
                price < 100      | false
                price <= 100     | true
                price <= 99      | false
                price > 99       | true
                price > 100      | false
                price >= 100     | true
                price >= 101     | false
                price > 99.5     | true
                price = 100.0    | true
                discount = 2.5   | true
                discount > 2     | true
                discount < 2     | false
                1 < 2            | true
                2.5 >= 2.5       | true
                qty = 3          | true
                """)
        void shouldCompareNumbers(String selector, boolean expected) {
            assertThat(matches(selector)).isEqualTo(expected);
        }

        @ParameterizedTest(name = "{0} -> {1}")
        @CsvSource(delimiter = '|', quoteCharacter = '"', textBlock = """
                name = 'widget'    | true
                'widget' = name    | true
                name = 'Widget'    | false
                name <> 'gadget'   | true
                name <> 'widget'   | false
                quote = 'it''s'    | true
                empty = ''         | true
                'a' = 'a'          | true
                'a' <> 'b'         | true
                """)
        void shouldCompareStringsCaseSensitively(String selector, boolean expected) {
            assertThat(matches(selector)).isEqualTo(expected);
        }

        @ParameterizedTest(name = "{0} -> {1}")
        @CsvSource(delimiter = '|', textBlock = """
                flag = TRUE       | TRUE
                flag = FALSE      | FALSE
                flag <> FALSE     | TRUE
                off = FALSE       | TRUE
                TRUE = flag       | TRUE
                flag              | TRUE
                off               | FALSE
                name = TRUE       | UNKNOWN
                name              | UNKNOWN
                missing = TRUE    | UNKNOWN
                TRUE = TRUE       | TRUE
                TRUE <> FALSE     | TRUE
                (price = 100) = TRUE | TRUE
                """)
        void shouldReadTrueAndFalseHeadersAsBooleans(String selector, String expected) {
            assertThat(truth(selector)).isEqualTo(expected);
        }

        @Test
        void shouldCompareTwoHeadersNumericallyWhenBothAreNumbers() {
            assertThat(matches("five = fivePointZero")).isTrue();
            assertThat(matches("five <> fivePointZero")).isFalse();
            assertThat(matches("text = abc")).isTrue();
            assertThat(matches("five = text")).isFalse();
            assertThat(matches("five <> text")).isTrue();
            assertThat(matches("qty < price")).isTrue();
            assertThat(truth("text < price")).isEqualTo("UNKNOWN");
            assertThat(truth("five = missing")).isEqualTo("UNKNOWN");
        }

        @Test
        void shouldTreatNullLiteralAsUnknown() {
            assertThat(truth("price = NULL")).isEqualTo("UNKNOWN");
            assertThat(truth("name <> NULL")).isEqualTo("UNKNOWN");
            assertThat(truth("NULL = NULL")).isEqualTo("UNKNOWN");
            assertThat(truth("NULL")).isEqualTo("UNKNOWN");
            assertThat(matches("NULL IS NULL")).isTrue();
        }
    }

    @Nested
    class Arithmetic {

        @ParameterizedTest(name = "{0} -> {1}")
        @CsvSource(delimiter = '|', textBlock = """
                price + 1 = 101            | TRUE
                price - qty = 97           | TRUE
                price * 2 = 200            | TRUE
                price / 3 = 33             | TRUE
                price / 3.0 > 33.3         | TRUE
                price / 3.0 < 33.4         | TRUE
                discount * 2 = 5           | TRUE
                discount + qty = 5.5       | TRUE
                -price = -100              | TRUE
                +qty = 3                   | TRUE
                -neg = 7                   | TRUE
                - -qty = 3                 | TRUE
                -(price - 1) = -99         | TRUE
                7 / 2 = 3                  | TRUE
                -7 / 2 = -3                | TRUE
                7.0 / 2 = 3.5              | TRUE
                price / 0 = 0              | UNKNOWN
                price / 0.0 > 0            | UNKNOWN
                price + missing = 100      | UNKNOWN
                price + text = 100         | UNKNOWN
                big + 1 > 0                | TRUE
                big * 2 > big              | TRUE
                -9223372036854775808 / -1 > 0 | TRUE
                """)
        void shouldDoArithmeticWithNumericPromotion(String selector, String expected) {
            assertThat(truth(selector)).isEqualTo(expected);
        }

        @ParameterizedTest(name = "{0} -> {1}")
        @CsvSource(delimiter = '|', textBlock = """
                7. = 7                     | true
                .5 = 0.5                   | true
                1.5e3 = 1500               | true
                1.5E3 = 1500               | true
                1E-3 = 0.001               | true
                2e+2 = 200                 | true
                0 = -0                     | true
                neg > -9223372036854775808 | true
                big = 9223372036854775807  | true
                big > 9223372036854775806  | true
                """)
        void shouldReadExactAndApproximateLiterals(String selector, boolean expected) {
            assertThat(matches(selector)).isEqualTo(expected);
        }
    }

    @Nested
    class Precedence {

        @ParameterizedTest(name = "{0} -> {1}")
        @CsvSource(delimiter = '|', textBlock = """
                1 + 2 * 3 = 7              | true
                (1 + 2) * 3 = 9            | true
                2 * 3 + 1 = 7              | true
                10 - 4 - 3 = 3             | true
                12 / 2 / 3 = 2             | true
                10 - 2 * 3 = 4             | true
                8 / 4 * 2 = 4              | true
                -2 * 3 = -6                | true
                -2 - -3 = 1                | true
                TRUE OR TRUE AND FALSE     | true
                (TRUE OR TRUE) AND FALSE   | false
                FALSE AND FALSE OR TRUE    | true
                FALSE AND (FALSE OR TRUE)  | false
                NOT FALSE AND FALSE        | false
                NOT (FALSE AND FALSE)      | true
                NOT TRUE OR TRUE           | true
                NOT (TRUE OR TRUE)         | false
                NOT price = 1              | true
                NOT price + 1 = 101        | false
                price = 100 AND qty = 3 OR name = 'x' AND region = 'eu' | true
                price = 1 OR qty = 3 AND name = 'x'                     | false
                """)
        void shouldBindNotBeforeAndBeforeOrAndMultiplicationBeforeAddition(String selector, boolean expected) {
            assertThat(matches(selector)).isEqualTo(expected);
        }

        @ParameterizedTest(name = "{0}")
        @CsvSource(delimiter = '|', textBlock = """
                price between 1 and 200 or name like 'x%'
                Price_Missing is null AND name NOT like 'x%'
                NoT (region In ('us')) aNd flag = true
                region iN ('eu') AND off = False AND price IS NOT NULL
                """)
        void shouldReadKeywordsInAnyCase(String selector) {
            assertThat(matches(selector)).isTrue();
        }

        @Test
        void shouldTreatIdentifiersCaseSensitively() {
            assertThat(matches("Region = 'eu'", headers("region", "eu"))).isFalse();
            assertThat(matches("Region IS NULL", headers("region", "eu"))).isTrue();
            assertThat(matches("Region = 'EU'", headers("Region", "EU", "region", "eu"))).isTrue();
        }
    }

    @Nested
    class ThreeValuedLogic {

        @ParameterizedTest(name = "{0} AND {1} = {2}; {0} OR {1} = {3}")
        @CsvSource({
                "TRUE,    TRUE,    TRUE,    TRUE",
                "TRUE,    FALSE,   FALSE,   TRUE",
                "TRUE,    UNKNOWN, UNKNOWN, TRUE",
                "FALSE,   TRUE,    FALSE,   TRUE",
                "FALSE,   FALSE,   FALSE,   FALSE",
                "FALSE,   UNKNOWN, FALSE,   UNKNOWN",
                "UNKNOWN, TRUE,    UNKNOWN, TRUE",
                "UNKNOWN, FALSE,   FALSE,   UNKNOWN",
                "UNKNOWN, UNKNOWN, UNKNOWN, UNKNOWN"})
        void shouldFollowTheTruthTablesForAndAndOr(String a, String b, String and, String or) {
            // the same tables through comparisons with present/absent headers and through boolean headers
            Map<String, String> viaComparison = Map.of("TRUE", "(price = 100)", "FALSE", "(price = 1)",
                    "UNKNOWN", "(missing = 1)");
            Map<String, String> viaBooleanHeader = Map.of("TRUE", "flag", "FALSE", "off", "UNKNOWN", "missingFlag");
            for (Map<String, String> operand : List.of(viaComparison, viaBooleanHeader)) {
                String x = operand.get(a);
                String y = operand.get(b);
                assertThat(truth(x + " AND " + y)).as("%s AND %s", x, y).isEqualTo(and);
                assertThat(truth(x + " OR " + y)).as("%s OR %s", x, y).isEqualTo(or);
            }
        }

        @Test
        void shouldNegateTrueAndFalseButLeaveUnknownUnknown() {
            assertThat(matches("price = 100")).isTrue();
            assertThat(matches("NOT (price = 100)")).isFalse();
            assertThat(matches("price = 1")).isFalse();
            assertThat(matches("NOT (price = 1)")).isTrue();
            assertThat(matches("missing = 1")).isFalse();
            assertThat(matches("NOT (missing = 1)")).isFalse();
            assertThat(matches("NOT NOT (missing = 1)")).isFalse();
            assertThat(matches("NOT NOT (price = 100)")).isTrue();
        }

        @ParameterizedTest(name = "{0} -> {1}")
        @CsvSource(delimiter = '|', textBlock = """
                missing = 'x'              | UNKNOWN
                missing <> 'x'             | UNKNOWN
                missing > 1                | UNKNOWN
                missing + 1 = 1            | UNKNOWN
                -missing = 0               | UNKNOWN
                missing IS NULL            | TRUE
                missing IS NOT NULL        | FALSE
                price IS NULL              | FALSE
                price IS NOT NULL          | TRUE
                empty IS NULL              | FALSE
                (missing + 1) IS NULL      | TRUE
                (missing = 1) IS NULL      | TRUE
                missing = 1 OR price = 100 | TRUE
                missing = 1 AND price = 1  | FALSE
                """)
        void shouldTreatAbsentHeadersAsNull(String selector, String expected) {
            assertThat(truth(selector)).isEqualTo(expected);
        }

        @Test
        void shouldMatchNothingAgainstAnEmptyMessageUnlessAskingForNull() {
            Function<String, String> none = name -> null;
            assertThat(Selector.parse("color = 'red'").matches(none)).isFalse();
            assertThat(Selector.parse("NOT (color = 'red')").matches(none)).isFalse();
            assertThat(Selector.parse("color <> 'red'").matches(none)).isFalse();
            assertThat(Selector.parse("color IS NULL").matches(none)).isTrue();
        }
    }

    @Nested
    class NumericCoercionOfHeaders {

        @ParameterizedTest(name = "{0} -> {1}")
        @CsvSource(delimiter = '|', textBlock = """
                sci = 1500                 | TRUE
                sci > 1000                 | TRUE
                neg < 0                    | TRUE
                neg = -7                   | TRUE
                plus = 4                   | TRUE
                discount BETWEEN 2 AND 3   | TRUE
                huge > 1e19                | TRUE
                huge > big                 | TRUE
                text > 1                   | UNKNOWN
                text = 1                   | UNKNOWN
                text <> 1                  | UNKNOWN
                padded = 5                 | UNKNOWN
                hex = 16                   | UNKNOWN
                nan = 0                    | UNKNOWN
                nan <> 0                   | UNKNOWN
                overflowing > 0            | UNKNOWN
                empty = 0                  | UNKNOWN
                text BETWEEN 1 AND 5       | UNKNOWN
                """)
        void shouldUseHeadersAsNumbersAgainstNumbers(String selector, String expected) {
            assertThat(truth(selector)).isEqualTo(expected);
        }

        @ParameterizedTest(name = "{0} -> {1}")
        @CsvSource(delimiter = '|', textBlock = """
                qty = '3'                  | true
                qty = '3.0'                | false
                qty = 3.0                  | true
                sci = '1.5e3'              | true
                sci = '1500'               | false
                padded = ' 5'              | true
                """)
        void shouldUseHeadersAsStringsAgainstStrings(String selector, boolean expected) {
            assertThat(matches(selector)).isEqualTo(expected);
        }

        @Test
        void shouldParseNumbersInEveryAcceptedShape() {
            assertThat(Values.parseNumber("42")).isEqualTo(42L);
            assertThat(Values.parseNumber("-42")).isEqualTo(-42L);
            assertThat(Values.parseNumber("+42")).isEqualTo(42L);
            assertThat(Values.parseNumber("9223372036854775807")).isEqualTo(Long.MAX_VALUE);
            assertThat(Values.parseNumber("-9223372036854775808")).isEqualTo(Long.MIN_VALUE);
            assertThat(Values.parseNumber("9223372036854775808")).isEqualTo(9.223372036854775808e18);
            assertThat(Values.parseNumber("2.5")).isEqualTo(2.5);
            assertThat(Values.parseNumber("7.")).isEqualTo(7.0);
            assertThat(Values.parseNumber(".5")).isEqualTo(0.5);
            assertThat(Values.parseNumber("-1.5E-2")).isEqualTo(-0.015);
            assertThat(Values.parseNumber("")).isNull();
            assertThat(Values.parseNumber("-")).isNull();
            assertThat(Values.parseNumber(".")).isNull();
            assertThat(Values.parseNumber("1e")).isNull();
            assertThat(Values.parseNumber("1e+")).isNull();
            assertThat(Values.parseNumber("1.5f")).isNull();
            assertThat(Values.parseNumber("10L")).isNull();
            assertThat(Values.parseNumber("Infinity")).isNull();
            assertThat(Values.parseNumber("1 ")).isNull();
            assertThat(Values.parseNumber("1,000")).isNull();
        }
    }

    @Nested
    class Between {

        @ParameterizedTest(name = "{0} -> {1}")
        @CsvSource(delimiter = '|', textBlock = """
                price BETWEEN 100 AND 200        | TRUE
                price BETWEEN 1 AND 100          | TRUE
                price BETWEEN 100 AND 100        | TRUE
                price BETWEEN 101 AND 200        | FALSE
                price BETWEEN 1 AND 99           | FALSE
                price BETWEEN 200 AND 100        | FALSE
                price NOT BETWEEN 101 AND 200    | TRUE
                price NOT BETWEEN 100 AND 100    | FALSE
                discount BETWEEN 2.5 AND 2.5     | TRUE
                discount BETWEEN 2.6 AND 3       | FALSE
                price BETWEEN 99.5 AND 100.5     | TRUE
                price BETWEEN qty AND 100        | TRUE
                price BETWEEN 50 + 50 AND 2 * 50 | TRUE
                missing BETWEEN 1 AND 2          | UNKNOWN
                missing NOT BETWEEN 1 AND 2      | UNKNOWN
                price BETWEEN missing AND 50     | FALSE
                price BETWEEN missing AND 500    | UNKNOWN
                price NOT BETWEEN missing AND 50 | TRUE
                price BETWEEN 1 AND 200 AND qty = 3 | TRUE
                """)
        void shouldIncludeBothBoundsAndFollowThreeValuedLogic(String selector, String expected) {
            assertThat(truth(selector)).isEqualTo(expected);
        }
    }

    @Nested
    class In {

        @ParameterizedTest(name = "{0} -> {1}")
        @CsvSource(delimiter = '|', textBlock = """
                region IN ('eu', 'us')         | TRUE
                region IN ('eu')               | TRUE
                region IN ('us', 'ap')         | FALSE
                region IN ('EU')               | FALSE
                region NOT IN ('us', 'ap')     | TRUE
                region NOT IN ('eu', 'us')     | FALSE
                region IN ('eu', 'eu')         | TRUE
                quote IN ('it''s')             | TRUE
                qty IN ('3')                   | TRUE
                qty IN ('3.0')                 | FALSE
                empty IN ('')                  | TRUE
                missing IN ('eu')              | UNKNOWN
                missing NOT IN ('eu')          | UNKNOWN
                JMSDeliveryMode IN ('PERSISTENT') | FALSE
                """)
        void shouldTestMembershipAsStrings(String selector, String expected) {
            assertThat(truth(selector)).isEqualTo(expected);
        }
    }

    @Nested
    class Like {

        @ParameterizedTest(name = "{0} -> {1}")
        @CsvSource(delimiter = '|', textBlock = """
                name LIKE 'wid%'         | TRUE
                name LIKE '%get'         | TRUE
                name LIKE '%dg%'         | TRUE
                name LIKE 'w_dget'       | TRUE
                name LIKE 'w_get'        | FALSE
                name LIKE 'widget'       | TRUE
                name LIKE 'widge'        | FALSE
                name LIKE 'WIDGET'       | FALSE
                name LIKE 'W%'           | FALSE
                name LIKE '%'            | TRUE
                name LIKE '%%'           | TRUE
                name LIKE '______'       | TRUE
                name LIKE '_____'        | FALSE
                name LIKE '%_'           | TRUE
                name LIKE 'w%d%t'        | TRUE
                name LIKE 'w%x%t'        | FALSE
                name LIKE '%i_e%'        | FALSE
                name LIKE '%i_g%'        | TRUE
                name LIKE '%d_e%'        | TRUE
                name NOT LIKE 'g%'       | TRUE
                name NOT LIKE 'w%'       | FALSE
                empty LIKE '%'           | TRUE
                empty LIKE '_'           | FALSE
                empty LIKE ''            | TRUE
                quote LIKE 'it''%'       | TRUE
                price LIKE '1%'          | TRUE
                missing LIKE '%'         | UNKNOWN
                missing NOT LIKE '%'     | UNKNOWN
                """)
        void shouldMatchPercentAndUnderscoreWildcards(String selector, String expected) {
            assertThat(truth(selector)).isEqualTo(expected);
        }

        @Test
        void shouldBacktrackToTheLastPercent() {
            assertThat(matches("v LIKE '%ab%cd'", headers("v", "abxabcd"))).isTrue();
            assertThat(matches("v LIKE '%aab'", headers("v", "aaaab"))).isTrue();
            assertThat(matches("v LIKE 'a%a%a'", headers("v", "aa"))).isFalse();
            assertThat(matches("v LIKE 'a%a%a'", headers("v", "aaa"))).isTrue();
            assertThat(matches("v LIKE '%a_c%'", headers("v", "xxabcxx"))).isTrue();
        }

        @Test
        void shouldTreatEscapedWildcardsLiterally() {
            assertThat(matches("promo LIKE '50!%%' ESCAPE '!'", headers("promo", "50% off"))).isTrue();
            assertThat(matches("promo LIKE '50!%%' ESCAPE '!'", headers("promo", "500 off"))).isFalse();
            assertThat(matches("promo LIKE '50%'", headers("promo", "500 off"))).isTrue();
            assertThat(matches("code LIKE 'a\\_b' ESCAPE '\\'", headers("code", "a_b"))).isTrue();
            assertThat(matches("code LIKE 'a\\_b' ESCAPE '\\'", headers("code", "axb"))).isFalse();
            assertThat(matches("code LIKE 'a!!b' ESCAPE '!'", headers("code", "a!b"))).isTrue();
            assertThat(matches("code LIKE 'a!!b' ESCAPE '!'", headers("code", "a!!b"))).isFalse();
            assertThat(matches("code NOT LIKE '%!_%' escape '!'", headers("code", "ab"))).isTrue();
            assertThat(matches("code LIKE 'it''''s' ESCAPE ''''", headers("code", "it's"))).isTrue();
        }

        @Test
        void shouldMatchWholeCodePointsAndLineBreaks() {
            assertThat(matches("v LIKE '_'", headers("v", "\uD83D\uDE00"))).isTrue();
            assertThat(matches("v LIKE '__'", headers("v", "\uD83D\uDE00"))).isFalse();
            assertThat(matches("v LIKE 'a_b'", headers("v", "a\nb"))).isTrue();
            assertThat(matches("v LIKE 'a%b'", headers("v", "a\n\nb"))).isTrue();
            assertThat(matches("v LIKE 'a.c'", headers("v", "abc"))).isFalse();
            assertThat(matches("v LIKE '[a]*'", headers("v", "[a]*"))).isTrue();
        }

        @Test
        void shouldMatchPathologicalPatternsInLinearishTime() {
            String text = "a".repeat(50_000);
            Selector selector = Selector.parse("v LIKE '" + "%a".repeat(30) + "%b'");
            boolean matched = assertTimeoutPreemptively(Duration.ofSeconds(10),
                    () -> selector.matches(headers("v", text)::get));
            assertThat(matched).isFalse();
        }
    }

    @Nested
    class JmsHeaders {

        @Test
        void shouldMapJmsHeaderFieldsToStompHeaders() {
            Map<String, String> stomp = headers("priority", "9", "message-id", "ID:1", "correlation-id", "c-7",
                    "type", "order", "timestamp", "1700000000000", "expires", "0", "persistent", "true");
            assertThat(matches("JMSPriority > 4", stomp)).isTrue();
            assertThat(matches("JMSPriority BETWEEN 0 AND 4", stomp)).isFalse();
            assertThat(matches("JMSMessageID = 'ID:1'", stomp)).isTrue();
            assertThat(matches("JMSCorrelationID = 'c-7'", stomp)).isTrue();
            assertThat(matches("JMSType = 'order'", stomp)).isTrue();
            assertThat(matches("JMSTimestamp > 1600000000000", stomp)).isTrue();
            assertThat(matches("JMSExpiration = 0", stomp)).isTrue();
            assertThat(matches("JMSDeliveryMode = 'PERSISTENT'", stomp)).isTrue();
        }

        @Test
        void shouldDeriveDeliveryModeFromPersistentHeader() {
            assertThat(matches("JMSDeliveryMode = 'PERSISTENT'", headers("persistent", "true"))).isTrue();
            assertThat(matches("JMSDeliveryMode = 'PERSISTENT'", headers("persistent", "TRUE"))).isTrue();
            assertThat(matches("JMSDeliveryMode = 'NON_PERSISTENT'", headers("persistent", "false"))).isTrue();
            assertThat(matches("JMSDeliveryMode = 'NON_PERSISTENT'", headers())).isTrue();
            assertThat(matches("JMSDeliveryMode IS NULL", headers())).isFalse();
        }

        @Test
        void shouldTreatAbsentMappedHeadersAsNull() {
            assertThat(matches("JMSCorrelationID IS NULL", headers())).isTrue();
            assertThat(matches("JMSPriority > 0", headers())).isFalse();
            assertThat(matches("NOT (JMSPriority > 0)", headers())).isFalse();
        }

        @Test
        void shouldReadJmsxAndProviderPropertiesByTheirOwnName() {
            assertThat(matches("JMSXGroupID = 'g1'", headers("JMSXGroupID", "g1"))).isTrue();
            assertThat(matches("JMS_vendor = 1", headers("JMS_vendor", "1"))).isTrue();
        }

        @Test
        void shouldNotMapJmsNamesInOtherCase() {
            assertThat(matches("jmspriority = 9", headers("priority", "9"))).isFalse();
            assertThat(matches("jmspriority = 9", headers("jmspriority", "9"))).isTrue();
        }

        @Test
        void shouldReadAHyphenAsSubtractionNotAsPartOfAnIdentifier() {
            Map<String, String> h = headers("message", "10", "id", "4", "message-id", "6");
            assertThat(matches("message-id = 6", h)).isTrue();
            assertThat(matches("message-id = 4", headers("message-id", "4"))).isFalse();
        }
    }

    @Nested
    class Identifiers {

        @Test
        void shouldAcceptLettersDigitsUnderscoreAndDollar() {
            Map<String, String> h = headers("$price_2", "1", "_x", "2", "größe", "L", "a1b2", "3");
            assertThat(matches("$price_2 = 1 AND _x = 2 AND größe = 'L' AND a1b2 = 3", h)).isTrue();
        }

        @Test
        void shouldAcceptAnyWhitespaceBetweenTokens() {
            assertThat(matches("price\t=\n100\r\fAND\tqty=3")).isTrue();
            assertThat(matches("(price=100)AND(qty=3)")).isTrue();
        }
    }

    @Nested
    class Identity {

        @Test
        void shouldCompareByTrimmedExpression() {
            Selector a = Selector.parse("  price > 5\n");
            Selector b = Selector.parse("price > 5");
            assertThat(a).isEqualTo(b).hasSameHashCodeAs(b);
            assertThat(a.expression()).isEqualTo("price > 5");
            assertThat(a).hasToString("price > 5");
            assertThat(a).isNotEqualTo(Selector.parse("price>5"));
            assertThat(a).isNotEqualTo("price > 5");
        }

        @Test
        void shouldRejectNullArguments() {
            assertThatNullPointerException().isThrownBy(() -> Selector.parse(null));
            Selector selector = Selector.parse("a = 1");
            assertThatNullPointerException().isThrownBy(() -> selector.matches(null));
        }

        @Test
        void shouldLookUpHeadersOnlyThroughTheGivenFunction() {
            AtomicInteger lookups = new AtomicInteger();
            Selector selector = Selector.parse("a = 1 AND b = 'x'");
            assertThat(selector.matches(name -> {
                lookups.incrementAndGet();
                return name.equals("a") ? "1" : "x";
            })).isTrue();
            assertThat(lookups).hasValue(2);
        }

        @Test
        void shouldShortCircuitAndOnFalse() {
            AtomicInteger lookups = new AtomicInteger();
            Selector selector = Selector.parse("a = 2 AND b = 'x'");
            assertThat(selector.matches(name -> {
                lookups.incrementAndGet();
                return "1";
            })).isFalse();
            assertThat(lookups).hasValue(1);
        }
    }

    @Nested
    class Limits {

        @Test
        void shouldAcceptTwoHundredNestedParentheses() {
            String selector = "(".repeat(200) + "price = 100" + ")".repeat(200);
            assertThat(matches(selector)).isTrue();
        }

        @Test
        void shouldAcceptLongOrAndAndChainsBecauseTheyAreFlat() {
            Map<String, String> h = headers("p", "100");
            String ors = IntStream.range(0, 600).mapToObj(i -> "p = " + i).collect(Collectors.joining(" OR "));
            assertThat(ors.length()).isLessThan(8192);
            assertThat(matches(ors, h)).isTrue();
            assertThat(matches(ors, headers("p", "600"))).isFalse();
            String ands = IntStream.range(0, 600).mapToObj(i -> "p > " + (i - 600)).collect(Collectors.joining(" AND "));
            assertThat(matches(ands, h)).isTrue();
            assertThat(matches(ands, headers("p", "-1"))).isFalse();
        }

        @Test
        void shouldAcceptAnExpressionOfExactlyTheMaximumLength() {
            String base = "price = 100";
            String selector = base + " ".repeat(Parser.MAX_LENGTH - base.length());
            assertThat(selector).hasSize(8192);
            assertThat(matches(selector)).isTrue();
        }
    }
}
