package io.fedbridge.failover.internal;

import io.fedbridge.core.StompConnection;
import io.fedbridge.core.uri.CompositeUri;
import io.fedbridge.failover.FailoverConfig;
import io.github.resilience4j.core.IntervalFunction;
import java.util.List;
import java.util.concurrent.ScheduledFuture;

/**
 * {@code priorityBackup}: while the client is connected to a broker that is not a priority one, probes the priority
 * brokers (backing off between rounds) and moves back to the first that answers, through the client's switch.
 *
 * <p>Confined to the client's engine (a serial executor): every method runs there, and so do the probes' outcomes.
 */
final class PriorityProbe {

    /** What the probe needs of its client. */
    interface Host extends BackupPool.Host {
        boolean isConnected();

        /** Moves from the current broker to {@code c} without a failure. */
        void switchTo(CompositeUri uri, StompConnection c, String reason);
    }

    private final FailoverConfig config;
    private final BrokerList brokers;
    private final BackupPool backups;
    private final IntervalFunction backoff;
    private final ClientThreads threads;
    private final Host host;
    private ScheduledFuture<?> timer;
    private int attempts;

    PriorityProbe(FailoverConfig config, BrokerList brokers, BackupPool backups, IntervalFunction backoff,
                  ClientThreads threads, Host host) {
        this.config = config;
        this.brokers = brokers;
        this.backups = backups;
        this.backoff = backoff;
        this.threads = threads;
        this.host = host;
    }

    /** Connected afresh: the back-off starts over. */
    void restart() {
        attempts = 0;
        schedule();
    }

    /** Cancels the next probe, if one is scheduled. */
    void cancel() {
        if (timer != null) {
            timer.cancel(false);
        }
        timer = null;
    }

    private void schedule() {
        if (!config.priorityBackup() || host.isTerminal()) {
            return;
        }
        CompositeUri cur = host.activeUri();
        if (cur == null || brokers.isPriority(cur)) {
            return;
        }
        cancel();
        long delay = backoff.apply(++attempts);
        threads.schedule(this::probeNow, delay, f -> timer = f);
    }

    /** Tries the priority brokers in order now. */
    void probeNow() {
        timer = null;
        if (host.isTerminal() || !host.isConnected()) {
            return;
        }
        probe(brokers.priority(), 0);
    }

    private void probe(List<CompositeUri> candidates, int i) {
        if (i == candidates.size()) {
            schedule();
            return;
        }
        CompositeUri uri = candidates.get(i);
        StompConnection backup = backups.take(uri);
        if (backup != null) {
            host.switchTo(uri, backup, "priority broker " + uri.withoutOptions() + " is back");
            return;
        }
        host.connect(uri).whenComplete((c, e) -> threads.runOnEngine(() -> {
            if (e != null) {
                probe(candidates, i + 1);
            } else {
                host.switchTo(uri, c, "priority broker " + uri.withoutOptions() + " is back");
            }
        }));
    }
}
