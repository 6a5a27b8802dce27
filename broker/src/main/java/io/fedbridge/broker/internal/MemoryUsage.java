package io.fedbridge.broker.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Bytes of message data the broker holds. Above the limit, producers are paused (their sockets stop
 * being read); they resume once usage falls below 70% of the limit. This keeps the heap bounded without
 * failing sends.
 */
final class MemoryUsage {

    /** Told when producers start waiting for memory and when they resume; called on the thread that changed it. */
    interface Listener {
        Listener NONE = new Listener() {
        };

        /** The first producer was paused: usage reached the limit. */
        default void reached(long used, long limit) {
        }

        /** Usage fell below the resume mark: {@code producers} paused connections resume, after {@code pausedNanos}. */
        default void released(long used, int producers, long pausedNanos) {
        }
    }

    private final long limit;
    private final long resumeBelow;
    private final AtomicLong used = new AtomicLong();
    private final List<Runnable> waiting = new ArrayList<>();
    private final AtomicLong timesReached = new AtomicLong();
    private volatile Listener listener = Listener.NONE;
    /** nanoTime when the first of the producers waiting now was paused; guarded by {@link #waiting}. */
    private long pausedSince;

    MemoryUsage(long limit) {
        this.limit = limit;
        this.resumeBelow = limit * 7 / 10;
    }

    void listener(Listener l) {
        listener = l;
    }

    void reserve(long bytes) {
        used.addAndGet(bytes);
    }

    void release(long bytes) {
        long now = used.addAndGet(-bytes);
        if (now < resumeBelow) {
            List<Runnable> resume;
            long paused;
            synchronized (waiting) {
                if (waiting.isEmpty()) {
                    return;
                }
                resume = new ArrayList<>(waiting);
                waiting.clear();
                paused = System.nanoTime() - pausedSince;
            }
            resume.forEach(Runnable::run);
            listener.released(now, resume.size(), paused);
        }
    }

    boolean isFull() {
        return used.get() >= limit;
    }

    /**
     * If usage is over the limit, registers {@code resume} to run once it falls below the resume mark and
     * returns true (the caller pauses); otherwise returns false.
     */
    boolean pauseIfFull(Runnable resume) {
        if (used.get() < limit) {
            return false;
        }
        boolean first;
        synchronized (waiting) {
            if (used.get() < resumeBelow) {
                return false;
            }
            first = waiting.isEmpty();
            if (first) {
                pausedSince = System.nanoTime();
            }
            waiting.add(resume);
        }
        if (first) {
            timesReached.incrementAndGet();
            listener.reached(used.get(), limit);
        }
        return true;
    }

    /** Connections paused now, waiting for memory. */
    int waitingConnections() {
        synchronized (waiting) {
            return waiting.size();
        }
    }

    /** How many times producers had to wait for memory since the broker started. */
    long timesReached() {
        return timesReached.get();
    }

    /** The usage below which paused producers resume. */
    long resumeBelow() {
        return resumeBelow;
    }

    long used() {
        return used.get();
    }

    long limit() {
        return limit;
    }
}
