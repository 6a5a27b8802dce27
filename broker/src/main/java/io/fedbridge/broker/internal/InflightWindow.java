package io.fedbridge.broker.internal;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * One consumer's deliveries awaiting acknowledgement, oldest first, by delivery tag. Tags only grow, so the window is
 * a ring of (tag, entry) slots in tag order: a delivery is appended, an acknowledgement finds its slot by binary
 * search, a cumulative one takes the head through it, and an individual one empties its slot (the head skips empty
 * slots). No boxing and no node per delivery, unlike the map it replaces, which cost an entry object, a boxed tag and
 * a hash per message on the hot path.
 *
 * <p>Not thread-safe: guarded by the queue's monitor, as the consumer is.
 */
final class InflightWindow {

    private long[] tags = new long[16];
    private QueueEntry[] entries = new QueueEntry[16];
    /** Slot of the oldest delivery still held (or {@code tail} when none). */
    private int head;
    /** Slots in use from head, held or emptied: the ring holds {@code used <= capacity}. */
    private int used;
    /** Deliveries held. */
    private int size;

    int size() {
        return size;
    }

    boolean isEmpty() {
        return size == 0;
    }

    /**
     * Appends the delivery {@code tag}.
     *
     * @throws IllegalArgumentException if {@code tag} is not above every tag appended before
     */
    void add(long tag, QueueEntry e) {
        if (used > 0 && tag <= tags[slot(used - 1)]) {
            throw new IllegalArgumentException("tag must grow, but was " + tag + " after " + tags[slot(used - 1)]);
        }
        if (used == tags.length) {
            grow();
        }
        int s = slot(used);
        tags[s] = tag;
        entries[s] = e;
        used++;
        size++;
    }

    boolean contains(long tag) {
        return find(tag) >= 0;
    }

    /** Removes and returns the delivery {@code tag}, or null if it is not held. */
    QueueEntry remove(long tag) {
        int i = find(tag);
        if (i < 0) {
            return null;
        }
        int s = slot(i);
        QueueEntry e = entries[s];
        entries[s] = null;
        size--;
        trimHead();
        return e;
    }

    /** Removes the deliveries up to and including {@code tag}, oldest first; null if {@code tag} is not held. */
    List<QueueEntry> removeThrough(long tag) {
        int last = find(tag);
        if (last < 0) {
            return null;
        }
        List<QueueEntry> taken = new ArrayList<>(last + 1);
        for (int i = 0; i <= last; i++) {
            int s = slot(i);
            if (entries[s] != null) {
                taken.add(entries[s]);
                entries[s] = null;
            }
        }
        size -= taken.size();
        head = slot(last + 1);
        used -= last + 1;
        trimHead();
        return taken;
    }

    /** Every delivery held, oldest first, and the window is empty. */
    List<QueueEntry> removeAll() {
        List<QueueEntry> all = values();
        java.util.Arrays.fill(entries, null);
        head = 0;
        used = 0;
        size = 0;
        return all;
    }

    /** A copy of the deliveries held, oldest first. */
    List<QueueEntry> values() {
        if (size == 0) {
            return Collections.emptyList();
        }
        List<QueueEntry> all = new ArrayList<>(size);
        for (int i = 0; i < used; i++) {
            QueueEntry e = entries[slot(i)];
            if (e != null) {
                all.add(e);
            }
        }
        return all;
    }

    /** The tag of the oldest delivery of the message {@code messageId}, or -1. */
    long tagOfMessageId(String messageId) {
        for (int i = 0; i < used; i++) {
            int s = slot(i);
            if (entries[s] != null && entries[s].message.messageId.equals(messageId)) {
                return tags[s];
            }
        }
        return -1;
    }

    /** The position (0 = head) of {@code tag} if it is held, else -1. */
    private int find(long tag) {
        int lo = 0;
        int hi = used - 1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            long t = tags[slot(mid)];
            if (t < tag) {
                lo = mid + 1;
            } else if (t > tag) {
                hi = mid - 1;
            } else {
                return entries[slot(mid)] != null ? mid : -1;
            }
        }
        return -1;
    }

    private void trimHead() {
        while (used > 0 && entries[head] == null) {
            head = slot(1);
            used--;
        }
        if (used == 0) {
            head = 0;
        }
    }

    private int slot(int position) {
        return (head + position) & (tags.length - 1);
    }

    /**
     * Makes room for one more slot: drops emptied slots, and doubles only if the window is at least half full of held
     * deliveries. (A consumer that holds its oldest delivery while acknowledging the later ones one by one leaves
     * emptied slots behind it; they go here, so the ring stays within twice the deliveries held.)
     */
    private void grow() {
        int n = tags.length;
        int capacity = 2 * size >= n ? 2 * n : n;
        long[] t = new long[capacity];
        QueueEntry[] e = new QueueEntry[capacity];
        int w = 0;
        for (int i = 0; i < used; i++) {
            int s = slot(i);
            if (entries[s] != null) {
                t[w] = tags[s];
                e[w++] = entries[s];
            }
        }
        tags = t;
        entries = e;
        head = 0;
        used = w;
    }
}
