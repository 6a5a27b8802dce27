package io.fedbridge.failover.internal;

import io.fedbridge.core.ConnectionClosedException;
import io.fedbridge.core.ConnectionListener;
import io.fedbridge.core.FederationHeaders;
import io.fedbridge.core.Message;
import io.fedbridge.core.StompConnection;
import io.fedbridge.core.StompErrorException;
import io.fedbridge.core.StompException;
import io.fedbridge.core.SubscriptionRequest;
import io.fedbridge.core.uri.CompositeUri;
import io.fedbridge.failover.FailoverClient;
import io.fedbridge.failover.FailoverConfig;
import io.fedbridge.failover.FailoverEvent;
import io.fedbridge.failover.FailoverException;
import io.fedbridge.failover.FailoverListener;
import io.fedbridge.failover.FailoverMessageListener;
import io.fedbridge.failover.FailoverStats;
import io.fedbridge.failover.FailoverSubscription;
import io.fedbridge.failover.FailoverTimeoutException;
import io.fedbridge.failover.FailoverTransaction;
import io.fedbridge.failover.SendReceipt;
import io.github.resilience4j.core.IntervalFunction;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The failover client. State transitions (connect rounds, restore, loss, give-up, switches, backups, deadlines) run on
 * the <em>engine</em>, a serial executor over the scheduler ({@link ClientThreads}); the state user threads share with
 * it (the current connection, the subscriptions, the transactions, the send buffer's order) is guarded by
 * {@link #lock}. Nothing holds {@link #lock} while calling a subscription or a transaction that holds its own lock.
 *
 * <p>Restoring a connection ({@link #install}), under {@link #lock}: subscribe every subscription, then write every
 * pending send in send order, then mark the connection active; user sends written meanwhile wait for the lock, so the
 * resends go first and the broker sees each producer's sends in order.
 *
 * <p>This class holds the connection's state and its transitions (restore, loss, switch, end). Parts with names of
 * their own, in this package: {@link ConnectRounds} (the reconnect loop and its back-off, engine-confined),
 * {@link SendPath} (a send from the caller to its receipt, and its resend on each restore), {@link Subscriptions}
 * (re-established on each restore; {@link DefaultFailoverSubscription} drops redeliveries), {@link Transactions}
 * ({@link DefaultFailoverTransaction}s and the switch deferred while one is open), {@link ClusterUpdates} (brokers
 * announced by the federation, rebalance), {@link ClientThreads} (engine, timers, callback and dispatch threads),
 * {@link BrokerConnector} (a connection's settings and producer secret), {@link SendWriter} (writing sends and
 * settling them from receipts, on the connections' I/O threads), {@link PendingSends} (the bounded send buffer),
 * {@link BackupPool} (ready connections for {@code backup=true}, engine-confined), {@link PriorityProbe}
 * ({@code priorityBackup}), {@link SendDeadlines} (the send {@code timeout} while disconnected), {@link BrokerList} and
 * {@link LearnedBrokerFilter} (the brokers to try, and which announced ones to accept).
 */
public final class DefaultFailoverClient implements FailoverClient {

    /**
     * The threads, time and randomness a client uses; tests inject their own.
     *
     * @param scheduler timers and the engine; null: the client starts (and stops) one daemon thread of its own
     * @param clock     for send deadlines
     * @param random    for {@code randomize}
     */
    public record Environment(ScheduledExecutorService scheduler, Clock clock, Random random) {
        public Environment {
            Objects.requireNonNull(clock, "clock");
            Objects.requireNonNull(random, "random");
        }

        public static Environment system() {
            return new Environment(null, Clock.systemUTC(), new Random());
        }
    }

    private enum State { CONNECTING, CONNECTED, RECONNECTING, FAILED, CLOSED }

    private static final Logger LOG = LoggerFactory.getLogger(DefaultFailoverClient.class);
    private static final AtomicLong NUMBERS = new AtomicLong();

    private final FailoverConfig config;
    private final String name;
    private final ClientThreads threads;
    private final Clock clock;
    private final BrokerList brokers;
    private final BrokerConnector connector;
    private final SendDeadlines deadlines;
    private final SendPath sends;
    private final Subscriptions subscriptions;
    private final Transactions transactions;
    private final BackupPool backups;
    private final PriorityProbe priorityProbe;
    private final ClusterUpdates cluster;
    private final ConnectRounds rounds;
    private final CompletableFuture<Void> firstConnection = new CompletableFuture<>();
    private final ConnectionListener connectionListener = new ConnectionListener() {
        @Override
        public void onClosed(StompConnection connection, Throwable cause) {
            threads.runOnEngine(() -> onConnectionClosed(connection, cause));
        }

        @Override
        public void onError(StompConnection connection, StompErrorException error) {
            LOG.debug("{}: ERROR from {}: {}", name, uriOf(connection), error.getMessage());
        }
    };

    /** Guards the fields below it, and the subscriptions', transactions' and send buffer's state shared with users. */
    final Object lock = new Object();
    private State state = State.CONNECTING;
    private FailoverException terminal;
    private boolean closing;
    private StompConnection current;
    private CompositeUri currentUri;
    private boolean active;
    private long disconnectedAt;
    /** See {@link #tempDestinationReconnectGrace()}: the last connected broker's, kept after a loss. */
    private volatile Duration tempGrace = Duration.ZERO;
    private volatile Throwable lastFailure;

    private final AtomicLong connects = new AtomicLong();
    private final AtomicLong connectionsLost = new AtomicLong();
    private final AtomicLong sendsResent = new AtomicLong();

    private DefaultFailoverClient(FailoverConfig config, FailoverListener listener, Environment env) {
        this.config = Objects.requireNonNull(config, "config");
        this.name = "failover-" + NUMBERS.incrementAndGet();
        this.threads = new ClientThreads(name, env.scheduler(), listener == null ? FailoverListener.none() : listener);
        this.clock = env.clock();
        Random random = env.random();
        this.brokers = new BrokerList(config.uris(), config.priorityBackup() ? config.effectivePriorityURIs() : List.of(),
                config.randomize(), random);
        this.connector = new BrokerConnector(config, brokers, connectionListener);
        PendingSends pending = new PendingSends(config.maxCacheSize());
        IntervalFunction backoff = config.reconnect().intervalFunction();
        this.deadlines = new SendDeadlines(config, pending, brokers, clock, lock, threads, new SendDeadlines.Host() {
            @Override
            public boolean isWaitingForConnection() {
                return !active && state != State.FAILED && state != State.CLOSED;
            }

            @Override
            public Throwable lastFailure() {
                return lastFailure;
            }
        });
        String clientKey = UUID.randomUUID().toString();
        this.sends = new SendPath(this, name, config, pending, deadlines, new FederationIds(clientKey), clock, threads,
                lock);
        this.subscriptions = new Subscriptions(this, name, config, threads, lock);
        this.transactions = new Transactions(this, clientKey, config, brokers, threads, lock);
        PriorityProbe.Host host = new PriorityProbe.Host() {
            @Override
            public boolean isTerminal() {
                return DefaultFailoverClient.this.isTerminal();
            }

            @Override
            public CompositeUri activeUri() {
                synchronized (lock) {
                    return active ? currentUri : null;
                }
            }

            @Override
            public CompositeUri currentUri() {
                synchronized (lock) {
                    return currentUri;
                }
            }

            @Override
            public CompletableFuture<StompConnection> connect(CompositeUri uri) {
                return connector.connect(uri);
            }

            @Override
            public boolean isConnected() {
                return DefaultFailoverClient.this.isConnected();
            }

            @Override
            public void switchTo(CompositeUri uri, StompConnection c, String reason) {
                DefaultFailoverClient.this.switchTo(uri, c, reason);
            }
        };
        this.backups = new BackupPool(name, config, brokers, backoff, threads, host);
        this.priorityProbe = new PriorityProbe(config, brokers, backups, backoff, threads, host);
        this.cluster = new ClusterUpdates(this, name, config, brokers, connector, backups, random, threads);
        this.rounds = new ConnectRounds(this, name, config, brokers, connector, backups, backoff, clock, threads);
    }

    /** Connects with the system's threads, clock and randomness; see {@link FailoverClient#connect(FailoverConfig)}. */
    public static DefaultFailoverClient connect(FailoverConfig config, FailoverListener listener) {
        return connect(config, listener, Environment.system());
    }

    public static DefaultFailoverClient connect(FailoverConfig config, FailoverListener listener, Environment env) {
        DefaultFailoverClient c = new DefaultFailoverClient(config, listener, env);
        c.threads.runOnEngine(c.rounds::start);
        c.awaitFirstConnection();
        return c;
    }

    private void awaitFirstConnection() {
        // A short send timeout must not keep the client from connecting at all: wait at least one connect timeout.
        Duration connectTimeout = config.clientConfig(config.uris().get(0)).connectTimeout();
        Duration wait = config.timeout().compareTo(connectTimeout) < 0 ? connectTimeout : config.timeout();
        try {
            if (config.waitsForever()) {
                firstConnection.get();
            } else {
                firstConnection.get(wait.toMillis(), TimeUnit.MILLISECONDS);
            }
        } catch (TimeoutException e) {
            Throwable last = lastFailure;
            close();
            throw new FailoverTimeoutException("no broker of " + brokers.all() + " was reachable within " + wait
                    + (wait.equals(config.timeout()) ? " (timeout)" : " (connectTimeout; timeout is " + config.timeout() + ")")
                    + (last == null ? "" : "; last failure: " + describe(last)), null, false, last);
        } catch (ExecutionException e) {
            close();
            throw e.getCause() instanceof FailoverException f ? f : new FailoverException(e.getCause().getMessage(), e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            close();
            throw new FailoverException("interrupted while connecting to " + brokers.all(), e);
        }
    }

    // ------------------------------------------------------------------------------------------ state, for the parts

    boolean isTerminal() {
        synchronized (lock) {
            return state == State.FAILED || state == State.CLOSED;
        }
    }

    /** Whether the client is closing or has ended: users' operations fail with {@link #usageError()}. Under the lock. */
    boolean isEnding() {
        return terminal != null || closing;
    }

    /** The active connection, or null while none is. Under the lock. */
    StompConnection activeConnection() {
        return active ? current : null;
    }

    /** The current connection's URI if {@code c} is (still) the current connection, else null. */
    CompositeUri currentUriIf(StompConnection c) {
        synchronized (lock) {
            return c == current ? currentUri : null;
        }
    }

    Throwable lastFailure() {
        return lastFailure;
    }

    void lastFailure(Throwable failure) {
        lastFailure = failure;
    }

    void checkUsable() {
        synchronized (lock) {
            if (isEnding()) {
                throw usageError();
            }
        }
    }

    FailoverException usageError() {
        FailoverException t = terminal;
        if (t != null) {
            return new FailoverException(t.getMessage(), t);
        }
        return new FailoverException("failover client " + name + " is closed");
    }

    // ------------------------------------------------------------------------------------------------ transitions

    /**
     * Makes {@code c} the current connection: re-subscribes, resends every pending send, then marks it active.
     * On the engine.
     *
     * @return false if {@code c} failed meanwhile (the caller tries the next broker)
     */
    boolean install(CompositeUri uri, StompConnection c) {
        int restored;
        int resent;
        long downtime;
        boolean announces;
        synchronized (lock) {
            if (state == State.FAILED || state == State.CLOSED) {
                threads.closeQuietlyAsync(c);
                return true;
            }
            if (!c.isConnected()) {
                return false;
            }
            current = c;
            currentUri = uri;
            tempGrace = tempGraceOf(c);
            announces = config.updateURIsSupported() && c.connectedHeaders().contains(ClusterHeaders.CLUSTER_URIS);
            try {
                restored = subscriptions.attachAll(c);
                if (announces) {
                    cluster.subscribe(c);
                }
                resent = sends.resendAll(c);
            } catch (StompException | IllegalArgumentException e) {
                LOG.debug("{}: {} failed while being restored: {}", name, uri, e.toString());
                lastFailure = e;
                current = null;
                currentUri = null;
                long now = clock.millis();
                sends.waitWritten(disconnectedAt > 0 ? disconnectedAt : now);
                threads.closeQuietlyAsync(c);
                return false;
            }
            active = true;
            state = State.CONNECTED;
            downtime = rounds.everConnected() ? Math.max(0, clock.millis() - disconnectedAt) : 0;
            lock.notifyAll();
        }
        sendsResent.addAndGet(resent);
        connects.incrementAndGet();
        deadlines.cancel();
        boolean reconnect = rounds.connected();
        String brokerId = c.connectedHeaders().get(FederationHeaders.BROKER_ID);
        LOG.info("{}: connected to {}{}{}", name, uri.withoutOptions(), brokerId == null ? "" : " (broker " + brokerId + ")",
                reconnect ? "; restored " + restored + " subscriptions, resent " + resent + " sends" : "");
        firstConnection.complete(null);
        threads.emit(new FailoverEvent.Connected(uri.withoutOptions().toString(), brokerId, reconnect,
                Duration.ofMillis(downtime), restored, resent));
        if (announces) {
            cluster.apply(c, c.connectedHeaders().get(ClusterHeaders.CLUSTER_URIS), false);
        }
        priorityProbe.restart();
        backups.ensure();
        return true;
    }

    private void onConnectionClosed(StompConnection c, Throwable cause) {
        if (backups.lost(c)) {
            return;
        }
        CompositeUri uri;
        List<DefaultFailoverTransaction> open;
        List<PendingSend> refused;
        synchronized (lock) {
            if (c != current || state == State.FAILED || state == State.CLOSED) {
                return;
            }
            uri = currentUri;
            current = null;
            currentUri = null;
            active = false;
            state = State.RECONNECTING;
            disconnectedAt = clock.millis();
            sends.waitAll(disconnectedAt);
            open = transactions.open();
            refused = sends.takeRefused(c, cause);
        }
        sends.reject(refused, c, cause);
        Throwable why = cause != null ? cause : new ConnectionClosedException("connection to " + uri.withoutOptions() + " closed");
        for (DefaultFailoverTransaction tx : open) {
            tx.connectionLost(why);
        }
        connectionsLost.incrementAndGet();
        lastFailure = why;
        LOG.info("{}: lost connection to {}: {}; reconnecting", name, uri.withoutOptions(), describe(why));
        threads.emit(new FailoverEvent.ConnectionLost(uri.withoutOptions().toString(), why));
        priorityProbe.cancel();
        deadlines.ensure();
        rounds.lost(uri);
    }

    /** The reconnect attempts are spent: ends the client. On the engine. */
    void fail(FailoverException failure) {
        terminate(failure, State.FAILED);
    }

    /** Ends the client: fails everything pending; later operations throw {@code failure}. */
    private void terminate(FailoverException failure, State end) {
        List<PendingSend> failed;
        List<DefaultFailoverSubscription> subs;
        List<DefaultFailoverTransaction> txs;
        StompConnection c;
        synchronized (lock) {
            if (state == State.FAILED || state == State.CLOSED) {
                return;
            }
            state = end;
            terminal = failure;
            c = current;
            current = null;
            currentUri = null;
            active = false;
            failed = sends.drain();
            subs = subscriptions.drain();
            txs = transactions.open();
            lock.notifyAll();
        }
        sends.fail(failed, failure);
        for (DefaultFailoverTransaction tx : txs) {
            tx.connectionLost(failure);
        }
        for (DefaultFailoverSubscription s : subs) {
            s.end(failure);
        }
        firstConnection.completeExceptionally(failure);
        if (c != null) {
            threads.closeQuietlyAsync(c);
        }
        threads.runOnEngine(this::releaseEngineResources);
    }

    private void releaseEngineResources() {
        deadlines.cancel();
        priorityProbe.cancel();
        rounds.cancel();
        backups.closeAll();
    }

    /** Moves from the current broker to {@code c} without a failure (deferred while a transaction is open). Engine. */
    void switchTo(CompositeUri uri, StompConnection c, String reason) {
        StompConnection old;
        CompositeUri oldUri;
        synchronized (lock) {
            if (!active || state != State.CONNECTED || BrokerList.same(uri, currentUri)) {
                threads.closeQuietlyAsync(c);
                return;
            }
            if (!transactions.isEmpty()) {
                LOG.debug("{}: {} but a transaction is open; moving once it ends", name, reason);
                threads.closeQuietlyAsync(c);
                transactions.deferSwitch(reason.startsWith("priority") ? priorityProbe::probeNow
                        : () -> cluster.rebalanceTo(uri, reason));
                return;
            }
            old = current;
            oldUri = currentUri;
            current = null;
            currentUri = null;
            active = false;
            disconnectedAt = clock.millis();
        }
        threads.closeQuietlyAsync(old);
        if (install(uri, c)) {
            LOG.info("{}: moved from {} to {}: {}", name, oldUri.withoutOptions(), uri.withoutOptions(), reason);
            threads.emit(new FailoverEvent.Switched(oldUri.withoutOptions().toString(), uri.withoutOptions().toString(),
                    reason));
            return;
        }
        // The new broker failed while being restored: reconnect as after a loss.
        synchronized (lock) {
            if (state == State.FAILED || state == State.CLOSED) {
                return;
            }
            state = State.RECONNECTING;
        }
        deadlines.ensure();
        rounds.switchFailed(uri);
    }

    // ------------------------------------------------------------------------------------------------ the API

    @Override
    public SendReceipt send(Message message) {
        return sends.send(message);
    }

    @Override
    public CompletableFuture<SendReceipt> sendAsync(Message message) {
        return sends.sendAsync(message);
    }

    @Override
    public void sendAsync(Message message, Consumer<Throwable> onFailure) {
        sends.sendAsync(message, onFailure);
    }

    /** See {@link SendPath#federationId}; for transactional sends. */
    String federationId(Message m) {
        return sends.federationId(m);
    }

    @Override
    public FailoverSubscription subscribe(SubscriptionRequest request, FailoverMessageListener messageListener) {
        Objects.requireNonNull(messageListener, "messageListener; use subscribe(request) to pull");
        return subscriptions.subscribe(request, messageListener);
    }

    @Override
    public FailoverSubscription subscribe(SubscriptionRequest request) {
        return subscriptions.subscribe(request, null);
    }

    @Override
    public FailoverTransaction begin() {
        return transactions.begin();
    }

    void transactionEnded(DefaultFailoverTransaction tx) {
        transactions.ended(tx);
    }

    @Override
    public boolean isConnected() {
        synchronized (lock) {
            return active;
        }
    }

    @Override
    public String connectedUri() {
        synchronized (lock) {
            return active ? currentUri.withoutOptions().toString() : null;
        }
    }

    /** The broker's {@value FederationHeaders#TEMP_RECONNECT_GRACE} in milliseconds; zero if absent or malformed. */
    private static Duration tempGraceOf(StompConnection c) {
        String ms = c.connectedHeaders().get(FederationHeaders.TEMP_RECONNECT_GRACE);
        try {
            return ms == null ? Duration.ZERO : Duration.ofMillis(Math.max(0, Long.parseLong(ms.trim())));
        } catch (NumberFormatException e) {
            return Duration.ZERO;
        }
    }

    @Override
    public Duration tempDestinationReconnectGrace() {
        return tempGrace;
    }

    @Override
    public String connectedBrokerId() {
        synchronized (lock) {
            return active ? current.connectedHeaders().get(FederationHeaders.BROKER_ID) : null;
        }
    }

    @Override
    public List<String> knownUris() {
        return brokers.all().stream().map(u -> u.withoutOptions().toString()).toList();
    }

    @Override
    public FailoverStats stats() {
        return new FailoverStats(connects.get(), connectionsLost.get(), sendsResent.get(), sends.duplicateReceipts(),
                subscriptions.redeliveriesDropped(), cluster.ignored(), sends.size());
    }

    @Override
    public FailoverConfig config() {
        return config;
    }

    /** For tests: whether a backup connection to {@code uri} is ready. */
    public boolean hasBackup(String uri) {
        CompletableFuture<Boolean> f = new CompletableFuture<>();
        threads.runOnEngine(() -> f.complete(backups.has(CompositeUri.parse(uri))));
        return f.join();
    }

    @Override
    public void close() {
        StompConnection c;
        synchronized (lock) {
            if (state == State.CLOSED || closing) {
                return;
            }
            closing = true;
            c = active ? current : null;
        }
        if (c != null) {
            // Give sends already written their receipts: the broker answers in order, before our DISCONNECT's.
            sends.awaitReceipts(c.config().closeTimeout());
        }
        FailoverException closed = new FailoverException("failover client " + name + " is closed");
        synchronized (lock) {
            c = current;
            current = null;
        }
        terminate(closed, State.CLOSED);
        synchronized (lock) {
            state = State.CLOSED;
        }
        if (c != null) {
            try {
                c.close();
            } catch (RuntimeException e) {
                LOG.debug("{}: closing {}: {}", name, uriOf(c), e.toString());
            }
        }
        threads.shutdown();
        LOG.debug("{}: closed", name);
    }

    // ------------------------------------------------------------------------------------------------ helpers

    static String uriOf(StompConnection c) {
        return c == null ? "?" : c.config().uri().withoutOptions().toString();
    }

    static Throwable unwrap(Throwable e) {
        while ((e instanceof CompletionException || e instanceof ExecutionException) && e.getCause() != null) {
            e = e.getCause();
        }
        return e;
    }

    static String describe(Throwable e) {
        return e.getMessage() != null ? e.getMessage() : e.toString();
    }

    @Override
    public String toString() {
        synchronized (lock) {
            return "FailoverClient[" + name + ", " + state.name().toLowerCase() + (active ? " to " + currentUri.withoutOptions() : "")
                    + ", brokers " + brokers.all() + "]";
        }
    }
}
