package io.fedbridge.broker.store.internal;

import io.fedbridge.broker.MessageStore.DurableSubscriptionInfo;
import io.fedbridge.broker.StoredMessage;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * What the journal holds, derived record by record in journal order — the same code runs when records are
 * replayed at start-up and when they are written, so both always agree.
 *
 * <p>Besides the live messages and subscriptions it keeps, per segment file, how many <em>state records</em>
 * (the ADD, latest REDELIVERY or latest DURABLE_SUB_SAVE of something live) it holds, and which older segments
 * hold records that its records cancel or supersede ({@linkplain Segment#refs refs}). A segment may be deleted
 * only when it holds no state record and every segment it refers to is gone: otherwise a cancelled ADD in an
 * older file would come back to life at the next replay. Not thread-safe: one thread owns it.
 */
public final class JournalIndex {

    /** A segment file's bookkeeping. */
    public static final class Segment {
        final long id;
        final Path path;
        /** Offset just past the last record. */
        long end = JournalFormat.HEADER_SIZE;
        int liveRecords;
        long liveBytes;
        /** Older segments holding records that records of this one cancel or supersede. */
        final Set<Long> refs = new HashSet<>();

        Segment(long id, Path path) {
            this.id = id;
            this.path = path;
        }

        public long id() {
            return id;
        }

        public Path path() {
            return path;
        }

        public long end() {
            return end;
        }

        public int liveRecords() {
            return liveRecords;
        }

        public long liveBytes() {
            return liveBytes;
        }

        @Override
        public String toString() {
            return "Segment[" + id + ", end=" + end + ", live=" + liveRecords + "/" + liveBytes + "B, refs=" + refs + "]";
        }
    }

    /** A live message: where its ADD and its latest REDELIVERY record are. */
    static final class Entry {
        final String key;
        final long sequence;
        long addSegment;
        long addOffset;
        int addSize;
        long redeliverySegment = -1;
        int redeliverySize;
        int redeliveryCount;
        /** Kept while replaying at start-up only, until handed to {@code recover}. */
        StoredMessage message;
        /** The message's federation id, kept while replaying only: reported in the history if it was removed. */
        String federationId;

        Entry(String key, long sequence) {
            this.key = key;
            this.sequence = sequence;
        }
    }

    /** A live durable subscription and where its latest SAVE record is. */
    static final class Subscription {
        final DurableSubscriptionInfo info;
        final long segment;
        final int size;

        Subscription(DurableSubscriptionInfo info, long segment, int size) {
            this.info = info;
            this.segment = segment;
            this.size = size;
        }
    }

    private final TreeMap<Long, Segment> segments = new TreeMap<>();
    private final Map<String, TreeMap<Long, Entry>> messages = new HashMap<>();
    private final Map<String, Subscription> subscriptions = new LinkedHashMap<>();
    /** Until {@link #endReplay}: keep each live message's content (for {@code recover}) and record the history. */
    private boolean replaying = true;
    private List<Removed> history = new ArrayList<>();
    private long lastSequence;
    private int liveMessages;

    /** A new index, replaying: the records applied until {@link #endReplay} are those of the files at start-up. */
    public JournalIndex() {
    }

    /**
     * A message removed in the files replayed, which carried a federation id: the broker's dedupe must know it was
     * accepted (and, if {@code consumedHere}, that a local consumer took it) even when its own log lost it in a crash.
     */
    public record Removed(String federationId, boolean consumedHere) {
    }

    /**
     * Ends the replay: from now on messages' contents are not kept (the broker holds them). Returns the removed
     * messages with federation ids that the replayed files hold, in the order of their removal.
     */
    public List<Removed> endReplay() {
        replaying = false;
        List<Removed> h = history;
        history = null;
        return h;
    }

    // ------------------------------------------------------------------ segments

    public Segment addSegment(long id, Path path) {
        Segment s = new Segment(id, path);
        segments.put(id, s);
        return s;
    }

    public Segment segment(long id) {
        return segments.get(id);
    }

    public List<Segment> segments() {
        return new ArrayList<>(segments.values());
    }

    public void removeSegment(long id) {
        Segment s = segments.remove(id);
        if (s != null && s.liveRecords != 0) {
            throw new IllegalStateException("segment " + id + " still holds " + s.liveRecords + " live records");
        }
    }

    /** True when no live state is in {@code s} and no older segment it refers to is still there. */
    public boolean isDeletable(Segment s) {
        return s.liveRecords == 0 && refsSatisfied(s);
    }

    /** True when every segment {@code s} refers to is gone (forgets those refs). */
    public boolean refsSatisfied(Segment s) {
        s.refs.removeIf(id -> !segments.containsKey(id));
        return s.refs.isEmpty();
    }

    // ------------------------------------------------------------------ queries

    public long lastSequence() {
        return lastSequence;
    }

    public void observeSequence(long sequence) {
        lastSequence = Math.max(lastSequence, sequence);
    }

    public int liveMessages() {
        return liveMessages;
    }

    public boolean contains(String key, long sequence) {
        TreeMap<Long, Entry> m = messages.get(key);
        return m != null && m.containsKey(sequence);
    }

    public int redeliveryCount(String key, long sequence) {
        TreeMap<Long, Entry> m = messages.get(key);
        Entry e = m == null ? null : m.get(sequence);
        return e == null ? -1 : e.redeliveryCount;
    }

    public boolean hasMessages(String key) {
        return messages.containsKey(key);
    }

    public DurableSubscriptionInfo subscription(String key) {
        Subscription s = subscriptions.get(key);
        return s == null ? null : s.info;
    }

    public List<DurableSubscriptionInfo> subscriptions() {
        List<DurableSubscriptionInfo> out = new ArrayList<>(subscriptions.size());
        subscriptions.values().forEach(s -> out.add(s.info));
        return out;
    }

    /**
     * True when writing {@code r} would change anything: removes and redelivery updates of messages that are not
     * stored, saves of an identical definition and removes of unknown subscriptions are skipped.
     */
    public boolean changesState(JournalRecord r) {
        if (r instanceof JournalRecord.Remove rm) {
            return contains(rm.key(), rm.sequence());
        } else if (r instanceof JournalRecord.Redelivery rd) {
            int current = redeliveryCount(rd.key(), rd.sequence());
            return current >= 0 && current != rd.count();
        } else if (r instanceof JournalRecord.SubscriptionSave s) {
            return !s.info().equals(subscription(s.info().key()));
        } else if (r instanceof JournalRecord.SubscriptionRemove s) {
            return subscriptions.containsKey(s.key()) || messages.containsKey(s.key());
        }
        return true;
    }

    // ------------------------------------------------------------------ apply

    /** Applies a record written (or replayed) at {@code offset} of segment {@code segment}, {@code size} bytes long. */
    public void apply(JournalRecord r, long segment, long offset, int size) {
        if (r instanceof JournalRecord.Add a) {
            applyAdd(a, segment, offset, size);
        } else if (r instanceof JournalRecord.Remove rm) {
            observeSequence(rm.sequence());
            TreeMap<Long, Entry> m = messages.get(rm.key());
            Entry e = m == null ? null : m.remove(rm.sequence());
            if (e != null) {
                if (m.isEmpty()) {
                    messages.remove(rm.key());
                }
                dropEntry(e, segment);
                recordRemoval(e, rm.consumedHere());
            }
        } else if (r instanceof JournalRecord.Redelivery rd) {
            observeSequence(rd.sequence());
            TreeMap<Long, Entry> m = messages.get(rd.key());
            Entry e = m == null ? null : m.get(rd.sequence());
            if (e != null) {
                if (e.redeliverySegment >= 0) {
                    dropState(e.redeliverySegment, e.redeliverySize);
                }
                e.redeliverySegment = segment;
                e.redeliverySize = size;
                e.redeliveryCount = rd.count();
                addState(segment, size);
            }
        } else if (r instanceof JournalRecord.SubscriptionSave s) {
            Subscription old = subscriptions.put(s.info().key(), new Subscription(s.info(), segment, size));
            if (old != null) {
                dropState(old.segment, old.size);
                ref(segment, old.segment);
            }
            addState(segment, size);
        } else if (r instanceof JournalRecord.SubscriptionRemove s) {
            Subscription old = subscriptions.remove(s.key());
            if (old != null) {
                dropState(old.segment, old.size);
                ref(segment, old.segment);
            }
            TreeMap<Long, Entry> m = messages.remove(s.key());
            if (m != null) {
                for (Entry e : m.values()) {
                    dropEntry(e, segment);
                    recordRemoval(e, false);
                }
            }
        }
        Segment s = segments.get(segment);
        if (s != null) {
            s.end = Math.max(s.end, offset + size);
        }
    }

    private void applyAdd(JournalRecord.Add a, long segment, long offset, int size) {
        StoredMessage msg = a.message();
        observeSequence(msg.sequence());
        TreeMap<Long, Entry> m = messages.computeIfAbsent(a.key(), k -> new TreeMap<>());
        Entry e = m.get(msg.sequence());
        if (e == null) {
            e = new Entry(a.key(), msg.sequence());
            m.put(msg.sequence(), e);
            liveMessages++;
        } else {
            // a rewrite (compaction) or a repeated add: this record supersedes the older one and its redelivery record
            dropState(e.addSegment, e.addSize);
            ref(segment, e.addSegment);
            if (e.redeliverySegment >= 0) {
                dropState(e.redeliverySegment, e.redeliverySize);
                e.redeliverySegment = -1;
            }
        }
        e.addSegment = segment;
        e.addOffset = offset;
        e.addSize = size;
        e.redeliveryCount = msg.redeliveryCount();
        if (replaying) {
            e.message = msg;
            e.federationId = msg.headers().get(io.fedbridge.core.FederationHeaders.FEDERATION_ID);
        } else {
            e.message = null; // the broker holds the message; keeping it here too would double its memory
        }
        addState(segment, size);
    }

    /** While replaying: a removed message with a federation id goes into the history. */
    private void recordRemoval(Entry e, boolean consumedHere) {
        if (replaying && e.federationId != null) {
            history.add(new Removed(e.federationId, consumedHere));
        }
    }

    private void dropEntry(Entry e, long cancellingSegment) {
        liveMessages--;
        dropState(e.addSegment, e.addSize);
        ref(cancellingSegment, e.addSegment);
        if (e.redeliverySegment >= 0) {
            dropState(e.redeliverySegment, e.redeliverySize);
        }
    }

    private void addState(long segment, int size) {
        Segment s = segments.get(segment);
        s.liveRecords++;
        s.liveBytes += size;
    }

    private void dropState(long segment, int size) {
        Segment s = segments.get(segment);
        if (s != null) {
            s.liveRecords--;
            s.liveBytes -= size;
        }
    }

    private void ref(long from, long to) {
        if (from != to && segments.containsKey(to)) {
            segments.get(from).refs.add(to);
        }
    }

    // ------------------------------------------------------------------ recovery and compaction

    /** A live message for {@code recover}: key plus message with its latest redelivery count, in sequence order. */
    public record Recovered(String key, StoredMessage message) {
    }

    /** Every live message, ordered by sequence then key; forgets the kept contents. */
    public List<Recovered> drainRecovered() {
        List<Recovered> out = new ArrayList<>(liveMessages);
        for (TreeMap<Long, Entry> m : messages.values()) {
            for (Entry e : m.values()) {
                StoredMessage msg = e.message;
                if (msg == null) {
                    throw new IllegalStateException("message " + e.sequence + " under " + e.key + " was not kept");
                }
                if (msg.redeliveryCount() != e.redeliveryCount) {
                    msg = msg.withRedeliveryCount(e.redeliveryCount);
                }
                out.add(new Recovered(e.key, msg));
                e.message = null;
            }
        }
        out.sort(Comparator.comparingLong((Recovered r) -> r.message().sequence()).thenComparing(Recovered::key));
        return out;
    }

    /** What compaction must rewrite to empty segment {@code id} of state records. */
    public record LiveState(List<Location> adds, List<JournalRecord.Redelivery> redeliveries,
                            List<DurableSubscriptionInfo> subscriptions) {
        public boolean isEmpty() {
            return adds.isEmpty() && redeliveries.isEmpty() && subscriptions.isEmpty();
        }
    }

    /** Where a live message's ADD record is, with its current redelivery count. */
    public record Location(String key, long sequence, long segment, long offset, int size, int redeliveryCount) {
    }

    public LiveState liveState(long segmentId) {
        List<Location> adds = new ArrayList<>();
        List<JournalRecord.Redelivery> redeliveries = new ArrayList<>();
        for (TreeMap<Long, Entry> m : messages.values()) {
            for (Entry e : m.values()) {
                if (e.addSegment == segmentId) {
                    adds.add(new Location(e.key, e.sequence, e.addSegment, e.addOffset, e.addSize, e.redeliveryCount));
                } else if (e.redeliverySegment == segmentId) {
                    redeliveries.add(new JournalRecord.Redelivery(e.key, e.sequence, e.redeliveryCount));
                }
            }
        }
        adds.sort(Comparator.comparingLong(Location::offset));
        List<DurableSubscriptionInfo> subs = new ArrayList<>();
        for (Subscription s : subscriptions.values()) {
            if (s.segment == segmentId) {
                subs.add(s.info);
            }
        }
        return new LiveState(adds, redeliveries, subs);
    }

    /** True when the message's ADD is still at that place (compaction checks this before rewriting it). */
    public boolean isAt(Location l) {
        TreeMap<Long, Entry> m = messages.get(l.key());
        Entry e = m == null ? null : m.get(l.sequence());
        return e != null && e.addSegment == l.segment() && e.addOffset == l.offset();
    }
}
