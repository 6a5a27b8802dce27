package io.fedbridge.core.selector;

import java.util.Objects;
import java.util.function.Function;

/**
 * A parsed JMS message selector, evaluated against a STOMP message's headers.
 *
 * <pre>{@code
 * Selector selector = Selector.parse("JMSPriority > 4 AND region IN ('eu', 'us') AND sku LIKE 'A-%'");
 * boolean deliver = selector.matches(frame::header);   // header lookup returning null when absent
 * }</pre>
 *
 * <h2>Language</h2>
 * The conditional expression language of JMS 2.0 &sect;3.8.1:
 * <ul>
 *   <li>Literals: strings in single quotes ({@code 'it''s'} escapes a quote), exact numbers ({@code 42},
 *       a 64-bit long), approximate numbers ({@code 1.5}, {@code 7.}, {@code .5}, {@code 1.5e3}, a double),
 *       {@code TRUE}, {@code FALSE} and {@code NULL}. Hexadecimal, octal and suffixed ({@code 10L},
 *       {@code 1.5f}) literals are not supported.</li>
 *   <li>Operators, loosest binding first: {@code OR}; {@code AND}; {@code NOT}; the comparisons
 *       {@code = <> < <= > >=}, {@code [NOT] BETWEEN a AND b}, {@code [NOT] IN ('a', 'b')},
 *       {@code [NOT] LIKE 'pattern' [ESCAPE 'c']} and {@code IS [NOT] NULL}; {@code + -};
 *       {@code * /}; unary {@code + -}. Parentheses group. Comparisons cannot be chained without
 *       parentheses.</li>
 *   <li>Keywords are case-insensitive ({@code and}, {@code Between}); identifiers are case-sensitive.</li>
 *   <li>{@code LIKE}: {@code %} matches any run of characters, {@code _} exactly one; the optional escape
 *       character, which must be one character, makes the {@code %}, {@code _} or escape character after it
 *       literal. Matching is case-sensitive.</li>
 * </ul>
 *
 * <h2>Identifiers and headers</h2>
 * An identifier starts with a letter, {@code _} or {@code $} and continues with letters, digits, {@code _}
 * and {@code $}; it reads the STOMP header of the same name. As in JMS, an identifier cannot contain
 * {@code -}: {@code content-type} is {@code content} minus {@code type}. STOMP headers with a hyphen can
 * only be reached through the JMS header names below. These JMS header fields are mapped to STOMP headers:
 * <table>
 *   <caption>JMS header fields</caption>
 *   <tr><th>identifier</th><th>value</th></tr>
 *   <tr><td>{@code JMSPriority}</td><td>header {@code priority}</td></tr>
 *   <tr><td>{@code JMSMessageID}</td><td>header {@code message-id}</td></tr>
 *   <tr><td>{@code JMSCorrelationID}</td><td>header {@code correlation-id}</td></tr>
 *   <tr><td>{@code JMSType}</td><td>header {@code type}</td></tr>
 *   <tr><td>{@code JMSTimestamp}</td><td>header {@code timestamp}</td></tr>
 *   <tr><td>{@code JMSExpiration}</td><td>header {@code expires}</td></tr>
 *   <tr><td>{@code JMSDeliveryMode}</td><td>{@code 'PERSISTENT'} when header {@code persistent} is
 *       {@code true}, else {@code 'NON_PERSISTENT'}</td></tr>
 * </table>
 * Other names starting with {@code JMS} are reserved by JMS and rejected, except {@code JMSX...} and
 * {@code JMS_...} property names (e.g. {@code JMSXGroupID}), which read the header of that name.
 *
 * <h2>Header values are strings: the coercion rule</h2>
 * A header is typed by what it meets, which the parser settles once:
 * <ul>
 *   <li>Compared with or used in arithmetic with a number (a numeric literal, arithmetic, or as an operand
 *       of {@code < <= > >=}, {@code BETWEEN}, unary {@code + -}): the value is a number if it parses as
 *       one, a long if it is an integer in range, else a double; the grammar is the selector's own, with an
 *       optional sign ({@code -3}, {@code 2.5}, {@code 1e3}), no surrounding blanks, no hex, no
 *       {@code NaN}. A value that does not parse makes the comparison UNKNOWN (not an error).</li>
 *   <li>Compared with a string literal, or tested with {@code IN} or {@code LIKE}: the string as is.</li>
 *   <li>Compared with {@code TRUE}/{@code FALSE}, or an operand of {@code AND}, {@code OR}, {@code NOT},
 *       or the whole selector: {@code true}/{@code false} in any letter case are TRUE/FALSE, anything else
 *       is UNKNOWN.</li>
 *   <li>Two headers compared with {@code =} or {@code <>}: as numbers when both values parse as numbers
 *       (so {@code '5'} equals {@code '5.0'}), else as strings.</li>
 * </ul>
 * Comparing things whose types can never agree ({@code 'a' = 1}, {@code name < 'm'}, {@code 1 AND x}) is
 * rejected at parse time. Numbers compare exactly between longs and as doubles otherwise; long arithmetic
 * that overflows is redone in double; division by zero is UNKNOWN.
 *
 * <h2>Absent headers and UNKNOWN</h2>
 * An absent header is NULL, and any comparison or arithmetic with NULL is UNKNOWN. {@code AND},
 * {@code OR} and {@code NOT} use SQL three-valued logic ({@code FALSE AND UNKNOWN} is FALSE,
 * {@code TRUE OR UNKNOWN} is TRUE, {@code NOT UNKNOWN} is UNKNOWN). A message matches only when the
 * selector is TRUE, so both {@code color = 'red'} and {@code NOT (color = 'red')} reject a message without
 * a {@code color} header; use {@code IS NULL} to ask about absence.
 *
 * <h2>Limits</h2>
 * At most 8192 characters, and at most 200 levels of nesting: parentheses, {@code NOT} and unary signs each
 * open a level, and so does each operator in a chain other than {@code AND}/{@code OR} (a chain of
 * {@code OR} or {@code AND} is one level however long). Beyond either limit {@link #parse(String)} throws.
 *
 * <p>Instances are immutable and thread-safe; parse once, then call {@link #matches(Function)} from any
 * thread. Evaluation walks the tree built at parse time: no reflection, no regular expressions (LIKE
 * patterns are compiled once, and match in time proportional to text length &times; pattern length), and
 * no allocation beyond boxed numbers.
 */
public final class Selector {

    private final String expression;
    private final Expr root;

    private Selector(String expression, Expr root) {
        this.expression = expression;
        this.root = root;
    }

    /**
     * Parses a selector.
     *
     * @param expression the selector text; surrounding whitespace is ignored
     * @return the parsed selector
     * @throws InvalidSelectorException if the text is empty, too long, too deeply nested, or not a valid
     *                                  selector; the message names the problem and its zero-based position
     * @throws NullPointerException     if {@code expression} is null
     */
    public static Selector parse(String expression) {
        Objects.requireNonNull(expression, "expression");
        Expr root = Parser.parse(expression);
        return new Selector(strip(expression), root);
    }

    /**
     * Evaluates the selector against one message.
     *
     * @param headers the message's header lookup, returning {@code null} for an absent header; called only
     *                from this thread, possibly several times for the same name
     * @return {@code true} only if the selector evaluates to TRUE (not FALSE, not UNKNOWN)
     */
    public boolean matches(Function<String, String> headers) {
        Objects.requireNonNull(headers, "headers");
        return Boolean.TRUE.equals(root.evaluateBoolean(headers));
    }

    /** The selector text, with surrounding whitespace removed. */
    public String expression() {
        return expression;
    }

    /** Selectors are equal when their {@link #expression()} texts are equal. */
    @Override
    public boolean equals(Object o) {
        return o instanceof Selector other && expression.equals(other.expression);
    }

    @Override
    public int hashCode() {
        return expression.hashCode();
    }

    /** The {@link #expression()} text. */
    @Override
    public String toString() {
        return expression;
    }

    private static String strip(String s) {
        int start = 0;
        int end = s.length();
        while (start < end && Lexer.isWhitespace(s.charAt(start))) {
            start++;
        }
        while (end > start && Lexer.isWhitespace(s.charAt(end - 1))) {
            end--;
        }
        return s.substring(start, end);
    }
}
