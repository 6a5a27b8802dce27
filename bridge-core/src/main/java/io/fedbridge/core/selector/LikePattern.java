package io.fedbridge.core.selector;

import java.util.Arrays;

/**
 * A compiled LIKE pattern: {@code %} matches any sequence of characters, {@code _} exactly one character
 * (one Unicode code point), everything else itself, case-sensitively.
 *
 * <p>Deliberately not a regular expression: the greedy matcher below backtracks only to the most recent
 * {@code %}, so matching is O(text &times; pattern) at worst, whatever the pattern. A pattern such as
 * {@code %a%a%a%a%b} cannot make it blow up the way a backtracking regex engine can.
 */
final class LikePattern {

    private static final int ANY_ONE = -1;
    private static final int ANY_MANY = -2;

    private enum Shape { EXACT, PREFIX, SUFFIX, CONTAINS, GENERAL }

    private final int[] elements;
    private final Shape shape;
    /** The literal text for the EXACT, PREFIX, SUFFIX and CONTAINS shapes. */
    private final String literal;

    private LikePattern(int[] elements) {
        this.elements = elements;
        int n = elements.length;
        int wildcards = 0;
        int anyOne = 0;
        for (int e : elements) {
            if (e == ANY_MANY) {
                wildcards++;
            } else if (e == ANY_ONE) {
                anyOne++;
            }
        }
        boolean leading = n > 0 && elements[0] == ANY_MANY;
        boolean trailing = n > 0 && elements[n - 1] == ANY_MANY;
        Shape s = Shape.GENERAL;
        if (anyOne == 0) {
            if (wildcards == 0) {
                s = Shape.EXACT;
            } else if (wildcards == 1 && trailing) {
                s = Shape.PREFIX;
            } else if (wildcards == 1 && leading) {
                s = Shape.SUFFIX;
            } else if (wildcards == 2 && leading && trailing && n > 1) {
                s = Shape.CONTAINS;
            }
        }
        this.shape = s;
        this.literal = s == Shape.GENERAL ? null : literalText(elements);
    }

    /**
     * Compiles a pattern.
     *
     * @param escape the escape character, or {@code null} for none
     * @throws IllegalArgumentException with a reason when the escape character is not followed by
     *                                  {@code %}, {@code _} or itself
     */
    static LikePattern compile(String pattern, Character escape) {
        int[] out = new int[pattern.length()];
        int n = 0;
        for (int i = 0; i < pattern.length(); i++) {
            char c = pattern.charAt(i);
            if (escape != null && c == escape) {
                if (i + 1 >= pattern.length()) {
                    throw new IllegalArgumentException("LIKE pattern ends with the escape character '" + c + "'");
                }
                char escaped = pattern.charAt(++i);
                if (escaped != '%' && escaped != '_' && escaped != c) {
                    throw new IllegalArgumentException("escape character '" + c
                            + "' in LIKE pattern must be followed by '%', '_' or itself, but was followed by '"
                            + escaped + "'");
                }
                out[n++] = escaped;
            } else if (c == '%') {
                if (n == 0 || out[n - 1] != ANY_MANY) { // '%%' is the same as '%'
                    out[n++] = ANY_MANY;
                }
            } else if (c == '_') {
                out[n++] = ANY_ONE;
            } else {
                out[n++] = c;
            }
        }
        return new LikePattern(Arrays.copyOf(out, n));
    }

    boolean matches(String text) {
        return switch (shape) {
            case EXACT -> text.equals(literal);
            case PREFIX -> text.startsWith(literal);
            case SUFFIX -> text.endsWith(literal);
            case CONTAINS -> text.contains(literal);
            case GENERAL -> matchGeneral(text);
        };
    }

    private boolean matchGeneral(String text) {
        int[] p = elements;
        int t = 0;
        int e = 0;
        int starElement = -1;
        int starText = 0;
        while (t < text.length()) {
            if (e < p.length && p[e] == ANY_ONE) {
                t += Character.charCount(text.codePointAt(t));
                e++;
            } else if (e < p.length && p[e] == text.charAt(t)) {
                t++;
                e++;
            } else if (e < p.length && p[e] == ANY_MANY) {
                starElement = e++;
                starText = t;
            } else if (starElement >= 0) {
                // let the last '%' swallow one more code point and retry from there
                starText += Character.charCount(text.codePointAt(starText));
                t = starText;
                e = starElement + 1;
            } else {
                return false;
            }
        }
        while (e < p.length && p[e] == ANY_MANY) {
            e++;
        }
        return e == p.length;
    }

    private static String literalText(int[] elements) {
        StringBuilder sb = new StringBuilder(elements.length);
        for (int e : elements) {
            if (e >= 0) {
                sb.append((char) e);
            }
        }
        return sb.toString();
    }
}
