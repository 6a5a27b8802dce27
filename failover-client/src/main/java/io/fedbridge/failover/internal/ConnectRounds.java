package io.fedbridge.failover.internal;

import io.fedbridge.core.ClientConfig;
import io.fedbridge.core.StompConnection;
import io.fedbridge.core.uri.CompositeUri;
import io.fedbridge.failover.FailoverConfig;
import io.fedbridge.failover.FailoverEvent;
import io.fedbridge.failover.FailoverException;
import io.github.resilience4j.core.IntervalFunction;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ScheduledFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The failover client's reconnect loop. A connect round tries every known broker once, in {@link BrokerList}'s order
 * (a ready {@link BackupPool backup} connection instead of a new one where there is one), until one connects and the
 * client restores it; a failed round waits the {@code reconnect} back-off before the next, and once the configured
 * attempts are spent the client gives up for good. A connection lost within {@link #STABLE_CONNECTION_MILLIS} of its
 * restore counts as a failed round.
 *
 * <p>Concurrency: engine-confined. Every method runs on the client's engine, connect outcomes are handed back to it,
 * and a round superseded by a newer one (or by the client's end) stops at its next step.
 */
final class ConnectRounds {

    private static final Logger LOG = LoggerFactory.getLogger(ConnectRounds.class);
    /**
     * A connection lost sooner than this after it was restored counts as a failed connect round, so a broker that
     * accepts clients and then drops them (refusing a durable subscription its previous connection still holds, say)
     * is backed off rather than hammered.
     */
    static final long STABLE_CONNECTION_MILLIS = 1000;

    private final DefaultFailoverClient client;
    private final String name;
    private final FailoverConfig config;
    private final BrokerList brokers;
    private final BrokerConnector connector;
    private final BackupPool backups;
    private final IntervalFunction backoff;
    private final Clock clock;
    private final ClientThreads threads;

    private int failedRounds;
    private int failedRoundsBeforeInstall;
    private long restoredAt;
    private boolean everConnected;
    private CompositeUri lastFailedUri;
    private long roundId;
    private ScheduledFuture<?> roundTimer;

    ConnectRounds(DefaultFailoverClient client, String name, FailoverConfig config, BrokerList brokers,
                  BrokerConnector connector, BackupPool backups, IntervalFunction backoff, Clock clock,
                  ClientThreads threads) {
        this.client = client;
        this.name = name;
        this.config = config;
        this.brokers = brokers;
        this.connector = connector;
        this.backups = backups;
        this.backoff = backoff;
        this.clock = clock;
        this.threads = threads;
    }

    /** One connect round: every known broker once, in order, until one connects and is restored. */
    void start() {
        if (client.isTerminal()) {
            return;
        }
        List<CompositeUri> order = brokers.connectOrder(lastFailedUri);
        long round = ++roundId;
        LOG.debug("{}: connect round {} over {}", name, failedRounds + 1, order);
        tryNext(order, 0, round);
    }

    private void tryNext(List<CompositeUri> order, int i, long round) {
        if (round != roundId || client.isTerminal()) {
            return;
        }
        if (i == order.size()) {
            roundFailed();
            return;
        }
        CompositeUri uri = order.get(i);
        StompConnection backup = backups.take(uri);
        if (backup != null) {
            if (!client.install(uri, backup)) {
                tryNext(order, i + 1, round);
            }
            return;
        }
        ClientConfig cc;
        try {
            cc = connector.clientConfig(uri);
        } catch (IllegalArgumentException e) {
            client.lastFailure(e);
            tryNext(order, i + 1, round);
            return;
        }
        connector.connect(cc).whenComplete((c, e) -> threads.runOnEngine(() -> {
            if (e != null) {
                Throwable failure = DefaultFailoverClient.unwrap(e);
                client.lastFailure(failure);
                LOG.debug("{}: cannot connect to {}: {}", name, uri, DefaultFailoverClient.describe(failure));
                tryNext(order, i + 1, round);
            } else if (round != roundId || client.isTerminal()) {
                threads.closeQuietlyAsync(c);
            } else if (!client.install(uri, c)) {
                tryNext(order, i + 1, round);
            }
        }));
    }

    private void roundFailed() {
        failedRounds++;
        if (config.reconnect().isExhausted(failedRounds, !everConnected)) {
            giveUp();
            return;
        }
        long delay = backoff.apply(failedRounds);
        LOG.debug("{}: connect round {} failed; next in {} ms", name, failedRounds, delay);
        threads.emit(new FailoverEvent.ReconnectScheduled(failedRounds, Duration.ofMillis(delay), client.lastFailure()));
        threads.schedule(this::start, delay, f -> roundTimer = f);
    }

    private void giveUp() {
        String limit = !everConnected && config.reconnect().startupMaxReconnectAttempts() != -1
                ? "startupMaxReconnectAttempts=" + config.reconnect().startupMaxReconnectAttempts()
                : "maxReconnectAttempts=" + config.reconnect().maxReconnectAttempts();
        Throwable last = client.lastFailure();
        FailoverException failure = new FailoverException("failover client " + name + " gave up after " + failedRounds
                + " failed connect round(s) over " + brokers.all() + " (" + limit + ")"
                + (last == null ? "" : "; last failure: " + DefaultFailoverClient.describe(last)), last);
        LOG.info("{}", failure.getMessage());
        // Emitted first: terminating wakes connect(), which may close the client (and its callback thread) at once.
        threads.emit(new FailoverEvent.GaveUp(failedRounds, failure));
        client.fail(failure);
    }

    /** Whether a connection was ever restored (the next one is then a reconnect). */
    boolean everConnected() {
        return everConnected;
    }

    /**
     * A connection was restored: the failed rounds start over.
     *
     * @return whether it was a reconnect (not the first connection)
     */
    boolean connected() {
        boolean reconnect = everConnected;
        everConnected = true;
        failedRoundsBeforeInstall = failedRounds;
        failedRounds = 0;
        restoredAt = clock.millis();
        lastFailedUri = null;
        return reconnect;
    }

    /** The connection to {@code uri} was lost: a new round, or back-off if it was lost soon after its restore. */
    void lost(CompositeUri uri) {
        lastFailedUri = uri;
        if (clock.millis() - restoredAt < STABLE_CONNECTION_MILLIS) {
            LOG.debug("{}: {} failed within {} ms of connecting: backing off", name, uri.withoutOptions(), STABLE_CONNECTION_MILLIS);
            failedRounds = failedRoundsBeforeInstall;
            roundFailed();
        } else {
            failedRounds = 0;
            start();
        }
    }

    /** A switch to {@code uri} failed while restoring it (the old connection is closed already): a new round. */
    void switchFailed(CompositeUri uri) {
        lastFailedUri = uri;
        failedRounds = 0;
        start();
    }

    /** The client ended: no further round. */
    void cancel() {
        if (roundTimer != null) {
            roundTimer.cancel(false);
        }
        roundId++;
    }
}
