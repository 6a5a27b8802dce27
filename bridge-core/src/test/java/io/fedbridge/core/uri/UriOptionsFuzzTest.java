package io.fedbridge.core.uri;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.fedbridge.core.testing.Fuzz;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Fuzzes the value conversions of {@link UriOptions}: any value for any kind of option is either converted or
 * rejected with an {@link IllegalArgumentException} naming the option; huge numbers are rejected in linear time.
 * Inputs come from {@link Fuzz}: the same ones in every build, fifty times as many with {@code -Dfedbridge.soak=true}.
 */
class UriOptionsFuzzTest {

    private static final List<String> KEYS = List.of("int", "long", "double", "bool", "millis", "seconds", "mode",
            "list", "text", "custom", "transport.x", "transport.", "unknown", "Int");

    private static final List<String> TOKENS = List.of(
            "0", "1", "7", "9", "00", "-", "+", ".", "e", "E", "e-", "ns", "us", "\u00b5s", "MS", "ms", "s", "m", "h",
            "d", "D", "P", "p", "T", "H", "M", "S", "W", "Y", " ", "\t", ",", ",,", "true", "FALSE", "yes",
            "round-robin", "RANDOM", "9223372036854775807", "9223372036854775808", "99999999999999999999999",
            "2147483648", "1e999", "1e-999", "NaN", "Infinity", "0x10", "\u0661", "\uff11", "PT1S", "PT-0.5S", "P1D",
            "1m30s", "1.5", ".5", "5.", "%", "\0", "\u00e9");

    enum Mode { RANDOM, PRIORITY, ROUND_ROBIN }

    @Test
    void everyValueIsConvertedOrRejectedNamingTheOption() {
        Fuzz.run("everyValueIsConvertedOrRejectedNamingTheOption", Fuzz.tries(3000), random ->
                bindOrReject(Fuzz.pick(random, KEYS), value(random)));
    }

    @Test
    void arbitraryValuesAreConvertedOrRejectedNamingTheOption() {
        Fuzz.run("arbitraryValuesAreConvertedOrRejectedNamingTheOption", Fuzz.tries(1000), random ->
                bindOrReject(Fuzz.pick(random, KEYS), Fuzz.anyString(random, 255)));
    }

    @Test
    void hugeNumbersAreRejectedInLinearTime() {
        // Parsing a BigInteger or BigDecimal is quadratic in its digits (~20 s for 1 MiB), and a regex that
        // tried every start position was quadratic too.
        String digits = "9".repeat(1 << 20);
        assertRejectedQuickly("int", digits, "must be an integer between -2147483648 and 2147483647");
        assertRejectedQuickly("long", "-" + digits, "must be an integer between");
        assertRejectedQuickly("millis", digits + "s", "must be a duration");
        assertRejectedQuickly("millis", digits + "x", "must be a duration");
        assertRejectedQuickly("millis", "1." + digits + "ms", "must be a duration");
        assertRejectedQuickly("millis", "1s".repeat(1 << 19) + "x", "must be a duration");
        assertRejectedQuickly("double", digits + "x", "must be a finite number");
        assertRejectedQuickly("seconds", "PT" + digits + "S", "must be a duration");
        assertThat(bindOrReject("millis", "0".repeat(1 << 20) + "1.5" + "0".repeat(1 << 20) + "s"))
                .isEqualTo(Duration.ofMillis(1500));
        assertThat(bindOrReject("int", "+" + "0".repeat(1 << 20) + "42")).isEqualTo(42);
    }

    // ------------------------------------------------------------------------------------------- the checks

    /** Binds {@code key=value}; returns what the setter got, or null if it was rejected as it must be. */
    private static Object bindOrReject(String key, String value) {
        Object[] got = new Object[1];
        Map<String, String> options = new LinkedHashMap<>();
        options.put(key, value);
        try {
            UriOptions.bind(options, "fuzzed URI 'tcp://h:1'")
                    .integer("int", v -> got[0] = nonNegative(v))
                    .longValue("long", v -> got[0] = v)
                    .doubleValue("double", v -> got[0] = v)
                    .bool("bool", v -> got[0] = v)
                    .durationMillis("millis", v -> got[0] = v)
                    .duration("seconds", ChronoUnit.SECONDS, v -> got[0] = v)
                    .enumValue("mode", Mode.class, v -> got[0] = v)
                    .list("list", ',', v -> got[0] = v)
                    .string("text", v -> got[0] = v)
                    .value("custom", Integer::parseInt, v -> got[0] = v)
                    .prefixed("transport.", sub -> UriOptions.bind(sub, "transport options")
                            .integer("x", v -> got[0] = v).finish())
                    .finish();
        } catch (IllegalArgumentException e) {
            String shownKey = key.startsWith("transport.") && key.length() > "transport.".length()
                    ? key.substring("transport.".length()) : key;
            assertThat(e.getMessage()).contains("'" + shownKey + "'");
            return null;
        }
        assertThat(got[0]).as("the setter was called").isNotNull();
        return got[0];
    }

    private static int nonNegative(int v) {
        if (v < 0) {
            throw new IllegalArgumentException("int must be >= 0, but was " + v);
        }
        return v;
    }

    private static void assertRejectedQuickly(String key, String value, String problem) {
        assertTimeoutPreemptively(Duration.ofSeconds(30), () -> assertThatThrownBy(() -> {
            Map<String, String> options = Map.of(key, value);
            UriOptions.bind(options, "huge")
                    .integer("int", v -> { })
                    .longValue("long", v -> { })
                    .doubleValue("double", v -> { })
                    .durationMillis("millis", v -> { })
                    .duration("seconds", ChronoUnit.SECONDS, v -> { })
                    .finish();
        }).isExactlyInstanceOf(IllegalArgumentException.class).hasMessageContaining(problem));
    }

    // ------------------------------------------------------------------------------------------- generators

    /** Up to 8 pieces: tokens six times in seven, else up to 2 random characters. */
    private static String value(Random random) {
        return Fuzz.concat(random, 0, 8, r -> Fuzz.oneIn(r, 7) ? Fuzz.anyString(r, 2) : Fuzz.pick(r, TOKENS));
    }
}
