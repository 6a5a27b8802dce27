package io.fedbridge.core.selector;

/**
 * A selector that cannot be parsed. The message names the selector, the position and the problem, e.g.
 * {@code invalid selector 'price >' at position 7: expected an expression but found end of input}, so it
 * can be returned as-is in a STOMP ERROR frame.
 *
 * <p>Positions are zero-based character offsets into the expression exactly as it was passed to
 * {@link Selector#parse(String)} (before trimming). A selector longer than 120 characters is shown in the
 * message as an excerpt around the position; {@link #expression()} always has the whole text.
 */
public final class InvalidSelectorException extends IllegalArgumentException {

    private static final long serialVersionUID = 1L;
    private static final int MAX_SHOWN = 120;

    private final String expression;
    private final int position;
    private final String reason;

    InvalidSelectorException(String expression, int position, String reason) {
        super("invalid selector '" + excerpt(expression, position) + "' at position " + position + ": " + reason);
        this.expression = expression;
        this.position = position;
        this.reason = reason;
    }

    /** The selector as it was passed to {@link Selector#parse(String)}. */
    public String expression() {
        return expression;
    }

    /** Zero-based character offset of the problem in {@link #expression()}; its length at end of input. */
    public int position() {
        return position;
    }

    /** The problem alone, without the selector and position, e.g. {@code unterminated string literal}. */
    public String reason() {
        return reason;
    }

    private static String excerpt(String expression, int position) {
        if (expression.length() <= MAX_SHOWN) {
            return expression;
        }
        int half = MAX_SHOWN / 2;
        int from = Math.max(0, Math.min(position - half, expression.length() - MAX_SHOWN));
        int to = Math.min(expression.length(), from + MAX_SHOWN);
        return (from > 0 ? "..." : "") + expression.substring(from, to) + (to < expression.length() ? "..." : "");
    }
}
