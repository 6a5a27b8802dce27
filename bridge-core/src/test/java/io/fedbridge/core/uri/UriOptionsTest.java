package io.fedbridge.core.uri;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.entry;

import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class UriOptionsTest {

    private static final String CONTEXT = "static discovery URI 'static:(tcp://a:1)'";

    enum Mode { RANDOM, PRIORITY, ROUND_ROBIN }

    /** A stand-in for a config builder: fluent setters, one that validates. */
    static final class Builder {
        Duration initialReconnectDelay = Duration.ofSeconds(1);
        boolean useExponentialBackOff = true;
        int maxReconnectAttempts;
        long maxCacheSize = 128;
        double backOffMultiplier = 2;
        String group = "default";
        Mode mode = Mode.RANDOM;
        List<String> include = List.of();
        int prefetchSize = 1000;

        Builder initialReconnectDelay(Duration value) {
            initialReconnectDelay = value;
            return this;
        }

        Builder useExponentialBackOff(boolean value) {
            useExponentialBackOff = value;
            return this;
        }

        Builder maxReconnectAttempts(int value) {
            maxReconnectAttempts = value;
            return this;
        }

        Builder maxCacheSize(long value) {
            maxCacheSize = value;
            return this;
        }

        Builder backOffMultiplier(double value) {
            backOffMultiplier = value;
            return this;
        }

        Builder group(String value) {
            group = value;
            return this;
        }

        Builder mode(Mode value) {
            mode = value;
            return this;
        }

        Builder include(List<String> value) {
            include = value;
            return this;
        }

        Builder prefetchSize(int value) {
            if (value <= 0) {
                throw new IllegalArgumentException("prefetchSize must be > 0, but was " + value);
            }
            prefetchSize = value;
            return this;
        }
    }

    private static Builder bindAll(Map<String, String> options) {
        Builder b = new Builder();
        UriOptions.bind(options, CONTEXT)
                .durationMillis("initialReconnectDelay", b::initialReconnectDelay)
                .bool("useExponentialBackOff", b::useExponentialBackOff)
                .integer("maxReconnectAttempts", b::maxReconnectAttempts)
                .longValue("maxCacheSize", b::maxCacheSize)
                .doubleValue("backOffMultiplier", b::backOffMultiplier)
                .string("group", b::group)
                .enumValue("mode", Mode.class, b::mode)
                .list("include", ',', b::include)
                .integer("prefetchSize", b::prefetchSize)
                .finish();
        return b;
    }

    private static Map<String, String> options(String... keysAndValues) {
        Map<String, String> map = new LinkedHashMap<>();
        for (int i = 0; i < keysAndValues.length; i += 2) {
            map.put(keysAndValues[i], keysAndValues[i + 1]);
        }
        return map;
    }

    @Nested
    class Binding {

        @Test
        void shouldPassEveryPresentOptionToItsSetter() {
            Builder b = bindAll(options(
                    "initialReconnectDelay", "250",
                    "useExponentialBackOff", "FALSE",
                    "maxReconnectAttempts", "-1",
                    "maxCacheSize", "10000000000",
                    "backOffMultiplier", "1.5",
                    "group", " spaced name ",
                    "mode", "round-robin",
                    "include", "queue.a, topic.b,queue.c",
                    "prefetchSize", "10"));

            assertThat(b.initialReconnectDelay).isEqualTo(Duration.ofMillis(250));
            assertThat(b.useExponentialBackOff).isFalse();
            assertThat(b.maxReconnectAttempts).isEqualTo(-1);
            assertThat(b.maxCacheSize).isEqualTo(10_000_000_000L);
            assertThat(b.backOffMultiplier).isEqualTo(1.5);
            assertThat(b.group).isEqualTo(" spaced name ");
            assertThat(b.mode).isEqualTo(Mode.ROUND_ROBIN);
            assertThat(b.include).containsExactly("queue.a", "topic.b", "queue.c");
            assertThat(b.prefetchSize).isEqualTo(10);
        }

        @Test
        void shouldLeaveDefaultsAloneWhenOptionsAreAbsent() {
            Builder b = bindAll(Map.of());

            assertThat(b.initialReconnectDelay).isEqualTo(Duration.ofSeconds(1));
            assertThat(b.useExponentialBackOff).isTrue();
            assertThat(b.maxCacheSize).isEqualTo(128);
            assertThat(b.mode).isEqualTo(Mode.RANDOM);
            assertThat(b.prefetchSize).isEqualTo(1000);
        }

        @Test
        void shouldBindOptionsOfAParsedCompositeUri() {
            CompositeUri uri = CompositeUri.parse("static:(tcp://a:61616,tcp://b:61616)"
                    + "?initialReconnectDelay=2s&useExponentialBackOff=false&mode=PRIORITY&group=a%26b");

            Builder b = new Builder();
            UriOptions.bind(uri.options(), "static discovery URI '" + uri + "'")
                    .durationMillis("initialReconnectDelay", b::initialReconnectDelay)
                    .bool("useExponentialBackOff", b::useExponentialBackOff)
                    .enumValue("mode", Mode.class, b::mode)
                    .string("group", b::group)
                    .finish();

            assertThat(b.initialReconnectDelay).isEqualTo(Duration.ofSeconds(2));
            assertThat(b.useExponentialBackOff).isFalse();
            assertThat(b.mode).isEqualTo(Mode.PRIORITY);
            assertThat(b.group).isEqualTo("a&b");
        }

        @Test
        void shouldTrimNumbersBooleansAndEnums() {
            Builder b = bindAll(options("maxReconnectAttempts", " 5 ", "useExponentialBackOff", " true",
                    "mode", "Priority "));

            assertThat(b.maxReconnectAttempts).isEqualTo(5);
            assertThat(b.useExponentialBackOff).isTrue();
            assertThat(b.mode).isEqualTo(Mode.PRIORITY);
        }

        @Test
        void shouldBindListsWithOtherSeparatorsAndEmptyValue() {
            AtomicReference<List<String>> semicolons = new AtomicReference<>();
            AtomicReference<List<String>> empty = new AtomicReference<>();

            UriOptions.bind(options("a", "x;y", "b", ""), CONTEXT)
                    .list("a", ';', semicolons::set)
                    .list("b", ',', empty::set)
                    .finish();

            assertThat(semicolons.get()).containsExactly("x", "y");
            assertThat(empty.get()).isEmpty();
            assertThatThrownBy(() -> semicolons.get().add("z")).isInstanceOf(UnsupportedOperationException.class);
        }

        @Test
        void shouldBindWithACustomParser() {
            AtomicReference<CompositeUri> peer = new AtomicReference<>();

            UriOptions.bind(options("peer", "tcp://b:61613"), CONTEXT)
                    .value("peer", CompositeUri::parse, peer::set)
                    .finish();

            assertThat(peer.get().authority()).isEqualTo("b:61613");
        }

        @Test
        void shouldHandPrefixedOptionsWithoutPrefixToANestedBinder() {
            CompositeUri uri = CompositeUri.parse(
                    "tcp://h:61613?transport.tcpNoDelay=true&wireFormat=stomp&transport.soTimeout=5s");
            AtomicReference<Map<String, String>> transport = new AtomicReference<>();
            AtomicReference<Boolean> tcpNoDelay = new AtomicReference<>();
            AtomicReference<Duration> soTimeout = new AtomicReference<>();

            UriOptions.bind(uri.options(), "broker URI '" + uri + "'")
                    .string("wireFormat", value -> { })
                    .prefixed("transport.", sub -> {
                        transport.set(sub);
                        UriOptions.bind(sub, "transport options of '" + uri + "'")
                                .bool("tcpNoDelay", tcpNoDelay::set)
                                .durationMillis("soTimeout", soTimeout::set)
                                .finish();
                    })
                    .finish();

            assertThat(transport.get()).containsExactly(entry("tcpNoDelay", "true"), entry("soTimeout", "5s"));
            assertThat(tcpNoDelay.get()).isTrue();
            assertThat(soTimeout.get()).isEqualTo(Duration.ofSeconds(5));
        }

        @Test
        void shouldNotCallPrefixedBinderWhenNoOptionHasThePrefix() {
            AtomicReference<Map<String, String>> transport = new AtomicReference<>();

            UriOptions.bind(options("x", "1"), CONTEXT)
                    .string("x", v -> { })
                    .prefixed("transport.", transport::set)
                    .finish();

            assertThat(transport.get()).isNull();
        }

        @Test
        void shouldLetNestedBinderErrorsPassThroughUnchanged() {
            assertThatThrownBy(() -> UriOptions.bind(options("transport.tcpNoDelay", "yes"), CONTEXT)
                    .prefixed("transport.", sub -> UriOptions.bind(sub, "transport options")
                            .bool("tcpNoDelay", v -> { })
                            .finish()))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("option 'tcpNoDelay' in transport options must be 'true' or 'false', but was 'yes'");
        }

        @Test
        void shouldListValidKeysSortedWithPrefixes() {
            UriOptions binder = UriOptions.bind(Map.of(), CONTEXT)
                    .string("zeta", v -> { })
                    .string("alpha", v -> { })
                    .string("Beta", v -> { })
                    .prefixed("transport.", m -> { });

            assertThat(binder.validKeys()).containsExactly("alpha", "Beta", "transport.*", "zeta");
            assertThatThrownBy(() -> binder.validKeys().add("x")).isInstanceOf(UnsupportedOperationException.class);
        }
    }

    @Nested
    class BadValues {

        @Test
        void shouldRejectNonIntegerNamingOptionContextAndValue() {
            assertThatThrownBy(() -> bindAll(options("maxReconnectAttempts", "abc")))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("option 'maxReconnectAttempts' in static discovery URI 'static:(tcp://a:1)' "
                            + "must be an integer, but was 'abc'");
        }

        @ParameterizedTest
        @CsvSource(delimiter = '|', value = {
                "maxReconnectAttempts  | 1.5         | must be an integer, but was '1.5'",
                "maxReconnectAttempts  | 2147483648  | must be an integer between -2147483648 and 2147483647, but was '2147483648'",
                "maxReconnectAttempts  | ''          | must be an integer, but was ''",
                "maxCacheSize          | 9223372036854775808 | must be an integer between -9223372036854775808 and 9223372036854775807",
                "maxCacheSize          | 0x10        | must be an integer, but was '0x10'",
                "useExponentialBackOff | yes         | must be 'true' or 'false', but was 'yes'",
                "useExponentialBackOff | 1           | must be 'true' or 'false', but was '1'",
                "backOffMultiplier     | NaN         | must be a finite number, but was 'NaN'",
                "backOffMultiplier     | Infinity    | must be a finite number, but was 'Infinity'",
                "backOffMultiplier     | 1e999       | must be a finite number, but was '1e999'",
                "backOffMultiplier     | 2d          | must be a finite number, but was '2d'",
                "mode                  | fastest     | must be one of RANDOM, PRIORITY, ROUND_ROBIN (case-insensitive), but was 'fastest'",
                "include               | 'a,,b'      | must be a ','-separated list without empty entries, but was 'a,,b'",
                "include               | 'a,b,'      | must be a ','-separated list without empty entries, but was 'a,b,'",
                "initialReconnectDelay | soon        | must be a duration",
        })
        void shouldRejectValuesThatDoNotConvert(String key, String value, String problem) {
            assertThatThrownBy(() -> bindAll(options(key, value)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith("option '" + key + "' in " + CONTEXT + " ")
                    .hasMessageContaining(problem);
        }

        @Test
        void shouldAcceptDecimalFormats() {
            assertThat(bindAll(options("backOffMultiplier", "1e3")).backOffMultiplier).isEqualTo(1000.0);
            assertThat(bindAll(options("backOffMultiplier", ".5")).backOffMultiplier).isEqualTo(0.5);
            assertThat(bindAll(options("backOffMultiplier", "-2")).backOffMultiplier).isEqualTo(-2.0);
        }

        @Test
        void shouldReportAnOptionWithoutValue() {
            Map<String, String> map = new HashMap<>();
            map.put("group", null);

            assertThatThrownBy(() -> bindAll(map))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("option 'group' in " + CONTEXT + " has no value");
        }

        @Test
        void shouldWrapSetterValidationErrorsKeepingTheCause() {
            assertThatThrownBy(() -> bindAll(options("prefetchSize", "0")))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("invalid option 'prefetchSize' in " + CONTEXT + ": prefetchSize must be > 0, but was 0")
                    .cause()
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("prefetchSize must be > 0, but was 0");
        }

        @Test
        void shouldWrapCustomParserErrors() {
            assertThatThrownBy(() -> UriOptions.bind(options("peer", "tcp://b:70000"), CONTEXT)
                    .value("peer", CompositeUri::parse, v -> { }))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("invalid option 'peer' in " + CONTEXT
                            + ": invalid URI 'tcp://b:70000': port must be 0-65535, but was 70000")
                    .hasCauseInstanceOf(IllegalArgumentException.class);
        }

        @Test
        void shouldMaskSecretValuesInErrors() {
            assertThatThrownBy(() -> UriOptions.bind(options("passcode", "hunter2"), CONTEXT)
                    .integer("passcode", v -> { }))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("option 'passcode' in " + CONTEXT + " must be an integer, but was '*****'");
        }
    }

    @Nested
    class Durations {

        @ParameterizedTest
        @CsvSource(delimiter = '|', value = {
                "5000     | PT5S",
                "0        | PT0S",
                "+250     | PT0.25S",
                "-1       | PT-0.001S",
                "250ms    | PT0.25S",
                "5s       | PT5S",
                "5S       | PT5S",
                "2m       | PT2M",
                "1h       | PT1H",
                "1d       | PT24H",
                "1m30s    | PT1M30S",
                "1h2m3s4ms | PT1H2M3.004S",
                "1.5s     | PT1.5S",
                "0.5ms    | PT0.0005S",
                "500us    | PT0.0005S",
                "500µs    | PT0.0005S",
                "100ns    | PT0.0000001S",
                "-5s      | PT-5S",
                "-1.5s    | PT-1.5S",
                "PT5S     | PT5S",
                "pt0.25s  | PT0.25S",
                "P1DT2H   | PT26H",
                "-PT1S    | PT-1S",
                "' 5s '   | PT5S",
                // the longest exact values, and insignificant zeros (digits are counted without them)
                "106751991167300.0000152587890625d           | PT2562047788015200H1.318359375S",
                "9223372036854775807999999999ns              | PT2562047788015215H30M7.999999999S",
                "000000000000000000000000000000000000000001.50000000000000000000000000000000000000000s | PT1.5S",
        })
        void shouldAcceptMillisecondsUnitsAndIso8601(String text, String expected) {
            assertThat(bindAll(options("initialReconnectDelay", text)).initialReconnectDelay)
                    .isEqualTo(Duration.parse(expected));
        }

        @ParameterizedTest
        @ValueSource(strings = {"abc", "5x", "5 s", "s", "1.5", "", "ms5", "1.5ns", "P", "5s-", "1e3",
                "99999999999999999999", "106751991167301d", "5sec", "9223372036854775808000000000ns",
                "1.00000000000000000000000000000000000000001s", "1111111111111111111111111111111111111111111s"})
        void shouldRejectOtherDurationFormats(String text) {
            assertThatThrownBy(() -> bindAll(options("initialReconnectDelay", text)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("option 'initialReconnectDelay' in " + CONTEXT + " must be a duration: "
                            + "a whole number of millis (e.g. '5000'), a number with unit ns, us, ms, s, m, h or d "
                            + "(e.g. '250ms', '5s', '1m30s'), or ISO-8601 (e.g. 'PT5S'), but was '" + text + "'");
        }

        @Test
        void shouldReadPlainNumbersInTheGivenUnit() {
            AtomicReference<Duration> keepAlive = new AtomicReference<>();

            UriOptions.bind(options("keepAlive", "30"), CONTEXT)
                    .duration("keepAlive", ChronoUnit.SECONDS, keepAlive::set)
                    .finish();

            assertThat(keepAlive.get()).isEqualTo(Duration.ofSeconds(30));
            assertThatThrownBy(() -> UriOptions.bind(Map.of(), CONTEXT).duration("x", ChronoUnit.MONTHS, d -> { }))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("plainNumberUnit must be an exact unit");
        }
    }

    @Nested
    class UnknownOptions {

        private UriOptions abc(Map<String, String> options) {
            return UriOptions.bind(options, CONTEXT)
                    .string("a", v -> { })
                    .string("b", v -> { })
                    .string("c", v -> { });
        }

        @Test
        void shouldListValidOptionsSorted() {
            assertThatThrownBy(() -> abc(options("foo", "1")).finish())
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("unknown option 'foo' in static discovery URI 'static:(tcp://a:1)'; "
                            + "valid options are: a, b, c");
        }

        @Test
        void shouldSuggestAnOptionWithinTwoEdits() {
            assertThatThrownBy(() -> bindAll(options("maxReconectAtempts", "5")))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith("unknown option 'maxReconectAtempts' "
                            + "(did you mean 'maxReconnectAttempts'?) in " + CONTEXT + "; valid options are: ")
                    .hasMessageEndingWith("backOffMultiplier, group, include, initialReconnectDelay, maxCacheSize, "
                            + "maxReconnectAttempts, mode, prefetchSize, useExponentialBackOff");
        }

        @ParameterizedTest
        @CsvSource(delimiter = '|', value = {
                "UseExponentialBackoff  | useExponentialBackOff",
                "grop                   | group",
                "moed                   | mode",
                "prefetchsize           | prefetchSize",
        })
        void shouldSuggestDespiteCaseAndSwappedLetters(String typo, String suggestion) {
            assertThatThrownBy(() -> bindAll(options(typo, "1")))
                    .hasMessageContaining("unknown option '" + typo + "' (did you mean '" + suggestion + "'?)");
        }

        @Test
        void shouldNotSuggestWhenNothingIsClose() {
            assertThatThrownBy(() -> bindAll(options("networkTTL", "2")))
                    .hasMessageStartingWith("unknown option 'networkTTL' in ")
                    .hasMessageNotContaining("did you mean");
        }

        @Test
        void shouldNameAllUnknownOptions() {
            assertThatThrownBy(() -> abc(options("a", "1", "foo", "1", "bb", "2")).finish())
                    .hasMessage("unknown options 'foo', 'bb' (did you mean 'b'?) in " + CONTEXT
                            + "; valid options are: a, b, c");
        }

        @Test
        void shouldSuggestTheFullKeyOfAMistypedPrefix() {
            assertThatThrownBy(() -> UriOptions.bind(options("transprt.tcpNoDelay", "true"), CONTEXT)
                    .prefixed("transport.", m -> { })
                    .finish())
                    .hasMessage("unknown option 'transprt.tcpNoDelay' (did you mean 'transport.tcpNoDelay'?) in "
                            + CONTEXT + "; valid options are: transport.*");
        }

        @Test
        void shouldTreatAKeyEqualToThePrefixAsUnknown() {
            assertThatThrownBy(() -> UriOptions.bind(options("transport.", "x"), CONTEXT)
                    .prefixed("transport.", m -> { })
                    .finish())
                    .hasMessageStartingWith("unknown option 'transport.' in ");
        }

        @Test
        void shouldSayWhenNoOptionsAreSupported() {
            assertThatThrownBy(() -> UriOptions.bind(options("x", "1"), "vm URI 'vm://a?x=1'").finish())
                    .hasMessage("unknown option 'x' in vm URI 'vm://a?x=1'; no options are supported here");
        }

        @Test
        void shouldPassWhenEveryOptionIsKnown() {
            UriOptions binder = abc(options("a", "1", "c", "3"));

            binder.finish();

            assertThat(binder.validKeys()).containsExactly("a", "b", "c");
        }
    }

    @Nested
    class ProgrammingErrors {

        @Test
        void shouldRejectBindingAKeyTwice() {
            assertThatThrownBy(() -> UriOptions.bind(Map.of(), CONTEXT).string("a", v -> { }).bool("a", v -> { }))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessage("option 'a' is bound twice");
        }

        @Test
        void shouldRejectKeysAndPrefixesThatOverlap() {
            assertThatThrownBy(() -> UriOptions.bind(Map.of(), CONTEXT)
                    .prefixed("transport.", m -> { }).string("transport.x", v -> { }))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessage("option 'transport.x' overlaps prefix 'transport.'");
            assertThatThrownBy(() -> UriOptions.bind(Map.of(), CONTEXT)
                    .string("transport.x", v -> { }).prefixed("transport.", m -> { }))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessage("prefix 'transport.' overlaps option 'transport.x'");
            assertThatThrownBy(() -> UriOptions.bind(Map.of(), CONTEXT)
                    .prefixed("transport.", m -> { }).prefixed("transport.ssl.", m -> { }))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessage("prefix 'transport.ssl.' overlaps prefix 'transport.'");
        }

        @Test
        void shouldComputeEditDistanceWithTranspositions() {
            assertThat(UriOptions.editDistance("mode", "moed")).isEqualTo(1);
            assertThat(UriOptions.editDistance("grop", "group")).isEqualTo(1);
            assertThat(UriOptions.editDistance("abc", "abc")).isZero();
            assertThat(UriOptions.editDistance("kitten", "sitting")).isEqualTo(3);
        }
    }
}
