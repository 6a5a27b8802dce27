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

    /** The nearest key at most two edits away (one for keys of up to three characters), ignoring case; as UriOptions. */
    private static String suggest(String unknown, Collection<String> candidates) {
        int limit = unknown.length() <= 3 ? 1 : 2;
        String lower = unknown.toLowerCase(Locale.ROOT);
        String best = null;
        int bestDistance = Integer.MAX_VALUE;
        for (String candidate : candidates) {
            String other = candidate.toLowerCase(Locale.ROOT);
            if (Math.abs(lower.length() - other.length()) > limit) {
                continue; // too far apart anyway; and the distance table of a long key is large
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
    private static int editDistance(String a, String b) {
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
}
