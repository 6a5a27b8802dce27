package io.fedbridge.broker.internal;

import io.fedbridge.broker.security.Identity;
import io.fedbridge.broker.security.internal.SecurityGuard;
import io.fedbridge.core.FederationHeaders;
import io.fedbridge.core.StompCommand;
import io.fedbridge.core.StompFrame;
import io.fedbridge.core.StompHeaders;
import io.fedbridge.core.internal.FrameWriter;
import io.fedbridge.core.internal.HeartBeatHandler;
import io.fedbridge.core.internal.LocalFlowControl;
import io.fedbridge.core.internal.MalformedFrame;
import io.fedbridge.core.internal.TurnBudget;
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
 * {@link SessionHeaders} (what a frame's headers mean here), {@link SessionLimits}, {@link SessionConnect} (CONNECT),
 * {@link SessionSubscriptions} (SUBSCRIBE, UNSUBSCRIBE, temporary destination names). The connection state they set
 * or read (state, version, identity, client-id...) is package-private for them, and touched only on the event loop.
 */
public final class ServerSession extends ChannelInboundHandlerAdapter {

    private static final Logger LOG = LoggerFactory.getLogger(ServerSession.class);
    static final String SERVER = "fedbridge/0.1";

    enum State { AWAITING_CONNECT, CONNECTED, CLOSED }

    private final BrokerCore core;
    private final String sessionId;
    private final Map<String, ServerConsumer> consumers = new LinkedHashMap<>();
    private final Map<Integer, ServerConsumer> consumersByNumber = new HashMap<>();
    volatile Channel channel;
    private volatile FrameWriter writer;
    volatile State state = State.AWAITING_CONNECT;
    String version = "1.2";
    String clientId;
    private final java.util.Set<String> producedTo = new java.util.HashSet<>();
    final java.util.Set<String> ownedTemps = new java.util.HashSet<>();
    /** The owner part of this connection's temporary names; reclaimable after CONNECT with a secret (see TempQueues). */
    String tempOwner;
    private boolean saidDisconnect;
    private final long sessionNumber;
    boolean paused;
    private final java.util.ArrayDeque<Object> deferred = new java.util.ArrayDeque<>();
    /**
     * Frames handled per event-loop turn: past {@link TurnBudget#FRAMES_PER_TURN} the rest of a burst waits in
     * {@link #deferred}, reading stops, and the next turn goes on, so a client's 10,000 SUBSCRIBEs do not hold the loop
     * (and every forward on it) for a second. ACKs pass, as they pass a paused producer.
     */
    private TurnBudget budget;
    private final SessionReceipts receipts;
    private final SessionTransactions transactions;
    private final SessionAcks acks;
    private final SecurityGuard guard;
    Identity identity = Identity.ofAnonymous();
    /**
     * Whether CONNECT announced a federation link ({@code fedbridge-federate}) and the guard accepted it. Only such a
     * connection may use the federation headers, and with an authorizer only where it holds {@code federate}; an
     * ordinary client's are ignored on SEND (see {@link SessionHeaders#messageHeaders}) and refused on SUBSCRIBE.
     */
    boolean federationLink;
    /** An administrator let in to an HA backup: it may only use the management API. */
    boolean backupAdmin;
    /** What this connection's own {@code fedbridge-id}s are prefixed with (see {@link ProducerIds}). */
    String idScope;
    /**
     * Whose share of the dedupe window this connection's own ids take: its user's, or if anonymous its producer's
     * (its producer secret's, else its own).
     */
    String dedupeShare;
    /**
     * Destinations where this federation link holds {@code federate} (true) or not, and those this connection may
     * SEND to: an answer of the authorizer holds for the connection's life (as ActiveMQ's security context keeps its
     * authorized destinations), which takes the rule scan off the path of every message after the first.
     */
    private final java.util.HashMap<String, Boolean> federates = new java.util.HashMap<>();
    private final java.util.HashSet<String> writable = new java.util.HashSet<>();
    /** Whether this connection holds {@link #clientId} in the broker's registry (released when it closes). */
    boolean clientIdClaimed;
    final SessionLimits sessionLimits;
    private final SessionConnect connect;
    private final SessionSubscriptions subscriptions;
    /** Messages this federation link lent here (ack-through forwarding); null until the first. */
    private Loans loans;

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
        this.transactions = new SessionTransactions(this, sessionLimits, receipts, core.store);
        this.acks = new SessionAcks(this, consumers, consumersByNumber, transactions, receipts);
        this.connect = new SessionConnect(this, core, guard);
        this.subscriptions = new SessionSubscriptions(this, core, guard, consumers, consumersByNumber);
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

    /**
     * From any thread: closes the connection after the frames already handed to {@link #write} (a management answer
     * written just before a promotion closes every connection). Their flush is an event-loop task queued behind their
     * writes, so a close queued from another thread in between would drop them: the close flushes first.
     */
    void close() {
        Channel ch = channel;
        if (ch == null) {
            return;
        }
        try {
            ch.eventLoop().execute(() -> {
                ch.flush();
                ch.close();
            });
        } catch (java.util.concurrent.RejectedExecutionException e) {
            ch.close(); // the event loop is shutting down
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
        if (bypassesFlowControl(msg)) {
            handle(ctx, msg);
            return;
        }
        if (paused || !deferred.isEmpty()) {
            // Frames already read when the producer was paused wait here, in order, so that a full
            // destination really holds the producer back; at most one socket read's worth.
            deferred.add(msg);
            return;
        }
        if (budget == null) {
            budget = TurnBudget.of(ctx.executor(), TurnBudget.FRAMES_PER_TURN, this::nextTurn);
        }
        if (!budget.tryTake()) {
            deferred.add(msg);
            ctx.channel().config().setAutoRead(false);
            LocalFlowControl.pause(ctx.channel());
            return;
        }
        handle(ctx, msg);
    }

    /** The turn after one whose budget ran out: handles the next slice of {@link #deferred}, unless paused. */
    private void nextTurn() {
        if (!paused && state != State.CLOSED) {
            drainDeferred();
        }
    }

    /** Handles deferred frames while not paused and the turn's budget lasts; reads again once none are left. */
    private void drainDeferred() {
        Channel ch = channel;
        ChannelHandlerContext ctx = ch.pipeline().context(this);
        while (!paused && !deferred.isEmpty() && state != State.CLOSED && ctx != null) {
            if (budget != null && !budget.tryTake()) {
                return; // nextTurn goes on
            }
            handle(ctx, deferred.poll());
        }
        if (!paused && deferred.isEmpty()) {
            // In this order: on vm:// reading again hands over frames at once, which may stop it again.
            LocalFlowControl.resume(ch);
            ch.config().setAutoRead(true);
        }
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
                    connect.onConnect(ctx, f);
                } else {
                    error("expected CONNECT or STOMP as the first frame, but got " + f.command(), null, f.header(StompHeaders.RECEIPT));
                }
                return;
            }
            switch (f.command()) {
                case SEND -> onSend(f);
                case SUBSCRIBE -> subscriptions.onSubscribe(f);
                case UNSUBSCRIBE -> subscriptions.onUnsubscribe(f);
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

    private void onSend(StompFrame f) {
        if (federationLink && f.header(FederationHeaders.RECEIPT_ONLY) != null) {
            receipts.forwarded(f, BrokerCore.DONE); // a bridge settling the forwards it sent before
            return;
        }
        if (federationLink && f.header(FederationHeaders.BORROW_CONFIRM) != null) {
            if (loans != null) {
                loans.confirmed(f.header(FederationHeaders.BORROW_CONFIRM)); // only this link's own loans
            }
            return;
        }
        if (federationLink && (f.header(FederationHeaders.IN_DOUBT_PROBE) != null || f.header(FederationHeaders.IN_DOUBT_SETTLE) != null)) {
            onInDoubt(f);
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
        String dest = subscriptions.ownTemp(f.header(StompHeaders.DESTINATION));
        String replyTo = f.header(StompHeaders.REPLY_TO);
        if (replyTo != null && Destinations.isTemp(replyTo)) {
            f.headers().set(StompHeaders.REPLY_TO, subscriptions.ownTemp(replyTo));
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
        if (forwarded && tx == null && f.header(FederationHeaders.BORROWED) != null && !Destinations.isTopic(dest)) {
            (loans == null ? loans = new Loans(this, core) : loans).lend(f, dest, headers); // its receipt: when consumed
            return;
        }
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

    /**
     * A bridge settling a forward a dead link left in doubt (FederationHeaders#IN_DOUBT_TOPIC): a probe asks whether
     * this broker accepted it, a settle says what the peer answered. Neither is a message.
     */
    private void onInDoubt(StompFrame f) {
        String receipt = f.header(StompHeaders.RECEIPT);
        boolean probe = f.header(FederationHeaders.IN_DOUBT_PROBE) != null;
        String what = probe ? FederationHeaders.IN_DOUBT_PROBE : FederationHeaders.IN_DOUBT_SETTLE;
        String dest = f.header(StompHeaders.DESTINATION);
        String invalid = Destinations.validate(dest);
        if (invalid != null) {
            error("SEND with " + what + " rejected: " + invalid, null, receipt);
            return;
        }
        if (!mayFederate(dest)) {
            // Not an error that ends the link (its forwards elsewhere are fine): the message stays in doubt, and the
            // hold decides; a probe's receipt says nothing, which the bridge reports.
            LOG.warn("broker {}: ignoring {} on {} from federation link {}: user '{}' has no federate permission there; "
                    + "forwards in doubt there wait for inDoubtHold", core.config.name(), what, dest, sessionId, identity.name());
            receipt(f);
            return;
        }
        if (probe) {
            String fedId = f.header(FederationHeaders.FEDERATION_ID);
            if (fedId == null || fedId.isEmpty()) {
                error("SEND with " + what + " rejected: it needs a " + FederationHeaders.FEDERATION_ID + " header", null, receipt);
                return;
            }
            if (receipt != null) {
                write(StompFrame.of(StompCommand.RECEIPT, StompHeaders.RECEIPT_ID, receipt, FederationHeaders.IN_DOUBT_STATE,
                        core.inDoubtState(fedId, f.header(FederationHeaders.REPLAYS))));
            }
            return;
        }
        String verdict = f.header(FederationHeaders.IN_DOUBT_SETTLE);
        String messageId = f.header(FederationHeaders.IN_DOUBT_MESSAGE);
        String peer = f.header(FederationHeaders.EXCLUDE_BROKER);
        if (!FederationHeaders.IN_DOUBT_STORED.equals(verdict) && !FederationHeaders.IN_DOUBT_ABSENT.equals(verdict)) {
            error("SEND with " + what + " rejected: its value must be " + FederationHeaders.IN_DOUBT_STORED + " or "
                    + FederationHeaders.IN_DOUBT_ABSENT + ", but was '" + verdict + "'", null, receipt);
            return;
        }
        if (messageId == null || peer == null) {
            error("SEND with " + what + " rejected: it needs " + FederationHeaders.IN_DOUBT_MESSAGE + " and "
                    + FederationHeaders.EXCLUDE_BROKER + " headers", null, receipt);
            return;
        }
        boolean settled = core.settleInDoubt(dest, messageId, peer, FederationHeaders.IN_DOUBT_STORED.equals(verdict));
        if (settled) {
            LOG.debug("broker {}: forward {} on {} held in doubt for {} settled: {}", core.config.name(), messageId, dest, peer, verdict);
        }
        receipt(f);
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

    void resumeReading() {
        Channel ch = channel;
        if (ch != null) {
            ch.eventLoop().execute(() -> {
                if (!paused) {
                    return;
                }
                paused = false;
                drainDeferred();
            });
        }
    }

    /** Whether this federation link holds {@code federate} on {@code destination} (cached: the rules never change). */
    boolean mayFederate(String destination) {
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
            subscriptions.detach(c);
        }
        consumers.clear();
        if (loans != null) {
            loans.closed();
        }
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
        // The receipt first: the request may end this very connection (an HA promotion closes them all), and the close,
        // queued from the management thread, must find the receipt already written ahead of it.
        receipt(f);
        core.hook.request(identity.name(), f.headers(), f.body());
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
