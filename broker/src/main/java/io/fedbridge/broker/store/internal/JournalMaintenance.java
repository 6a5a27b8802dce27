package io.fedbridge.broker.store.internal;

import static io.fedbridge.broker.store.internal.StoreFiles.fsyncDirectory;

import io.fedbridge.broker.MessageStore.DurableSubscriptionInfo;
import io.fedbridge.broker.StoredMessage;
import io.fedbridge.broker.store.StoreConfig;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The journal's housekeeping: deletes segments that hold nothing live and compacts sparse ones by rewriting their
 * live records at the head, behind the history guard (see {@link Journal#beforeDeletingHistory}).
 *
 * <p>Confined to the journal's writer thread, which calls {@link #maintain()} only after a force (every record
 * written is then durable); the only exception is the guard, which any thread may set (a volatile field).
 */
final class JournalMaintenance {

    private static final Logger LOG = LoggerFactory.getLogger(Journal.class);

    private static final long COMPACTION_BYTES_PER_PASS = 4L << 20;
    /** How long a failed history guard waits before it is tried again. */
    private static final long GUARD_RETRY_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final Journal journal;
    private final JournalIndex index;
    private final StoreConfig config;
    private final Path dir;

    private volatile Runnable historyGuard;
    // owned by the writer thread
    /** When the guard last failed (never 0 then), or 0. */
    private long guardFailedAt;
    /** The guard ran in this maintenance pass (it covers every deletion of the pass). */
    private boolean historyGuarded;
    private boolean due = true;

    JournalMaintenance(Journal journal, JournalIndex index, StoreConfig config, Path dir) {
        this.journal = journal;
        this.index = index;
        this.config = config;
        this.dir = dir;
    }

    void beforeDeletingHistory(Runnable guard) {
        this.historyGuard = guard;
    }

    /** A pass is due: something was removed, a segment was sealed, or the last pass left work. */
    boolean isDue() {
        return due;
    }

    void markDue() {
        due = true;
    }

    /**
     * Runs after a force, so every record written is durable: deletes segments that hold nothing live (oldest
     * first, so refs to them are released in order), then compacts a little:
     * <ol>
     *   <li>the oldest sparse segment (live bytes at most {@code compactionThreshold} of its data) whose refs are
     *       all satisfied; else</li>
     *   <li>when the sealed segments together are that sparse, the oldest segment, however live: it is what the
     *       others' removals refer to, directly or along a chain (a backlog nobody consumes would otherwise keep
     *       every later segment on disk). Moving it forward lets them go, so the journal stays within about
     *       {@code live bytes / compactionThreshold}.</li>
     * </ol>
     */
    void maintain() throws IOException {
        due = false;
        historyGuarded = false;
        for (JournalIndex.Segment s : index.segments()) {
            if (s != journal.head() && index.isDeletable(s)) {
                if (!guardHistory()) {
                    return;
                }
                delete(s);
            }
        }
        JournalIndex.Segment oldest = null;
        long data = 0;
        long live = 0;
        for (JournalIndex.Segment s : index.segments()) {
            if (s == journal.head()) {
                break;
            }
            long segmentData = s.end() - JournalFormat.HEADER_SIZE;
            if (s.liveRecords() > 0 && s.liveBytes() <= config.compactionThreshold() * segmentData
                    && index.refsSatisfied(s)) {
                compact(s);
                return;
            }
            if (oldest == null) {
                oldest = s;
            }
            data += segmentData;
            live += s.liveBytes();
        }
        if (oldest != null && oldest.liveRecords() > 0 && live <= config.compactionThreshold() * data
                && index.refsSatisfied(oldest)) {
            compact(oldest);
        }
    }

    /**
     * Runs the history guard once per maintenance pass; false if it failed (or failed less than a second ago): delete
     * nothing now, and try again in a later pass.
     */
    private boolean guardHistory() {
        Runnable guard = historyGuard;
        if (guard == null || historyGuarded) {
            return true;
        }
        if (guardFailedAt != 0 && System.nanoTime() - guardFailedAt < GUARD_RETRY_NANOS) {
            due = true;
            return false;
        }
        try {
            guard.run();
            if (guardFailedAt != 0) {
                LOG.info("Journal {}: the history guard succeeded again; deleting segments as usual", dir);
            }
            guardFailedAt = 0;
            historyGuarded = true;
            return true;
        } catch (RuntimeException e) {
            if (guardFailedAt == 0) {
                LOG.warn("Journal {}: keeping segments that are due for deletion, because what must outlive their"
                        + " records could not be made durable ({}); retrying every second", dir, e.toString());
            }
            guardFailedAt = System.nanoTime() | 1;
            due = true;
            return false;
        }
    }

    private void delete(JournalIndex.Segment s) throws IOException {
        Files.deleteIfExists(s.path());
        // a later segment's deletion may depend on this one being gone for good
        fsyncDirectory(dir);
        index.removeSegment(s.id());
        LOG.debug("Deleted journal segment {}", s.path());
    }

    /**
     * Rewrites up to {@link #COMPACTION_BYTES_PER_PASS} of {@code s}'s live records at the head; when none is left,
     * deletes it. The rewritten records supersede the old ones, so a crash at any point replays correctly.
     */
    private void compact(JournalIndex.Segment s) throws IOException {
        if (!guardHistory()) {
            return;
        }
        JournalIndex.LiveState live = index.liveState(s.id());
        long moved = 0;
        boolean done = true;
        try (FileChannel ch = FileChannel.open(s.path(), StandardOpenOption.READ)) {
            for (JournalIndex.Location l : live.adds()) {
                if (moved >= COMPACTION_BYTES_PER_PASS) {
                    done = false;
                    break;
                }
                JournalRecord r;
                try {
                    r = SegmentScanner.read(ch, l.offset(), l.size());
                } catch (JournalFormat.FormatException e) {
                    throw new IOException("compaction found a corrupt record in " + s.path() + " at offset " + l.offset()
                            + ": " + e.getMessage());
                }
                if (!(r instanceof JournalRecord.Add a) || !a.key().equals(l.key()) || a.message().sequence() != l.sequence()) {
                    throw new IOException("compaction expected the ADD of " + l.sequence() + " under " + l.key() + " in "
                            + s.path() + " at offset " + l.offset() + ", but found " + r.getClass().getSimpleName());
                }
                StoredMessage m = a.message();
                if (m.redeliveryCount() != l.redeliveryCount()) {
                    m = m.withRedeliveryCount(l.redeliveryCount());
                }
                journal.append(new JournalRecord.Add(l.key(), m));
                moved += l.size();
            }
        }
        if (done) {
            for (JournalRecord.Redelivery r : live.redeliveries()) {
                journal.append(r);
            }
            for (DurableSubscriptionInfo info : live.subscriptions()) {
                journal.append(new JournalRecord.SubscriptionSave(info));
            }
        }
        journal.flushBuffer();
        journal.force();
        LOG.debug("Compacted {} bytes of live records out of {}", moved, s.path());
        if (index.isDeletable(s)) {
            delete(s);
        }
        due = true;
    }

    // ------------------------------------------------------------------- shutdown
}
