package io.fedbridge.core.selector;

import io.fedbridge.core.selector.Expr.Type;
import io.fedbridge.core.selector.Nodes.And;
import io.fedbridge.core.selector.Nodes.Arithmetic;
import io.fedbridge.core.selector.Nodes.ArithmeticOp;
import io.fedbridge.core.selector.Nodes.Between;
import io.fedbridge.core.selector.Nodes.BooleanEquality;
import io.fedbridge.core.selector.Nodes.ComparisonOp;
import io.fedbridge.core.selector.Nodes.DeliveryModeRef;
import io.fedbridge.core.selector.Nodes.HeaderEquality;
import io.fedbridge.core.selector.Nodes.HeaderRef;
import io.fedbridge.core.selector.Nodes.In;
import io.fedbridge.core.selector.Nodes.IsNull;
import io.fedbridge.core.selector.Nodes.Like;
import io.fedbridge.core.selector.Nodes.Literal;
import io.fedbridge.core.selector.Nodes.Not;
import io.fedbridge.core.selector.Nodes.NumericComparison;
import io.fedbridge.core.selector.Nodes.Or;
import io.fedbridge.core.selector.Nodes.Sign;
import io.fedbridge.core.selector.Nodes.StringEquality;
import io.fedbridge.core.selector.Token.Kind;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Recursive-descent parser for the selector grammar, lowest precedence first:
 *
 * <pre>
 * selector       = or END
 * or             = and { OR and }
 * and            = not { AND not }
 * not            = NOT not | comparison
 * comparison     = additive [ compOp additive
 *                           | [NOT] BETWEEN additive AND additive
 *                           | [NOT] IN ( string { , string } )
 *                           | [NOT] LIKE string [ ESCAPE string ]
 *                           | IS [NOT] NULL ]
 * additive       = multiplicative { (+|-) multiplicative }
 * multiplicative = unary { (*|/) unary }
 * unary          = (+|-) unary | primary
 * primary        = number | string | TRUE | FALSE | NULL | identifier | ( or )
 * </pre>
 *
 * Operand types are checked as each node is built, so a selector that parses cannot fail at evaluation.
 */
final class Parser {

    static final int MAX_LENGTH = 8192;
    static final int MAX_DEPTH = 200;

    /** JMS header fields a selector may name, and the STOMP header each one reads. */
    static final Map<String, String> JMS_HEADERS = Map.of(
            "JMSPriority", "priority",
            "JMSMessageID", "message-id",
            "JMSCorrelationID", "correlation-id",
            "JMSType", "type",
            "JMSTimestamp", "timestamp",
            "JMSExpiration", "expires");
    static final String JMS_DELIVERY_MODE = "JMSDeliveryMode";

    private final String source;
    private final Lexer lexer;
    private Token current;
    private int previousEnd;
    private int nesting;
    /** Subtractions written like a hyphenated header name ({@code correlation-id}), for error hints. */
    private final Map<Expr, String> hyphenated = new IdentityHashMap<>();

    private Parser(String source) {
        this.source = source;
        this.lexer = new Lexer(source);
        this.current = lexer.next();
    }

    /** Parses a whole selector into a boolean-valued tree. */
    static Expr parse(String source) {
        if (source.length() > MAX_LENGTH) {
            throw new InvalidSelectorException(source, MAX_LENGTH, "selector is " + source.length()
                    + " characters long, exceeding the maximum length of " + MAX_LENGTH);
        }
        return new Parser(source).selector();
    }

    private Expr selector() {
        if (current.kind() == Kind.END) {
            throw error(current, "selector is empty");
        }
        Token first = current;
        Expr expr = or();
        if (current.kind() == Kind.RPAREN) {
            throw error(current, "found ')' without a matching '('");
        }
        if (current.kind() != Kind.END) {
            throw error(current, "expected an operator or end of input but found " + current.describe());
        }
        if (!expr.type().isBoolean()) {
            throw error(first, "selector must be a condition, but is " + expr.type().description());
        }
        return expr;
    }

    // ---------------------------------------------------------------- boolean levels

    private Expr or() {
        Expr first = and();
        if (current.kind() != Kind.OR) {
            return first;
        }
        List<Expr> operands = new ArrayList<>();
        operands.add(first);
        Token op = current;
        while (current.kind() == Kind.OR) {
            op = advance();
            requireBoolean(operands.get(operands.size() - 1), op, "left");
            operands.add(requireBoolean(and(), op, "right"));
        }
        return checkDepth(new Or(operands.toArray(Expr[]::new)), op);
    }

    private Expr and() {
        Expr first = not();
        if (current.kind() != Kind.AND) {
            return first;
        }
        List<Expr> operands = new ArrayList<>();
        operands.add(first);
        Token op = current;
        while (current.kind() == Kind.AND) {
            op = advance();
            requireBoolean(operands.get(operands.size() - 1), op, "left");
            operands.add(requireBoolean(not(), op, "right"));
        }
        return checkDepth(new And(operands.toArray(Expr[]::new)), op);
    }

    private Expr not() {
        if (current.kind() != Kind.NOT) {
            return comparison();
        }
        Token op = advance();
        enter(op);
        Expr operand = requireBoolean(not(), op, "");
        nesting--;
        return checkDepth(new Not(operand), op);
    }

    // ---------------------------------------------------------------- predicates

    private Expr comparison() {
        Expr left = additive();
        Token op = current;
        if (op.kind().isComparison()) {
            advance();
            Expr node = checkDepth(compare(op, left, additive()), op);
            if (current.kind().isComparison()) {
                throw error(current, "comparisons cannot be chained; use parentheses, e.g. (a = b) = TRUE");
            }
            return node;
        }
        switch (op.kind()) {
            case NOT:
                advance();
                return switch (current.kind()) {
                    case BETWEEN -> between(left, true);
                    case LIKE -> like(left, true);
                    case IN -> in(left, true);
                    default -> throw error(current, "expected BETWEEN, LIKE or IN after NOT but found "
                            + current.describe());
                };
            case BETWEEN:
                return between(left, false);
            case LIKE:
                return like(left, false);
            case IN:
                return in(left, false);
            case IS:
                advance();
                boolean negated = false;
                if (current.kind() == Kind.NOT) {
                    advance();
                    negated = true;
                }
                expect(Kind.NULL, negated ? "expected NULL after IS NOT" : "expected NULL or NOT NULL after IS");
                return checkDepth(new IsNull(negated, left), op);
            default:
                return left;
        }
    }

    private Expr compare(Token opToken, Expr left, Expr right) {
        ComparisonOp op = switch (opToken.kind()) {
            case EQ -> ComparisonOp.EQ;
            case NE -> ComparisonOp.NE;
            case LT -> ComparisonOp.LT;
            case LE -> ComparisonOp.LE;
            case GT -> ComparisonOp.GT;
            case GE -> ComparisonOp.GE;
            default -> throw new IllegalStateException("not a comparison: " + opToken);
        };
        if (!op.isEquality()) {
            requireNumeric(left, opToken, "left", "; strings and booleans can only be compared with = and <>");
            requireNumeric(right, opToken, "right", "; strings and booleans can only be compared with = and <>");
            return new NumericComparison(op, left, right);
        }
        // NULL takes the type of the other side (the comparison is then always UNKNOWN)
        Type a = left.type() == Type.NULL ? right.type() : left.type();
        Type b = right.type() == Type.NULL ? left.type() : right.type();
        boolean negated = op == ComparisonOp.NE;
        if (a == Type.HEADER && b == Type.HEADER) {
            return new HeaderEquality(negated, left, right);
        }
        if (a.isNumeric() && b.isNumeric()) {
            return new NumericComparison(op, left, right);
        }
        if (a.isString() && b.isString()) {
            return new StringEquality(negated, left, right);
        }
        if (a.isBoolean() && b.isBoolean()) {
            return new BooleanEquality(negated, left, right);
        }
        throw error(opToken, "cannot compare " + left.type().description() + " with "
                + right.type().description() + " using '" + op.symbol() + "'" + hyphenHint(left, right));
    }

    private Expr between(Expr value, boolean negated) {
        Token keyword = advance();
        Expr low = additive();
        expect(Kind.AND, "expected AND between the bounds of BETWEEN");
        Expr high = additive();
        requireNumeric(value, keyword, "tested value", "");
        requireNumeric(low, keyword, "lower bound", "");
        requireNumeric(high, keyword, "upper bound", "");
        return checkDepth(new Between(negated, value, low, high), keyword);
    }

    private Expr in(Expr value, boolean negated) {
        Token keyword = advance();
        requireString(value, keyword);
        expect(Kind.LPAREN, "expected '(' after IN");
        Set<String> values = new LinkedHashSet<>();
        while (true) {
            values.add(expect(Kind.STRING, "expected a string literal in the IN list").text());
            if (current.kind() == Kind.RPAREN) {
                advance();
                break;
            }
            expect(Kind.COMMA, "expected ',' or ')' in the IN list");
        }
        return checkDepth(new In(negated, value, Set.copyOf(values)), keyword);
    }

    private Expr like(Expr value, boolean negated) {
        Token keyword = advance();
        requireString(value, keyword);
        Token pattern = expect(Kind.STRING, "expected a string literal pattern after LIKE");
        Character escape = null;
        if (current.kind() == Kind.ESCAPE) {
            advance();
            Token escapeToken = expect(Kind.STRING, "expected a string literal after ESCAPE");
            if (escapeToken.text().length() != 1) {
                throw error(escapeToken, "the ESCAPE character must be a single character, but was "
                        + escapeToken.describe());
            }
            escape = escapeToken.text().charAt(0);
        }
        LikePattern compiled;
        try {
            compiled = LikePattern.compile(pattern.text(), escape);
        } catch (IllegalArgumentException e) {
            throw error(pattern, e.getMessage());
        }
        return checkDepth(new Like(negated, value, compiled), keyword);
    }

    // ---------------------------------------------------------------- arithmetic

    private Expr additive() {
        Expr left = multiplicative();
        while (current.kind() == Kind.PLUS || current.kind() == Kind.MINUS) {
            int leftEnd = previousEnd;
            Token op = advance();
            String hyphenName = hyphenatedName(left, leftEnd, op);
            Expr right = multiplicative();
            left = arithmetic(op, op.kind() == Kind.PLUS ? ArithmeticOp.ADD : ArithmeticOp.SUBTRACT, left, right);
            if (hyphenName != null) {
                hyphenated.put(left, hyphenName);
            }
        }
        return left;
    }

    private Expr multiplicative() {
        Expr left = unary();
        while (current.kind() == Kind.STAR || current.kind() == Kind.SLASH) {
            Token op = advance();
            left = arithmetic(op, op.kind() == Kind.STAR ? ArithmeticOp.MULTIPLY : ArithmeticOp.DIVIDE, left, unary());
        }
        return left;
    }

    private Expr arithmetic(Token opToken, ArithmeticOp op, Expr left, Expr right) {
        requireNumeric(left, opToken, "left", "");
        requireNumeric(right, opToken, "right", "");
        return checkDepth(new Arithmetic(op, left, right), opToken);
    }

    private Expr unary() {
        if (current.kind() != Kind.PLUS && current.kind() != Kind.MINUS) {
            return primary();
        }
        Token sign = advance();
        boolean negate = sign.kind() == Kind.MINUS;
        enter(sign);
        Expr result;
        if (current.kind() == Kind.EXACT_NUMBER || current.kind() == Kind.APPROXIMATE_NUMBER) {
            // fold the sign into the literal, which also admits -9223372036854775808
            result = number(advance(), negate ? sign : null);
        } else {
            Expr operand = requireNumeric(unary(), sign, "", "");
            result = checkDepth(new Sign(negate, operand), sign);
        }
        nesting--;
        return result;
    }

    private Expr primary() {
        Token token = current;
        switch (token.kind()) {
            case EXACT_NUMBER:
            case APPROXIMATE_NUMBER:
                return number(advance(), null);
            case STRING:
                advance();
                return Literal.of(token.text());
            case TRUE:
                advance();
                return Literal.TRUE;
            case FALSE:
                advance();
                return Literal.FALSE;
            case NULL:
                advance();
                return Literal.NULL;
            case IDENTIFIER:
                advance();
                return identifier(token);
            case LPAREN:
                advance();
                enter(token);
                Expr inner = or();
                if (current.kind() != Kind.RPAREN) {
                    throw error(current, "expected ')' to close the '(' at position " + token.position()
                            + " but found " + current.describe());
                }
                advance();
                nesting--;
                return inner;
            default:
                throw error(token, "expected an expression but found " + token.describe());
        }
    }

    private Expr identifier(Token token) {
        String name = token.text();
        if (name.startsWith("JMS") && !name.startsWith("JMSX") && !name.startsWith("JMS_")) {
            if (name.equals(JMS_DELIVERY_MODE)) {
                return new DeliveryModeRef();
            }
            String header = JMS_HEADERS.get(name);
            if (header == null) {
                throw error(token, "'" + name + "' is not a JMS header field a selector can use; use one of "
                        + String.join(", ", new TreeMap<>(JMS_HEADERS).navigableKeySet()) + ", "
                        + JMS_DELIVERY_MODE);
            }
            return new HeaderRef(name, header);
        }
        return new HeaderRef(name, name);
    }

    private Expr number(Token token, Token sign) {
        String text = sign == null ? token.text() : "-" + token.text();
        int position = sign == null ? token.position() : sign.position();
        if (token.kind() == Kind.EXACT_NUMBER) {
            try {
                return Literal.of(Long.parseLong(text));
            } catch (NumberFormatException e) {
                throw new InvalidSelectorException(source, position,
                        "integer literal " + text + " is out of range for a 64-bit long");
            }
        }
        double value = Double.parseDouble(text);
        if (Double.isInfinite(value)) {
            throw new InvalidSelectorException(source, position,
                    "numeric literal " + text + " is out of range for a double");
        }
        return Literal.of(value);
    }

    // ---------------------------------------------------------------- checks

    private Expr requireBoolean(Expr operand, Token op, String side) {
        if (!operand.type().isBoolean()) {
            String which = side.isEmpty() ? "its operand" : "its " + side + " operand";
            throw error(op, "'" + op.kind().symbol() + "' needs conditions as operands, but " + which + " is "
                    + operand.type().description());
        }
        return operand;
    }

    private Expr requireNumeric(Expr operand, Token op, String role, String hint) {
        if (!operand.type().isNumeric()) {
            String which = role.isEmpty() ? "its operand"
                    : role.equals("left") || role.equals("right") ? "its " + role + " operand" : "the " + role;
            throw error(op, "'" + op.kind().symbol() + "' needs numeric operands, but " + which + " is "
                    + operand.type().description() + hint);
        }
        return operand;
    }

    private void requireString(Expr operand, Token op) {
        if (!operand.type().isString()) {
            throw error(op, op.kind().symbol() + " needs a string or header on its left, but found "
                    + operand.type().description() + hyphenHint(operand, operand));
        }
    }

    private Expr checkDepth(Expr node, Token at) {
        if (node.depth() > MAX_DEPTH) {
            throw tooDeep(at);
        }
        return node;
    }

    private void enter(Token at) {
        if (++nesting > MAX_DEPTH) {
            throw tooDeep(at);
        }
    }

    private InvalidSelectorException tooDeep(Token at) {
        return error(at, "selector exceeds the maximum nesting depth of " + MAX_DEPTH);
    }

    /** {@code a-b} written without spaces after a header reference: the user probably meant a header name. */
    private String hyphenatedName(Expr left, int leftEnd, Token minus) {
        if (minus.kind() != Kind.MINUS || leftEnd != minus.position()
                || current.kind() != Kind.IDENTIFIER || current.position() != minus.end()) {
            return null;
        }
        String prefix = left instanceof HeaderRef ref ? ref.identifier() : hyphenated.get(left);
        return prefix == null ? null : prefix + "-" + current.text();
    }

    private String hyphenHint(Expr left, Expr right) {
        String name = hyphenated.get(left);
        if (name == null) {
            name = hyphenated.get(right);
        }
        if (name == null) {
            return "";
        }
        String hint = "; '" + name + "' reads as a subtraction because identifiers cannot contain '-'";
        for (Map.Entry<String, String> e : JMS_HEADERS.entrySet()) {
            if (e.getValue().equals(name)) {
                return hint + " (use " + e.getKey() + " for the STOMP header " + name + ")";
            }
        }
        return hint;
    }

    // ---------------------------------------------------------------- tokens

    private Token advance() {
        Token consumed = current;
        current = lexer.next();
        previousEnd = consumed.end();
        return consumed;
    }

    private Token expect(Kind kind, String message) {
        if (current.kind() != kind) {
            throw error(current, message + " but found " + current.describe());
        }
        return advance();
    }

    private InvalidSelectorException error(Token at, String reason) {
        return new InvalidSelectorException(source, at.position(), reason);
    }
}
