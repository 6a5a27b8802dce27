package io.fedbridge.samples.admin;

import io.fedbridge.core.uri.UriOptions;
import java.time.Duration;
import java.util.Map;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/** A positive duration as the URIs write it: {@code 500ms}, {@code 10s}, {@code PT1M}, or plain milliseconds. */
final class DurationConverter implements ITypeConverter<Duration> {

    @Override
    public Duration convert(String value) {
        Duration[] d = new Duration[1];
        try {
            UriOptions.bind(Map.of("d", value), "duration").durationMillis("d", v -> d[0] = v).finish();
        } catch (IllegalArgumentException e) {
            d[0] = null;
        }
        if (d[0] == null || d[0].isNegative() || d[0].isZero()) {
            throw new TypeConversionException("must be a positive duration such as 500ms, 10s or PT1M, but was '" + value + "'");
        }
        return d[0];
    }
}
