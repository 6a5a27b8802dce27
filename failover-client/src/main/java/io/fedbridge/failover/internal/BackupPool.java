package io.fedbridge.failover.internal;

import io.fedbridge.core.StompConnection;
import io.fedbridge.core.uri.CompositeUri;
import io.fedbridge.failover.FailoverConfig;
import io.github.resilience4j.core.IntervalFunction;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The ready connections of {@code backup=true}: up to {@code backupPoolSize} brokers other than the current one,
 * connected ahead of a failure so that a failover or a move to another broker takes one at once. A broker whose
 * backup connection failed or was lost is skipped until every candidate has been tried; then all are tried again
 * after a back-off.
 *
 * <p>Concurrency: engine-confined. Every method runs on the failover client's engine (a serial executor), and
 * connect completions come back to it through {@link ClientThreads#runOnEngine}; the pool has no lock of its own.
 */
final class BackupPool {

    private static final Logger LOG = LoggerFactory.getLogger(BackupPool.class);

    /** What the pool needs of its client. */
    interface Host {
        boolean isTerminal();

        /** The current broker if a connection is active, else null. */
        CompositeUri activeUri();

        /** The current broker, active or being restored, else null. */
        CompositeUri currentUri();

        CompletableFuture<StompConnection> connect(CompositeUri uri);
    }

    private final String name;
    private final FailoverConfig config;
    private final BrokerList brokers;
    private final IntervalFunction backoff;
    private final ClientThreads threads;
    private final Host host;
    private final Map<CompositeUri, StompConnection> ready = new LinkedHashMap<>();
    private final Set<CompositeUri> connecting = new HashSet<>();
    /** Brokers a backup connection just failed to or was lost from: skipped until every candidate has been tried. */
    private final Set<CompositeUri> failed = new HashSet<>();
    private int failures;
    private ScheduledFuture<?> timer;

    BackupPool(String name, FailoverConfig config, BrokerList brokers, IntervalFunction backoff, ClientThreads threads,
               Host host) {
        this.name = name;
        this.config = config;
        this.brokers = brokers;
        this.backoff = backoff;
        this.threads = threads;
        this.host = host;
    }

    /** The ready connection to {@code uri}, taken out of the pool; null if there is none (or it died). */
    StompConnection take(CompositeUri uri) {
        for (Iterator<Map.Entry<CompositeUri, StompConnection>> it = ready.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<CompositeUri, StompConnection> e = it.next();
            if (BrokerList.same(e.getKey(), uri)) {
                it.remove();
                if (e.getValue().isConnected()) {
                    LOG.debug("{}: using the backup connection to {}", name, uri);
                    return e.getValue();
                }
                threads.closeQuietlyAsync(e.getValue());
                return null;
            }
        }
        return null;
    }

    /** Whether {@code c} was one of the pool's connections; if so it is replaced after the initial reconnect delay. */
    boolean lost(StompConnection c) {
        for (Iterator<Map.Entry<CompositeUri, StompConnection>> it = ready.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<CompositeUri, StompConnection> e = it.next();
            if (e.getValue() == c) {
                it.remove();
                failed.add(e.getKey());
                LOG.debug("{}: backup connection to {} lost", name, DefaultFailoverClient.uriOf(c));
                schedule(config.reconnect().initialReconnectDelay().toMillis());
                return true;
            }
        }
        return false;
    }

    /** Whether a backup connection to {@code uri} is ready. */
    boolean has(CompositeUri uri) {
        return ready.keySet().stream().anyMatch(b -> BrokerList.same(b, uri));
    }

    /** Connects to brokers until the pool is full, skipping the current one and those that just failed. */
    void ensure() {
        if (!config.backup() || host.isTerminal()) {
            return;
        }
        CompositeUri cur = host.activeUri();
        if (cur == null) {
            return;
        }
        int have = ready.size() + connecting.size();
        for (CompositeUri uri : brokers.all()) {
            if (have >= config.backupPoolSize()) {
                break;
            }
            if (BrokerList.same(uri, cur) || has(uri)
                    || connecting.stream().anyMatch(b -> BrokerList.same(b, uri))
                    || failed.stream().anyMatch(b -> BrokerList.same(b, uri))) {
                continue;
            }
            have++;
            connecting.add(uri);
            host.connect(uri).whenComplete((c, e) -> threads.runOnEngine(() -> {
                connecting.remove(uri);
                if (e != null) {
                    failed.add(uri);
                    ensure(); // the next candidate, if any
                    return;
                }
                if (host.isTerminal() || BrokerList.same(uri, host.currentUri()) || ready.size() >= config.backupPoolSize()) {
                    threads.closeQuietlyAsync(c);
                    return;
                }
                failures = 0;
                ready.put(uri, c);
                LOG.debug("{}: backup connection to {} ready", name, uri.withoutOptions());
            }));
        }
        if (have < config.backupPoolSize() && connecting.isEmpty() && !failed.isEmpty()) {
            // Every candidate tried: try the failed ones again after a back-off.
            failed.clear();
            schedule(backoff.apply(++failures));
        }
    }

    /** Closes every ready connection and stops the retry timer (the client is ending). */
    void closeAll() {
        if (timer != null) {
            timer.cancel(false);
        }
        ready.values().forEach(threads::closeQuietlyAsync);
        ready.clear();
    }

    private void schedule(long delayMillis) {
        if (!config.backup() || (timer != null && !timer.isDone())) {
            return;
        }
        threads.schedule(() -> {
            timer = null;
            ensure();
        }, delayMillis, f -> timer = f);
    }
}
