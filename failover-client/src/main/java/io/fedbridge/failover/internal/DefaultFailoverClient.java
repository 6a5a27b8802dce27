package io.fedbridge.failover.internal;

import io.fedbridge.core.AckMode;
import io.fedbridge.core.ClientConfig;
import io.fedbridge.core.ConnectionClosedException;
import io.fedbridge.core.ConnectionListener;
import io.fedbridge.core.FederationHeaders;
import io.fedbridge.core.Message;
import io.fedbridge.core.ReceivedMessage;
import io.fedbridge.core.StompCommand;
import io.fedbridge.core.StompConnection;
import io.fedbridge.core.StompErrorException;
import io.fedbridge.core.StompException;
import io.fedbridge.core.StompFrame;
import io.fedbridge.core.StompHeaders;
import io.fedbridge.core.Subscription;
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
import io.fedbridge.failover.MessageRejectedException;
import io.fedbridge.failover.SendReceipt;
import io.github.resilience4j.core.IntervalFunction;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The failover client. State transitions (connect rounds, restore, loss, give-up, switches, backups, deadlines) run on
 * the <em>engine</em>, a serial executor over the scheduler; the state user threads share with it (the current
 * connection, the subscriptions, the transactions, the send buffer's order) is guarded by {@link #lock}. Nothing holds
 * {@link #lock} while calling a subscription or a transaction that holds its own lock.
 *
 * <p>Restoring a connection, under {@link #lock}: subscribe every subscription, then write every pending send in send
 * order, then mark the connection active; user sends written meanwhile wait for the lock, so the resends go first and
 * the broker sees each producer's sends in order.
 *
 * <p>Parts with names of their own, in this package: {@link SendWriter} (writing sends and settling them from
 * receipts, on the connections' I/O threads), {@link PendingSends} (the bounded send buffer), {@link BackupPool}
 * (ready connections for {@code backup=true}, engine-confined), {@link SendDeadlines} (the send
 * {@code timeout} while disconnected), {@link BrokerList} and {@link LearnedBrokerFilter} (the
 * brokers to try, and which announced ones to accept), {@link DefaultFailoverSubscription} (restoring a subscription
 * and dropping redeliveries) and {@link DefaultFailoverTransaction}.
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
    private static final SecureRandom SECURE_RANDOM = new SecureRandom();
    private static final String CLUSTER_SUBSCRIPTION_ID = "fedbridge-failover-cluster";
    /**
     * A connection lost sooner than this after it was restored counts as a failed connect round, so a broker that
     * accepts clients and then drops them (refusing a durable subscription its previous connection still holds, say)
     * is backed off rather than hammered.
     */
    static final long STABLE_CONNECTION_MILLIS = 1000;

    private final FailoverConfig config;
    private final FailoverListener listener;
    private final String name;
    private final String clientKey = UUID.randomUUID().toString();
    /**
     * Sent as {@value FederationHeaders#PRODUCER_SECRET} on every CONNECT, the same to every broker, so that the
     * federation keys this client's {@code fedbridge-id}s by it: its resends after a failover deduplicate, and no other
     * client can forge its ids. Never logged, printed or put in a message.
     */
    private final String producerSecret = newProducerSecret();
    private final FederationIds federationIds = new FederationIds(clientKey);
    private final AtomicLong subscriptionNumbers = new AtomicLong();
    private final AtomicLong transactionNumbers = new AtomicLong();
    private final ScheduledExecutorService scheduler;
    private final boolean ownsScheduler;
    private final Executor engine;
    private final ExecutorService callbacks;
    private volatile ExecutorService dispatcher;
    private final Clock clock;
    private final Random random;
    private final BrokerList brokers;
    private final LearnedBrokerFilter learnedFilter;
    private final PendingSends pending;
    private final SendWriter writer;
    private final BackupPool backups;
    private final PriorityProbe priorityProbe;
    private final SendDeadlines deadlines;
    private final IntervalFunction backoff;
    private final CompletableFuture<Void> firstConnection = new CompletableFuture<>();
    private final ConnectionListener connectionListener = new ConnectionListener() {
        @Override
        public void onClosed(StompConnection connection, Throwable cause) {
            runOnEngine(() -> onConnectionClosed(connection, cause));
        }

        @Override
        public void onError(StompConnection connection, StompErrorException error) {
            LOG.debug("{}: ERROR from {}: {}", name, uriOf(connection), error.getMessage());
        }
    };

    /** Guards the fields below it. */
    private final Object lock = new Object();
    private State state = State.CONNECTING;
    private FailoverException terminal;
    private boolean closing;
    private StompConnection current;
    private CompositeUri currentUri;
    private boolean active;
    private long disconnectedAt;
    /** See {@link #tempDestinationReconnectGrace()}: the last connected broker's, kept after a loss. */
    private volatile Duration tempGrace = Duration.ZERO;
    private final Map<String, DefaultFailoverSubscription> subscriptions = new LinkedHashMap<>();
    private final Set<DefaultFailoverTransaction> transactions = new LinkedHashSet<>();

    // Engine-confined.
    private int failedRounds;
    private int failedRoundsBeforeInstall;
    private long restoredAt;
    private boolean everConnected;
    private CompositeUri lastFailedUri;
    private long roundId;
    private ScheduledFuture<?> roundTimer;
    private Runnable deferredSwitch;
    private volatile Throwable lastFailure;

    private final AtomicLong connects = new AtomicLong();
    private final AtomicLong connectionsLost = new AtomicLong();
    private final AtomicLong sendsResent = new AtomicLong();
    private final AtomicLong redeliveriesDropped = new AtomicLong();

    private DefaultFailoverClient(FailoverConfig config, FailoverListener listener, Environment env) {
        this.config = Objects.requireNonNull(config, "config");
        this.listener = listener == null ? FailoverListener.none() : listener;
        this.name = "failover-" + NUMBERS.incrementAndGet();
        this.ownsScheduler = env.scheduler() == null;
        this.scheduler = ownsScheduler ? ownScheduler("fedbridge-" + name) : env.scheduler();
        this.engine = new SerialExecutor(scheduler);
        this.callbacks = Executors.newSingleThreadExecutor(daemon("fedbridge-" + name + "-callbacks"));
        this.clock = env.clock();
        this.random = env.random();
        this.brokers = new BrokerList(config.uris(), config.priorityBackup() ? config.effectivePriorityURIs() : List.of(),
                config.randomize(), random);
        this.learnedFilter = new LearnedBrokerFilter(config.cluster(), name);
        this.pending = new PendingSends(config.maxCacheSize());
        this.backoff = config.reconnect().intervalFunction();
        this.writer = new SendWriter(pending);
        this.deadlines = new SendDeadlines(config, pending, brokers, clock, lock, new SendDeadlines.Host() {
            @Override
            public boolean isWaitingForConnection() {
                return !active && state != State.FAILED && state != State.CLOSED;
            }

            @Override
            public Throwable lastFailure() {
                return lastFailure;
            }

            @Override
            public void schedule(Runnable task, long delayMillis, java.util.function.Consumer<ScheduledFuture<?>> handle) {
                DefaultFailoverClient.this.schedule(task, delayMillis, handle);
            }
        });
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
                return StompConnection.connectAsync(clientConfig(uri), connectionListener);
            }

            @Override
            public void runOnEngine(Runnable task) {
                DefaultFailoverClient.this.runOnEngine(task);
            }

            @Override
            public void schedule(Runnable task, long delayMillis, java.util.function.Consumer<ScheduledFuture<?>> handle) {
                DefaultFailoverClient.this.schedule(task, delayMillis, handle);
            }

            @Override
            public void closeQuietlyAsync(StompConnection c) {
                DefaultFailoverClient.this.closeQuietlyAsync(c);
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
        this.backups = new BackupPool(name, config, brokers, backoff, host);
        this.priorityProbe = new PriorityProbe(config, brokers, backups, backoff, host);
    }

    /** Connects with the system's threads, clock and randomness; see {@link FailoverClient#connect(FailoverConfig)}. */
    public static DefaultFailoverClient connect(FailoverConfig config, FailoverListener listener) {
        return connect(config, listener, Environment.system());
    }

    public static DefaultFailoverClient connect(FailoverConfig config, FailoverListener listener, Environment env) {
        DefaultFailoverClient c = new DefaultFailoverClient(config, listener, env);
        c.runOnEngine(c::startRound);
        c.awaitFirstConnection();
        return c;
    }

    private static String newProducerSecret() {
        byte[] bytes = new byte[16];
        SECURE_RANDOM.nextBytes(bytes);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }

    /**
     * How to connect to {@code uri}: the config's settings plus this client's producer secret; for a learned broker
     * without {@code updateURIsCredentials}, no login or passcode.
     */
    private ClientConfig clientConfig(CompositeUri uri) {
        ClientConfig.Builder b = config.clientConfig(uri).toBuilder()
                .connectHeader(FederationHeaders.PRODUCER_SECRET, producerSecret);
        if (!config.cluster().updateURIsCredentials() && !brokers.isConfigured(uri)) {
            b.login(null).passcode(null);
        }
        return b.build();
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

    // ------------------------------------------------------------------------------------------------ engine

    private void runOnEngine(Runnable task) {
        try {
            engine.execute(task);
        } catch (RejectedExecutionException e) {
            LOG.debug("{}: engine stopped, dropping a task", name);
        }
    }

    private void schedule(Runnable task, long delayMillis, java.util.function.Consumer<ScheduledFuture<?>> handle) {
        try {
            handle.accept(scheduler.schedule(() -> runOnEngine(task), Math.max(0, delayMillis), TimeUnit.MILLISECONDS));
        } catch (RejectedExecutionException e) {
            LOG.debug("{}: scheduler stopped", name);
        }
    }

    private boolean isTerminal() {
        synchronized (lock) {
            return state == State.FAILED || state == State.CLOSED;
        }
    }

    /** One connect round: every known broker once, in order, until one connects and is restored. */
    private void startRound() {
        if (isTerminal()) {
            return;
        }
        List<CompositeUri> order = brokers.connectOrder(lastFailedUri);
        long round = ++roundId;
        LOG.debug("{}: connect round {} over {}", name, failedRounds + 1, order);
        tryNext(order, 0, round);
    }

    private void tryNext(List<CompositeUri> order, int i, long round) {
        if (round != roundId || isTerminal()) {
            return;
        }
        if (i == order.size()) {
            roundFailed();
            return;
        }
        CompositeUri uri = order.get(i);
        StompConnection backup = backups.take(uri);
        if (backup != null) {
            if (!install(uri, backup)) {
                tryNext(order, i + 1, round);
            }
            return;
        }
        ClientConfig cc;
        try {
            cc = clientConfig(uri);
        } catch (IllegalArgumentException e) {
            lastFailure = e;
            tryNext(order, i + 1, round);
            return;
        }
        StompConnection.connectAsync(cc, connectionListener).whenComplete((c, e) -> runOnEngine(() -> {
            if (e != null) {
                lastFailure = unwrap(e);
                LOG.debug("{}: cannot connect to {}: {}", name, uri, describe(lastFailure));
                tryNext(order, i + 1, round);
            } else if (round != roundId || isTerminal()) {
                closeQuietlyAsync(c);
            } else if (!install(uri, c)) {
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
        emit(new FailoverEvent.ReconnectScheduled(failedRounds, Duration.ofMillis(delay), lastFailure));
        schedule(this::startRound, delay, f -> roundTimer = f);
    }

    /**
     * Makes {@code c} the current connection: re-subscribes, resends every pending send, then marks it active.
     *
     * @return false if {@code c} failed meanwhile (the caller tries the next broker)
     */
    private boolean install(CompositeUri uri, StompConnection c) {
        int restored = 0;
        int resent = 0;
        long downtime;
        boolean cluster;
        synchronized (lock) {
            if (state == State.FAILED || state == State.CLOSED) {
                closeQuietlyAsync(c);
                return true;
            }
            if (!c.isConnected()) {
                return false;
            }
            current = c;
            currentUri = uri;
            tempGrace = tempGraceOf(c);
            cluster = config.updateURIsSupported() && c.connectedHeaders().contains(ClusterHeaders.CLUSTER_URIS);
            try {
                for (DefaultFailoverSubscription s : subscriptions.values()) {
                    s.attach(c);
                    restored++;
                }
                if (cluster) {
                    c.subscribe(SubscriptionRequest.builder(ClusterHeaders.CLUSTER_TOPIC).ackMode(AckMode.AUTO)
                            .header(StompHeaders.ID, CLUSTER_SUBSCRIPTION_ID).build(), m -> onClusterMessage(c, m));
                }
                for (PendingSend p : pending.inOrder()) {
                    if (p.writes > 0) {
                        resent++;
                    }
                    writer.write(p, c);
                }
            } catch (StompException | IllegalArgumentException e) {
                LOG.debug("{}: {} failed while being restored: {}", name, uri, e.toString());
                lastFailure = e;
                current = null;
                currentUri = null;
                long now = clock.millis();
                for (PendingSend p : pending.inOrder()) {
                    if (p.waitingSince < 0) {
                        p.waitingSince = disconnectedAt > 0 ? disconnectedAt : now;
                    }
                }
                closeQuietlyAsync(c);
                return false;
            }
            active = true;
            state = State.CONNECTED;
            downtime = everConnected ? Math.max(0, clock.millis() - disconnectedAt) : 0;
            lock.notifyAll();
        }
        sendsResent.addAndGet(resent);
        connects.incrementAndGet();
        deadlines.cancel();
        boolean reconnect = everConnected;
        everConnected = true;
        failedRoundsBeforeInstall = failedRounds;
        failedRounds = 0;
        restoredAt = clock.millis();
        lastFailedUri = null;
        String brokerId = c.connectedHeaders().get(FederationHeaders.BROKER_ID);
        LOG.info("{}: connected to {}{}{}", name, uri.withoutOptions(), brokerId == null ? "" : " (broker " + brokerId + ")",
                reconnect ? "; restored " + restored + " subscriptions, resent " + resent + " sends" : "");
        firstConnection.complete(null);
        emit(new FailoverEvent.Connected(uri.withoutOptions().toString(), brokerId, reconnect, Duration.ofMillis(downtime),
                restored, resent));
        if (cluster) {
            applyClusterUris(c, c.connectedHeaders().get(ClusterHeaders.CLUSTER_URIS), false);
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
            for (PendingSend p : pending.inOrder()) {
                p.waitingSince = disconnectedAt;
            }
            open = List.copyOf(transactions);
            refused = refusedWithoutReceipt(c, cause);
        }
        for (PendingSend p : refused) {
            StompErrorException err = (StompErrorException) cause;
            p.result.completeExceptionally(new MessageRejectedException("broker " + uriOf(c) + " refused a send and closed "
                    + "the connection (" + err.errorMessage() + ") while this " + p + ", written without a receipt of its own, "
                    + "awaited confirmation: it may be the refused one, or an earlier one the broker took; not resent",
                    p.federationId, err));
        }
        Throwable why = cause != null ? cause : new ConnectionClosedException("connection to " + uri.withoutOptions() + " closed");
        for (DefaultFailoverTransaction tx : open) {
            tx.connectionLost(why);
        }
        connectionsLost.incrementAndGet();
        lastFailedUri = uri;
        lastFailure = why;
        LOG.info("{}: lost connection to {}: {}; reconnecting", name, uri.withoutOptions(), describe(why));
        emit(new FailoverEvent.ConnectionLost(uri.withoutOptions().toString(), why));
        priorityProbe.cancel();
        deadlines.ensure();
        if (clock.millis() - restoredAt < STABLE_CONNECTION_MILLIS) {
            LOG.debug("{}: {} failed within {} ms of connecting: backing off", name, uri.withoutOptions(), STABLE_CONNECTION_MILLIS);
            failedRounds = failedRoundsBeforeInstall;
            roundFailed();
        } else {
            failedRounds = 0;
            startRound();
        }
    }

    /**
     * An ERROR that answered no receipt ({@link SendWindow}): the sends written to {@code c} without a receipt of their
     * own, taken out of the pending ones, since one of them may be what the broker refuses (resending it would be
     * refused again). Caller holds {@link #lock}.
     */
    private List<PendingSend> refusedWithoutReceipt(StompConnection c, Throwable cause) {
        if (!(cause instanceof StompErrorException err) || err.frame().header(StompHeaders.RECEIPT_ID) != null) {
            return List.of();
        }
        List<PendingSend> refused = new ArrayList<>();
        for (PendingSend p : pending.inOrder()) {
            if (p.receiptless && p.connection == c && pending.remove(p)) {
                refused.add(p);
            }
        }
        return refused;
    }

    private void giveUp() {
        String limit = !everConnected && config.reconnect().startupMaxReconnectAttempts() != -1
                ? "startupMaxReconnectAttempts=" + config.reconnect().startupMaxReconnectAttempts()
                : "maxReconnectAttempts=" + config.reconnect().maxReconnectAttempts();
        Throwable last = lastFailure;
        FailoverException failure = new FailoverException("failover client " + name + " gave up after " + failedRounds
                + " failed connect round(s) over " + brokers.all() + " (" + limit + ")"
                + (last == null ? "" : "; last failure: " + describe(last)), last);
        LOG.info("{}", failure.getMessage());
        // Emitted first: terminating wakes connect(), which may close the client (and its callback thread) at once.
        emit(new FailoverEvent.GaveUp(failedRounds, failure));
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
            failed = pending.drain();
            subs = List.copyOf(subscriptions.values());
            subscriptions.clear();
            txs = List.copyOf(transactions);
            lock.notifyAll();
        }
        for (PendingSend p : failed) {
            String what = p.writes > 0 ? "it was sent to " + uriOf(p.connection) + " but not confirmed: its delivery is in doubt"
                    : "it was never sent";
            p.result.completeExceptionally(new FailoverException(failure.getMessage() + "; " + p + " failed: " + what, failure));
        }
        for (DefaultFailoverTransaction tx : txs) {
            tx.connectionLost(failure);
        }
        for (DefaultFailoverSubscription s : subs) {
            s.end(failure);
        }
        firstConnection.completeExceptionally(failure);
        if (c != null) {
            closeQuietlyAsync(c);
        }
        runOnEngine(this::releaseEngineResources);
    }

    private void releaseEngineResources() {
        deadlines.cancel();
        priorityProbe.cancel();
        cancel(roundTimer);
        roundId++;
        backups.closeAll();
    }

    // ------------------------------------------------------------------------------------------------ sending

    /** The message's own {@code fedbridge-id}, or a new one: this client's key, its destination's stream and number. */
    String federationId(Message m) {
        String own = m.headers().get(FederationHeaders.FEDERATION_ID);
        return own != null && !own.isEmpty() ? own : federationIds.next(m.destination());
    }

    @Override
    public SendReceipt send(Message message) {
        PendingSend p = enqueue(message);
        try {
            return p.result.get();
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof RuntimeException r) {
                throw r;
            }
            throw new FailoverException(p + " failed: " + cause, cause);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new FailoverException("interrupted while waiting for the receipt of " + p
                    + "; the send goes on and may still be delivered", e);
        }
    }

    @Override
    public CompletableFuture<SendReceipt> sendAsync(Message message) {
        PendingSend p = enqueue(message);
        CompletableFuture<SendReceipt> user = new CompletableFuture<>();
        p.result.whenComplete((r, e) -> {
            try {
                callbacks.execute(() -> {
                    if (e != null) {
                        user.completeExceptionally(e);
                    } else {
                        user.complete(r);
                    }
                });
            } catch (RejectedExecutionException rejected) {
                if (e != null) {
                    user.completeExceptionally(e);
                } else {
                    user.complete(r);
                }
            }
        });
        return user;
    }

    @Override
    public void sendAsync(Message message, java.util.function.Consumer<Throwable> onFailure) {
        Objects.requireNonNull(onFailure, "onFailure");
        enqueue(message, true).result.whenComplete((r, e) -> {
            if (e == null) {
                return;
            }
            try {
                callbacks.execute(() -> onFailure.accept(e));
            } catch (RejectedExecutionException rejected) {
                onFailure.accept(e);
            }
        });
    }

    private PendingSend enqueue(Message message) {
        return enqueue(message, false);
    }

    private PendingSend enqueue(Message message, boolean pipelined) {
        Objects.requireNonNull(message, "message");
        checkUsable();
        long start = clock.millis();
        PendingSend p = new PendingSend(message, federationId(message), pipelined);
        try {
            if (!pending.reserve(p, config.timeout())) {
                throw new FailoverTimeoutException(p + " failed: the send buffer stayed full for " + config.timeout()
                        + " (timeout): " + pending.size() + " sends, " + pending.bytes() + " of maxCacheSize="
                        + config.maxCacheSize() + " bytes await their receipt" + (isConnected() ? "" : " and no broker is connected")
                        + "; it was never sent", p.federationId, false, null);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new FailoverException("interrupted while waiting for room in the send buffer for " + p + "; it was never sent", e);
        }
        boolean waiting;
        synchronized (lock) {
            if (terminal != null || closing) {
                pending.unreserve(p);
                throw usageError();
            }
            pending.add(p);
            waiting = !active;
            if (active) {
                try {
                    writer.write(p, current);
                } catch (ConnectionClosedException e) {
                    p.waitingSince = clock.millis();
                    waiting = true;
                }
            } else {
                p.waitingSince = start;
            }
        }
        if (waiting) {
            runOnEngine(deadlines::ensure);
        }
        return p;
    }

    // ------------------------------------------------------------------------------------------------ subscribing

    @Override
    public FailoverSubscription subscribe(SubscriptionRequest request, FailoverMessageListener messageListener) {
        Objects.requireNonNull(messageListener, "messageListener; use subscribe(request) to pull");
        return doSubscribe(request, messageListener);
    }

    @Override
    public FailoverSubscription subscribe(SubscriptionRequest request) {
        return doSubscribe(request, null);
    }

    private FailoverSubscription doSubscribe(SubscriptionRequest request, FailoverMessageListener messageListener) {
        Objects.requireNonNull(request, "request");
        checkUsable();
        String id = request.extraHeaders().getOrDefault(StompHeaders.ID, "fsub-" + subscriptionNumbers.incrementAndGet());
        if (id.equals(CLUSTER_SUBSCRIPTION_ID)) {
            throw new IllegalArgumentException("subscription id '" + id + "' is reserved");
        }
        DefaultFailoverSubscription s = new DefaultFailoverSubscription(this, id, request, messageListener, config.auditDepth());
        synchronized (lock) {
            if (terminal != null || closing) {
                throw usageError();
            }
            if (subscriptions.containsKey(id)) {
                throw new IllegalArgumentException("subscription id '" + id + "' is already in use on this client");
            }
            subscriptions.put(id, s);
            if (active) {
                StompConnection c = current;
                try {
                    s.attachAndWait(c, c.config().connectTimeout());
                } catch (StompException e) {
                    if (rejected(e)) {
                        subscriptions.remove(id);
                        s.end(new FailoverException("subscription " + id + " to " + request.destination() + " was rejected", e));
                        throw e;
                    }
                    // The connection failed or was slow: the subscription is (re-)established on the next one.
                    LOG.debug("{}: subscribing {} on {} did not complete: {}", name, id, uriOf(c), e.toString());
                }
            }
        }
        return s;
    }

    private static boolean rejected(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof StompErrorException) {
                return true;
            }
        }
        return false;
    }

    void unsubscribe(DefaultFailoverSubscription s, Map<String, String> headers) {
        synchronized (lock) {
            if (!s.isActive()) {
                return;
            }
            StompConnection c = active ? current : null;
            if (!headers.isEmpty() && c == null) {
                throw new FailoverException("cannot send UNSUBSCRIBE " + headers + " for " + s + ": no broker is connected");
            }
            subscriptions.remove(s.id());
            s.end(new FailoverException(s + " is closed"));
            Subscription u = s.underlying();
            if (c != null && u != null && s.underlyingConnection() == c) {
                try {
                    if (headers.isEmpty()) {
                        u.unsubscribe();
                    } else {
                        u.unsubscribe(headers);
                    }
                } catch (ConnectionClosedException e) {
                    // gone with the connection anyway
                }
            }
        }
    }

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

    void redeliveryDropped() {
        redeliveriesDropped.incrementAndGet();
    }

    // ------------------------------------------------------------------------------------------------ transactions

    @Override
    public FailoverTransaction begin() {
        checkUsable();
        long deadline = config.waitsForever() ? Long.MAX_VALUE : System.nanoTime() + config.timeout().toNanos();
        StompConnection failed = null;
        synchronized (lock) {
            while (true) {
                if (terminal != null || closing) {
                    throw usageError();
                }
                if (active && current != failed) {
                    StompConnection c = current;
                    String id = "tx-" + clientKey + "-" + transactionNumbers.incrementAndGet();
                    try {
                        c.sendFrame(StompFrame.of(StompCommand.BEGIN, StompHeaders.TRANSACTION, id), false);
                        DefaultFailoverTransaction tx = new DefaultFailoverTransaction(this, id, c, uriOf(c), config.timeout());
                        transactions.add(tx);
                        return tx;
                    } catch (ConnectionClosedException e) {
                        failed = c; // just failed: begin on the next connection
                    }
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new FailoverTimeoutException("could not begin a transaction: no broker of " + brokers.all()
                            + " connected within " + config.timeout() + " (timeout)", null, false, lastFailure);
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

    void transactionEnded(DefaultFailoverTransaction tx) {
        boolean none;
        synchronized (lock) {
            transactions.remove(tx);
            none = transactions.isEmpty();
        }
        if (none) {
            runOnEngine(() -> {
                Runnable d = deferredSwitch;
                deferredSwitch = null;
                if (d != null) {
                    d.run();
                }
            });
        }
    }

    // ------------------------------------------------------------------------------------------------ switching

    /** Moves from the current broker to {@code c} without a failure (deferred while a transaction is open). */
    private void switchTo(CompositeUri uri, StompConnection c, String reason) {
        StompConnection old;
        CompositeUri oldUri;
        synchronized (lock) {
            if (!active || state != State.CONNECTED || BrokerList.same(uri, currentUri)) {
                closeQuietlyAsync(c);
                return;
            }
            if (!transactions.isEmpty()) {
                LOG.debug("{}: {} but a transaction is open; moving once it ends", name, reason);
                closeQuietlyAsync(c);
                deferredSwitch = reason.startsWith("priority") ? priorityProbe::probeNow : () -> rebalanceTo(uri, reason);
                return;
            }
            old = current;
            oldUri = currentUri;
            current = null;
            currentUri = null;
            active = false;
            disconnectedAt = clock.millis();
        }
        closeQuietlyAsync(old);
        if (install(uri, c)) {
            LOG.info("{}: moved from {} to {}: {}", name, oldUri.withoutOptions(), uri.withoutOptions(), reason);
            emit(new FailoverEvent.Switched(oldUri.withoutOptions().toString(), uri.withoutOptions().toString(), reason));
            return;
        }
        // The new broker failed while being restored: reconnect as after a loss.
        synchronized (lock) {
            if (state == State.FAILED || state == State.CLOSED) {
                return;
            }
            state = State.RECONNECTING;
        }
        lastFailedUri = uri;
        deadlines.ensure();
        failedRounds = 0;
        startRound();
    }

    private void rebalanceTo(CompositeUri target, String reason) {
        if (isTerminal() || !isConnected()) {
            return;
        }
        CompositeUri uri = brokers.resolve(target);
        StompConnection backup = backups.take(uri);
        if (backup != null) {
            switchTo(uri, backup, reason);
            return;
        }
        ClientConfig cc;
        try {
            cc = clientConfig(uri);
        } catch (IllegalArgumentException e) {
            LOG.debug("{}: cannot rebalance to {}: {}", name, uri, e.getMessage());
            return;
        }
        StompConnection.connectAsync(cc, connectionListener).whenComplete((c, e) -> runOnEngine(() -> {
            if (e != null) {
                LOG.info("{}: cannot rebalance to {}: {}; staying", name, uri.withoutOptions(), describe(unwrap(e)));
            } else {
                switchTo(uri, c, reason);
            }
        }));
    }

    // ------------------------------------------------------------------------------------------------ cluster

    private void onClusterMessage(StompConnection c, ReceivedMessage m) {
        if (!ClusterHeaders.CLUSTER_TOPIC.equals(m.destination())) {
            LOG.debug("{}: ignoring a MESSAGE from {} to {} on the cluster subscription", name, uriOf(c), m.destination());
            return;
        }
        String uris = m.header(ClusterHeaders.CLUSTER_URIS);
        boolean rebalance = "true".equals(m.header(ClusterHeaders.CLUSTER_REBALANCE));
        runOnEngine(() -> applyClusterUris(c, uris, rebalance));
    }

    private void applyClusterUris(StompConnection from, String value, boolean rebalance) {
        if (!config.updateURIsSupported() || value == null || isTerminal()) {
            return;
        }
        CompositeUri cur;
        synchronized (lock) {
            if (from != current) {
                return;
            }
            cur = currentUri;
        }
        List<CompositeUri> announced = learnedFilter.accept(ClusterHeaders.parse(value), cur, brokers);
        boolean changed = brokers.updateLearned(announced);
        if (changed || rebalance) {
            LOG.info("{}: {} announces brokers {}{}", name, cur.withoutOptions(), announced, rebalance ? " and asks to rebalance" : "");
            emit(new FailoverEvent.UrisUpdated(knownUris(), rebalance));
        }
        if (changed) {
            backups.ensure();
        }
        if (rebalance && config.rebalanceUpdateURIs() && !announced.isEmpty()) {
            CompositeUri target = config.randomize() ? announced.get(random.nextInt(announced.size())) : announced.get(0);
            if (!BrokerList.same(target, cur)) {
                rebalanceTo(target, "rebalance requested by " + cur.withoutOptions());
            }
        }
    }

    // ------------------------------------------------------------------------------------------------ state

    private void checkUsable() {
        synchronized (lock) {
            if (terminal != null || closing) {
                throw usageError();
            }
        }
    }

    private FailoverException usageError() {
        FailoverException t = terminal;
        if (t != null) {
            return new FailoverException(t.getMessage(), t);
        }
        return new FailoverException("failover client " + name + " is closed");
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
        return new FailoverStats(connects.get(), connectionsLost.get(), sendsResent.get(), writer.duplicateReceipts(),
                redeliveriesDropped.get(), learnedFilter.ignored(), pending.size());
    }

    @Override
    public FailoverConfig config() {
        return config;
    }

    /** For tests: whether a backup connection to {@code uri} is ready. */
    public boolean hasBackup(String uri) {
        CompletableFuture<Boolean> f = new CompletableFuture<>();
        runOnEngine(() -> f.complete(backups.has(CompositeUri.parse(uri))));
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
            List<CompletableFuture<SendReceipt>> waiting = pending.inOrder().stream().map(p -> p.result).toList();
            try {
                CompletableFuture.allOf(waiting.toArray(CompletableFuture[]::new)).exceptionally(e -> null)
                        .get(c.config().closeTimeout().toMillis(), TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (ExecutionException | TimeoutException e) {
                LOG.debug("{}: closing with {} sends unconfirmed", name, pending.size());
            }
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
        if (ownsScheduler) {
            runOnEngine(scheduler::shutdown);
        }
        ExecutorService d = dispatcher;
        if (d != null) {
            d.shutdown();
        }
        callbacks.shutdown();
        LOG.debug("{}: closed", name);
    }

    // ------------------------------------------------------------------------------------------------ helpers

    private void emit(FailoverEvent event) {
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

    private void closeQuietlyAsync(StompConnection c) {
        if (c == null) {
            return;
        }
        Thread t = new Thread(() -> {
            try {
                c.close();
            } catch (RuntimeException e) {
                LOG.debug("{}: closing {}: {}", name, uriOf(c), e.toString());
            }
        }, "fedbridge-" + name + "-closer");
        t.setDaemon(true);
        t.start();
    }

    private static void cancel(ScheduledFuture<?> f) {
        if (f != null) {
            f.cancel(false);
        }
    }

    static String uriOf(StompConnection c) {
        return c == null ? "?" : c.config().uri().withoutOptions().toString();
    }

    private static Throwable unwrap(Throwable e) {
        while ((e instanceof CompletionException || e instanceof ExecutionException) && e.getCause() != null) {
            e = e.getCause();
        }
        return e;
    }

    private static String describe(Throwable e) {
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
