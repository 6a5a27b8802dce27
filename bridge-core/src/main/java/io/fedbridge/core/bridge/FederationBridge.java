package io.fedbridge.core.bridge;

import io.fedbridge.core.ClientConfig;
import io.fedbridge.core.ConnectionListener;
import io.fedbridge.core.FederationHeaders;
import io.fedbridge.core.StompConnection;
import io.fedbridge.core.StompException;
import io.fedbridge.core.bridge.internal.Direction;
import io.fedbridge.core.uri.CompositeUri;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A bridge between a local broker and a peer: it learns the peer's consumers from its advisories, creates
 * network subscriptions for them on the local broker, and forwards what those receive — store-and-forward:
 * the local copy is acknowledged only after the peer's RECEIPT. With {@code duplex}, the same two
 * connections also carry the reverse direction. Works between any two STOMP brokers for
 * {@code staticallyIncludedDestinations}; demand forwarding needs fedbridge's advisories on the peer.
 *
 * <pre>{@code
 * FederationBridge b = FederationBridge.start(BridgeConfig.builder("vm://A", "tcp://10.0.0.2:61613").networkTTL(2).build());
 * }</pre>
 *
 * A bridge does not reconnect by itself: once down it stays down (the network connector starts a new one
 * after its discovery agent's back-off). Thread-safe.
 */
public final class FederationBridge implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(FederationBridge.class);
    private static final ScheduledExecutorService TIMERS = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "fedbridge-bridge-timer");
        t.setDaemon(true);
        return t;
    });

    /** The peer is this very broker (same broker id): the bridge refuses to run. */
    public static final class SelfConnectionException extends StompException {
        private static final long serialVersionUID = 1L;

        public SelfConnectionException(String message) {
            super(message);
        }
    }

    private final BridgeConfig config;
    private final BridgeListener listener;
    private final List<Direction> directions = new ArrayList<>();
    private final CompletableFuture<FederationBridge> up = new CompletableFuture<>();
    private final CompletableFuture<Void> down = new CompletableFuture<>();
    private final AtomicBoolean closed = new AtomicBoolean();
    final AtomicLong forwarded = new AtomicLong();
    final AtomicLong acked = new AtomicLong();
    final AtomicLong duplicates = new AtomicLong();
    final AtomicLong pending = new AtomicLong();
    final AtomicLong filtered = new AtomicLong();
    final AtomicLong replayed = new AtomicLong();
    private volatile long lastProgressNanos = System.nanoTime();
    private volatile BridgeState state = BridgeState.CONNECTING;
    /** When {@link #state} last changed (System.nanoTime). */
    private volatile long stateSinceNanos = System.nanoTime();
    private volatile String lastError;
    private volatile StompConnection local;
    private volatile StompConnection remote;
    private volatile String localId;
    private volatile String remoteId;
    private volatile ScheduledFuture<?> stallCheck;
    private final io.netty.channel.EventLoopGroup eventLoops;

    private FederationBridge(BridgeConfig config, BridgeListener listener, io.netty.channel.EventLoopGroup eventLoops) {
        this.config = config;
        this.listener = listener == null ? new BridgeListener() { } : listener;
        this.eventLoops = eventLoops == null ? io.fedbridge.core.internal.Transports.ioGroup() : eventLoops;
    }

    /** Starts a bridge; connecting happens in the background (see {@link #awaitUp(Duration)}). */
    public static FederationBridge start(BridgeConfig config) {
        return start(config, null);
    }

    public static FederationBridge start(BridgeConfig config, BridgeListener listener) {
        return start(config, listener, null);
    }

    /**
     * Starts a bridge whose two connections run on one loop of {@code eventLoops} (a group from
     * {@code Transports.newEventLoopGroup}; a broker passes its own, null means the shared group). A forward and its
     * receipt then never wait for another thread to wake up.
     */
    public static FederationBridge start(BridgeConfig config, BridgeListener listener, io.netty.channel.EventLoopGroup eventLoops) {
        FederationBridge b = new FederationBridge(config, listener, eventLoops);
        b.connect();
        return b;
    }

    private ClientConfig clientConfig(String uri) {
        CompositeUri u = CompositeUri.parse(uri);
        // No client-id: brokers such as ActiveMQ allow each only once, and a bridge needs none.
        String secret = config.federationSecret();
        ClientConfig.Builder b = ClientConfig.builder(u).login(config.userName()).passcode(config.password())
                .heartBeats(config.heartBeat())
                // Announces a federation link, with a fresh proof of the secret (a bridge never reconnects itself: each
                // attempt is a new bridge, so a new proof); foreign brokers ignore the header.
                .connectHeader(io.fedbridge.core.FederationHeaders.FEDERATE,
                        io.fedbridge.core.internal.FederationProof.create(secret, java.time.Clock.systemUTC()));
        // The URI's own client options (host=/ for RabbitMQ's virtual host, login, heartBeatSend, ...) override the bridge's.
        java.util.Map<String, String> clientOptions = new java.util.LinkedHashMap<>(u.options());
        clientOptions.keySet().removeAll(io.fedbridge.core.tls.TlsConfig.OPTION_NAMES);
        clientOptions.keySet().removeAll(PeerProfile.OPTION_NAMES);
        b.options(clientOptions, "URI '" + u + "' of bridge " + config.name());
        if (uri.equals(config.localUri()) && !clientOptions.containsKey("clientId")) {
            String durable = durableSubscriptionName(u);
            if (durable != null) {
                // Artemis and ActiveMQ key a durable subscription by the connection's client-id; this one is stable per bridge.
                b.clientId(durable);
            }
        }
        if (io.fedbridge.core.internal.Transports.isTls(u)) {
            // The peer URI's own TLS options (static:(ssl://b:1?trustStore=...)) override the connector's.
            io.fedbridge.core.tls.TlsConfig tls = config.tls() == null ? io.fedbridge.core.tls.TlsConfig.ofDefaults() : config.tls();
            java.util.Map<String, String> own = new java.util.LinkedHashMap<>(u.options());
            own.keySet().retainAll(io.fedbridge.core.tls.TlsConfig.OPTION_NAMES);
            b.tls(own.isEmpty() ? tls : tls.withOptions(own, "peer URI '" + u + "' of bridge " + config.name()));
        }
        return b.build();
    }

    /**
     * The stable name under which this bridge reads its statically included topics durably from its local broker
     * {@code local}, or null if it does not: only one-way bridges with static topics whose local broker may be a foreign
     * one (fedbridge's own vm:// never is) and whose URI does not say {@code durableTopicSubscriptions=false}.
     */
    private String durableSubscriptionName(CompositeUri local) {
        if (config.duplex() || config.staticallyIncludedDestinations().stream().noneMatch(d -> d.startsWith("/topic/"))
                || io.fedbridge.core.internal.Transports.isLocal(local)) {
            return null;
        }
        PeerProfile profile = PeerProfile.fromOptions(local.options(), "URI '" + local + "'");
        return profile.durableTopicSubscriptions() ? profile.stableSubscriptionName(config.name()) : null;
    }

    /** How destinations are named on the broker behind {@code c}, reached through {@code uri}. */
    private static io.fedbridge.core.bridge.internal.PeerNames names(String uri, StompConnection c, String brokerId) {
        CompositeUri u = CompositeUri.parse(uri);
        PeerProfile profile = PeerProfile.fromOptions(u.options(), "URI '" + u + "'");
        return io.fedbridge.core.bridge.internal.PeerNames.of(profile, c.connectedHeaders(), brokerId != null);
    }

    private void connect() {
        ConnectionListener onClose = new ConnectionListener() {
            @Override
            public void onClosed(StompConnection connection, Throwable cause) {
                fail(cause != null ? cause : new StompException("connection " + connection.config().uri() + " closed"));
            }
        };
        io.netty.channel.EventLoop loop = eventLoops.next();
        CompletableFuture<StompConnection> l = StompConnection.connectAsync(clientConfig(config.localUri()), onClose, loop);
        CompletableFuture<StompConnection> r = StompConnection.connectAsync(clientConfig(config.remoteUri()), onClose, loop);
        l.thenCombine(r, (lc, rc) -> {
            local = lc;
            remote = rc;
            return this;
        }).whenComplete((b, e) -> {
            if (e != null) {
                // Record the real cause first: closing the other connection would report its own close.
                fail(e instanceof java.util.concurrent.CompletionException && e.getCause() != null ? e.getCause() : e);
                l.thenAccept(StompConnection::abort);
                r.thenAccept(StompConnection::abort);
                return;
            }
            try {
                begin();
            } catch (RuntimeException ex) {
                fail(ex);
            }
        });
    }

    private void begin() {
        localId = local.connectedHeaders().get(FederationHeaders.BROKER_ID);
        remoteId = remote.connectedHeaders().get(FederationHeaders.BROKER_ID);
        if (localId != null && localId.equals(remoteId)) {
            throw new SelfConnectionException("bridge " + config.name() + ": " + remote.config().uri() + " is this broker itself ("
                    + local.connectedHeaders().get(FederationHeaders.BROKER_NAME) + ")");
        }
        if (closed.get()) {
            return;
        }
        if (remoteId == null && config.duplex() && !config.staticallyIncludedDestinations().isEmpty()) {
            throw new StompException("bridge " + config.name() + ": " + remote.config().uri() + " is not a fedbridge broker ("
                    + remote.connectedHeaders().get("server", "unknown server") + "), so duplex cannot keep static destinations"
                    + " from looping back; use one bridge per direction");
        }
        io.fedbridge.core.bridge.internal.PeerNames localNames = names(config.localUri(), local, localId);
        io.fedbridge.core.bridge.internal.PeerNames remoteNames = names(config.remoteUri(), remote, remoteId);
        String durable = localId == null ? durableSubscriptionName(CompositeUri.parse(config.localUri())) : null;
        if (durable != null) {
            // A foreign local broker: read static topics from it durably, under the client-id this connection sent.
            String clientId = local.config().clientId();
            localNames = localNames.withDurableSubscriptions(clientId != null ? clientId : durable);
        }
        synchronized (directions) {
            directions.add(new Direction(this, config, local, localId, localNames, remote, remoteId, remoteNames, "outbound"));
            if (config.duplex()) {
                directions.add(new Direction(this, config, remote, remoteId, remoteNames, local, localId, localNames, "inbound"));
            }
        }
        setState(BridgeState.UP);
        lastProgressNanos = System.nanoTime();
        long period = Math.max(100, config.stallTimeout().toMillis() / 4);
        stallCheck = TIMERS.scheduleAtFixedRate(this::checkStall, period, period, TimeUnit.MILLISECONDS);
        for (Direction d : directions) {
            d.start();
        }
        LOG.info("bridge {} up: {} ({}) -> {} ({}){}", config.name(), config.localUri(), name(local), remote.config().uri(),
                remoteId == null ? "foreign broker " + remote.connectedHeaders().get("server") + ", dialect " + remoteNames.dialect()
                        : name(remote),
                config.duplex() ? ", duplex" : "");
        up.complete(this);
        listener.linkUp(this);
    }

    private static String name(StompConnection c) {
        return c.connectedHeaders().get(FederationHeaders.BROKER_NAME, "?");
    }

    /** Called by directions when a link-level failure happens: closes everything, once. */
    public void fail(Throwable cause) {
        shutdown(cause);
    }

    private void shutdown(Throwable cause) {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        boolean wasUp = state == BridgeState.UP || state == BridgeState.STALLED;
        setState(BridgeState.DOWN);
        lastError = cause == null ? null : String.valueOf(cause.getMessage());
        ScheduledFuture<?> sc = stallCheck;
        if (sc != null) {
            sc.cancel(false);
        }
        List<Direction> ds;
        synchronized (directions) {
            ds = new ArrayList<>(directions);
        }
        for (Direction d : ds) {
            d.stop();
        }
        StompConnection l = local;
        StompConnection r = remote;
        if (cause == null) {
            if (r != null) {
                r.close();
            }
            if (l != null) {
                l.close();
            }
        } else {
            if (r != null) {
                r.abort();
            }
            if (l != null) {
                l.closeAsync(); // flush acks already written for receipted forwards, or they are resent
            }
        }
        if (wasUp) {
            if (cause == null) {
                LOG.info("bridge {} closed", config.name());
            } else {
                LOG.info("bridge {} down: {}", config.name(), cause.getMessage());
            }
        } else if (cause != null) {
            LOG.debug("bridge {} could not connect: {}", config.name(), cause.getMessage());
        }
        if (!up.isDone()) {
            up.completeExceptionally(cause != null ? cause : new StompException("bridge " + config.name() + " closed"));
        }
        down.complete(null);
        listener.linkDown(this, cause);
    }

    private void checkStall() {
        if (state == BridgeState.DOWN) {
            return;
        }
        boolean stalled = pending.get() > 0
                && System.nanoTime() - lastProgressNanos > config.stallTimeout().toNanos();
        if (stalled && state == BridgeState.UP) {
            setState(BridgeState.STALLED);
            LOG.warn("bridge {} stalled: {} forwards without a receipt for over {}", config.name(), pending.get(), config.stallTimeout());
            listener.linkStalled(this);
        }
    }

    /** A receipt arrived: the link moves. */
    public void progress() {
        lastProgressNanos = System.nanoTime();
        if (state == BridgeState.STALLED) {
            setState(BridgeState.UP);
            LOG.info("bridge {} resumed", config.name());
            listener.linkResumed(this);
        }
    }

    public void countForwarded() {
        forwarded.incrementAndGet();
        if (pending.getAndIncrement() == 0) {
            lastProgressNanos = System.nanoTime(); // the stall clock starts with the first unreceipted forward
        }
    }

    /** {@code messages} forwards were receipted by the peer, {@code duplicate} of them dropped there as duplicates. */
    public void countReceipted(int messages, int duplicate) {
        pending.addAndGet(-messages);
        acked.addAndGet(messages);
        if (duplicate > 0) {
            duplicates.addAndGet(duplicate);
        }
        progress();
    }

    public void countFiltered() {
        filtered.incrementAndGet();
    }

    public void countReplayed() {
        replayed.incrementAndGet();
    }

    /** Timer for filters that hold a subscription back. */
    public static ScheduledExecutorService timers() {
        return TIMERS;
    }

    public void countAbandoned() {
        pending.decrementAndGet();
    }

    /** Waits until both connections are up; throws the connect failure otherwise. */
    public FederationBridge awaitUp(Duration timeout) {
        try {
            return up.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.ExecutionException e) {
            throw e.getCause() instanceof StompException se ? se : new StompException("bridge " + config.name() + " failed", e.getCause());
        } catch (java.util.concurrent.TimeoutException e) {
            throw new StompException("bridge " + config.name() + " not up within " + timeout);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StompException("interrupted", e);
        }
    }

    public CompletableFuture<FederationBridge> upFuture() {
        return up;
    }

    /** Completes when the bridge is down, for whatever reason. */
    public CompletableFuture<Void> downFuture() {
        return down;
    }

    public BridgeConfig config() {
        return config;
    }

    public BridgeState state() {
        return state;
    }

    private void setState(BridgeState s) {
        stateSinceNanos = System.nanoTime();
        state = s;
    }

    /** How long the bridge has been in its {@link #state()}. */
    public Duration timeInState() {
        return Duration.ofNanos(System.nanoTime() - stateSinceNanos);
    }

    /**
     * How long forwards have been waiting for the peer's receipt: the time since the last receipt (or since the first
     * forward after all were receipted) while any forward is pending; {@link Duration#ZERO} when none is.
     */
    public Duration receiptLag() {
        return pending.get() > 0 ? Duration.ofNanos(Math.max(0, System.nanoTime() - lastProgressNanos)) : Duration.ZERO;
    }

    /** The peer broker's name from its CONNECTED frame, or null before connecting or for a foreign broker. */
    public String remoteBrokerName() {
        StompConnection r = remote;
        return r == null ? null : r.connectedHeaders().get(FederationHeaders.BROKER_NAME);
    }

    /** The peer's broker id, or null before connecting or for a foreign broker. */
    public String remoteBrokerId() {
        return remoteId;
    }

    public String localBrokerId() {
        return localId;
    }

    public BridgeStats stats() {
        int subs = 0;
        int consumers = 0;
        synchronized (directions) {
            for (Direction d : directions) {
                subs += d.networkSubscriptionCount();
                consumers += d.remoteConsumerCount();
            }
        }
        return new BridgeStats(config.name(), state, lastError, forwarded.get(), pending.get(), acked.get(), duplicates.get(),
                subs, consumers, filtered.get(), replayed.get());
    }

    /** Stops forwarding and closes both connections; unacknowledged messages return to their source queues. */
    @Override
    public void close() {
        shutdown(null);
    }

    @Override
    public String toString() {
        return "FederationBridge[" + config.name() + ", " + state + "]";
    }
}
