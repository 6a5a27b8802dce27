package io.fedbridge.failover.internal;

import io.fedbridge.core.ConnectionClosedException;
import io.fedbridge.core.StompCommand;
import io.fedbridge.core.StompConnection;
import io.fedbridge.core.StompFrame;
import io.fedbridge.core.StompHeaders;
import io.fedbridge.failover.FailoverConfig;
import io.fedbridge.failover.FailoverException;
import io.fedbridge.failover.FailoverTimeoutException;
import io.fedbridge.failover.FailoverTransaction;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The failover client's open transactions. A transaction lives on the connection it began on: {@link #begin} waits
 * (up to the client's {@code timeout}) for an active connection, and the loss of that connection fails it
 * ({@link DefaultFailoverTransaction#connectionLost}). A move to another broker without a failure (priority back,
 * rebalance) asked for while one is open waits until none is ({@link #deferSwitch}).
 *
 * <p>Concurrency: the set is guarded by the client's lock; {@link #begin} waits on that lock, which a restore notifies.
 * The deferred switch is engine-confined.
 */
final class Transactions {

    private final DefaultFailoverClient client;
    private final String clientKey;
    private final FailoverConfig config;
    private final BrokerList brokers;
    private final ClientThreads threads;
    private final Object lock;
    private final AtomicLong numbers = new AtomicLong();
    /** Guarded by {@link #lock}. */
    private final Set<DefaultFailoverTransaction> open = new LinkedHashSet<>();
    /** Engine-confined. */
    private Runnable deferredSwitch;

    Transactions(DefaultFailoverClient client, String clientKey, FailoverConfig config, BrokerList brokers,
                 ClientThreads threads, Object lock) {
        this.client = client;
        this.clientKey = clientKey;
        this.config = config;
        this.brokers = brokers;
        this.threads = threads;
        this.lock = lock;
    }

    FailoverTransaction begin() {
        client.checkUsable();
        long deadline = config.waitsForever() ? Long.MAX_VALUE : System.nanoTime() + config.timeout().toNanos();
        StompConnection failed = null;
        synchronized (lock) {
            while (true) {
                if (client.isEnding()) {
                    throw client.usageError();
                }
                StompConnection c = client.activeConnection();
                if (c != null && c != failed) {
                    String id = "tx-" + clientKey + "-" + numbers.incrementAndGet();
                    try {
                        c.sendFrame(StompFrame.of(StompCommand.BEGIN, StompHeaders.TRANSACTION, id), false);
                        DefaultFailoverTransaction tx = new DefaultFailoverTransaction(client, id, c,
                                DefaultFailoverClient.uriOf(c), config.timeout());
                        open.add(tx);
                        return tx;
                    } catch (ConnectionClosedException e) {
                        failed = c; // just failed: begin on the next connection
                    }
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new FailoverTimeoutException("could not begin a transaction: no broker of " + brokers.all()
                            + " connected within " + config.timeout() + " (timeout)", null, false, client.lastFailure());
                }
                try {
                    TimeUnit.NANOSECONDS.timedWait(lock, Math.min(left, TimeUnit.SECONDS.toNanos(3600)));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new FailoverException("interrupted while waiting for a connection to begin a transaction", e);
                }
            }
        }
    }

    /** {@code tx} committed, rolled back or failed: a switch deferred for it runs once none is open. */
    void ended(DefaultFailoverTransaction tx) {
        boolean none;
        synchronized (lock) {
            open.remove(tx);
            none = open.isEmpty();
        }
        if (none) {
            threads.runOnEngine(() -> {
                Runnable d = deferredSwitch;
                deferredSwitch = null;
                if (d != null) {
                    d.run();
                }
            });
        }
    }

    /** The open transactions, to fail outside the lock when their connection is lost. Caller holds the client's lock. */
    List<DefaultFailoverTransaction> open() {
        return List.copyOf(open);
    }

    /** Caller holds the client's lock. */
    boolean isEmpty() {
        return open.isEmpty();
    }

    /** Runs {@code move} once no transaction is open (replacing one deferred before). On the engine. */
    void deferSwitch(Runnable move) {
        deferredSwitch = move;
    }
}
