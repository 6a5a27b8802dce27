package io.fedbridge.core.selector;

/**
 * One lexical token of a selector.
 *
 * @param kind     what the token is
 * @param text     the token's source text; for a string literal the decoded value (quotes removed,
 *                 {@code ''} collapsed)
 * @param position zero-based offset of the token's first character in the expression
 * @param end      zero-based offset just past the token's last character
 */
record Token(Kind kind, String text, int position, int end) {

    enum Kind {
        IDENTIFIER,
        STRING,
        EXACT_NUMBER,
        APPROXIMATE_NUMBER,
        // keywords
        AND, OR, NOT, BETWEEN, LIKE, ESCAPE, IN, IS, NULL, TRUE, FALSE,
        // punctuation and operators
        EQ("="), NE("<>"), LT("<"), LE("<="), GT(">"), GE(">="),
        PLUS("+"), MINUS("-"), STAR("*"), SLASH("/"),
        LPAREN("("), RPAREN(")"), COMMA(","),
        END;

        private final String symbol;

        Kind() {
            this.symbol = name();
        }

        Kind(String symbol) {
            this.symbol = symbol;
        }

        /** The operator or keyword as written in a selector, e.g. {@code <>} or {@code BETWEEN}. */
        String symbol() {
            return symbol;
        }

        boolean isComparison() {
            return this == EQ || this == NE || this == LT || this == LE || this == GT || this == GE;
        }
    }

    private static final int MAX_SHOWN = 40;

    /** How the token reads in an error message: {@code 'AND'}, {@code string literal 'abc'}, {@code end of input}. */
    String describe() {
        return switch (kind) {
            case END -> "end of input";
            case STRING -> "string literal '" + shorten(text.replace("'", "''")) + "'";
            default -> "'" + shorten(text) + "'";
        };
    }

    private static String shorten(String s) {
        return s.length() <= MAX_SHOWN ? s : s.substring(0, MAX_SHOWN) + "...";
    }
}
