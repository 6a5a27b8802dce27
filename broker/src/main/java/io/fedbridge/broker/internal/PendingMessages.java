package io.fedbridge.broker.internal;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * The messages of one {@link QueueDestination} waiting for a consumer, by message priority, each priority in arrival
 * order (a redelivery goes back to the head), and the orders they are put back in after a handover
 * ({@link #sortByOrigin}) or a replica's promotion ({@link #sortBySequence}).
 *
 * <p>Holds no lock of its own: every method is called with the queue's lock held, like the queue's own state.
 */
final class PendingMessages {

    static final int PRIORITIES = 10;
    /**
     * Null until a message arrives, and each priority's deque null until a message of that priority does: most of ten
     * thousand queues hold nothing, most others one priority.
     */
    private ArrayDeque<QueueEntry>[] byPriority;
    private int count;

    int count() {
        return count;
    }

    /** The pending messages of {@code priority}, or null if none ever came. One taken out through it is {@link #removed}. */
    ArrayDeque<QueueEntry> at(int priority) {
        return byPriority == null ? null : byPriority[priority];
    }

    /** The pending messages of {@code priority}, created on first use. */
    @SuppressWarnings("unchecked")
    private ArrayDeque<QueueEntry> of(int priority) {
        if (byPriority == null) {
            byPriority = new ArrayDeque[PRIORITIES];
        }
        ArrayDeque<QueueEntry> d = byPriority[priority];
        if (d == null) {
            d = new ArrayDeque<>();
            byPriority[priority] = d;
        }
        return d;
    }

    /** A new message, behind those of its priority. */
    void addLast(QueueEntry e) {
        of(e.message.priority).addLast(e);
        count++;
    }

    /** A message back for redelivery, ahead of those of its priority. */
    void addFirst(QueueEntry e) {
        of(e.message.priority).addFirst(e);
        count++;
    }

    /** The caller took a message out through {@link #at}'s deque or its iterator. */
    void removed() {
        count--;
    }

    /** Takes {@code e} out; false if it is not pending. */
    boolean remove(QueueEntry e) {
        ArrayDeque<QueueEntry> d = at(e.message.priority);
        if (d == null || !d.remove(e)) {
            return false;
        }
        count--;
        return true;
    }

    /** Takes out the oldest message (lowest sequence) of any priority; there must be one. */
    QueueEntry removeOldest() {
        QueueEntry oldest = null;
        int from = -1;
        for (int p = 0; p < PRIORITIES; p++) {
            ArrayDeque<QueueEntry> d = at(p);
            QueueEntry head = d == null ? null : d.peekFirst();
            if (head != null && (oldest == null || head.message.sequence < oldest.message.sequence)) {
                oldest = head;
                from = p;
            }
        }
        byPriority[from].pollFirst();
        count--;
        return oldest;
    }

    /** Takes up to {@code max} messages out in dispatch order, passing each to {@code taken} as it leaves. */
    List<QueueEntry> take(int max, Consumer<QueueEntry> taken) {
        List<QueueEntry> out = new ArrayList<>(Math.min(max, count));
        for (int p = PRIORITIES - 1; p >= 0 && out.size() < max; p--) {
            ArrayDeque<QueueEntry> d = at(p);
            while (d != null && out.size() < max && !d.isEmpty()) {
                QueueEntry e = d.pollFirst();
                count--;
                taken.accept(e);
                out.add(e);
            }
        }
        return out;
    }

    /** The first {@code max} messages in dispatch order, left in place. */
    List<QueueEntry> peek(int max) {
        List<QueueEntry> seen = new ArrayList<>(Math.min(max, count));
        for (int p = PRIORITIES - 1; p >= 0 && seen.size() < max; p--) {
            ArrayDeque<QueueEntry> d = at(p);
            if (d == null) {
                continue;
            }
            for (QueueEntry e : d) {
                if (seen.size() == max) {
                    break;
                }
                seen.add(e);
            }
        }
        return seen;
    }

    /** Adds every pending message to {@code to}, lowest priority first. */
    void addTo(List<QueueEntry> to) {
        for (int p = 0; p < PRIORITIES; p++) {
            ArrayDeque<QueueEntry> d = at(p);
            if (d != null) {
                to.addAll(d);
            }
        }
    }

    /** Drops every message, passing each to {@code dropped} first. */
    void clear(Consumer<QueueEntry> dropped) {
        if (byPriority != null) {
            for (ArrayDeque<QueueEntry> d : byPriority) {
                if (d != null) {
                    d.forEach(dropped);
                }
            }
            byPriority = null;
        }
        count = 0;
    }

    /**
     * Puts the messages of each origin in their origin's order, each in the places that origin's messages take now (others
     * keep theirs): after a handover, messages passed on by the old consumer's broker may have arrived after newer ones
     * sent here directly. An origin is the federation id without its trailing digits, which count up (a message sent here
     * has the id a bridge gives it: this broker's id, {@code brokerId}, and its message id).
     */
    void sortByOrigin(String brokerId) {
        for (int p = 0; p < PRIORITIES; p++) {
            ArrayDeque<QueueEntry> d = at(p);
            if (d == null || d.size() < 2) {
                continue;
            }
            List<QueueEntry> l = new ArrayList<>(d);
            Map<String, List<Integer>> places = new HashMap<>();
            for (int i = 0; i < l.size(); i++) {
                String id = originId(l.get(i).message, brokerId);
                int digits = id == null ? 0 : trailingDigits(id);
                if (digits > 0 && digits < 19) {
                    places.computeIfAbsent(id.substring(0, id.length() - digits), k -> new ArrayList<>()).add(i);
                }
            }
            for (List<Integer> at : places.values()) {
                List<QueueEntry> mine = new ArrayList<>(at.size());
                for (int i : at) {
                    mine.add(l.get(i));
                }
                mine.sort(Comparator.comparingLong(x -> {
                    String id = originId(x.message, brokerId);
                    return Long.parseLong(id.substring(id.length() - trailingDigits(id)));
                }));
                for (int k = 0; k < at.size(); k++) {
                    l.set(at.get(k), mine.get(k));
                }
            }
            d.clear();
            d.addAll(l);
        }
    }

    /** The federation id, or for a message sent here the one a bridge gives it when it forwards it (Direction). */
    private static String originId(BrokerMessage m, String brokerId) {
        return m.federationId != null ? m.federationId : brokerId + ":" + m.messageId;
    }

    private static int trailingDigits(String s) {
        int i = s.length();
        while (i > 0 && s.charAt(i - 1) >= '0' && s.charAt(i - 1) <= '9') {
            i--;
        }
        return s.length() - i;
    }

    /** Orders the messages of each priority by sequence (a promoted replica's copies arrived out of order). */
    void sortBySequence() {
        for (int p = 0; p < PRIORITIES; p++) {
            ArrayDeque<QueueEntry> d = at(p);
            if (d == null) {
                continue;
            }
            List<QueueEntry> l = new ArrayList<>(d);
            l.sort(Comparator.comparingLong(x -> x.message.sequence));
            d.clear();
            d.addAll(l);
        }
    }
}
