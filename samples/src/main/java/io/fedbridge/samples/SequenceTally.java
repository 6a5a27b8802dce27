package io.fedbridge.samples;

import java.time.Duration;
import java.util.BitSet;

/**
 * Counts deliveries of the sequence numbers 1..{@code expected} (the demo's {@code seq} header) and tells
 * which were never received and which were received more than once. Thread-safe: the consumer records,
 * other threads read and wait.
 */
final class SequenceTally {

    private final int expected;
    private final BitSet seen;
    private int distinct;
    private long duplicates;
    private long unexpected;
    private long lastChangeNanos = System.nanoTime();

    SequenceTally(int expected) {
        if (expected < 0) {
            throw new IllegalArgumentException("expected must be >= 0, but was " + expected);
        }
        this.expected = expected;
        this.seen = new BitSet(expected + 1);
    }

    /**
     * Records one delivery of {@code seqHeader}. Returns false for a duplicate and for a value that is not a
     * number in 1..expected (counted as {@link #unexpected()}).
     */
    synchronized boolean record(String seqHeader) {
        int seq = parse(seqHeader);
        lastChangeNanos = System.nanoTime();
        notifyAll();
        if (seq < 1 || seq > expected) {
            unexpected++;
            return false;
        }
        if (seen.get(seq)) {
            duplicates++;
            return false;
        }
        seen.set(seq);
        distinct++;
        return true;
    }

    private static int parse(String s) {
        if (s == null) {
            return -1;
        }
        try {
            return Integer.parseInt(s.trim());
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /** Sequence numbers received at least once. */
    synchronized int distinct() {
        return distinct;
    }

    /** Deliveries beyond the first of a sequence number. */
    synchronized long duplicates() {
        return duplicates;
    }

    /** Deliveries without a valid sequence number in 1..expected. */
    synchronized long unexpected() {
        return unexpected;
    }

    /** How many of {@code sent} were never received. */
    synchronized int missing(BitSet sent) {
        BitSet m = (BitSet) sent.clone();
        m.andNot(seen);
        return m.cardinality();
    }

    /** Waits up to {@code timeout} until at least {@code count} distinct sequence numbers were received. */
    synchronized boolean awaitDistinct(int count, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (distinct < count) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return false;
            }
            wait(Math.max(1, left / 1_000_000));
        }
        return true;
    }

    /**
     * Waits until every sequence number in {@code sent} was received, or until {@code idle} passes with no
     * delivery at all (counted from the call at the earliest). Returns how many are still missing.
     */
    synchronized int awaitAll(BitSet sent, Duration idle) throws InterruptedException {
        long idleNanos = idle.toNanos();
        long start = System.nanoTime();
        int missing = missing(sent);
        while (missing > 0) {
            long lastActivity = lastChangeNanos - start > 0 ? lastChangeNanos : start;
            long left = lastActivity + idleNanos - System.nanoTime();
            if (left <= 0) {
                break;
            }
            wait(Math.max(1, left / 1_000_000));
            missing = missing(sent);
        }
        return missing;
    }
}
