package io.fedbridge.core.selector;

/**
 * Coercion of header strings and three-valued logic. {@code null} stands for UNKNOWN throughout.
 */
final class Values {

    private Values() {
    }

    static Number toNumber(Object value) {
        if (value instanceof Number number) {
            return number;
        }
        if (value instanceof String text) {
            return parseNumber(text);
        }
        return null;
    }

    /** {@code true} and {@code false} in any letter case; anything else is UNKNOWN. */
    static Boolean toBoolean(Object value) {
        if (value instanceof Boolean bool) {
            return bool;
        }
        if (value instanceof String text) {
            if ("true".equalsIgnoreCase(text)) {
                return Boolean.TRUE;
            }
            if ("false".equalsIgnoreCase(text)) {
                return Boolean.FALSE;
            }
        }
        return null;
    }

    static Boolean not(Boolean value) {
        return value == null ? null : Boolean.valueOf(!value);
    }

    /**
     * Parses a header value with the selector's own numeric grammar, optionally signed:
     * {@code [+-]? (digits [. digits?] | . digits) ([eE] [+-]? digits)?}. No whitespace, no hex, no
     * {@code NaN}/{@code Infinity}, no type suffix. Integers that fit a long are {@link Long}; other numbers
     * are {@link Double}; a value too large for a double is not a number.
     *
     * @return the number, or {@code null} when the text is not a number
     */
    static Number parseNumber(String text) {
        int length = text.length();
        int i = 0;
        boolean negative = false;
        if (i < length && (text.charAt(i) == '+' || text.charAt(i) == '-')) {
            negative = text.charAt(i) == '-';
            i++;
        }
        int intStart = i;
        while (i < length && isDigit(text.charAt(i))) {
            i++;
        }
        int intDigits = i - intStart;
        boolean integral = true;
        if (i < length && text.charAt(i) == '.') {
            integral = false;
            i++;
            int fracStart = i;
            while (i < length && isDigit(text.charAt(i))) {
                i++;
            }
            if (intDigits == 0 && i == fracStart) {
                return null;
            }
        } else if (intDigits == 0) {
            return null;
        }
        if (i < length && (text.charAt(i) == 'e' || text.charAt(i) == 'E')) {
            integral = false;
            i++;
            if (i < length && (text.charAt(i) == '+' || text.charAt(i) == '-')) {
                i++;
            }
            int expStart = i;
            while (i < length && isDigit(text.charAt(i))) {
                i++;
            }
            if (i == expStart) {
                return null;
            }
        }
        if (i != length) {
            return null;
        }
        if (integral && intDigits <= 18) {
            // fits a long without overflow: avoid Long.parseLong's exception path entirely
            long value = 0;
            for (int k = intStart; k < length; k++) {
                value = value * 10 + (text.charAt(k) - '0');
            }
            return negative ? -value : value;
        }
        if (integral) {
            try {
                return Long.parseLong(text);
            } catch (NumberFormatException tooLarge) {
                // falls through to double
            }
        }
        double value = Double.parseDouble(text);
        return Double.isInfinite(value) ? null : value;
    }

    private static boolean isDigit(char c) {
        return c >= '0' && c <= '9';
    }
}
