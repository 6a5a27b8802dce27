package io.fedbridge.core.internal;

/**
 * Decimal strings of small non-negative ints, made once and shared: a {@code content-length} or a hop count on every
 * message would otherwise be a new string (and its array) per message. Strings are immutable, so a racing first use
 * at worst makes two equal ones.
 */
public final class Decimals {

    /** Lengths up to 16 KiB, hop and redelivery counts: what repeats from message to message. */
    private static final int CACHED = 16 * 1024;
    private static final String[] STRINGS = new String[CACHED];

    private Decimals() {
    }

    /** {@code Integer.toString(n)}, the same instance each time for {@code 0 <= n < 16384}. */
    public static String of(int n) {
        if (n < 0 || n >= CACHED) {
            return Integer.toString(n);
        }
        String s = STRINGS[n];
        if (s == null) {
            s = Integer.toString(n);
            STRINGS[n] = s;
        }
        return s;
    }
}
