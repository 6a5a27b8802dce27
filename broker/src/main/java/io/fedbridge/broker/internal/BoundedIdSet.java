package io.fedbridge.broker.internal;

/**
 * An insertion-ordered set of at most {@code capacity} ids that forgets the oldest beyond that, kept as 128-bit
 * fingerprints in arrays allocated once. Adding an id allocates nothing.
 *
 * <p>Why not a {@code LinkedHashMap}: a dedupe window of 100,000 ids that turns over in a minute or two is the worst
 * case for a generational collector. Every entry outlives many young collections and is copied at each one until
 * it is tenured, and then dies in the old generation. On a broker receiving 1,000 persistent msg/s that made every
 * young pause 45-60 ms (G1, 1 GiB heap, "Object Copy" almost all of it), against 2 ms on the sending broker, and
 * those pauses were most of the bridge's p99. Here the arrays are old and hold no references, so a collection has
 * nothing to copy or scan.
 *
 * <p>Two different ids are taken for the same one only if both 64-bit halves of their fingerprints collide: with
 * 100,000 ids held, about one chance in 10^28 per lookup.
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
    /**
     * Open addressing (linear probing), at most half full: entry {@code i} is the fingerprint itself, high at
     * {@code 2i}, low at {@code 2i+1}, so a probe touches one cache line; (0, 0) marks an empty entry (a fingerprint
     * that is (0, 0) is kept as (0, 1)).
     */
    private final long[] table;
    private final int mask;

    BoundedIdSet(int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity must be at least 1, was " + capacity);
        }
        this.capacity = capacity;
        this.high = new long[capacity];
        this.low = new long[capacity];
        int tableSize = Integer.highestOneBit(Math.max(2, capacity) * 2 - 1) << 1;
        this.table = new long[2 * tableSize];
        this.mask = tableSize - 1;
    }

    boolean contains(String id) {
        return contains(fingerprint(id));
    }

    boolean contains(Fingerprint f) {
        return find(f.high(), f.low()) >= 0;
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
        if (h == 0 && l == 0) {
            l = 1;
        }
        if (find(h, l) >= 0) {
            return false;
        }
        if (size == capacity) {
            removeOldest();
        }
        int slot = (oldest + size) % capacity;
        high[slot] = h;
        low[slot] = l;
        size++;
        int i = home(h);
        while (!empty(i)) {
            i = (i + 1) & mask;
        }
        table[2 * i] = h;
        table[2 * i + 1] = l;
        return true;
    }

    int size() {
        return size;
    }

    private boolean empty(int i) {
        return table[2 * i] == 0 && table[2 * i + 1] == 0;
    }

    /** The table index holding the fingerprint, or -1. */
    private int find(long h, long l) {
        if (h == 0 && l == 0) {
            l = 1;
        }
        for (int i = home(h); ; i = (i + 1) & mask) {
            long th = table[2 * i];
            long tl = table[2 * i + 1];
            if (th == h && tl == l) {
                return i;
            }
            if (th == 0 && tl == 0) {
                return -1;
            }
        }
    }

    private void removeOldest() {
        int gap = find(high[oldest], low[oldest]);
        oldest = (oldest + 1) % capacity;
        size--;
        // Backward-shift deletion: pull later entries of the probe run into the gap, so no lookup stops early.
        for (int j = (gap + 1) & mask; !empty(j); j = (j + 1) & mask) {
            int home = home(table[2 * j]);
            boolean canMove = gap <= j ? home <= gap || home > j : home <= gap && home > j;
            if (canMove) {
                table[2 * gap] = table[2 * j];
                table[2 * gap + 1] = table[2 * j + 1];
                gap = j;
            }
        }
        table[2 * gap] = 0;
        table[2 * gap + 1] = 0;
    }

    private int home(long h) {
        return (int) (h ^ (h >>> 32)) & mask;
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
