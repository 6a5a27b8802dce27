package io.fedbridge.core.testing;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.Callable;
import java.util.concurrent.Delayed;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * A scheduler driven by the test: tasks run only in {@link #advance} / {@link #runDue}, on the test's thread,
 * in due order, and the shared {@link #clock()} moves to each task's due time before it runs. Records every
 * delay requested. Periodic scheduling is not supported (the agent does not use it).
 */
public class ManualScheduler extends AbstractExecutorService implements ScheduledExecutorService {

    private final MutableClock clock = new MutableClock(Instant.parse("2026-01-01T00:00:00Z"));
    private final PriorityQueue<Task> queue = new PriorityQueue<>();
    private final List<Long> requestedDelaysMillis = new ArrayList<>();
    private long sequence;
    private boolean shutdown;

    public Clock clock() {
        return clock;
    }

    /** Moves time forward by {@code by}, running every task that falls due on the way. */
    public void advance(Duration by) {
        Instant target = clock.instant().plus(by);
        while (true) {
            Task next;
            synchronized (this) {
                next = queue.peek();
                if (next == null || next.due.isAfter(target)) {
                    break;
                }
                queue.poll();
            }
            clock.set(next.due);
            next.run();
        }
        clock.set(target);
    }

    /** Runs the tasks due now (including ones they schedule with no delay). */
    public void runDue() {
        advance(Duration.ZERO);
    }

    /** Moves time to the next task's due time and runs the tasks due then. */
    public void runNext() {
        Task next;
        synchronized (this) {
            next = queue.stream().filter(t -> !t.isCancelled()).min(Task::compareTo).orElse(null);
        }
        if (next == null) {
            throw new AssertionError("no task scheduled");
        }
        advance(Duration.between(clock.instant(), next.due));
    }

    /** Every delay requested so far, in milliseconds, in request order. */
    public synchronized List<Long> requestedDelaysMillis() {
        return List.copyOf(requestedDelaysMillis);
    }

    /** The delays requested so far that were not zero. */
    public synchronized List<Long> backOffDelaysMillis() {
        return requestedDelaysMillis.stream().filter(d -> d > 0).toList();
    }

    /** Tasks scheduled and neither run nor cancelled. */
    public synchronized long pendingTasks() {
        return queue.stream().filter(t -> !t.isCancelled()).count();
    }

    @Override
    public synchronized ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
        if (shutdown) {
            throw new RejectedExecutionException("shut down");
        }
        long millis = unit.toMillis(delay);
        requestedDelaysMillis.add(millis);
        Task task = new Task(command, clock.instant().plusMillis(millis), sequence++);
        queue.add(task);
        return task;
    }

    @Override
    public <V> ScheduledFuture<V> schedule(Callable<V> callable, long delay, TimeUnit unit) {
        throw new UnsupportedOperationException();
    }

    @Override
    public ScheduledFuture<?> scheduleAtFixedRate(Runnable command, long initialDelay, long period, TimeUnit unit) {
        throw new UnsupportedOperationException();
    }

    @Override
    public ScheduledFuture<?> scheduleWithFixedDelay(Runnable command, long initialDelay, long delay, TimeUnit unit) {
        throw new UnsupportedOperationException();
    }

    @Override
    public void execute(Runnable command) {
        schedule(command, 0, TimeUnit.MILLISECONDS);
    }

    @Override
    public synchronized void shutdown() {
        shutdown = true;
    }

    @Override
    public synchronized List<Runnable> shutdownNow() {
        shutdown = true;
        List<Runnable> left = new ArrayList<>(queue);
        queue.clear();
        return left;
    }

    @Override
    public synchronized boolean isShutdown() {
        return shutdown;
    }

    @Override
    public synchronized boolean isTerminated() {
        return shutdown;
    }

    @Override
    public boolean awaitTermination(long timeout, TimeUnit unit) {
        return isTerminated();
    }

    private final class Task implements ScheduledFuture<Object>, Runnable {
        private final Runnable command;
        private final Instant due;
        private final long order;
        private volatile boolean cancelled;
        private volatile boolean done;

        Task(Runnable command, Instant due, long order) {
            this.command = command;
            this.due = due;
            this.order = order;
        }

        @Override
        public void run() {
            if (cancelled) {
                return;
            }
            try {
                command.run();
            } finally {
                done = true;
            }
        }

        @Override
        public long getDelay(TimeUnit unit) {
            return unit.convert(Duration.between(clock.instant(), due));
        }

        @Override
        public int compareTo(Delayed other) {
            Task that = (Task) other;
            int byDue = due.compareTo(that.due);
            return byDue != 0 ? byDue : Long.compare(order, that.order);
        }

        @Override
        public boolean cancel(boolean mayInterruptIfRunning) {
            if (done) {
                return false;
            }
            cancelled = true;
            return true;
        }

        @Override
        public boolean isCancelled() {
            return cancelled;
        }

        @Override
        public boolean isDone() {
            return done || cancelled;
        }

        @Override
        public Object get() {
            return null;
        }

        @Override
        public Object get(long timeout, TimeUnit unit) {
            return null;
        }
    }

    /** A clock the scheduler moves; tests may move it too. */
    public static final class MutableClock extends Clock {
        private volatile Instant now;

        public MutableClock(Instant start) {
            now = start;
        }

        public void set(Instant instant) {
            now = instant;
        }

        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            throw new UnsupportedOperationException();
        }

        @Override
        public Instant instant() {
            return now;
        }
    }
}
