package io.fedbridge.broker.internal;

import io.fedbridge.broker.security.AuthenticationException;
import io.fedbridge.broker.security.Identity;
import io.fedbridge.broker.security.internal.SecurityGuard;
import io.fedbridge.core.AckMode;
import io.fedbridge.core.FederationHeaders;
import io.fedbridge.core.StompCommand;
import io.fedbridge.core.StompFrame;
import io.fedbridge.core.StompHeaders;
import io.fedbridge.core.internal.FrameWriter;
import io.fedbridge.core.internal.HeartBeatHandler;
import io.fedbridge.core.internal.LocalFlowControl;
import io.fedbridge.core.internal.HeartBeats;
import io.fedbridge.core.internal.MalformedFrame;
import io.fedbridge.core.internal.PipelineNames;
import io.fedbridge.core.selector.InvalidSelectorException;
import io.fedbridge.core.selector.Selector;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The broker side of one STOMP connection. Runs on the connection's event loop; delivery writes from other
 * threads go through {@link #write(StompFrame)}.
 *
 * <p>Any protocol violation is answered with one ERROR frame naming the problem, after which this
 * connection, and only this one, is closed.
 *
 * <p>Parts with a name of their own (each states its threading): {@link SessionReceipts} (receipts written
 * when the work is done, ordered for bridges), {@link SessionTransactions}, {@link SessionAcks} (ACK/NACK),
 * {@link SessionHeaders} (what a frame's headers mean here), {@link SessionLimits}.
 */
public final class ServerSession extends ChannelInboundHandlerAdapter {

    private static final Logger LOG = LoggerFactory.getLogger(ServerSession.class);
    private static final List<String> VERSIONS = List.of("1.2", "1.1", "1.0");
    static final String SERVER = "fedbridge/0.1";
    private static final long HEART_BEAT_FLOOR = 50;

    private enum State { AWAITING_CONNECT, CONNECTED, CLOSED }

    private final BrokerCore core;
    private final String sessionId;
    private final Map<String, ServerConsumer> consumers = new LinkedHashMap<>();
    private final Map<Integer, ServerConsumer> consumersByNumber = new HashMap<>();
    private volatile Channel channel;
    private volatile FrameWriter writer;
    private volatile State state = State.AWAITING_CONNECT;
    private String version = "1.2";
    private String clientId;
    private final java.util.Set<String> producedTo = new java.util.HashSet<>();
    private final java.util.Set<String> ownedTemps = new java.util.HashSet<>();
    /** The owner part of this connection's temporary names; reclaimable after CONNECT with a secret (see TempQueues). */
    private String tempOwner;
    private boolean saidDisconnect;
    private final long sessionNumber;
    private int consumerNumbers;
    private boolean paused;
    private final java.util.ArrayDeque<Object> deferred = new java.util.ArrayDeque<>();
    private final SessionReceipts receipts;
    private final SessionTransactions transactions;
    private final SessionAcks acks;
    private final SecurityGuard guard;
    private Identity identity = Identity.ofAnonymous();
    /**
     * Whether CONNECT announced a federation link ({@code fedbridge-federate}) and the guard accepted it. Only such a
     * connection may use the federation headers, and with an authorizer only where it holds {@code federate}; an
     * ordinary client's are ignored on SEND (see {@link SessionHeaders#messageHeaders}) and refused on SUBSCRIBE.
     */
    private boolean federationLink;
    /** The {@code fedbridge-producer-secret} of CONNECT, until {@link #completeConnect} turns it into {@link #idScope}. */
    private String producerSecret;
    /** The CONNECT's headers when it asked for an HA group's replication stream; else null. */
    private StompHeaders haBackupConnect;
    /** An administrator let in to an HA backup: it may only use the management API. */
    private boolean backupAdmin;
    private boolean haAdminRequest;
    /** The CONNECT's headers when it asked for a queue's replication stream ({@link QueueReplicas#SOURCE_HEADER}); else null. */
    private StompHeaders replicaConnect;
    /** What this connection's own {@code fedbridge-id}s are prefixed with (see {@link ProducerIds}). */
    private String idScope;
    /**
     * Whose share of the dedupe window this connection's own ids take: its user's, or if anonymous its producer's
     * (its producer secret's, else its own).
     */
    private String dedupeShare;
    /**
     * Destinations where this federation link holds {@code federate} (true) or not, and those this connection may
     * SEND to: an answer of the authorizer holds for the connection's life (as ActiveMQ's security context keeps its
     * authorized destinations), which takes the rule scan off the path of every message after the first.
     */
    private final java.util.HashMap<String, Boolean> federates = new java.util.HashMap<>();
    private final java.util.HashSet<String> writable = new java.util.HashSet<>();
    /** Whether this connection holds {@link #clientId} in the broker's registry (released when it closes). */
    private boolean clientIdClaimed;
    private final SessionLimits sessionLimits;

    /** A session of an open broker: no authentication, no authorization. */
    public ServerSession(BrokerCore core) {
        this(core, SecurityGuard.open());
    }

    public ServerSession(BrokerCore core, SecurityGuard guard) {
        this.core = core;
        this.guard = guard;
        this.sessionNumber = core.nextSessionNumber();
        this.sessionId = core.config.name() + "-session-" + sessionNumber;
        this.tempOwner = core.tempOwnerPrefix() + sessionNumber;
        this.sessionLimits = new SessionLimits(core);
        this.receipts = new SessionReceipts(this, core);
        this.transactions = new SessionTransactions(this, sessionLimits, receipts);
        this.acks = new SessionAcks(this, consumers, consumersByNumber, transactions, receipts);
    }

    // ---------------------------------------------------------------- writing

    boolean isWritable() {
        FrameWriter w = writer;
        return w != null && w.isWritable();
    }

    /** Thread-safe: writes a frame in order and makes sure a flush follows, batching flushes under load. */
    void write(StompFrame frame) {
        FrameWriter w = writer;
        if (w != null) {
            w.write(frame);
        }
    }

    void close() {
        Channel ch = channel;
        if (ch != null) {
            ch.close();
        }
    }

    /** From any thread: ERROR naming why, then closed at once (a client that stopped reading never takes the ERROR). */
    void abort(String message) {
        Channel ch = channel;
        if (ch != null) {
            ch.eventLoop().execute(() -> {
                error(message, null, null);
                ch.close();
            });
        }
    }

    void receipt(StompFrame frame) {
        String r = frame.header(StompHeaders.RECEIPT);
        if (r != null) {
            write(StompFrame.of(StompCommand.RECEIPT, StompHeaders.RECEIPT_ID, r));
        }
    }

    /** {@code frame} was not accepted after all: ERROR naming why (answering its receipt), connection closed. */
    void failed(StompFrame frame, Throwable e) {
        Throwable cause = e instanceof java.util.concurrent.CompletionException && e.getCause() != null ? e.getCause() : e;
        Channel ch = channel;
        if (ch != null) {
            String what = cause instanceof BrokerCore.PolicyRejection
                    ? frame.command() + " rejected: " + cause.getMessage()
                    : frame.command() + " to " + frame.header(StompHeaders.DESTINATION) + " could not be stored: " + cause.getMessage();
            String r = frame.header(StompHeaders.RECEIPT);
            ch.eventLoop().execute(() -> error(what, null, r));
        }
    }

    /** Sends an ERROR frame (flushed) and closes this connection. */
    void error(String message, String detail, String receiptId) {
        if (state == State.CLOSED) {
            return;
        }
        state = State.CLOSED;
        StompHeaders h = new StompHeaders();
        h.add(StompHeaders.MESSAGE, message);
        h.add(StompHeaders.CONTENT_TYPE, "text/plain");
        if (receiptId != null) {
            h.add(StompHeaders.RECEIPT_ID, receiptId);
        }
        if (message.startsWith("unsupported protocol version")) {
            h.add(StompHeaders.VERSION, "1.0,1.1,1.2");
        }
        byte[] body = (detail == null ? message : detail).getBytes(java.nio.charset.StandardCharsets.UTF_8);
        LOG.info("broker {}: closing connection {} from {}: {}", core.config.name(), sessionId,
                channel == null ? "?" : channel.remoteAddress(), message);
        channel.writeAndFlush(new StompFrame(StompCommand.ERROR, h, body)).addListener(ChannelFutureListener.CLOSE);
    }

    // ---------------------------------------------------------------- reading

    @Override
    public void channelActive(ChannelHandlerContext ctx) throws Exception {
        writer = new FrameWriter(ctx.channel(), this::resumeConsumers);
        channel = ctx.channel();
        sessionLimits.armConnectDeadline(channel, () -> {
            if (state == State.AWAITING_CONNECT) {
                error(sessionLimits.connectTimedOut(), null, null);
            }
        });
        core.register(this);
        super.channelActive(ctx);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (state == State.CLOSED) {
            return;
        }
        if ((paused || !deferred.isEmpty()) && !bypassesFlowControl(msg)) {
            // Frames already read when the producer was paused wait here, in order, so that a full
            // destination really holds the producer back; at most one socket read's worth.
            deferred.add(msg);
            return;
        }
        handle(ctx, msg);
    }

    /** Acks must pass a paused producer that also consumes, or its own acks could never free space. */
    private static boolean bypassesFlowControl(Object msg) {
        return msg instanceof StompFrame f && (f.command() == StompCommand.ACK || f.command() == StompCommand.NACK)
                && f.header(StompHeaders.TRANSACTION) == null;
    }

    private void handle(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof MalformedFrame bad) {
            error(bad.reason(), null, bad.receipt());
            return;
        }
        StompFrame f = (StompFrame) msg;
        try {
            if (state == State.AWAITING_CONNECT) {
                if (f.command() == StompCommand.CONNECT || f.command() == StompCommand.STOMP) {
                    onConnect(ctx, f);
                } else {
                    error("expected CONNECT or STOMP as the first frame, but got " + f.command(), null, f.header(StompHeaders.RECEIPT));
                }
                return;
            }
            switch (f.command()) {
                case SEND -> onSend(f);
                case SUBSCRIBE -> onSubscribe(f);
                case UNSUBSCRIBE -> onUnsubscribe(f);
                case ACK -> acks.onAck(f, true);
                case NACK -> acks.onAck(f, false);
                case BEGIN -> transactions.begin(f);
                case COMMIT -> transactions.commit(f);
                case ABORT -> transactions.abort(f);
                case DISCONNECT -> onDisconnect(f);
                case CONNECT, STOMP -> error("already connected: a second " + f.command() + " frame is not allowed", null, f.header(StompHeaders.RECEIPT));
                default -> error("a client must not send " + f.command() + " frames", null, f.header(StompHeaders.RECEIPT));
            }
        } catch (RuntimeException e) {
            LOG.warn("broker {}: internal error handling {} on {}", core.config.name(), f.command(), sessionId, e);
            error("internal error handling " + f.command() + ": " + e, null, f.header(StompHeaders.RECEIPT));
        }
    }

    private void onConnect(ChannelHandlerContext ctx, StompFrame f) {
        String accept = f.header(StompHeaders.ACCEPT_VERSION);
        String chosen = null;
        if (accept == null) {
            chosen = "1.0";
        } else {
            List<String> offered = List.of(accept.replace(" ", "").split(","));
            for (String v : VERSIONS) {
                if (offered.contains(v)) {
                    chosen = v;
                    break;
                }
            }
        }
        if (chosen == null) {
            error("unsupported protocol version(s) '" + accept + "': this broker speaks STOMP 1.0, 1.1 and 1.2", null, null);
            return;
        }
        version = chosen;
        clientId = f.header("client-id");
        String federate = f.header(FederationHeaders.FEDERATE);
        if (federate != null) {
            String refused = guard.checkFederationLink(federate, ctx.channel().remoteAddress());
            if (refused != null) {
                error("CONNECT refused: " + refused, null, f.header(StompHeaders.RECEIPT));
                return;
            }
            federationLink = true;
        }
        if (f.header(HaGate.BACKUP_HEADER) != null) {
            if (!federationLink) {
                error("CONNECT refused: " + HaGate.BACKUP_HEADER + " needs a link that holds the federation right ("
                        + FederationHeaders.FEDERATE + ")", null, f.header(StompHeaders.RECEIPT));
                return;
            }
            haBackupConnect = f.headers();
        }
        haAdminRequest = "true".equals(f.header(HaGate.ADMIN_HEADER));
        if (f.header(QueueReplicas.SOURCE_HEADER) != null) {
            replicaConnect = f.headers();
        }
        producerSecret = f.header(FederationHeaders.PRODUCER_SECRET);
        if (producerSecret != null && producerSecret.length() < ProducerIds.MIN_SECRET_LENGTH) {
            error("CONNECT refused: " + FederationHeaders.PRODUCER_SECRET + " must be at least " + ProducerIds.MIN_SECRET_LENGTH
                    + " characters, but was " + producerSecret.length(), null, f.header(StompHeaders.RECEIPT));
            return;
        }
        long[] client;
        try {
            client = HeartBeats.parse(f.header(StompHeaders.HEART_BEAT));
        } catch (IllegalArgumentException e) {
            error(e.getMessage(), null, null);
            return;
        }
        // Meet a client that wants faster heart-beats than our default offer (down to a floor), as ActiveMQ
        // does: a bridge with heartBeat=500ms must notice a dead link in ~1.5 s, not in 3x our 10 s default.
        long offer = core.config.heartBeat().toMillis();
        long sendOffer = offer == 0 ? 0 : client[1] > 0 ? Math.max(HEART_BEAT_FLOOR, Math.min(offer, client[1])) : offer;
        long receiveOffer = offer == 0 ? 0 : client[0] > 0 ? Math.max(HEART_BEAT_FLOOR, Math.min(offer, client[0])) : offer;
        HeartBeats beats = HeartBeats.negotiate(sendOffer, receiveOffer, client[0], client[1]);
        if (guard.authenticates()) {
            authenticate(ctx, f, sendOffer, receiveOffer, beats);
            return;
        }
        completeConnect(ctx, sendOffer, receiveOffer, beats);
    }

    /**
     * Checks the CONNECT's credentials on the security guard's threads (hashing a password must not stall an
     * I/O thread); frames that arrive meanwhile wait in {@link #deferred}, as for a paused producer.
     */
    private void authenticate(ChannelHandlerContext ctx, StompFrame f, long sendOffer, long receiveOffer, HeartBeats beats) {
        Channel ch = ctx.channel();
        paused = true;
        ch.config().setAutoRead(false);
        guard.authenticate(f.header(StompHeaders.LOGIN), f.header(StompHeaders.PASSCODE),
                io.fedbridge.core.tls.internal.SslContexts.peerCertificates(ch), ch.remoteAddress())
                .whenComplete((id, e) -> ch.eventLoop().execute(() -> {
                    if (state != State.AWAITING_CONNECT) {
                        return; // closed meanwhile
                    }
                    if (e != null) {
                        Throwable cause = e instanceof java.util.concurrent.CompletionException && e.getCause() != null ? e.getCause() : e;
                        String why = cause instanceof AuthenticationException ? cause.getMessage() : "login failed";
                        core.hook.loginFailed(f.header(StompHeaders.LOGIN), String.valueOf(ch.remoteAddress()), why);
                        error(why, null, f.header(StompHeaders.RECEIPT));
                        return;
                    }
                    identity = id;
                    LOG.debug("broker {}: {} from {} is user '{}'", core.config.name(), sessionId, ch.remoteAddress(), id.name());
                    completeConnect(ctx, sendOffer, receiveOffer, beats);
                    resumeReading();
                }));
    }

    private void completeConnect(ChannelHandlerContext ctx, long sendOffer, long receiveOffer, HeartBeats beats) {
        HaGate ha = core.haGate;
        StompHeaders haConnected = new StompHeaders();
        if (haBackupConnect != null) {
            // The stream carries every stored message: with authorization rules, the link's user needs 'federate' on it.
            String stream = "/topic/fedbridge.ha." + haBackupConnect.get(HaGate.BACKUP_HEADER); // its name in the rules
            String refused = ha == null ? "broker " + core.config.name() + " is not a member of an HA group"
                    : !guard.mayFederate(identity, federationLink, stream) ? "user '" + identity.name()
                    + "' lacks the federate right on " + stream + ", which an HA backup's link needs"
                    : ha.refuseBackup(haBackupConnect, identity, haConnected);
            if (refused != null) {
                error("CONNECT refused: " + refused, null, null);
                return;
            }
        } else if (ha != null) {
            String refused = ha.refuseClient(haAdminRequest);
            if (refused != null) {
                refuseForPrimary(refused, ha.primaryUri());
                return;
            }
            backupAdmin = ha.isBackup();
        }
        String replicaRefused = replicaConnect == null ? null : core.replicas.refuseSource(replicaConnect, identity, federationLink, guard);
        if (replicaRefused != null) {
            error("CONNECT refused: " + replicaRefused, null, null);
            return;
        }
        if (clientId != null) {
            if (!core.claimClientId(clientId, this)) {
                // ActiveMQ's rule: a second live connection with one client-id would share its durable subscriptions.
                error("CONNECT refused: client-id '" + clientId + "' is already in use by another connection to broker "
                        + core.config.name(), null, null);
                return;
            }
            clientIdClaimed = true;
        }
        idScope = ProducerIds.scope(identity, producerSecret, core.brokerId, sessionId);
        tempOwner = core.temps.connected(identity, producerSecret, tempOwner);
        producerSecret = null;
        dedupeShare = identity.anonymous() ? idScope : "user:" + identity.name();
        StompHeaders h = new StompHeaders();
        h.add(StompHeaders.VERSION, version);
        h.add(StompHeaders.SERVER, SERVER);
        h.add(StompHeaders.SESSION, sessionId);
        h.add(StompHeaders.HEART_BEAT, sendOffer + "," + receiveOffer);
        h.add(FederationHeaders.BROKER_ID, core.brokerId);
        h.add(FederationHeaders.BROKER_NAME, core.config.name());
        h.add(FederationHeaders.CLUSTER_URIS, core.clusterUris());
        h.add(FederationHeaders.ORDERED_RECEIPTS, "true");
        h.add(FederationHeaders.VOUCHED_IDS, "true");
        if (!core.temps.graceFor(tempOwner).isZero()) {
            h.add(FederationHeaders.TEMP_RECONNECT_GRACE, Long.toString(core.temps.graceFor(tempOwner).toMillis()));
        }
        if (federationLink && mayFederate(FederationHeaders.DEFINITIONS_TOPIC)) {
            h.add(FederationHeaders.DEFINITIONS, "true");
        }
        haConnected.forEach(h::add);
        state = State.CONNECTED;
        sessionLimits.disarmConnectDeadline();
        ctx.writeAndFlush(new StompFrame(StompCommand.CONNECTED, h));
        if (beats.sendMillis() > 0 || beats.receiveMillis() > 0) {
            ctx.pipeline().addBefore(PipelineNames.DECODER, PipelineNames.HEART_BEAT, new HeartBeatHandler(beats));
        }
        if (haBackupConnect != null) {
            // The link now carries the group's replication stream, not a client's frames.
            core.unregister(this);
            if (clientIdClaimed) {
                core.releaseClientId(clientId, this);
                clientIdClaimed = false;
            }
            ctx.pipeline().replace(this, "fedbridge-ha-replication", ha.newReplicationHandler(haBackupConnect));
        } else if (replicaConnect != null) {
            core.unregister(this); // the link now carries one queue's replication stream
            ctx.pipeline().replace(this, "fedbridge-queue-replication", core.replicas.newSourceHandler(replicaConnect));
        }
    }

    /** A backup's answer to a client: an ERROR naming the primary, so that a failover client moves there. */
    private void refuseForPrimary(String message, String primary) {
        state = State.CLOSED;
        StompHeaders h = new StompHeaders();
        h.add(StompHeaders.MESSAGE, message);
        h.add(StompHeaders.CONTENT_TYPE, "text/plain");
        if (primary != null) {
            h.add(HaGate.PRIMARY_HEADER, primary);
        }
        LOG.debug("broker {}: refusing connection {} from {}: {}", core.config.name(), sessionId, channel.remoteAddress(), message);
        channel.writeAndFlush(new StompFrame(StompCommand.ERROR, h, message.getBytes(java.nio.charset.StandardCharsets.UTF_8)))
                .addListener(ChannelFutureListener.CLOSE);
    }

    private void onSend(StompFrame f) {
        if (federationLink && f.header(FederationHeaders.RECEIPT_ONLY) != null) {
            receipts.forwarded(f, BrokerCore.DONE); // a bridge settling the forwards it sent before
            return;
        }
        if (waitsForDisk(f)) {
            return;
        }
        String invalid = Destinations.validate(f.header(StompHeaders.DESTINATION));
        if (invalid != null) {
            error("SEND rejected: " + invalid, null, f.header(StompHeaders.RECEIPT));
            return;
        }
        String dest = ownTemp(f.header(StompHeaders.DESTINATION));
        String replyTo = f.header(StompHeaders.REPLY_TO);
        if (replyTo != null && Destinations.isTemp(replyTo)) {
            f.headers().set(StompHeaders.REPLY_TO, ownTemp(replyTo));
        }
        f.headers().set(StompHeaders.DESTINATION, dest);
        if (dest.equals(io.fedbridge.broker.management.ManagementDestinations.REQUESTS)) {
            onManagementRequest(f);
            return;
        }
        if (backupAdmin) {
            error("SEND refused: broker " + core.config.name() + " is an HA backup; an administrator's connection may only "
                    + "send to " + io.fedbridge.broker.management.ManagementDestinations.REQUESTS, null, f.header(StompHeaders.RECEIPT));
            return;
        }
        if (!writable.contains(dest)) {
            String denied = guard.denySend(identity, federationLink, dest); // forwarded SENDs too: the bridge's identity decides
            if (denied != null) {
                error("SEND denied: " + denied, null, f.header(StompHeaders.RECEIPT));
                return;
            }
            if (writable.size() >= 4096) {
                writable.clear();
            }
            writable.add(dest);
        }
        if (dest.equals(FederationHeaders.DEFINITIONS_TOPIC)) {
            core.cluster.received(f.headers(), f.body()); // the guard let only a federation link with federate here
            receipt(f);
            return;
        }
        boolean trusted = federationLink && mayFederate(dest);
        boolean forwarded = trusted && f.header(FederationHeaders.BROKER_PATH) != null;
        if (federationLink && !trusted && f.header(FederationHeaders.BROKER_PATH) != null) {
            error("SEND denied: user '" + identity.name() + "' has no federate permission on " + dest
                    + " (a federation link needs it to forward there)", null, f.header(StompHeaders.RECEIPT));
            return;
        }
        StompHeaders headers = SessionHeaders.messageHeaders(f, trusted ? null : idScope);
        String tx = f.header(StompHeaders.TRANSACTION);
        if (tx != null) {
            List<Supplier<CompletableFuture<Void>>> actions = transactions.actions(tx);
            if (actions == null) {
                error("SEND in unknown transaction '" + tx + "'", null, f.header(StompHeaders.RECEIPT));
                return;
            }
            String refused = sessionLimits.holdInTransaction(tx, f);
            if (refused != null) {
                error(refused, null, f.header(StompHeaders.RECEIPT));
                return;
            }
            String share = trusted ? null : dedupeShare;
            actions.add(() -> core.routeOnce(dest, headers, f.body(), share));
            receipt(f);
            return;
        }
        if (!producedTo.contains(dest)) {
            if (!core.registerProducer(dest, this)) {
                error("SEND rejected: " + dest + " already has maxNumProducers=" + core.policyFor(dest).maxNumProducers()
                        + " producers", null, f.header(StompHeaders.RECEIPT));
                return;
            }
            producedTo.add(dest);
        }
        CompletableFuture<Void> done = core.routeOnce(dest, headers, f.body(), trusted ? null : dedupeShare);
        if (forwarded) {
            receipts.forwarded(f, done);
        } else if (done == BrokerCore.DUPLICATE) {
            String r = f.header(StompHeaders.RECEIPT);
            if (r != null) {
                write(StompFrame.of(StompCommand.RECEIPT, StompHeaders.RECEIPT_ID, r, FederationHeaders.DUPLICATE, "true"));
            }
            return;
        } else {
            receipts.whenDone(f, done);
        }
        if (!paused && (core.memory.pauseIfFull(this::resumeReading) || core.pauseIfFull(dest, this::resumeReading))) {
            paused = true;
            channel.config().setAutoRead(false);
            LocalFlowControl.pause(channel);
        }
    }

    /** A persistent SEND while the disk is below minFreeDisk waits, with all after it, until space returns. */
    private boolean waitsForDisk(StompFrame f) {
        if (!"true".equals(f.header(StompHeaders.PERSISTENT)) || !core.disk.pauseIfLow(this::resumeReading)) {
            return false;
        }
        deferred.addFirst(f);
        paused = true;
        channel.config().setAutoRead(false);
        LocalFlowControl.pause(channel);
        return true;
    }

    private void resumeReading() {
        Channel ch = channel;
        if (ch != null) {
            ch.eventLoop().execute(() -> {
                if (!paused) {
                    return;
                }
                paused = false;
                ChannelHandlerContext ctx = ch.pipeline().context(this);
                while (!paused && !deferred.isEmpty() && state != State.CLOSED && ctx != null) {
                    handle(ctx, deferred.poll());
                }
                if (!paused) {
                    ch.config().setAutoRead(true);
                    LocalFlowControl.resume(ch);
                }
            });
        }
    }

    /** Whether this federation link holds {@code federate} on {@code destination} (cached: the rules never change). */
    private boolean mayFederate(String destination) {
        if (guard.config().authorizer() == null) {
            return true;
        }
        Boolean allowed = federates.get(destination);
        if (allowed == null) {
            if (federates.size() >= 4096) {
                federates.clear();
            }
            allowed = guard.mayFederate(identity, true, destination);
            federates.put(destination, allowed);
        }
        return allowed;
    }

    private void onSubscribe(StompFrame f) {
        String receipt = f.header(StompHeaders.RECEIPT);
        String invalid = Destinations.validate(f.header(StompHeaders.DESTINATION));
        if (invalid != null) {
            error("SUBSCRIBE rejected: " + invalid, null, receipt);
            return;
        }
        String dest = ownTemp(f.header(StompHeaders.DESTINATION));
        if (backupAdmin && !Destinations.isTemp(dest) && !dest.equals(io.fedbridge.broker.management.ManagementDestinations.EVENTS)) {
            error("SUBSCRIBE refused: broker " + core.config.name() + " is an HA backup; an administrator's connection may "
                    + "only subscribe to its temporary queues (management replies) and to the management events", null, receipt);
            return;
        }
        String denied = guard.denySubscribe(identity, federationLink, dest);
        if (denied != null) {
            error("SUBSCRIBE denied: " + denied, null, receipt);
            return;
        }
        String replica = core.replicas.refuseConsumer(dest);
        if (replica != null) {
            error("SUBSCRIBE refused: " + replica, null, receipt);
            return;
        }
        if (!federationLink || !mayFederate(dest)) {
            String why = federationLink ? "user '" + identity.name() + "' has no federate permission on " + dest
                    : "this connection did not announce itself as a federation link";
            String federation = SessionHeaders.federationHeader(f);
            if (federation != null) {
                error("SUBSCRIBE denied: " + federation + " is for the federation's bridges only (" + why + ")", null, receipt);
                return;
            }
            if (Destinations.isTemp(dest) && !isOwnTemp(dest)) {
                error("SUBSCRIBE denied: " + dest + " is a temporary destination of another connection: only its owner (and "
                        + "the federation's bridges) may read it", null, receipt);
                return;
            }
        }
        String id = f.header(StompHeaders.ID);
        if (id == null) {
            if (!version.equals("1.0")) {
                error("SUBSCRIBE to " + dest + " has no id header (required by STOMP " + version + ")", null, receipt);
                return;
            }
            id = dest;
        }
        if (QueueBrowse.isBrowse(f)) { // a QueueBrowser: answered at once, nothing registered
            String refused = QueueBrowse.browse(core, this, f, dest, id);
            if (refused != null) {
                error(refused, null, receipt);
            }
            return;
        }
        if (consumers.containsKey(id)) {
            error("SUBSCRIBE with id '" + id + "' which is already in use on this connection", null, receipt);
            return;
        }
        String refused = sessionLimits.refuseSubscribe(f, dest, consumers.size(), clientId);
        if (refused != null) {
            error(refused, null, receipt);
            return;
        }
        AckMode ack;
        try {
            ack = AckMode.fromWire(f.header(StompHeaders.ACK));
        } catch (IllegalArgumentException e) {
            error("SUBSCRIBE to " + dest + " rejected: " + e.getMessage(), null, receipt);
            return;
        }
        Selector selector = null;
        String sel = f.header(StompHeaders.SELECTOR);
        if (sel != null && !sel.isBlank()) {
            try {
                selector = Selector.parse(sel);
            } catch (InvalidSelectorException e) {
                error("SUBSCRIBE to " + dest + " rejected: " + e.getMessage(), null, receipt);
                return;
            }
        }
        int prefetch = SessionHeaders.intHeader(f, core.config.defaultPrefetch(), StompHeaders.PREFETCH, "activemq.prefetchSize");
        int priority = SessionHeaders.intHeader(f, 0, StompHeaders.CONSUMER_PRIORITY, "activemq.priority");
        if (prefetch < 1 || priority == Integer.MIN_VALUE) {
            error("SUBSCRIBE to " + dest + " rejected: prefetch-size must be a positive integer and consumer-priority an integer", null, receipt);
            return;
        }
        int flowLimit = core.policyFor(dest).consumerFlowLimit();
        if (flowLimit != -1) {
            prefetch = Math.min(prefetch, flowLimit);
        }
        boolean network = "true".equals(f.header(FederationHeaders.NETWORK_CONSUMER));
        int maxHops = network ? SessionHeaders.intHeader(f, 0, FederationHeaders.MAX_HOPS) : 0;
        if (maxHops == Integer.MIN_VALUE || maxHops < 0) {
            error("SUBSCRIBE to " + dest + " rejected: " + FederationHeaders.MAX_HOPS + " must be a non-negative integer", null, receipt);
            return;
        }
        String selText = sel == null || sel.isBlank() ? null : sel;
        DeliveryFilter filter = DeliveryFilter.of(selector, network ? f.header(FederationHeaders.EXCLUDE_BROKER) : null, maxHops);
        int number = ++consumerNumbers;
        ServerConsumer c;
        String durableName = SessionHeaders.durableName(f);
        if (durableName != null) {
            if (!Destinations.isTopic(dest)) {
                error("SUBSCRIBE rejected: durable subscriptions are for topics, but got '" + dest + "'", null, receipt);
                return;
            }
            String cid = f.header("client-id") != null ? f.header("client-id") : clientId;
            if (cid == null) {
                error("SUBSCRIBE rejected: durable subscription '" + durableName + "' needs a client-id header on CONNECT or SUBSCRIBE", null, receipt);
                return;
            }
            if (core.clientIdHeldByOther(cid, this)) {
                error("SUBSCRIBE rejected: client-id '" + cid + "' belongs to another connection", null, receipt);
                return;
            }
            cid = ProducerIds.durableClientId(identity, cid);
            BrokerCore.DurableSubscription d = core.durable(cid, durableName, dest, selText);
            if (d.queue().hasActiveConsumer()) {
                error("SUBSCRIBE rejected: durable subscription '" + durableName + "' of client-id '" + cid + "' is already active", null, receipt);
                return;
            }
            // The subscription's own selector filters at routing time; the consumer takes everything queued.
            c = new ServerConsumer(this, number, id, dest, ack, null, selText, prefetch, priority, d.queue());
            c.durable = true;
        } else if (Destinations.isTopic(dest)) {
            QueueDestination subQueue = new QueueDestination(core, dest + "#" + sessionId + "/" + id, null, core.policyFor(dest), false);
            // The registration's selector filters at routing time; the consumer takes everything queued.
            c = new ServerConsumer(this, number, id, dest, ack, null, selText, prefetch, priority, subQueue);
            if (network && core.policyFor(dest).isLocalOnly()) {
                c.topicRegistration = new TopicRegistry.Registration(dest, subQueue, null); // never routed to: local only
            } else if (dest.equals(FederationHeaders.CLUSTER_TOPIC)) {
                c.topicRegistration = core.subscribeCluster(dest, subQueue, filter);
            } else if (dest.equals(FederationHeaders.DEFINITIONS_TOPIC)) {
                c.topicRegistration = ClusterCore.subscribe(core, dest, subQueue, filter);
            } else {
                c.topicRegistration = ConsumerAdvisories.isAdvisory(dest)
                        ? core.advisories.subscribe(dest, subQueue, filter)
                        : core.topics.subscribe(dest, subQueue, filter);
            }
        } else {
            if (Destinations.isWildcard(dest)) {
                error("SUBSCRIBE rejected: wildcards are supported on topics only, but got '" + dest + "'", null, receipt);
                return;
            }
            c = new ServerConsumer(this, number, id, dest, ack, filter, selText, prefetch, priority, core.queue(dest));
        }
        c.network = network;
        c.peer = network ? f.header(FederationHeaders.EXCLUDE_BROKER) : null;
        if (network && f.header(FederationHeaders.REPLAY_DELAY) != null && !Destinations.isTopic(dest)) {
            long delay = SessionHeaders.intHeader(f, -1, FederationHeaders.REPLAY_DELAY);
            c.replayDelayMillis = delay < 0 ? -1 : delay;
            c.replaySelectorAware = "true".equals(f.header(FederationHeaders.REPLAY_SELECTOR_AWARE));
        }
        String origin = network ? f.header(FederationHeaders.ORIGIN_CONSUMER) : null;
        c.originId = origin != null ? origin : core.brokerId + "/" + sessionId + "/" + id;
        String ranked = ConsumerRanks.admit(c, network ? f.header(FederationHeaders.CONSUMER_RANK) : null);
        if (ranked != null) {
            error("SUBSCRIBE to " + dest + " refused: " + ranked, null, receipt);
            return;
        }
        consumers.put(id, c);
        consumersByNumber.put(number, c);
        // Receipt first, so a client waiting for it sees the subscription confirmed before any message.
        receipt(f);
        c.queue.addConsumer(c);
        if (network) {
            String path = f.header(FederationHeaders.CONSUMER_PATH);
            core.advisories.added(c, c.originId, (path == null || path.isEmpty() ? "" : path + ",") + core.brokerId, true);
        } else {
            core.advisories.added(c, c.originId, core.brokerId, false);
        }
    }

    /**
     * Gives a connection's temporary destination a federation-wide name: {@code /temp-queue/X} becomes
     * {@code /temp-queue/@OWNER@X}, where OWNER names this broker and connection. A name that already has
     * an owner (a reply-to received from elsewhere) is left alone. The owner's temporary queues are deleted
     * when it disconnects; other brokers drop theirs when the last (network) consumer leaves.
     */
    private String ownTemp(String dest) {
        if (!Destinations.isTemp(dest)) {
            return dest;
        }
        String prefix = Destinations.prefixOf(dest);
        String name = dest.substring(prefix.length());
        if (name.startsWith("@")) {
            return dest;
        }
        String owned = prefix + "@" + tempOwner + "@" + name;
        if (ownedTemps.add(owned)) {
            core.temps.used(tempOwner, owned);
        }
        return owned;
    }

    /** Whether {@code dest} (a temporary destination with its owner in its name) is one of this connection's. */
    private boolean isOwnTemp(String dest) {
        return dest.startsWith("@" + tempOwner + "@", Destinations.prefixOf(dest).length());
    }

    private void onUnsubscribe(StompFrame f) {
        String id = f.header(StompHeaders.ID);
        if (id == null && version.equals("1.0")) {
            id = f.header(StompHeaders.DESTINATION);
        }
        ServerConsumer c = id == null ? null : consumers.remove(id);
        String durableName = SessionHeaders.durableName(f);
        if (c == null && durableName == null && !QueueBrowse.isBrowse(f)) { // a browse ended itself
            error("UNSUBSCRIBE of unknown subscription id '" + id + "'", null, f.header(StompHeaders.RECEIPT));
            return;
        }
        if (c != null) {
            detach(c);
        }
        if (durableName != null) {
            String cid = f.header("client-id") != null ? f.header("client-id") : clientId;
            String refused = cid == null ? null : removeDurable(cid, durableName);
            if (refused != null) {
                error(refused, null, f.header(StompHeaders.RECEIPT));
                return;
            }
            if (cid == null) {
                error("UNSUBSCRIBE of unknown durable subscription '" + durableName + "' of client-id '" + cid + "'", null,
                        f.header(StompHeaders.RECEIPT));
                return;
            }
        }
        receipt(f);
    }

    /**
     * Removes the durable subscription {@code name} of {@code cid}, if this connection owns it: the client-id is not
     * another live connection's, and on a broker with logins it was created by this user (its key carries the user);
     * an {@code admin} of its topic may remove another user's by naming the stored client-id ({@code alice/app-1}).
     * Null when removed; else the ERROR message.
     */
    private String removeDurable(String cid, String name) {
        if (core.clientIdHeldByOther(cid, this)) {
            return "UNSUBSCRIBE rejected: client-id '" + cid + "' belongs to another connection";
        }
        if (core.removeDurable(BrokerCore.durableKey(ProducerIds.durableClientId(identity, cid), name))) {
            return null;
        }
        String other = BrokerCore.durableKey(cid, name);
        String topic = core.durableDestination(other);
        if (topic != null && !identity.anonymous()) {
            String denied = guard.deny(identity, io.fedbridge.broker.security.Operation.ADMIN, topic);
            if (denied != null) {
                return "UNSUBSCRIBE denied: durable subscription '" + name + "' of client-id '" + cid + "' belongs to another "
                        + "user, and " + denied;
            }
            core.removeDurable(other);
            return null;
        }
        return "UNSUBSCRIBE of unknown durable subscription '" + name + "' of client-id '" + cid + "'";
    }

    private void detach(ServerConsumer c) {
        consumersByNumber.remove(c.number);
        core.advisories.removed(c);
        if (c.topicRegistration != null) {
            core.topics.unsubscribe(c.topicRegistration);
            c.queue.removeConsumer(c);
            c.queue.delete();
        } else {
            c.queue.removeConsumer(c);
        }
    }

    private void onDisconnect(StompFrame f) {
        state = State.CLOSED;
        saidDisconnect = true;
        String r = f.header(StompHeaders.RECEIPT);
        if (r != null) {
            channel.writeAndFlush(StompFrame.of(StompCommand.RECEIPT, StompHeaders.RECEIPT_ID, r))
                    .addListener(ChannelFutureListener.CLOSE);
        } else {
            channel.close();
        }
    }

    // ---------------------------------------------------------------- life-cycle

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) throws Exception {
        if (ctx.channel().isWritable()) {
            resumeConsumers();
        }
        super.channelWritabilityChanged(ctx);
    }

    /** The connection can take more: let every subscription's queue dispatch again. */
    private void resumeConsumers() {
        for (ServerConsumer c : consumers.values()) {
            c.queue.dispatch();
        }
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
        if (evt instanceof HeartBeatHandler.DeadPeer dp) {
            LOG.info("broker {}: no heart-beat from {} ({}) for {} ms; closing", core.config.name(), sessionId,
                    ctx.channel().remoteAddress(), dp.silentMillis());
            state = State.CLOSED;
            ctx.close();
            return;
        }
        super.userEventTriggered(ctx, evt);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        LOG.debug("broker {}: I/O error on {}: {}", core.config.name(), sessionId, cause.toString());
        ctx.close();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        state = State.CLOSED;
        transactions.clear();
        sessionLimits.close();
        for (ServerConsumer c : consumers.values()) {
            detach(c);
        }
        consumers.clear();
        for (String d : producedTo) {
            core.unregisterProducer(d, this);
        }
        core.temps.closed(tempOwner, ownedTemps, saidDisconnect);
        if (clientIdClaimed) {
            core.releaseClientId(clientId, this);
        }
        core.unregister(this);
        super.channelInactive(ctx);
    }

    // ---------------------------------------------------------------- management (see ManagedCore)

    private final long connectedAt = System.currentTimeMillis();

    /** A request to the management queue: answered by the broker, never queued; needs {@code admin} there. */
    private void onManagementRequest(StompFrame f) {
        String dest = io.fedbridge.broker.management.ManagementDestinations.REQUESTS;
        String denied = guard.deny(identity, io.fedbridge.broker.security.Operation.ADMIN, dest);
        if (denied != null || f.header(StompHeaders.TRANSACTION) != null) {
            error(denied != null ? "SEND denied: " + denied : "SEND rejected: a management request cannot be part of a "
                    + "transaction", null, f.header(StompHeaders.RECEIPT));
            return;
        }
        core.hook.request(identity.name(), f.headers(), f.body());
        receipt(f);
    }

    String id() {
        return sessionId;
    }

    /** This connection and its consumers, read on its event loop where they live; null if it has none (closed). */
    CompletableFuture<ManagedCore.Described> describe() {
        Channel ch = channel;
        if (ch == null) {
            return CompletableFuture.completedFuture(null);
        }
        CompletableFuture<ManagedCore.Described> f = new CompletableFuture<>();
        try {
            ch.eventLoop().execute(() -> f.complete(ManagedCore.describe(sessionId, String.valueOf(ch.remoteAddress()),
                    identity.name(), clientId, version, federationLink, state.name(), connectedAt,
                    List.copyOf(consumers.values()))));
        } catch (java.util.concurrent.RejectedExecutionException e) {
            f.complete(null);
        }
        return f;
    }

    @Override
    public String toString() {
        return sessionId;
    }
}
