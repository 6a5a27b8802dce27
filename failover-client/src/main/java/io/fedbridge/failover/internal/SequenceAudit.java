package io.fedbridge.failover.internal;

import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The message ids a subscription handed out, kept as ranges of sequence numbers per stream, so that what it takes to
 * remember them grows with the disorder of the deliveries, not with their number.
 *
 * <p>An id that ends in a decimal number ({@code p3q…:7c1e…:2:41977}: the stream {@code p3q…:7c1e…:2:}, number 41977)
 * is kept in its stream's set of ranges: a producer numbering the messages it sends to one destination 1, 2, 3, … (the
 * failover client does) costs one range per stream however many of them were handed out, plus one per hole left
 * by a message not handed out yet (still held by a broker that died, say), until it arrives. Order is never assumed:
 * a range records exactly the numbers handed out, so a late first delivery is never mistaken for a copy. Ids without
 * such a number are kept one by one, oldest first.
 *
 * <p>The ranges and single ids together are bounded by {@code budget}. Beyond it, the stream with the most ranges
 * (ties: the one handed a message longest ago) gives up its lowest range, the single ids count as one stream whose
 * oldest goes first. So a stream fragmented by a subset of a producer's messages (a selector, competing consumers) pays
 * for itself, and a producer long gone goes once every stream is down to one range. A forgotten id reads as never
 * handed out: its copy would be handed out again (at-least-once), never lost.
 *
 * <p>Ids of a broker that does not vouch for them ({@link Delivery#CONNECTION_SCOPED}) are always single ids: that is
 * the depth-bounded audit of old, the fallback for foreign brokers.
 *
 * <p>Not thread-safe.
 */
final class SequenceAudit {

    /** A sequence number has at most 18 digits, so that it fits a long. */
    private static final int MAX_DIGITS = 18;

    private final int budget;
    private final Map<String, Stream> streams = new HashMap<>();
    /** Victims first: the most ranges, then the least recently used. */
    private final TreeSet<Stream> victims = new TreeSet<>(Comparator.comparingInt((Stream s) -> -s.weight())
            .thenComparingLong(s -> s.lastUse).thenComparing(s -> s.key));
    private final LinkedHashMap<String, Boolean> singles = new LinkedHashMap<>();
    private long uses;
    private int ranges;
    /** The stream found last ({@link #stream}); may have been dropped since, so checked against {@link #streams}. */
    private Stream last;

    SequenceAudit(int budget) {
        if (budget < 1) {
            throw new IllegalArgumentException("budget must be >= 1, but was " + budget);
        }
        this.budget = budget;
    }

    boolean contains(String id) {
        int at = numberStart(id);
        if (at < 0) {
            return singles.containsKey(id);
        }
        Stream s = stream(id, at);
        return s != null && s.contains(Long.parseLong(id, at, id.length(), 10));
    }

    void add(String id) {
        int at = numberStart(id);
        if (at < 0) {
            if (singles.put(id, Boolean.TRUE) == null) {
                evictBeyondBudget();
            }
            return;
        }
        Stream s = stream(id, at);
        if (s == null) {
            String key = id.substring(0, at);
            s = new Stream(key);
            streams.put(key, s);
            last = s;
        } else {
            victims.remove(s);
        }
        s.lastUse = ++uses;
        ranges += s.add(Long.parseLong(id, at, id.length(), 10));
        victims.add(s);
        evictBeyondBudget();
    }

    void remove(String id) {
        int at = numberStart(id);
        if (at < 0) {
            singles.remove(id);
            return;
        }
        Stream s = stream(id, at);
        if (s == null) {
            return;
        }
        victims.remove(s);
        ranges += s.remove(Long.parseLong(id, at, id.length(), 10));
        if (s.ranges.isEmpty()) {
            streams.remove(s.key);
        } else {
            victims.add(s);
        }
        evictBeyondBudget();
    }

    /**
     * The stream of {@code id}, whose number starts at {@code at}, or null. Most ids in a row are of one stream (a producer's
     * messages to one destination): the last one found is checked first, without cutting the id's key out of it.
     */
    private Stream stream(String id, int at) {
        Stream s = last;
        if (s != null && s.key.length() == at && id.startsWith(s.key) && streams.get(s.key) == s) {
            return s;
        }
        s = streams.get(id.substring(0, at));
        if (s != null) {
            last = s;
        }
        return s;
    }

    /** Ranges and single ids remembered. */
    int size() {
        return ranges + singles.size();
    }

    int streamCount() {
        return streams.size();
    }

    private void evictBeyondBudget() {
        while (size() > budget) {
            Stream s = victims.isEmpty() ? null : victims.first();
            if (s == null || singles.size() > s.weight()) {
                singles.remove(singles.keySet().iterator().next());
                continue;
            }
            victims.remove(s);
            s.ranges.pollFirstEntry();
            ranges--;
            if (s.ranges.isEmpty()) {
                streams.remove(s.key);
            } else {
                victims.add(s);
            }
        }
    }

    /**
     * Where the sequence number of {@code id} starts, or -1 if it has none (no digits, too many, a leading zero) or is
     * an id only one connection vouches for ({@link Delivery#CONNECTION_SCOPED}: a foreign broker's).
     */
    static int numberStart(String id) {
        if (id.startsWith(Delivery.CONNECTION_SCOPED)) {
            return -1;
        }
        int i = id.length();
        while (i > 0 && id.charAt(i - 1) >= '0' && id.charAt(i - 1) <= '9') {
            i--;
        }
        int digits = id.length() - i;
        if (digits == 0 || digits > MAX_DIGITS || digits > 1 && id.charAt(i) == '0') {
            return -1;
        }
        return i;
    }

    /** One stream's numbers handed out: disjoint, non-adjacent ranges, first number to last (inclusive). */
    private static final class Stream {
        final String key;
        final TreeMap<Long, Long> ranges = new TreeMap<>();
        long lastUse;

        Stream(String key) {
            this.key = key;
        }

        int weight() {
            return ranges.size();
        }

        boolean contains(long n) {
            Map.Entry<Long, Long> r = ranges.floorEntry(n);
            return r != null && r.getValue() >= n;
        }

        /** Adds {@code n}; returns the change in the number of ranges. */
        int add(long n) {
            Map.Entry<Long, Long> below = ranges.floorEntry(n);
            if (below != null && below.getValue() >= n) {
                return 0;
            }
            long first = n;
            long last = n;
            int change = 1;
            if (below != null && below.getValue() == n - 1) {
                first = below.getKey();
                change--;
            }
            Long aboveLast = ranges.remove(n + 1);
            if (aboveLast != null) {
                last = aboveLast;
                change--;
            }
            ranges.put(first, last);
            return change;
        }

        /** Removes {@code n}; returns the change in the number of ranges. */
        int remove(long n) {
            Map.Entry<Long, Long> r = ranges.floorEntry(n);
            if (r == null || r.getValue() < n) {
                return 0;
            }
            long first = r.getKey();
            long last = r.getValue();
            ranges.remove(first);
            int change = -1;
            if (first < n) {
                ranges.put(first, n - 1);
                change++;
            }
            if (n < last) {
                ranges.put(n + 1, last);
                change++;
            }
            return change;
        }
    }
}
