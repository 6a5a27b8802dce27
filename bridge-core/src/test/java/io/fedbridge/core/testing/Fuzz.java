package io.fedbridge.core.testing;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * Seeded random testing for the {@code *FuzzTest}s: {@link #run} calls a check with a fresh {@link Random} per
 * try, and the static generators build inputs from it. No shrinking: a failure names the seed, and the same seed
 * replays the same inputs.
 *
 * <pre>{@code
 * @Test
 * void randomBytesNeverEscapeTheDecoder() {
 *     Fuzz.run("randomBytesNeverEscapeTheDecoder", Fuzz.tries(2000), random -> check(Fuzz.bytes(random, 600)));
 * }
 * }</pre>
 *
 * <p>System properties (surefire passes {@code -D} options of the {@code mvn} command line through):
 * {@value #SOAK_PROPERTY}{@code =true} multiplies the tries by {@value #SOAK_FACTOR} (the soak tests of other
 * modules read it too); {@value #SEED_PROPERTY}{@code =<long>} replaces the fixed default seed, to reproduce a
 * failure or to explore other inputs.
 */
public final class Fuzz {

    public static final String SOAK_PROPERTY = "fedbridge.soak";
    public static final String SEED_PROPERTY = "fedbridge.fuzz.seed";
    public static final int SOAK_FACTOR = 50;
    /** Fixed, so that an ordinary build tests the same inputs every time. */
    private static final long DEFAULT_SEED = 20_240_601L;

    private Fuzz() {
    }

    /** Whether this is a soak run ({@code -Dfedbridge.soak=true}). */
    public static boolean isSoak() {
        return Boolean.getBoolean(SOAK_PROPERTY);
    }

    /** {@code normal}, or {@value #SOAK_FACTOR} times as many in a soak run. */
    public static int tries(int normal) {
        return isSoak() ? normal * SOAK_FACTOR : normal;
    }

    /**
     * Runs {@code body} {@code tries} times, each time with a {@link Random} seeded from the base seed, the
     * property's name and the try's number; prints nothing. A failure becomes an {@link AssertionError} naming
     * the property, the try and the seed that reproduces it, with the failure as its cause.
     */
    public static void run(String property, int tries, Consumer<Random> body) {
        long seed = seed();
        for (int i = 1; i <= tries; i++) {
            try {
                body.accept(new Random(mix(seed, property, i)));
            } catch (RuntimeException | Error e) {
                throw new AssertionError(property + " failed on try " + i + " of " + tries + " with seed " + seed
                        + "; reproduce with -D" + SEED_PROPERTY + "=" + seed
                        + (isSoak() ? " -D" + SOAK_PROPERTY + "=true" : "") + ": " + e, e);
            }
        }
    }

    private static long seed() {
        String value = System.getProperty(SEED_PROPERTY, "");
        if (value.isBlank()) {
            return DEFAULT_SEED;
        }
        try {
            return Long.parseLong(value.strip());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(SEED_PROPERTY + " must be a long, but was '" + value + "'", e);
        }
    }

    /** A seed per property and try (SplitMix64's finalizer), so that properties and tries do not share inputs. */
    private static long mix(long seed, String property, int attempt) {
        long z = seed + 0x9E3779B97F4A7C15L * (property.hashCode() * 0x1_0000_0000L + attempt);
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    // ------------------------------------------------------------------------------------------- generators

    /**
     * A number from {@code min} to {@code max}, both included. Each bound comes up one time in ten, more often
     * than evenly, since off-by-one mistakes live there (empty lists, the longest strings, 0, Long.MAX_VALUE).
     */
    public static long between(Random random, long min, long max) {
        if (min > max) {
            throw new IllegalArgumentException("max must be >= min (" + min + "), but was " + max);
        }
        int edge = random.nextInt(20);
        if (edge == 0) {
            return min;
        }
        if (edge == 1) {
            return max;
        }
        if (max - min + 1 <= 0) { // the range does not fit in a long: every long but a few is in it
            long v;
            do {
                v = random.nextLong();
            } while (v < min || v > max);
            return v;
        }
        return min + random.nextLong(max - min + 1);
    }

    /** An int from {@code min} to {@code max}, both included; see {@link #between(Random, long, long)}. */
    public static int between(Random random, int min, int max) {
        return (int) between(random, (long) min, max);
    }

    /** Any long, 0, ±1 and the extremes more often than evenly. */
    public static long anyLong(Random random) {
        return random.nextInt(10) == 0 ? pick(random, 0L, 1L, -1L, Long.MIN_VALUE, Long.MAX_VALUE) : random.nextLong();
    }

    /** True one time in {@code n}: {@code oneIn(random, 6) ? rare() : common()} weighs 1 to 5. */
    public static boolean oneIn(Random random, int n) {
        return random.nextInt(n) == 0;
    }

    /** One of {@code choices}, each as likely. */
    public static <T> T pick(Random random, List<T> choices) {
        return choices.get(random.nextInt(choices.size()));
    }

    /** One of {@code choices}, each as likely. */
    @SafeVarargs
    public static <T> T pick(Random random, T... choices) {
        return choices[random.nextInt(choices.length)];
    }

    /** One of the constants of {@code type}. */
    public static <E extends Enum<E>> E pick(Random random, Class<E> type) {
        return pick(random, type.getEnumConstants());
    }

    /** From {@code minSize} to {@code maxSize} elements made by {@code element}. */
    public static <T> List<T> list(Random random, int minSize, int maxSize, Function<Random, T> element) {
        int size = between(random, minSize, maxSize);
        List<T> list = new ArrayList<>(size);
        for (int i = 0; i < size; i++) {
            list.add(element.apply(random));
        }
        return list;
    }

    /** From {@code minSize} to {@code maxSize} strings made by {@code part}, joined. */
    public static String concat(Random random, int minSize, int maxSize, Function<Random, String> part) {
        return String.join("", list(random, minSize, maxSize, part));
    }

    /** Up to {@code maxLength} random bytes. */
    public static byte[] bytes(Random random, int maxLength) {
        byte[] b = new byte[between(random, 0, maxLength)];
        random.nextBytes(b);
        return b;
    }

    /** From {@code minLength} to {@code maxLength} characters of {@code alphabet}. */
    public static String string(Random random, String alphabet, int minLength, int maxLength) {
        int length = between(random, minLength, maxLength);
        StringBuilder sb = new StringBuilder(length);
        for (int i = 0; i < length; i++) {
            sb.append(alphabet.charAt(random.nextInt(alphabet.length())));
        }
        return sb.toString();
    }

    /** Up to {@code maxLength} of {@link #anyChar} (so possibly lone surrogates, NULs and control characters). */
    public static String anyString(Random random, int maxLength) {
        int length = between(random, 0, maxLength);
        StringBuilder sb = new StringBuilder(length);
        for (int i = 0; i < length; i++) {
            sb.append(anyChar(random));
        }
        return sb.toString();
    }

    /**
     * Any UTF-16 code unit: half of them ASCII (control characters included), the rest from Latin-1 to the end
     * of the basic plane, with surrogates (paired only by chance) an eighth of the time.
     */
    public static char anyChar(Random random) {
        int kind = random.nextInt(8);
        if (kind < 4) {
            return (char) random.nextInt(0x80);
        }
        if (kind == 4) {
            return (char) (0x80 + random.nextInt(0x800 - 0x80));
        }
        if (kind == 5) {
            return (char) random.nextInt(Character.MIN_SURROGATE, Character.MAX_SURROGATE + 1);
        }
        return (char) random.nextInt(0x1_0000);
    }
}
