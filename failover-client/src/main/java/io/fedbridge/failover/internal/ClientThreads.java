package io.fedbridge.failover.internal;

import io.fedbridge.core.StompConnection;
import io.fedbridge.failover.FailoverEvent;
import io.fedbridge.failover.FailoverListener;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The threads of one failover client: the <em>engine</em> (a serial executor over the scheduler, where every state
 * transition runs), its timers, the callback thread (the {@link FailoverListener}'s events and {@code sendAsync}
 * results, so user code never runs on the engine or an I/O thread), the dispatch thread (message listeners, started on
 * first use) and short-lived threads that close connections without blocking the caller.
 *
 * <p>Concurrency: thread-safe. After {@link #shutdown()} tasks are dropped (logged at DEBUG), except callbacks, which
 * then run on the caller's thread so that no result is lost.
 */
final class ClientThreads {

    private static final Logger LOG = LoggerFactory.getLogger(ClientThreads.class);

    private final String name;
    private final FailoverListener listener;
    private final ScheduledExecutorService scheduler;
    private final boolean ownsScheduler;
    private final Executor engine;
    private final ExecutorService callbacks;
    private volatile ExecutorService dispatcher;

    /**
     * @param scheduler timers and the engine; null: start (and stop) one daemon thread of our own
     */
    ClientThreads(String name, ScheduledExecutorService scheduler, FailoverListener listener) {
        this.name = name;
        this.listener = listener;
        this.ownsScheduler = scheduler == null;
        this.scheduler = ownsScheduler ? ownScheduler("fedbridge-" + name) : scheduler;
        this.engine = new SerialExecutor(this.scheduler);
        this.callbacks = Executors.newSingleThreadExecutor(daemon("fedbridge-" + name + "-callbacks"));
    }

    private static ScheduledExecutorService ownScheduler(String threadName) {
        ScheduledThreadPoolExecutor s = new ScheduledThreadPoolExecutor(1, daemon(threadName));
        s.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
        s.setRemoveOnCancelPolicy(true);
        return s;
    }

    private static ThreadFactory daemon(String threadName) {
        return r -> {
            Thread t = new Thread(r, threadName);
            t.setDaemon(true);
            return t;
        };
    }

    void runOnEngine(Runnable task) {
        try {
            engine.execute(task);
        } catch (RejectedExecutionException e) {
            LOG.debug("{}: engine stopped, dropping a task", name);
        }
    }

    /** Runs {@code task} on the engine after {@code delayMillis}; {@code handle} gets the timer to cancel. */
    void schedule(Runnable task, long delayMillis, Consumer<ScheduledFuture<?>> handle) {
        try {
            handle.accept(scheduler.schedule(() -> runOnEngine(task), Math.max(0, delayMillis), TimeUnit.MILLISECONDS));
        } catch (RejectedExecutionException e) {
            LOG.debug("{}: scheduler stopped", name);
        }
    }

    /** Runs user code on the callback thread; once that is stopped, here. */
    void callback(Runnable task) {
        try {
            callbacks.execute(task);
        } catch (RejectedExecutionException rejected) {
            task.run();
        }
    }

    /** Hands {@code event} to the listener on the callback thread; dropped once the client is closed. */
    void emit(FailoverEvent event) {
        try {
            callbacks.execute(() -> {
                try {
                    listener.onEvent(event);
                } catch (RuntimeException e) {
                    LOG.warn("{}: failover listener threw on {}", name, event, e);
                }
            });
        } catch (RejectedExecutionException e) {
            LOG.debug("{}: closed, event {} not delivered", name, event);
        }
    }

    /** Runs a message listener's delivery on the dispatch thread, started on first use. */
    void dispatch(Runnable task) {
        ExecutorService d = dispatcher;
        if (d == null) {
            synchronized (this) {
                if (dispatcher == null) {
                    dispatcher = Executors.newSingleThreadExecutor(daemon("fedbridge-" + name + "-dispatch"));
                }
                d = dispatcher;
            }
        }
        try {
            d.execute(task);
        } catch (RejectedExecutionException e) {
            LOG.debug("{}: closed, dropping a delivery", name);
        }
    }

    /** Closes {@code c} (if not null) on a thread of its own: closing waits for the broker, the caller must not. */
    void closeQuietlyAsync(StompConnection c) {
        if (c == null) {
            return;
        }
        Thread t = new Thread(() -> {
            try {
                c.close();
            } catch (RuntimeException e) {
                LOG.debug("{}: closing {}: {}", name, DefaultFailoverClient.uriOf(c), e.toString());
            }
        }, "fedbridge-" + name + "-closer");
        t.setDaemon(true);
        t.start();
    }

    /** Stops the scheduler (if ours, after the engine's queued tasks), the dispatch and the callback threads. */
    void shutdown() {
        if (ownsScheduler) {
            runOnEngine(scheduler::shutdown);
        }
        ExecutorService d = dispatcher;
        if (d != null) {
            d.shutdown();
        }
        callbacks.shutdown();
    }
}
