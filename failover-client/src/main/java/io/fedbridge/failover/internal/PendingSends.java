package io.fedbridge.failover.internal;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * The bounded buffer of sends awaiting their receipt, in send order: what a failover resends. Room is counted in bytes
 * ({@code maxCacheSize}); a send larger than the whole buffer needs it empty. Thread-safe; the order of
 * {@link #add} calls is the order of {@link #inOrder()}, so callers serialise {@code add} with the writes they make.
 */
final class PendingSends {

    private final int capacity;
    private final Semaphore room;
    private final ConcurrentSkipListMap<Long, PendingSend> sends = new ConcurrentSkipListMap<>();
    private long nextOrder;

    PendingSends(long maxBytes) {
        this.capacity = (int) Math.min(Integer.MAX_VALUE, maxBytes);
        this.room = new Semaphore(capacity, true);
    }

    /**
     * Waits up to {@code timeout} (negative: forever) for room for {@code p}.
     *
     * @return false if there was no room in time
     */
    boolean reserve(PendingSend p, Duration timeout) throws InterruptedException {
        int permits = (int) Math.min(p.size, capacity);
        boolean ok;
        if (timeout.isNegative()) {
            room.acquire(permits);
            ok = true;
        } else {
            ok = room.tryAcquire(permits, timeout.toNanos(), TimeUnit.NANOSECONDS);
        }
        if (ok) {
            p.permits = permits;
        }
        return ok;
    }

    /** Gives back the room of a send that was reserved but never added. */
    void unreserve(PendingSend p) {
        room.release(p.permits);
        p.permits = 0;
    }

    /** Adds a reserved send at the end. */
    synchronized void add(PendingSend p) {
        p.order = ++nextOrder;
        sends.put(p.order, p);
    }

    /** Removes {@code p} and frees its room; false if it was not there (already completed). */
    boolean remove(PendingSend p) {
        if (sends.remove(p.order, p)) {
            room.release(p.permits);
            return true;
        }
        return false;
    }

    /** A live view in send order (weakly consistent). */
    Collection<PendingSend> inOrder() {
        return sends.values();
    }

    /** Removes and returns everything. */
    List<PendingSend> drain() {
        List<PendingSend> all = new ArrayList<>();
        for (PendingSend p : sends.values()) {
            if (remove(p)) {
                all.add(p);
            }
        }
        return all;
    }

    int size() {
        return sends.size();
    }

    long bytes() {
        return (long) capacity - room.availablePermits();
    }

    int capacity() {
        return capacity;
    }
}
