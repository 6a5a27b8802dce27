package io.fedbridge.broker.internal;

/**
 * An insertion-ordered set of at most {@code capacity} ids that forgets the oldest beyond that, kept as 127-bit
 * fingerprints in arrays allocated once, each id with a mark that can be set ({@link #mark}). Adding an id allocates
 * nothing.
 *
 * <p>Why not a {@code LinkedHashMap}: a dedupe window of 100,000 ids that turns over in a minute or two is the worst
 * case for a generational collector. Every entry outlives many young collections and is copied at each one until
 * it is tenured, and then dies in the old generation. On a broker receiving 1,000 persistent msg/s that made every
 * young pause 45-60 ms (G1, 1 GiB heap, "Object Copy" almost all of it), against 2 ms on the sending broker, and
 * those pauses were most of the bridge's p99. Here the arrays are old and hold no references, so a collection has
 * nothing to copy or scan.
 *
 * <p>Two different ids are taken for the same one only if their fingerprints collide in all 127 bits (the lowest bit
 * of the low half is the mark's): with 100,000 ids held, about one chance in 10^28 per lookup.
 *
 * <p>Not thread-safe.
 */
final class BoundedIdSet {

    private final int capacity;
    /** Fingerprints in insertion order, a ring of {@code capacity} slots starting at {@link #oldest}. */
    private final long[] high;
    private final long[] low;
    private int oldest;
    private int size;
    /** The same fingerprints, for lookups; sized so that it never grows. */
    private final FingerprintSet set;

    BoundedIdSet(int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity must be at least 1, was " + capacity);
        }
        this.capacity = capacity;
        this.high = new long[capacity];
        this.low = new long[capacity];
        this.set = new FingerprintSet(capacity);
    }

    boolean contains(String id) {
        return contains(fingerprint(id));
    }

    boolean contains(Fingerprint f) {
        return set.contains(f.high(), f.low());
    }

    /** Adds {@code id} (forgetting the oldest if full); returns false, and changes nothing, if it is held already. */
    boolean add(String id) {
        return add(fingerprint(id));
    }

    boolean add(Fingerprint f) {
        return add(f.high(), f.low());
    }

    /** Adds the id whose fingerprint is {@code h}, {@code l} (as {@link #fingerprint} gives it). */
    boolean add(long h, long l) {
        if (set.contains(h, l)) {
            return false;
        }
        if (size == capacity) {
            set.remove(high[oldest], low[oldest]);
            oldest = (oldest + 1) % capacity;
            size--;
        }
        int slot = (oldest + size) % capacity;
        high[slot] = h;
        low[slot] = l;
        size++;
        set.addAbsent(h, l);
        return true;
    }

    /**
     * Marks the id whose fingerprint is {@code f}, adding it first if it is not held. A mark lives as long as its id
     * is held.
     */
    void mark(Fingerprint f) {
        mark(f.high(), f.low());
    }

    void mark(long h, long l) {
        if (!set.mark(h, l)) {
            add(h, l);
            set.mark(h, l);
        }
    }

    boolean isMarked(String id) {
        return isMarked(fingerprint(id));
    }

    boolean isMarked(Fingerprint f) {
        return set.isMarked(f.high(), f.low());
    }

    int size() {
        return size;
    }

    /** A 128-bit fingerprint of an id. */
    record Fingerprint(long high, long low) {
    }

    /**
     * The fingerprint of {@code s}: two 64-bit hashes of its chars taken in one pass (a multiply per char and lane,
     * different constants per lane), each finished with MurmurHash3's finaliser, the second also mixed with the first.
     */
    static Fingerprint fingerprint(String s) {
        long a = 0x9E3779B97F4A7C15L ^ s.length();
        long b = 0xC2B2AE3D27D4EB4FL + s.length();
        for (int i = 0, n = s.length(); i < n; i++) {
            char c = s.charAt(i);
            a = (a ^ c) * 0x100000001B3L;
            b = (b + c) * 0xD6E8FEB86659FD93L;
        }
        long high = fmix(a);
        return new Fingerprint(high, fmix(b ^ Long.rotateLeft(high, 29)));
    }

    private static long fmix(long h) {
        h ^= h >>> 33;
        h *= 0xFF51AFD7ED558CCDL;
        h ^= h >>> 33;
        h *= 0xC4CEB9FE1A85EC53L;
        h ^= h >>> 33;
        return h;
    }
}
