package io.fedbridge.core.selector;

import java.util.function.Function;

/**
 * A node of a parsed selector. Nodes are immutable and evaluated against one message's headers.
 *
 * <p>Values at run time are {@link Boolean} (with {@code null} for UNKNOWN), {@link Long}, {@link Double},
 * {@link String}, or {@code null} for an absent header or an UNKNOWN result. The parser checks operand
 * types once, so a node only ever sees the kinds of value its {@link Type} allows.
 */
abstract class Expr {

    /** The static type of a node, fixed at parse time. */
    enum Type {
        BOOLEAN("a boolean"),
        NUMBER("a number"),
        STRING("a string"),
        /** A header reference: a string on the wire, coerced according to what it is compared with. */
        HEADER("a header"),
        /** The NULL literal, which fits anywhere and is always UNKNOWN. */
        NULL("NULL");

        private final String description;

        Type(String description) {
            this.description = description;
        }

        String description() {
            return description;
        }

        boolean isNumeric() {
            return this == NUMBER || this == HEADER || this == NULL;
        }

        boolean isBoolean() {
            return this == BOOLEAN || this == HEADER || this == NULL;
        }

        boolean isString() {
            return this == STRING || this == HEADER || this == NULL;
        }
    }

    private final Type type;
    private final int depth;

    Expr(Type type, Expr... children) {
        int deepest = 0;
        for (Expr child : children) {
            deepest = Math.max(deepest, child.depth);
        }
        this.type = type;
        this.depth = deepest + 1;
    }

    final Type type() {
        return type;
    }

    /** Height of the tree rooted here; a leaf is 1. */
    final int depth() {
        return depth;
    }

    /** The raw value: for a header reference, the header's string value or {@code null} when absent. */
    abstract Object evaluate(Function<String, String> headers);

    /** The value as a number, or {@code null} when absent, UNKNOWN or (for a header) not numeric. */
    Number evaluateNumber(Function<String, String> headers) {
        return Values.toNumber(evaluate(headers));
    }

    /** The value as a truth value: TRUE, FALSE or {@code null} for UNKNOWN. */
    Boolean evaluateBoolean(Function<String, String> headers) {
        return Values.toBoolean(evaluate(headers));
    }
}
