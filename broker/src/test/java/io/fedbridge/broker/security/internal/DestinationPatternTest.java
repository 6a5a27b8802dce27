package io.fedbridge.broker.security.internal;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class DestinationPatternTest {

    private static DestinationPattern p(String s) {
        return s.equals(">") ? DestinationPattern.parseRule(s) : DestinationPattern.parse(s);
    }

    @ParameterizedTest(name = "{0} covers {1}: {2}")
    @CsvSource({
            ">, /queue/a, true",
            "/queue/>, /queue/a.b, true",
            "/queue/>, /topic/a, false",
            "/queue/a.>, /queue/a, false",
            "/queue/a.>, /queue/a.b.c, true",
            "/queue/a.*, /queue/a.b, true",
            "/queue/a.*, /queue/a.*, true",
            "/queue/a.*, /queue/a.>, false",
            "/queue/a.b, /queue/a.*, false",
            "/topic/a.>, /topic/a.*.c, true",
            "/topic/a.>, /topic/a.>, true",
            "/topic/*.b, /topic/a.>, false",
            "/topic/a.b, /topic/a.b, true",
            "/topic/a.b, /topic/a.b.c, false"})
    void shouldTellWhetherOnePatternCoversAnother(String pattern, String other, boolean expected) {
        assertThat(p(pattern).covers(p(other))).isEqualTo(expected);
    }

    @ParameterizedTest(name = "{0} overlaps {1}: {2}")
    @CsvSource({
            "/topic/*.b, /topic/a.>, true",
            "/topic/a.*, /topic/a.b.>, false",
            "/topic/a.b, /topic/*, false",
            "/topic/a.b, /topic/a.*, true",
            "/topic/>, /queue/a, false",
            ">, /queue/a, true",
            "/topic/fedbridge.advisory.>, /topic/>, true",
            "/topic/fedbridge.advisory.>, /topic/prices.>, false"})
    void shouldTellWhetherTwoPatternsShareADestination(String a, String b, boolean expected) {
        assertThat(p(a).overlaps(p(b))).isEqualTo(expected);
        assertThat(p(b).overlaps(p(a))).isEqualTo(expected);
    }

    @ParameterizedTest(name = "{0} is more specific than {1}")
    @CsvSource({
            "/queue/a.b, /queue/a.*",
            "/queue/a.*, /queue/a.>",
            "/queue/a.>, /queue/>",
            "/queue/>, >",
            "/queue/a.b.>, /queue/a.*"})
    void shouldOrderBySpecificity(String more, String less) {
        assertThat(p(more).specificity()).isGreaterThan(p(less).specificity());
    }
}
