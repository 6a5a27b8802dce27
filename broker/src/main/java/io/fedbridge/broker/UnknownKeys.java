package io.fedbridge.broker;

import java.util.Collection;
import java.util.Comparator;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * The message for an unknown key of a {@link BrokerConfigFile}: the valid keys, and the nearest one when a typo is
 * likely.
 *
 * <p>Stateless and thread-safe.
 */
final class UnknownKeys {

    private UnknownKeys() {
    }

    static String unknownKey(String key, String where, Collection<String> valid, Collection<String> other,
                                     String otherKind) {
        StringBuilder sb = new StringBuilder("unknown key '").append(key).append('\'').append(where)
                .append("; valid keys are: ").append(sorted(valid));
        String suggestion = suggest(key, valid);
        if (suggestion != null) {
            sb.append("; did you mean '").append(suggestion).append("'?");
        } else {
            suggestion = suggest(key, other);
            if (suggestion != null) {
                sb.append("; did you mean '").append(suggestion).append("' (").append(otherKind).append(")?");
            }
        }
        return sb.toString();
    }

    private static String sorted(Collection<String> keys) {
        return keys.stream().sorted(Comparator.comparing((String s) -> s.toLowerCase(Locale.ROOT))
                .thenComparing(Comparator.naturalOrder())).collect(Collectors.joining(", "));
    }

    /** The nearest key at most two edits away (one for keys of up to three characters), ignoring case. */
    private static String suggest(String unknown, Collection<String> candidates) {
        return io.fedbridge.core.uri.UriOptions.nearest(unknown, candidates);
    }
}
