package io.fedbridge.core.selector;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class SelectorParseErrorTest {

    private static InvalidSelectorException parseError(String expression) {
        Throwable thrown = catchThrowable(() -> Selector.parse(expression));
        assertThat(thrown).as("parsing %s", expression).isInstanceOf(InvalidSelectorException.class);
        return (InvalidSelectorException) thrown;
    }

    @Test
    void shouldNameTheSelectorPositionAndProblemInTheMessage() {
        assertThatThrownBy(() -> Selector.parse("price >"))
                .isInstanceOf(InvalidSelectorException.class)
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("invalid selector 'price >' at position 7: expected an expression but found end of input");
        InvalidSelectorException e = parseError("price >");
        assertThat(e.expression()).isEqualTo("price >");
        assertThat(e.position()).isEqualTo(7);
        assertThat(e.reason()).isEqualTo("expected an expression but found end of input");
    }

    @ParameterizedTest(name = "[{0}] at {1}: {2}")
    @CsvSource(delimiter = '~', quoteCharacter = '`', textBlock = """
            price >                    ~ 7  ~ expected an expression but found end of input
            a AND                      ~ 5  ~ expected an expression but found end of input
            a = 1 OR                   ~ 8  ~ expected an expression but found end of input
            price +                    ~ 7  ~ expected an expression but found end of input
            price * (                  ~ 9  ~ expected an expression but found end of input
            NOT                        ~ 3  ~ expected an expression but found end of input
            a = 1 AND OR b = 2         ~ 10 ~ expected an expression but found 'OR'
            * 2 = 2                    ~ 0  ~ expected an expression but found '*'
            a == 1                     ~ 3  ~ expected an expression but found '='
            ()                         ~ 1  ~ expected an expression but found ')'
            and = 1                    ~ 0  ~ expected an expression but found 'and'
            a = NOT b                  ~ 4  ~ expected an expression but found 'NOT'
            """)
    void shouldRejectDanglingOperators(String expression, int position, String reason) {
        assertError(expression, position, reason);
    }

    @ParameterizedTest(name = "[{0}] at {1}: {2}")
    @CsvSource(delimiter = '~', quoteCharacter = '`', textBlock = """
            name = 'abc                ~ 7  ~ unterminated string literal (a quote inside a string is written as '')
            name = 'it''s              ~ 7  ~ unterminated string literal
            name = 'a' OR x = '        ~ 18 ~ unterminated string literal
            price # 3                  ~ 6  ~ unexpected character '#'
            a != 1                     ~ 2  ~ unexpected character '!'; use '<>' for 'not equal'
            a = 1 && b = 2             ~ 6  ~ unexpected character '&'; use AND
            a = 1 || b = 2             ~ 6  ~ unexpected character '|'; use OR
            a.b = 1                    ~ 1  ~ unexpected character '.'; identifiers cannot contain '.'
            a = 1 ;                    ~ 6  ~ unexpected character ';'
            a = 1e                     ~ 4  ~ malformed numeric literal '1e'
            a = 1e+                    ~ 4  ~ malformed numeric literal '1e+'
            a = 10L                    ~ 4  ~ malformed numeric literal '10L'
            a = 1.2.3                  ~ 4  ~ malformed numeric literal '1.2.3'
            a = 12abc                  ~ 4  ~ malformed numeric literal '12abc'
            price=100AND qty=3         ~ 6  ~ malformed numeric literal '100AND'
            a = 9223372036854775808    ~ 4  ~ integer literal 9223372036854775808 is out of range for a 64-bit long
            a = -9223372036854775809   ~ 4  ~ integer literal -9223372036854775809 is out of range for a 64-bit long
            a > 1e999                  ~ 4  ~ numeric literal 1e999 is out of range for a double
            """)
    void shouldRejectBadTokens(String expression, int position, String reason) {
        assertError(expression, position, reason);
    }

    @ParameterizedTest(name = "[{0}] at {1}: {2}")
    @CsvSource(delimiter = '~', quoteCharacter = '`', textBlock = """
            (a = 1                     ~ 6  ~ expected ')' to close the '(' at position 0 but found end of input
            ((a = 1) OR (b = 2)        ~ 19 ~ expected ')' to close the '(' at position 0 but found end of input
            (a = 1 b                   ~ 7  ~ expected ')' to close the '(' at position 0 but found 'b'
            a = 1)                     ~ 5  ~ found ')' without a matching '('
            a = 1 b                    ~ 6  ~ expected an operator or end of input but found 'b'
            a = 1 'x'                  ~ 6  ~ expected an operator or end of input but found string literal 'x'
            a = b = c                  ~ 6  ~ comparisons cannot be chained; use parentheses, e.g. (a = b) = TRUE
            1 < a < 5                  ~ 6  ~ comparisons cannot be chained
            a NOT = 1                  ~ 6  ~ expected BETWEEN, LIKE or IN after NOT but found '='
            a NOT                      ~ 5  ~ expected BETWEEN, LIKE or IN after NOT but found end of input
            a IS 5                     ~ 5  ~ expected NULL or NOT NULL after IS but found '5'
            a IS NOT 5                 ~ 9  ~ expected NULL after IS NOT but found '5'
            a BETWEEN 1 OR 2           ~ 12 ~ expected AND between the bounds of BETWEEN but found 'OR'
            a BETWEEN 1                ~ 11 ~ expected AND between the bounds of BETWEEN but found end of input
            a IN ()                    ~ 6  ~ expected a string literal in the IN list but found ')'
            a IN ('x', 1)              ~ 11 ~ expected a string literal in the IN list but found '1'
            a IN ('x', b)              ~ 11 ~ expected a string literal in the IN list but found 'b'
            a IN 'x'                   ~ 5  ~ expected '(' after IN but found string literal 'x'
            a IN ('x'                  ~ 9  ~ expected ',' or ')' in the IN list but found end of input
            a IN ('x' 'y')             ~ 10 ~ expected ',' or ')' in the IN list but found string literal 'y'
            a LIKE b                   ~ 7  ~ expected a string literal pattern after LIKE but found 'b'
            a LIKE 'x' ESCAPE          ~ 17 ~ expected a string literal after ESCAPE but found end of input
            a LIKE 'x' ESCAPE 'ab'     ~ 18 ~ the ESCAPE character must be a single character, but was string literal 'ab'
            a LIKE 'x' ESCAPE ''       ~ 18 ~ the ESCAPE character must be a single character, but was string literal ''
            a LIKE '50!' ESCAPE '!'    ~ 7  ~ LIKE pattern ends with the escape character '!'
            a LIKE 'a!b' ESCAPE '!'    ~ 7  ~ escape character '!' in LIKE pattern must be followed by '%', '_' or itself, but was followed by 'b'
            """)
    void shouldRejectMalformedStructure(String expression, int position, String reason) {
        assertError(expression, position, reason);
    }

    @ParameterizedTest(name = "[{0}] at {1}: {2}")
    @CsvSource(delimiter = '~', quoteCharacter = '`', textBlock = """
            'a' = 1                    ~ 4  ~ cannot compare a string with a number using '='
            TRUE = 1                   ~ 5  ~ cannot compare a boolean with a number using '='
            TRUE <> 'x'                ~ 5  ~ cannot compare a boolean with a string using '<>'
            (a = 1) = 'x'              ~ 8  ~ cannot compare a boolean with a string using '='
            name < 'm'                 ~ 5  ~ '<' needs numeric operands, but its right operand is a string; strings and booleans can only be compared with = and <>
            'm' > name                 ~ 4  ~ '>' needs numeric operands, but its left operand is a string
            flag >= TRUE               ~ 5  ~ '>=' needs numeric operands, but its right operand is a boolean
            price + 'x' > 1            ~ 6  ~ '+' needs numeric operands, but its right operand is a string
            'x' * 2 = 2                ~ 4  ~ '*' needs numeric operands, but its left operand is a string
            a / TRUE = 1               ~ 2  ~ '/' needs numeric operands, but its right operand is a boolean
            -'x' = 1                   ~ 0  ~ '-' needs numeric operands, but its operand is a string
            1 AND a                    ~ 2  ~ 'AND' needs conditions as operands, but its left operand is a number
            a OR 'x'                   ~ 2  ~ 'OR' needs conditions as operands, but its right operand is a string
            NOT 5                      ~ 0  ~ 'NOT' needs conditions as operands, but its operand is a number
            5                          ~ 0  ~ selector must be a condition, but is a number
            'abc'                      ~ 0  ~ selector must be a condition, but is a string
            price + 1                  ~ 0  ~ selector must be a condition, but is a number
            a BETWEEN 'x' AND 'y'      ~ 2  ~ 'BETWEEN' needs numeric operands, but the lower bound is a string
            a BETWEEN 1 AND 'y'        ~ 2  ~ 'BETWEEN' needs numeric operands, but the upper bound is a string
            'a' BETWEEN 1 AND 2        ~ 4  ~ 'BETWEEN' needs numeric operands, but the tested value is a string
            5 LIKE 'x'                 ~ 2  ~ LIKE needs a string or header on its left, but found a number
            5 IN ('a')                 ~ 2  ~ IN needs a string or header on its left, but found a number
            """)
    void shouldRejectOperandsWhoseTypesCanNeverAgree(String expression, int position, String reason) {
        assertError(expression, position, reason);
    }

    @ParameterizedTest(name = "[{0}] at {1}: {2}")
    @CsvSource(delimiter = '~', quoteCharacter = '`', textBlock = """
            JMSDestination = 'x'       ~ 0  ~ 'JMSDestination' is not a JMS header field a selector can use; use one of JMSCorrelationID, JMSExpiration, JMSMessageID, JMSPriority, JMSTimestamp, JMSType, JMSDeliveryMode
            a = 1 OR JMSRedelivered    ~ 9  ~ 'JMSRedelivered' is not a JMS header field a selector can use
            correlation-id = 'abc'     ~ 15 ~ cannot compare a number with a string using '='; 'correlation-id' reads as a subtraction because identifiers cannot contain '-' (use JMSCorrelationID for the STOMP header correlation-id)
            content-type = 'text'      ~ 13 ~ cannot compare a number with a string using '='; 'content-type' reads as a subtraction because identifiers cannot contain '-'
            x-a-b LIKE 'q'             ~ 6  ~ LIKE needs a string or header on its left, but found a number; 'x-a-b' reads as a subtraction
            """)
    void shouldExplainJmsNamesAndHyphenatedHeaders(String expression, int position, String reason) {
        assertError(expression, position, reason);
    }

    @Test
    void shouldNotHintAboutHyphensWhenTheSubtractionIsSpacedOut() {
        InvalidSelectorException e = parseError("content - type = 'text'");
        assertThat(e.reason()).isEqualTo("cannot compare a number with a string using '='");
    }

    @Test
    void shouldRejectDoubleQuotedStrings() {
        assertError("name = \"x\"", 7, "unexpected character '\"'; string literals are enclosed in single quotes");
    }

    @Test
    void shouldShowControlCharactersByCodePoint() {
        assertError("a = 1\u0001", 5, "unexpected character U+0001");
    }

    @Test
    void shouldRejectEmptySelectors() {
        assertThatThrownBy(() -> Selector.parse(""))
                .isInstanceOf(InvalidSelectorException.class)
                .hasMessage("invalid selector '' at position 0: selector is empty");
        assertError(" \t\n ", 4, "selector is empty");
    }

    @Test
    void shouldCountPositionsInTheUntrimmedExpression() {
        InvalidSelectorException e = parseError("  price >");
        assertThat(e.position()).isEqualTo(9);
        assertThat(e).hasMessageStartingWith("invalid selector '  price >' at position 9: ");
    }

    @Test
    void shouldRejectExpressionsLongerThanTheMaximumLength() {
        String expression = "price = 100" + " ".repeat(8192 - 11) + "x";
        InvalidSelectorException e = parseError(expression);
        assertThat(e.position()).isEqualTo(8192);
        assertThat(e.reason()).isEqualTo("selector is 8193 characters long, exceeding the maximum length of 8192");
        assertThat(e.getMessage()).hasSizeLessThan(300);
        assertThat(e.expression()).isEqualTo(expression);
    }

    @Test
    void shouldShowAnExcerptAroundTheErrorOfALongSelector() {
        String expression = "a = 1 OR ".repeat(100) + "b = 'x' OR c = # OR " + "a = 1 OR ".repeat(100) + "a = 1";
        InvalidSelectorException e = parseError(expression);
        assertThat(e.position()).isEqualTo(expression.indexOf('#'));
        assertThat(e.getMessage()).contains("c = # OR").startsWith("invalid selector '...").hasSizeLessThan(250);
    }

    @Test
    void shouldRejectMoreThanTwoHundredNestedParentheses() {
        String expression = "(".repeat(201) + "a = 1" + ")".repeat(201);
        assertError(expression, 200, "selector exceeds the maximum nesting depth of 200");
    }

    @Test
    void shouldRejectDeepNestingWithoutOverflowingTheStack() {
        String expression = "(".repeat(4000) + "a = 1" + ")".repeat(4000);
        assertError(expression, 200, "selector exceeds the maximum nesting depth of 200");
    }

    @Test
    void shouldRejectLongChainsOfNotAndUnarySigns() {
        assertError("NOT ".repeat(300) + "a = 1", 800, "selector exceeds the maximum nesting depth of 200");
        assertError("a = " + "-".repeat(300) + "1", 204, "selector exceeds the maximum nesting depth of 200");
        assertThat(Selector.parse("NOT ".repeat(150) + "a = 1")).isNotNull();
    }

    @Test
    void shouldRejectArithmeticChainsDeeperThanTheLimit() {
        assertThat(Selector.parse("a" + " + 1".repeat(150) + " > 0")).isNotNull();
        InvalidSelectorException e = parseError("a" + " + 1".repeat(250) + " > 0");
        assertThat(e.reason()).isEqualTo("selector exceeds the maximum nesting depth of 200");
    }

    @Test
    void shouldReportTheLeftmostError() {
        InvalidSelectorException e = parseError("a = 'x' AND b # 1 AND c = 'unterminated");
        assertThat(e.position()).isEqualTo(14);
        assertThat(e.reason()).isEqualTo("unexpected character '#'");
    }

    private static void assertError(String expression, int position, String reason) {
        InvalidSelectorException e = parseError(expression);
        if (expression.length() <= 120) {
            assertThat(e.getMessage()).as("message of %s", expression)
                    .startsWith("invalid selector '" + expression + "' at position " + position + ": " + reason);
        } else {
            assertThat(e.getMessage()).as("message of a %d-character selector", expression.length())
                    .startsWith("invalid selector '").contains("' at position " + position + ": " + reason);
        }
        assertThat(e.expression()).isEqualTo(expression);
        assertThat(e.position()).isEqualTo(position);
        assertThat(e.reason()).startsWith(reason);
    }
}
