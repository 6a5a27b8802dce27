package io.fedbridge.broker.security.internal;

import java.util.Arrays;
import java.util.List;

/**
 * A destination or destination pattern as authorization sees it: a type prefix ({@code /queue/},
 * {@code /topic/}, {@code /temp-queue/}, {@code /temp-topic/}) and '.'-separated segments where {@code *}
 * is one segment and {@code >} one or more (the rest), as in subscriptions; or {@code >} alone for every
 * destination. Answers the three questions rule matching needs: does one pattern cover everything another
 * matches, can they match a common name, and which of two is more specific.
 */
public final class DestinationPattern {

    static final List<String> PREFIXES = List.of("/queue/", "/topic/", "/temp-queue/", "/temp-topic/");
    private static final String STAR = "*";
    private static final String REST = ">";

    private final String text;
    private final boolean all;
    private final String prefix;
    private final String[] segments;

    private DestinationPattern(String text, boolean all, String prefix, String[] segments) {
        this.text = text;
        this.all = all;
        this.prefix = prefix;
        this.segments = segments;
    }

    /**
     * Parses a rule pattern strictly: {@code >}, or a prefix and a non-empty name whose segments are non-empty,
     * with {@code >} only as the last one.
     *
     * @throws IllegalArgumentException naming the problem
     */
    public static DestinationPattern parseRule(String pattern) {
        if (REST.equals(pattern)) {
            return new DestinationPattern(pattern, true, "", new String[0]);
        }
        DestinationPattern p = parse(pattern);
        if (p == null) {
            throw new IllegalArgumentException("pattern must be '>' or start with one of " + PREFIXES
                    + " followed by a name, but was '" + pattern + "'");
        }
        String[] raw = pattern.substring(p.prefix.length()).split("\\.", -1);
        for (int i = 0; i < raw.length; i++) {
            if (raw[i].isEmpty()) {
                throw new IllegalArgumentException("pattern '" + pattern + "' has an empty segment");
            }
            if (raw[i].equals(REST) && i != raw.length - 1) {
                throw new IllegalArgumentException("pattern '" + pattern + "' may have '>' only as its last segment");
            }
        }
        return p;
    }

    /**
     * Reads a destination a client named (SEND or SUBSCRIBE), as the broker's topic matching reads it: a
     * {@code >} segment stands for the rest, whatever follows it. Null if it has no known prefix.
     */
    public static DestinationPattern parse(String destination) {
        for (String prefix : PREFIXES) {
            if (destination.startsWith(prefix) && destination.length() > prefix.length()) {
                String[] segs = destination.substring(prefix.length()).split("\\.", -1);
                for (int i = 0; i < segs.length; i++) {
                    if (segs[i].equals(REST)) {
                        segs = Arrays.copyOf(segs, i + 1);
                        break;
                    }
                }
                return new DestinationPattern(destination, false, prefix, segs);
            }
        }
        return null;
    }

    /** Whether every destination {@code other} matches is matched by this pattern too. */
    public boolean covers(DestinationPattern other) {
        if (all) {
            return true;
        }
        if (other.all || !prefix.equals(other.prefix)) {
            return false;
        }
        String[] p = segments;
        String[] s = other.segments;
        for (int i = 0; i < p.length; i++) {
            if (p[i].equals(REST)) {
                return s.length > i;
            }
            if (i >= s.length || s[i].equals(REST)) {
                return false;
            }
            if (p[i].equals(STAR)) {
                continue;
            }
            if (s[i].equals(STAR) || !p[i].equals(s[i])) {
                return false;
            }
        }
        return p.length == s.length;
    }

    /** Whether some destination is matched by both patterns. */
    public boolean overlaps(DestinationPattern other) {
        if (all || other.all) {
            return true;
        }
        if (!prefix.equals(other.prefix)) {
            return false;
        }
        String[] p = segments;
        String[] s = other.segments;
        for (int i = 0; ; i++) {
            boolean pMore = i < p.length;
            boolean sMore = i < s.length;
            if (pMore && p[i].equals(REST)) {
                return sMore;
            }
            if (sMore && s[i].equals(REST)) {
                return pMore;
            }
            if (!pMore || !sMore) {
                return pMore == sMore;
            }
            if (!p[i].equals(STAR) && !s[i].equals(STAR) && !p[i].equals(s[i])) {
                return false;
            }
        }
    }

    /**
     * Higher is more specific: a name without wildcards beats any pattern; then more literal segments (the
     * type prefix counts as one), then more {@code *} segments (a fixed depth), then no {@code >}.
     */
    public long specificity() {
        if (all) {
            return 0;
        }
        long literals = 1;
        long stars = 0;
        boolean rest = false;
        for (String s : segments) {
            if (s.equals(STAR)) {
                stars++;
            } else if (s.equals(REST)) {
                rest = true;
            } else {
                literals++;
            }
        }
        boolean exact = stars == 0 && !rest;
        return (exact ? 1L << 50 : 0) | literals << 30 | stars << 10 | (rest ? 0 : 1);
    }

    @Override
    public String toString() {
        return text;
    }
}
