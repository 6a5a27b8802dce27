package io.fedbridge.broker.internal;

/**
 * A hash set of 128-bit fingerprints (as {@link BoundedIdSet#fingerprint} gives them) kept inline in one array:
 * open addressing with linear probing, at most half full, entry {@code i} at {@code 2i} (high) and {@code 2i+1} (low),
 * so a probe touches one cache line. Each entry also carries a mark ({@link #mark}): the lowest bit of its low half,
 * which is therefore not part of the fingerprint (127 bits are). (0, 0) marks an empty entry; a fingerprint that is
 * (0, 0) is kept as (0, 2). Adding allocates only when the set doubles; removing shifts the rest of a probe run back,
 * so no tombstones build up.
 *
 * <p>Not thread-safe.
 */
final class FingerprintSet {

    private static final long MARK = 1;

    private long[] table;
    private int mask;
    private int size;

    /** A set that holds {@code expected} fingerprints before it first grows. */
    FingerprintSet(int expected) {
        int entries = Integer.highestOneBit(Math.max(2, expected) * 2 - 1) << 1;
        this.table = new long[2 * entries];
        this.mask = entries - 1;
    }

    int size() {
        return size;
    }

    boolean contains(long h, long l) {
        return find(h, low(h, l)) >= 0;
    }

    /** Marks the fingerprint; false if it is not held. */
    boolean mark(long h, long l) {
        int i = find(h, low(h, l));
        if (i < 0) {
            return false;
        }
        table[2 * i + 1] |= MARK;
        return true;
    }

    /** Whether the fingerprint is held and marked. */
    boolean isMarked(long h, long l) {
        int i = find(h, low(h, l));
        return i >= 0 && (table[2 * i + 1] & MARK) != 0;
    }

    /** The low half as kept: without the mark bit, and never 0 with a high half of 0 (that is an empty entry). */
    private static long low(long h, long l) {
        l &= ~MARK;
        return h == 0 && l == 0 ? 2 : l;
    }

    /** Adds the fingerprint; false, and nothing changes, if it is held already. */
    boolean add(long h, long l) {
        if (find(h, low(h, l)) >= 0) {
            return false;
        }
        addAbsent(h, l);
        return true;
    }

    /** Adds a fingerprint the caller knows is not held (it just looked): one probe run instead of two. */
    void addAbsent(long h, long l) {
        if (2 * (size + 1) > mask + 1) {
            grow();
        }
        insert(h, low(h, l));
        size++;
    }

    /** Removes the fingerprint; false if it was not held. */
    boolean remove(long h, long l) {
        int gap = find(h, low(h, l));
        if (gap < 0) {
            return false;
        }
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
        return true;
    }

    private void insert(long h, long l) {
        int i = home(h);
        while (!empty(i)) {
            i = (i + 1) & mask;
        }
        table[2 * i] = h;
        table[2 * i + 1] = l;
    }

    private void grow() {
        long[] old = table;
        table = new long[2 * old.length];
        mask = old.length - 1; // entries double: old.length / 2 * 2
        for (int i = 0; i < old.length; i += 2) {
            if (old[i] != 0 || old[i + 1] != 0) {
                insert(old[i], old[i + 1]);
            }
        }
    }

    private boolean empty(int i) {
        return table[2 * i] == 0 && table[2 * i + 1] == 0;
    }

    /** The entry holding the fingerprint (low half as {@link #low} gives it), or -1. */
    private int find(long h, long l) {
        for (int i = home(h); ; i = (i + 1) & mask) {
            long th = table[2 * i];
            long tl = table[2 * i + 1];
            if (th == h && (tl & ~MARK) == l) {
                return i;
            }
            if (th == 0 && tl == 0) {
                return -1;
            }
        }
    }

    private int home(long h) {
        return (int) (h ^ (h >>> 32)) & mask;
    }
}
