package io.fedbridge.broker;

import io.fedbridge.core.uri.CompositeUri;
import io.fedbridge.core.uri.UriOptions;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * One value of a {@link BrokerConfigFile} key as written (trimmed, never empty), with the conversions the keys need.
 * Each throws {@code IllegalArgumentException("<key> must be <rule>, but was '<value>'")}.
 *
 * <p>Immutable and thread-safe.
 */
record ConfigValue(String key, String raw) {

    private static final Pattern PLAIN_INTEGER = Pattern.compile("[+-]?\\d+");
    private static final Pattern SIZE_WITH_UNIT = Pattern.compile("(\\d+(?:\\.\\d+)?|\\.\\d+)\\s*([A-Za-z]+)");
    private static final Map<String, Long> SIZE_UNITS = sizeUnits();
    private static final String SIZE_RULE = "a whole number of bytes, or a number with unit B, KB, KiB, MB, MiB, GB "
            + "or GiB (KB = 1000 bytes, KiB = 1024 bytes), e.g. '65536', '64KiB' or '1.5GB'";
    private static final String DURATION_RULE = "a whole number of milliseconds (e.g. '5000'), a number with unit ns, "
            + "us, ms, s, m, h or d (e.g. '250ms', '5s', '1m30s'), or ISO-8601 (e.g. 'PT5S')";

    private static Map<String, Long> sizeUnits() {
        Map<String, Long> units = new LinkedHashMap<>();
        units.put("b", 1L);
        units.put("kb", 1000L);
        units.put("kib", 1L << 10);
        units.put("mb", 1000L * 1000);
        units.put("mib", 1L << 20);
        units.put("gb", 1000L * 1000 * 1000);
        units.put("gib", 1L << 30);
        return Collections.unmodifiableMap(units);
    }

    String text() {
        return raw;
    }

    int integer() {
        return (int) wholeNumber(Integer.MIN_VALUE, Integer.MAX_VALUE);
    }

    long longInteger() {
        return wholeNumber(Long.MIN_VALUE, Long.MAX_VALUE);
    }

    private long wholeNumber(long min, long max) {
        if (!PLAIN_INTEGER.matcher(raw).matches()) {
            throw rejected("an integer");
        }
        if (withoutLeadingZeros(unsigned(raw)).length() > 19) {
            throw rejected("an integer between " + min + " and " + max);
        }
        BigInteger value = new BigInteger(raw);
        if (value.compareTo(BigInteger.valueOf(min)) < 0 || value.compareTo(BigInteger.valueOf(max)) > 0) {
            throw rejected("an integer between " + min + " and " + max);
        }
        return value.longValueExact();
    }

    /** A size in bytes; a plain integer may be negative (for -1, unlimited), one with a unit may not. */
    long size(long max) {
        if (PLAIN_INTEGER.matcher(raw).matches()) {
            if (withoutLeadingZeros(unsigned(raw)).length() > 19) {
                throw rejected("at most " + max + " bytes");
            }
            BigInteger value = new BigInteger(raw);
            if (value.compareTo(BigInteger.valueOf(max)) > 0 || value.compareTo(BigInteger.valueOf(-max - 1)) < 0) {
                throw rejected("at most " + max + " bytes");
            }
            return value.longValueExact();
        }
        Matcher m = SIZE_WITH_UNIT.matcher(raw);
        Long unit = m.matches() ? SIZE_UNITS.get(m.group(2).toLowerCase(Locale.ROOT)) : null;
        if (unit == null) {
            throw rejected("a size: " + SIZE_RULE);
        }
        String number = m.group(1);
        int dot = number.indexOf('.');
        String integer = withoutLeadingZeros(dot < 0 ? number : number.substring(0, dot));
        int fractionEnd = number.length();
        while (dot >= 0 && fractionEnd > dot + 1 && number.charAt(fractionEnd - 1) == '0') {
            fractionEnd--;
        }
        String fraction = dot < 0 ? "" : number.substring(dot + 1, fractionEnd);
        if (integer.length() > 19) {
            throw rejected("at most " + max + " bytes");
        }
        if (fraction.length() > 30) { // units are at most 2^30, so a whole number of bytes has at most 30 decimals
            throw rejected("a whole number of bytes");
        }
        BigDecimal bytes = new BigDecimal((integer.isEmpty() ? "0" : integer) + (fraction.isEmpty() ? "" : "." + fraction))
                .multiply(BigDecimal.valueOf(unit));
        if (bytes.signum() != 0 && bytes.stripTrailingZeros().scale() > 0) {
            throw rejected("a whole number of bytes");
        }
        if (bytes.compareTo(BigDecimal.valueOf(max)) > 0) {
            throw rejected("at most " + max + " bytes");
        }
        return bytes.longValueExact();
    }

    /** Read by {@link UriOptions#durationMillis}, so a config file and a URI take the same durations. */
    Duration duration() {
        Duration[] parsed = new Duration[1];
        try {
            UriOptions.bind(Map.of(key, raw), "config file").durationMillis(key, d -> parsed[0] = d).finish();
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(key + " must be a duration: " + DURATION_RULE + ", but was '" + raw
                    + "'", e);
        }
        return parsed[0];
    }

    boolean bool() {
        if (raw.equalsIgnoreCase("true")) {
            return true;
        }
        if (raw.equalsIgnoreCase("false")) {
            return false;
        }
        throw rejected("'true' or 'false'");
    }

    /** By constant name, ignoring case and reading '-' as '_', as {@link UriOptions#enumValue} does. */
    <E extends Enum<E>> E enumValue(Class<E> type) {
        String name = raw.replace('-', '_');
        for (E constant : type.getEnumConstants()) {
            if (constant.name().equalsIgnoreCase(name)) {
                return constant;
            }
        }
        throw rejected("one of " + Arrays.stream(type.getEnumConstants()).map(Enum::name)
                .collect(Collectors.joining(", ")) + " (case-insensitive)");
    }

    /** A file path, relative to {@code baseDir} unless absolute. */
    Path file(Path baseDir) {
        Path path;
        try {
            path = Path.of(raw);
        } catch (InvalidPathException e) {
            throw new IllegalArgumentException(key + " must be a file path, but was '" + raw + "': " + e.getReason(), e);
        }
        return baseDir == null || path.isAbsolute() ? path : baseDir.resolve(path).normalize();
    }

    Path path(Path baseDir) {
        Path path;
        try {
            path = Path.of(raw);
        } catch (InvalidPathException e) {
            throw new IllegalArgumentException(key + " must be a directory path, but was '" + raw + "': "
                    + e.getReason(), e);
        }
        return baseDir == null || path.isAbsolute() ? path : baseDir.resolve(path).normalize();
    }

    /** URIs separated by commas outside parentheses (a composite URI keeps its own commas). */
    List<String> uriList() {
        List<String> uris = new ArrayList<>();
        int depth = 0;
        int start = 0;
        for (int i = 0; i <= raw.length(); i++) {
            char c = i < raw.length() ? raw.charAt(i) : ',';
            if (c == '(') {
                depth++;
            } else if (c == ')') {
                depth--;
            } else if (c == ',' && (depth <= 0 || i == raw.length())) {
                String uri = raw.substring(start, i).strip();
                if (uri.isEmpty()) {
                    throw rejected("URIs separated by ',' without empty entries");
                }
                uris.add(uri);
                start = i + 1;
            }
        }
        return uris;
    }

    /** Checked for syntax here, to report it with the line; kept as written. */
    String uri() {
        CompositeUri.parse(raw);
        return raw;
    }

    private static String unsigned(String integer) {
        return integer.startsWith("+") || integer.startsWith("-") ? integer.substring(1) : integer;
    }

    /** Parsing a BigInteger or BigDecimal takes quadratic time in its digits: count them without these first. */
    private static String withoutLeadingZeros(String digits) {
        int i = 0;
        while (i < digits.length() && digits.charAt(i) == '0') {
            i++;
        }
        return digits.substring(i);
    }

    private IllegalArgumentException rejected(String rule) {
        return new IllegalArgumentException(key + " must be " + rule + ", but was '" + raw + "'");
    }
}
