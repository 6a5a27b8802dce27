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

    private final long limit;
    private final long resumeBelow;
    private final AtomicLong used = new AtomicLong();
    private final List<Runnable> waiting = new ArrayList<>();

    MemoryUsage(long limit) {
        this.limit = limit;
        this.resumeBelow = limit * 7 / 10;
    }

    void reserve(long bytes) {
        used.addAndGet(bytes);
    }

    void release(long bytes) {
        long now = used.addAndGet(-bytes);
        if (now < resumeBelow) {
            List<Runnable> resume;
            synchronized (waiting) {
                if (waiting.isEmpty()) {
                    return;
                }
                resume = new ArrayList<>(waiting);
                waiting.clear();
            }
            resume.forEach(Runnable::run);
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
        synchronized (waiting) {
            if (used.get() < resumeBelow) {
                return false;
            }
            waiting.add(resume);
            return true;
        }
    }

    long used() {
        return used.get();
    }

    long limit() {
        return limit;
    }
}
