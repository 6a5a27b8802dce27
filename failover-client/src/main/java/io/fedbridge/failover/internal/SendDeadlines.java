package io.fedbridge.failover.internal;

import io.fedbridge.failover.FailoverConfig;
import io.fedbridge.failover.FailoverTimeoutException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ScheduledFuture;

/**
 * The failover client's {@code timeout} for sends that wait without a connection: one timer, armed for the oldest
 * waiting send, fails every send that has waited {@code timeout} with a {@link FailoverTimeoutException} (in doubt
 * if it had been written to a broker before), oldest first, then re-arms itself for the next.
 *
 * <p>Concurrency: engine-confined (the timer field and every call run on the client's engine); the pending sends and
 * whether the client waits for a connection are read under the client's lock, so a connection restored meanwhile
 * takes the sends before any of them expires.
 */
final class SendDeadlines {

    /** What the deadlines need of their client. */
    interface Host {
        /** Whether sends wait for a connection now: none is active and the client has not ended. Under the lock. */
        boolean isWaitingForConnection();

        /** The last connect failure, for the message; may be null. */
        Throwable lastFailure();
    }

    private final FailoverConfig config;
    private final PendingSends pending;
    private final BrokerList brokers;
    private final Clock clock;
    private final Object lock;
    private final ClientThreads threads;
    private final Host host;
    private ScheduledFuture<?> check;

    SendDeadlines(FailoverConfig config, PendingSends pending, BrokerList brokers, Clock clock, Object lock,
                  ClientThreads threads, Host host) {
        this.config = config;
        this.pending = pending;
        this.brokers = brokers;
        this.clock = clock;
        this.lock = lock;
        this.threads = threads;
        this.host = host;
    }

    /** Arms the timer for the oldest waiting send, unless it is armed already or sends wait forever. */
    void ensure() {
        if (config.waitsForever() || (check != null && !check.isDone())) {
            return;
        }
        long earliest = -1;
        for (PendingSend p : pending.inOrder()) {
            long since = p.waitingSince;
            if (since >= 0) {
                earliest = since;
                break;
            }
        }
        if (earliest >= 0) {
            threads.schedule(this::expire, earliest + config.timeout().toMillis() - clock.millis(), f -> check = f);
        }
    }

    /** Disarms the timer (a connection is restored, or the client ends). */
    void cancel() {
        if (check != null) {
            check.cancel(false);
            check = null;
        }
    }

    /** Fails the sends that have waited {@code timeout} without a connection, oldest first. */
    private void expire() {
        check = null;
        long now = clock.millis();
        long timeout = config.timeout().toMillis();
        List<PendingSend> expired = new ArrayList<>();
        synchronized (lock) {
            if (!host.isWaitingForConnection()) {
                return;
            }
            for (PendingSend p : pending.inOrder()) {
                long since = p.waitingSince;
                if (since < 0) {
                    continue;
                }
                if (since + timeout > now) {
                    break;
                }
                if (pending.remove(p)) {
                    expired.add(p);
                }
            }
        }
        Throwable last = host.lastFailure();
        for (PendingSend p : expired) {
            boolean inDoubt = p.writes > 0;
            String fate = inDoubt
                    ? "; it was sent to " + DefaultFailoverClient.uriOf(p.connection) + " before that connection failed and may"
                            + " have been accepted: resending it with fedbridge-id " + p.federationId + " is safe"
                    : "; it was never sent";
            p.result.completeExceptionally(new FailoverTimeoutException(p + " failed: no broker of " + brokers.all()
                    + " connected within " + config.timeout() + " (timeout)" + (last == null ? "" : "; last failure: "
                    + describe(last)) + fate, p.federationId, inDoubt, last));
        }
        ensure();
    }

    private static String describe(Throwable e) {
        return e.getMessage() != null ? e.getMessage() : e.toString();
    }
}
