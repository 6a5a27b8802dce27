package io.fedbridge.core.uri;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Consumer;
import java.util.function.DoubleConsumer;
import java.util.function.Function;
import java.util.function.IntConsumer;
import java.util.function.LongConsumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Binds the options of a URI (or any key/value source, such as a properties file) to a config builder, so that
 * every key maps to exactly one builder method and an unknown key is an error that lists the valid ones.
 *
 * <pre>{@code
 * StaticDiscoveryConfig.Builder b = StaticDiscoveryConfig.builder();
 * UriOptions.bind(uri.options(), "static discovery URI '" + uri + "'")
 *     .durationMillis("initialReconnectDelay", b::initialReconnectDelay)
 *     .bool("useExponentialBackOff", b::useExponentialBackOff)
 *     .integer("maxReconnectAttempts", b::maxReconnectAttempts)
 *     .enumValue("mode", Mode.class, b::mode)
 *     .prefixed("transport.", sub -> bindTransport(sub, tcp))
 *     .finish();
 * }</pre>
 *
 * Each binding method registers its key and, if the key is present, converts the value and passes it to the
 * setter at once; an absent key leaves the builder alone (its default applies). {@link #finish()} then rejects
 * every key that no binding claimed:
 * {@code unknown option 'maxReconectDelay' (did you mean 'maxReconnectDelay'?) in static discovery URI '...';
 * valid options are: ...}.
 *
 * <p>Errors are {@link IllegalArgumentException}s that name the option and the {@code context}:
 * <ul>
 *   <li>a value that does not convert: {@code option 'maxReconnectAttempts' in <context> must be an integer,
 *       but was 'abc'} (secret values, see {@link CompositeUri#isSecretOption}, are shown as
 *       {@value CompositeUri#MASK});</li>
 *   <li>a setter (or {@link #value} parser) that throws {@code IllegalArgumentException}:
 *       {@code invalid option 'prefetchSize' in <context>: <its message>}, keeping it as the cause.</li>
 * </ul>
 * Binding the same key twice, or a key that a {@link #prefixed} prefix also covers, is a programming error
 * and throws {@link IllegalStateException}.
 *
 * <p>Number, boolean, enum and duration values are trimmed before conversion; {@link #string} values are
 * passed as they are. Durations ({@link #durationMillis}, {@link #duration}) accept:
 * <ul>
 *   <li>a plain integer in the option's unit, ActiveMQ style ({@code 5000} = 5 s for {@code durationMillis});</li>
 *   <li>numbers with units {@code ns}, {@code us} (or {@code µs}), {@code ms}, {@code s}, {@code m}, {@code h},
 *       {@code d}, case-insensitive, optionally combined and fractional: {@code 250ms}, {@code 5s},
 *       {@code 2m}, {@code 1m30s}, {@code 1.5s};</li>
 *   <li>ISO-8601 ({@link Duration#parse}): {@code PT5S}, {@code PT0.25S}, {@code P1DT2H}.</li>
 * </ul>
 * A leading {@code '-'} makes any of them negative (ActiveMQ uses {@code -1} for "never"); whether a negative
 * duration is allowed is up to the builder.
 *
 * <p>Not thread-safe; use one instance per binding, from one thread.
 */
public final class UriOptions {

    private static final Pattern PLAIN_INTEGER = Pattern.compile("[+-]?\\d+");
    private static final Pattern DECIMAL = Pattern.compile("[+-]?(\\d+(\\.\\d*)?|\\.\\d+)([eE][+-]?\\d+)?");
    private static final Pattern DURATION_PART =
            Pattern.compile("(\\d+(?:\\.\\d+)?)(ns|us|µs|ms|s|m|h|d)", Pattern.CASE_INSENSITIVE);
    private static final BigDecimal NANOS_PER_SECOND = BigDecimal.valueOf(1_000_000_000L);

    private final Map<String, String> options;
    private final String context;
    private final Set<String> keys = new LinkedHashSet<>();
    private final Set<String> prefixes = new LinkedHashSet<>();

    private UriOptions(Map<String, String> options, String context) {
        this.options = options;
        this.context = context;
    }

    /**
     * Starts binding {@code options}.
     *
     * @param options the options to bind, e.g. {@link CompositeUri#options()}; not copied, not modified
     * @param context what the options belong to, used in every message, e.g.
     *                {@code "static discovery URI 'static:(tcp://a:61616)'"}; pass a masked URI
     *                ({@link CompositeUri#toString()}), never an unmasked one
     */
    public static UriOptions bind(Map<String, String> options, String context) {
        return new UriOptions(Objects.requireNonNull(options, "options"), Objects.requireNonNull(context, "context"));
    }

    /** Binds a text option, passed as written (already URL-decoded), possibly empty. */
    public UriOptions string(String key, Consumer<? super String> setter) {
        return bindValue(key, raw -> raw, setter);
    }

    /** Binds a boolean option: {@code true} or {@code false}, ignoring case; anything else is an error. */
    public UriOptions bool(String key, Consumer<? super Boolean> setter) {
        return bindValue(key, UriOptions::toBoolean, setter);
    }

    /** Binds an {@code int} option, e.g. {@code -1}, {@code 1000}. */
    public UriOptions integer(String key, IntConsumer setter) {
        Objects.requireNonNull(setter, "setter");
        return bindValue(key, raw -> (int) toLong(raw, Integer.MIN_VALUE, Integer.MAX_VALUE), setter::accept);
    }

    /** Binds a {@code long} option. */
    public UriOptions longValue(String key, LongConsumer setter) {
        Objects.requireNonNull(setter, "setter");
        return bindValue(key, raw -> toLong(raw, Long.MIN_VALUE, Long.MAX_VALUE), setter::accept);
    }

    /** Binds a finite decimal option, e.g. {@code 2}, {@code 1.5}, {@code 1e3}. */
    public UriOptions doubleValue(String key, DoubleConsumer setter) {
        Objects.requireNonNull(setter, "setter");
        return bindValue(key, UriOptions::toDouble, setter::accept);
    }

    /**
     * Binds a duration option whose plain numbers are milliseconds, as in ActiveMQ
     * ({@code initialReconnectDelay=1000}); units and ISO-8601 are accepted too ({@code 1s}, {@code PT1S}).
     */
    public UriOptions durationMillis(String key, Consumer<? super Duration> setter) {
        return duration(key, ChronoUnit.MILLIS, setter);
    }

    /**
     * Binds a duration option whose plain numbers are in {@code plainNumberUnit} (for options ActiveMQ
     * counts in seconds, say); units and ISO-8601 are accepted too.
     *
     * @param plainNumberUnit an exact unit, {@link ChronoUnit#NANOS} to {@link ChronoUnit#DAYS}
     */
    public UriOptions duration(String key, ChronoUnit plainNumberUnit, Consumer<? super Duration> setter) {
        Objects.requireNonNull(plainNumberUnit, "plainNumberUnit");
        if (plainNumberUnit.isDurationEstimated()) {
            throw new IllegalArgumentException("plainNumberUnit must be an exact unit (NANOS to DAYS), but was "
                    + plainNumberUnit);
        }
        return bindValue(key, raw -> toDuration(raw, plainNumberUnit), setter);
    }

    /**
     * Binds an enum option by constant name, ignoring case and treating {@code '-'} as {@code '_'}
     * ({@code round-robin} selects {@code ROUND_ROBIN}). The error lists the constants.
     */
    public <E extends Enum<E>> UriOptions enumValue(String key, Class<E> type, Consumer<? super E> setter) {
        Objects.requireNonNull(type, "type");
        return bindValue(key, raw -> toEnum(raw, type), setter);
    }

    /**
     * Binds a list option split at {@code separator}, each entry trimmed, as an unmodifiable list: with
     * {@code ','}, {@code a, b,c} gives {@code [a, b, c]} and the empty value gives {@code []}. Empty entries
     * ({@code a,,b}) are an error.
     */
    public UriOptions list(String key, char separator, Consumer<? super List<String>> setter) {
        return bindValue(key, raw -> toList(raw, separator), setter);
    }

    /**
     * Binds an option with a parser of its own, for types this class does not know. An
     * {@code IllegalArgumentException} from {@code parser} becomes {@code invalid option '<key>' in <context>:
     * <its message>}.
     */
    public <T> UriOptions value(String key, Function<String, ? extends T> parser, Consumer<? super T> setter) {
        Objects.requireNonNull(parser, "parser");
        Objects.requireNonNull(setter, "setter");
        registerKey(key);
        if (options.containsKey(key)) {
            String raw = requireValue(key);
            apply(key, () -> setter.accept(parser.apply(raw)));
        }
        return this;
    }

    /**
     * Claims every option whose key starts with {@code prefix} and hands them, prefix removed and in their
     * original order, to {@code nested}, typically another binder:
     * {@code .prefixed("transport.", sub -> UriOptions.bind(sub, "transport options of " + ctx)...finish())}.
     * {@code nested} is called only if at least one such option is present, and its exceptions pass through
     * unchanged. A key equal to the prefix itself is not claimed (and so is unknown).
     */
    public UriOptions prefixed(String prefix, Consumer<? super Map<String, String>> nested) {
        Objects.requireNonNull(nested, "nested");
        if (prefix == null || prefix.isEmpty()) {
            throw new IllegalArgumentException("prefix must not be null or empty, but was "
                    + (prefix == null ? "null" : "''"));
        }
        for (String p : prefixes) {
            if (p.startsWith(prefix) || prefix.startsWith(p)) {
                throw new IllegalStateException("prefix '" + prefix + "' overlaps prefix '" + p + "'");
            }
        }
        for (String key : keys) {
            if (key.startsWith(prefix)) {
                throw new IllegalStateException("prefix '" + prefix + "' overlaps option '" + key + "'");
            }
        }
        prefixes.add(prefix);
        Map<String, String> sub = new LinkedHashMap<>();
        options.forEach((key, value) -> {
            if (claimedBy(key, prefix)) {
                sub.put(key.substring(prefix.length()), value);
            }
        });
        if (!sub.isEmpty()) {
            nested.accept(Collections.unmodifiableMap(sub));
        }
        return this;
    }

    /**
     * The options bound so far, sorted, with prefixes as {@code prefix*} (e.g. {@code transport.*});
     * unmodifiable. Bind against an empty map to list them for documentation.
     */
    public Set<String> validKeys() {
        Set<String> valid = new TreeSet<>(Comparator.comparing((String s) -> s.toLowerCase(Locale.ROOT))
                .thenComparing(Comparator.naturalOrder()));
        valid.addAll(keys);
        prefixes.forEach(p -> valid.add(p + '*'));
        return Collections.unmodifiableSet(valid);
    }

    /**
     * Checks that every option was claimed by a binding.
     *
     * @throws IllegalArgumentException naming every unknown option (with a "did you mean" suggestion where a
     *                                  valid option is at most two edits away) and listing the valid ones
     */
    public void finish() {
        List<String> unknown = options.keySet().stream()
                .filter(key -> !keys.contains(key) && prefixes.stream().noneMatch(p -> claimedBy(key, p)))
                .collect(Collectors.toList());
        if (unknown.isEmpty()) {
            return;
        }
        StringBuilder sb = new StringBuilder(unknown.size() == 1 ? "unknown option " : "unknown options ");
        for (int i = 0; i < unknown.size(); i++) {
            String key = unknown.get(i);
            sb.append(i == 0 ? "" : ", ").append('\'').append(key).append('\'');
            String suggestion = suggest(key);
            if (suggestion != null) {
                sb.append(" (did you mean '").append(suggestion).append("'?)");
            }
        }
        sb.append(" in ").append(context);
        Set<String> valid = validKeys();
        if (valid.isEmpty()) {
            sb.append("; no options are supported here");
        } else {
            sb.append("; valid options are: ").append(String.join(", ", valid));
        }
        throw new IllegalArgumentException(sb.toString());
    }

    // ---------------------------------------------------------------------------------------------
    // Binding

    private <T> UriOptions bindValue(String key, Converter<? extends T> converter, Consumer<? super T> setter) {
        Objects.requireNonNull(setter, "setter");
        registerKey(key);
        if (!options.containsKey(key)) {
            return this;
        }
        String raw = requireValue(key);
        T value;
        try {
            value = converter.convert(raw);
        } catch (Rejected r) {
            throw new IllegalArgumentException("option '" + key + "' in " + context + " " + r.getMessage()
                    + ", but was '" + (CompositeUri.isSecretOption(key) ? CompositeUri.MASK : raw) + "'");
        }
        apply(key, () -> setter.accept(value));
        return this;
    }

    private void registerKey(String key) {
        if (key == null || key.isEmpty()) {
            throw new IllegalArgumentException("key must not be null or empty, but was " + (key == null ? "null" : "''"));
        }
        if (!keys.add(key)) {
            throw new IllegalStateException("option '" + key + "' is bound twice");
        }
        for (String p : prefixes) {
            if (key.startsWith(p)) {
                throw new IllegalStateException("option '" + key + "' overlaps prefix '" + p + "'");
            }
        }
    }

    private String requireValue(String key) {
        String raw = options.get(key);
        if (raw == null) {
            throw new IllegalArgumentException("option '" + key + "' in " + context + " has no value");
        }
        return raw;
    }

    private void apply(String key, Runnable action) {
        try {
            action.run();
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("invalid option '" + key + "' in " + context + ": " + e.getMessage(), e);
        }
    }

    private static boolean claimedBy(String key, String prefix) {
        return key.length() > prefix.length() && key.startsWith(prefix);
    }

    // ---------------------------------------------------------------------------------------------
    // Suggestions

    private String suggest(String unknown) {
        List<String> candidates = new ArrayList<>(keys);
        int dot = unknown.indexOf('.');
        for (String p : prefixes) {
            if (p.endsWith(".") && dot >= 0 && dot < unknown.length() - 1) {
                candidates.add(p + unknown.substring(dot + 1));
            }
        }
        return nearest(unknown, candidates);
    }

    /**
     * The candidate nearest to {@code unknown}, at most two edits away (one for names of up to three characters),
     * ignoring case; ties go to the alphabetically first. Null if none is that near. The "did you mean" of every
     * option and key error (URIs here, the broker's config file).
     */
    public static String nearest(String unknown, Collection<String> candidates) {
        int limit = unknown.length() <= 3 ? 1 : 2;
        String lower = unknown.toLowerCase(Locale.ROOT);
        String best = null;
        int bestDistance = Integer.MAX_VALUE;
        for (String candidate : candidates) {
            String other = candidate.toLowerCase(Locale.ROOT);
            if (candidate.equals(unknown) || Math.abs(lower.length() - other.length()) > limit) {
                continue; // the distance is at least the difference in length; the table of a long key is large
            }
            int d = editDistance(lower, other);
            if (d <= limit && (d < bestDistance || (d == bestDistance && candidate.compareTo(best) < 0))) {
                best = candidate;
                bestDistance = d;
            }
        }
        return best;
    }

    /** Optimal string alignment distance: insertions, deletions, substitutions and adjacent swaps. */
    static int editDistance(String a, String b) {
        int[][] d = new int[a.length() + 1][b.length() + 1];
        for (int i = 0; i <= a.length(); i++) {
            d[i][0] = i;
        }
        for (int j = 0; j <= b.length(); j++) {
            d[0][j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            for (int j = 1; j <= b.length(); j++) {
                int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                d[i][j] = Math.min(Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1), d[i - 1][j - 1] + cost);
                if (i > 1 && j > 1 && a.charAt(i - 1) == b.charAt(j - 2) && a.charAt(i - 2) == b.charAt(j - 1)) {
                    d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
                }
            }
        }
        return d[a.length()][b.length()];
    }

    // ---------------------------------------------------------------------------------------------
    // Conversions; each throws Rejected with the rule the value broke

    private static boolean toBoolean(String raw) {
        String text = raw.trim();
        if (text.equalsIgnoreCase("true")) {
            return true;
        }
        if (text.equalsIgnoreCase("false")) {
            return false;
        }
        throw new Rejected("must be 'true' or 'false'");
    }

    private static long toLong(String raw, long min, long max) {
        String text = raw.trim();
        if (!PLAIN_INTEGER.matcher(text).matches()) {
            throw new Rejected("must be an integer");
        }
        if (significantDigits(text, 0, text.length()) > 19) { // BigInteger takes quadratic time on long ones
            throw new Rejected("must be an integer between " + min + " and " + max);
        }
        BigInteger value = new BigInteger(text);
        if (value.compareTo(BigInteger.valueOf(min)) < 0 || value.compareTo(BigInteger.valueOf(max)) > 0) {
            throw new Rejected("must be an integer between " + min + " and " + max);
        }
        return value.longValueExact();
    }

    private static double toDouble(String raw) {
        String text = raw.trim();
        if (DECIMAL.matcher(text).matches()) {
            double value = Double.parseDouble(text);
            if (Double.isFinite(value)) {
                return value;
            }
        }
        throw new Rejected("must be a finite number");
    }

    private static <E extends Enum<E>> E toEnum(String raw, Class<E> type) {
        String text = raw.trim().replace('-', '_');
        E[] constants = type.getEnumConstants();
        for (E constant : constants) {
            if (constant.name().equalsIgnoreCase(text)) {
                return constant;
            }
        }
        throw new Rejected("must be one of " + Arrays.stream(constants).map(Enum::name)
                .collect(Collectors.joining(", ")) + " (case-insensitive)");
    }

    private static List<String> toList(String raw, char separator) {
        if (raw.isBlank()) {
            return List.of();
        }
        List<String> entries = new ArrayList<>();
        int start = 0;
        for (int i = 0; i <= raw.length(); i++) {
            if (i == raw.length() || raw.charAt(i) == separator) {
                String entry = raw.substring(start, i).trim();
                if (entry.isEmpty()) {
                    throw new Rejected("must be a '" + separator + "'-separated list without empty entries");
                }
                entries.add(entry);
                start = i + 1;
            }
        }
        return List.copyOf(entries);
    }

    private static Duration toDuration(String raw, ChronoUnit plainNumberUnit) {
        String text = raw.trim();
        try {
            if (PLAIN_INTEGER.matcher(text).matches()) {
                return Duration.of(Long.parseLong(text), plainNumberUnit);
            }
            String unsigned = text.startsWith("-") || text.startsWith("+") ? text.substring(1) : text;
            boolean negative = text.startsWith("-");
            if (unsigned.startsWith("P") || unsigned.startsWith("p")) {
                return Duration.parse(text);
            }
            Matcher m = DURATION_PART.matcher(unsigned);
            BigDecimal nanos = BigDecimal.ZERO;
            int position = 0;
            while (position < unsigned.length() && m.region(position, unsigned.length()).lookingAt()) {
                nanos = nanos.add(boundedDecimal(m.group(1)).multiply(BigDecimal.valueOf(nanosPerUnit(m.group(2)))));
                position = m.end();
            }
            if (position == 0 || position != unsigned.length()) {
                throw rejectDuration(plainNumberUnit);
            }
            BigDecimal[] secondsAndNanos = (negative ? nanos.negate() : nanos).divideAndRemainder(NANOS_PER_SECOND);
            return Duration.ofSeconds(secondsAndNanos[0].longValueExact(), secondsAndNanos[1].longValueExact());
        } catch (ArithmeticException | DateTimeParseException | NumberFormatException e) {
            // out of range, a fraction of a nanosecond, or bad ISO-8601
            throw rejectDuration(plainNumberUnit);
        }
    }

    /** Digits of the unsigned integer {@code text[start, end)} without its leading zeros. */
    private static int significantDigits(String text, int start, int end) {
        int i = text.startsWith("+", start) || text.startsWith("-", start) ? start + 1 : start;
        while (i < end && text.charAt(i) == '0') {
            i++;
        }
        return end - i;
    }

    /**
     * A decimal {@code digits[.digits]}, without its insignificant zeros; {@link ArithmeticException} if it has more
     * digits than any duration can use (BigDecimal takes quadratic time on long ones).
     */
    private static BigDecimal boundedDecimal(String number) {
        int dot = number.indexOf('.');
        int intEnd = dot < 0 ? number.length() : dot;
        int fractionEnd = number.length();
        while (dot >= 0 && fractionEnd > dot + 1 && number.charAt(fractionEnd - 1) == '0') {
            fractionEnd--;
        }
        int intDigits = significantDigits(number, 0, intEnd);
        int fractionDigits = dot < 0 ? 0 : fractionEnd - dot - 1;
        if (intDigits + fractionDigits > 40) {
            throw new ArithmeticException("too many digits for a duration");
        }
        String integer = intDigits == 0 ? "0" : number.substring(intEnd - intDigits, intEnd);
        return new BigDecimal(fractionDigits == 0 ? integer : integer + number.substring(dot, fractionEnd));
    }

    private static long nanosPerUnit(String unit) {
        switch (unit.toLowerCase(Locale.ROOT)) {
            case "ns": return 1L;
            case "us":
            case "µs": return 1_000L;
            case "ms": return 1_000_000L;
            case "s": return 1_000_000_000L;
            case "m": return 60_000_000_000L;
            case "h": return 3_600_000_000_000L;
            case "d": return 86_400_000_000_000L;
            default: throw new IllegalStateException("unit " + unit);
        }
    }

    private static Rejected rejectDuration(ChronoUnit plainNumberUnit) {
        return new Rejected("must be a duration: a whole number of " + plainNumberUnit.toString().toLowerCase(Locale.ROOT)
                + " (e.g. '5000'), a number with unit ns, us, ms, s, m, h or d (e.g. '250ms', '5s', '1m30s'), "
                + "or ISO-8601 (e.g. 'PT5S')");
    }

    @FunctionalInterface
    private interface Converter<T> {
        T convert(String raw);
    }

    /** A value that does not convert; the message is the rule it broke, e.g. "must be an integer". */
    private static final class Rejected extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Rejected(String rule) {
            super(rule, null, false, false);
        }
    }
}
