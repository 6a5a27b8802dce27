package io.fedbridge.core;

import io.fedbridge.core.internal.FrameWriter;
import io.fedbridge.core.internal.HeartBeatHandler;
import io.fedbridge.core.internal.HeartBeats;
import io.fedbridge.core.internal.LocalFrames;
import io.fedbridge.core.internal.MalformedFrame;
import io.fedbridge.core.internal.PipelineNames;
import io.fedbridge.core.internal.Transports;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.SimpleChannelInboundHandler;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A plain STOMP 1.2 client connection to one broker: send with or without receipt (many receipts may be
 * outstanding at once), subscribe with a listener or pull, ack/nack, transactions, close.
 *
 * <pre>{@code
 * try (StompConnection c = StompConnection.connect("tcp://127.0.0.1:61613")) {
 *     c.send(Message.of("/queue/orders", "hello")).join();          // completes on the broker's RECEIPT
 *     Subscription s = c.subscribe(SubscriptionRequest.of("/queue/orders"));
 *     ReceivedMessage m = s.receive(Duration.ofSeconds(5));
 * }
 * }</pre>
 *
 * <p>Thread-safe. A sender is blocked (never buffered without bound) while the connection's outbound
 * buffer is full, except on an I/O thread (which must never block; what it sends is bounded by its own window,
 * as a bridge's is by its prefetch). Listeners run on one dispatch thread per connection, so a listener may
 * block or send with {@code join()}; {@link #subscribeOnIoThread} skips that hand-over for listeners that never
 * block.
 */
public final class StompConnection implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(StompConnection.class);
    private static final AtomicLong CONNECTION_IDS = new AtomicLong();

    private final ClientConfig config;
    private final ConnectionListener listener;
    private final String name;
    private final Map<String, CompletableFuture<StompFrame>> receipts = new ConcurrentHashMap<>();
    private final Map<String, Subscription> subscriptions = new ConcurrentHashMap<>();
    private final AtomicLong ids = new AtomicLong();
    private final CompletableFuture<StompConnection> connected = new CompletableFuture<>();
    private final CompletableFuture<Void> closed = new CompletableFuture<>();
    private final Object writability = new Object();
    private volatile Channel channel;
    private volatile FrameWriter writer;
    private volatile StompHeaders connectedHeaders;
    private boolean errored; // confined to the I/O thread
    private volatile ExecutorService dispatcher;
    private volatile boolean closing;
    private volatile Throwable closeCause;

    private StompConnection(ClientConfig config, ConnectionListener listener) {
        this.config = config;
        this.listener = listener == null ? new ConnectionListener() { } : listener;
        this.name = "stomp-client-" + CONNECTION_IDS.incrementAndGet();
    }

    /**
     * Connects with default settings to {@code tcp://host:port}, {@code ssl://}, {@code ws://host:port/path},
     * {@code wss://} or {@code vm://name} (URI options allowed).
     */
    public static StompConnection connect(String uri) {
        return connect(ClientConfig.fromUri(uri));
    }

    /** Connects and waits for CONNECTED, up to the configured connect timeout. */
    public static StompConnection connect(ClientConfig config) {
        return connect(config, null);
    }

    public static StompConnection connect(ClientConfig config, ConnectionListener listener) {
        CompletableFuture<StompConnection> f = connectAsync(config, listener);
        try {
            return f.get(config.connectTimeout().toMillis() + 1000, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            f.cancel(true);
            throw new StompException("interrupted while connecting to " + config.uri(), e);
        } catch (TimeoutException e) {
            f.cancel(true);
            throw new StompException("timed out after " + config.connectTimeout() + " connecting to " + config.uri());
        } catch (ExecutionException e) {
            Throwable c = e.getCause();
            if (c instanceof StompException se) {
                throw se;
            }
            throw new StompException("could not connect to " + config.uri() + ": " + c.getMessage(), c);
        }
    }

    /** Connects without blocking; the future completes once CONNECTED arrives. */
    public static CompletableFuture<StompConnection> connectAsync(ClientConfig config, ConnectionListener listener) {
        return connectAsync(config, listener, null);
    }

    /**
     * Connects without blocking, on {@code eventLoops}: a group from {@code Transports.newEventLoopGroup} (an
     * embedding broker's own), or one loop of it to keep several connections that pass frames to each other on one
     * thread, as a bridge does with its two. Null means the shared group.
     */
    public static CompletableFuture<StompConnection> connectAsync(ClientConfig config, ConnectionListener listener,
                                                                  io.netty.channel.EventLoopGroup eventLoops) {
        StompConnection c = new StompConnection(config, listener);
        c.start(eventLoops);
        return c.connected;
    }

    private void start(io.netty.channel.EventLoopGroup eventLoops) {
        Transports.connect(config.uri(), eventLoops, config.connectTimeout(), new ChannelInitializer<>() {
            @Override
            protected void initChannel(Channel ch) {
                if (config.tls() != null) {
                    try {
                        ch.pipeline().addLast(PipelineNames.TLS, io.fedbridge.core.tls.internal.SslContexts
                                .newClientHandler(config.tls(), config.uri(), ch.alloc()));
                    } catch (RuntimeException e) {
                        connected.completeExceptionally(new StompException("could not connect to " + config.uri()
                                + ": " + e.getMessage(), e));
                        ch.close();
                        return;
                    }
                }
                if (Transports.isWebSocket(config.uri())) {
                    io.fedbridge.core.internal.WebSockets.installClient(ch.pipeline(), config.uri(), config.limits(),
                            config.connectTimeout());
                }
                LocalFrames.install(ch, config.limits(), config.connectHeaders().containsKey(FederationHeaders.FEDERATE));
                ch.pipeline().addLast(PipelineNames.HANDLER, new Handler());
            }
        }).addListener(f -> {
            if (!f.isSuccess()) {
                connected.completeExceptionally(new StompException("could not connect to " + config.uri() + ": "
                        + f.cause().getMessage(), f.cause()));
                closed.complete(null);
            }
        });
        long timeout = config.connectTimeout().toMillis();
        connected.orTimeout(timeout, TimeUnit.MILLISECONDS).whenComplete((c, e) -> {
            if (e != null && channel != null) {
                channel.close();
            }
        });
    }

    // ---------------------------------------------------------------- sending

    /** Sends and asks for a receipt; the future completes when the broker confirms (fails on ERROR or close). */
    public CompletableFuture<Void> send(Message message) {
        return sendFrame(toFrame(message, null), true);
    }

    /** Sends without a receipt: cheapest, but nothing tells the caller the broker has it. */
    public void sendWithoutReceipt(Message message) {
        sendFrame(toFrame(message, null), false);
    }

    void sendInTransaction(Message message, String txId) {
        sendFrame(toFrame(message, txId), false);
    }

    /**
     * Sends a raw frame (for bridges and tools). With {@code receipt}, a {@code receipt} header is added and
     * the future completes on the RECEIPT; without, it is complete at once (nothing confirms such a frame).
     */
    public CompletableFuture<Void> sendFrame(StompFrame frame, boolean receipt) {
        if (!receipt) {
            write(checkOpen(), frame);
            return CompletableFuture.completedFuture(null);
        }
        return sendForReceipt(frame).thenApply(r -> null);
    }

    /**
     * Sends a frame with a {@code receipt} header; the future completes with the RECEIPT frame itself (whose
     * headers may carry more, e.g. {@link FederationHeaders#DUPLICATE}), or fails on ERROR or close.
     */
    public CompletableFuture<StompFrame> sendForReceipt(StompFrame frame) {
        return sendForReceipt(frame, true);
    }

    /**
     * @param mayWait whether the caller may wait for the channel to take more ({@link #write}); false for the control
     *                frames of subscriptions made {@link #subscribeOnIoThread}: their callers (a bridge, under its lock)
     *                must never wait for the network, whatever thread they run on
     */
    private CompletableFuture<StompFrame> sendForReceipt(StompFrame frame, boolean mayWait) {
        return sendForReceipt(frame, mayWait, checkOpen());
    }

    /**
     * {@link #sendForReceipt(StompFrame, boolean)} on {@code ch} without checking first that the connection is open:
     * close()'s DISCONNECT, which must not throw when the peer closes the socket at the same moment (a broker stepping
     * down closes every connection just after it answered); the future then fails, and close() goes on.
     */
    private CompletableFuture<StompFrame> sendForReceipt(StompFrame frame, boolean mayWait, Channel ch) {
        CompletableFuture<StompFrame> f = new CompletableFuture<>();
        String id = "r-" + ids.incrementAndGet();
        frame.headers().set(StompHeaders.RECEIPT, id);
        receipts.put(id, f);
        if (!ch.isActive()) {
            receipts.remove(id);
            f.completeExceptionally(closedException("before the frame was sent"));
            return f;
        }
        write(ch, frame, mayWait);
        return f;
    }

    private void write(Channel ch, StompFrame frame) {
        write(ch, frame, true);
    }

    /**
     * Writes {@code frame}; if {@code mayWait}, first waits while the channel takes no more (not on an event-loop
     * thread). A SUBSCRIBE or UNSUBSCRIBE of a subscription made on the I/O thread never waits: a bridge sends them
     * while holding its lock, and the event loop that would drain the channel may be waiting for that lock.
     */
    private void write(Channel ch, StompFrame frame, boolean mayWait) {
        if (mayWait) {
            awaitWritable(ch);
        }
        writer.write(frame);
    }

    private void awaitWritable(Channel ch) {
        awaitWritable(ch, Long.MAX_VALUE);
    }

    /** Waits until the channel takes more (or closed, or {@code deadline} in nanoTime passed); true if writable. */
    private boolean awaitWritable(Channel ch, long deadline) {
        FrameWriter w = writer;
        if (w.isWritable() || io.netty.util.internal.ThreadExecutorMap.currentExecutor() != null) {
            return true; // an event-loop thread (this connection's or another's) never blocks: its callers bound what they send
        }
        synchronized (writability) {
            boolean interrupted = false;
            while (!w.isWritable() && ch.isActive() && (deadline == Long.MAX_VALUE || System.nanoTime() - deadline < 0)) {
                try {
                    writability.wait(100);
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
            return w.isWritable();
        }
    }

    private StompFrame toFrame(Message m, String txId) {
        StompHeaders h = new StompHeaders(m.headers().size() + 4);
        h.add(StompHeaders.DESTINATION, m.destination());
        for (Map.Entry<String, String> e : m.headers().entrySet()) {
            if (!e.getKey().equals(StompHeaders.DESTINATION) && !e.getKey().equals(StompHeaders.RECEIPT)) {
                h.add(e.getKey(), e.getValue());
            }
        }
        if (txId != null) {
            h.set(StompHeaders.TRANSACTION, txId);
        }
        return new StompFrame(StompCommand.SEND, h, m.body());
    }

    // ---------------------------------------------------------------- subscribing

    /** Subscribes with a listener; messages are handed to it one at a time on this connection's dispatch thread. */
    public Subscription subscribe(SubscriptionRequest request, MessageListener messageListener) {
        if (messageListener == null) {
            throw new IllegalArgumentException("messageListener must not be null; use subscribe(request) to pull");
        }
        return doSubscribe(request, messageListener);
    }

    /**
     * Subscribes with a listener that runs on this connection's I/O thread, in order, without the hand-over to the
     * dispatch thread (one thread wake-up less per message). Only for listeners that never block, such as a bridge
     * forwarding to another connection: while one runs, nothing else on this connection is read or written.
     */
    public Subscription subscribeOnIoThread(SubscriptionRequest request, MessageListener messageListener) {
        if (messageListener == null) {
            throw new IllegalArgumentException("messageListener must not be null");
        }
        return doSubscribe(request, messageListener, false, null, true);
    }

    /**
     * {@link #subscribeOnIoThread}, asking the broker for a RECEIPT without waiting for it: {@code confirmed} completes
     * once the broker has the subscription in place (exceptionally if the connection ends first).
     */
    public Subscription subscribeOnIoThread(SubscriptionRequest request, MessageListener messageListener,
                                            CompletableFuture<Void> confirmed) {
        if (messageListener == null) {
            throw new IllegalArgumentException("messageListener must not be null");
        }
        return doSubscribe(request, messageListener, false, null, true, confirmed);
    }

    /** {@link #subscribeOnIoThread}, waiting for the broker's RECEIPT as {@link #subscribeAndWait} does. */
    public Subscription subscribeOnIoThreadAndWait(SubscriptionRequest request, MessageListener messageListener,
                                                   Duration timeout) {
        if (messageListener == null) {
            throw new IllegalArgumentException("messageListener must not be null");
        }
        return doSubscribe(request, messageListener, true, timeout, true);
    }

    /** Subscribes for pulling with {@link Subscription#receive(Duration)}. */
    public Subscription subscribe(SubscriptionRequest request) {
        return doSubscribe(request, null);
    }

    /** Subscribes and waits until the broker confirms with a RECEIPT (so the subscription is in place). */
    public Subscription subscribeAndWait(SubscriptionRequest request, MessageListener messageListener, Duration timeout) {
        Subscription s = doSubscribe(request, messageListener, true, timeout);
        return s;
    }

    private Subscription doSubscribe(SubscriptionRequest request, MessageListener l) {
        return doSubscribe(request, l, false, null);
    }

    private Subscription doSubscribe(SubscriptionRequest request, MessageListener l, boolean wait, Duration timeout) {
        return doSubscribe(request, l, wait, timeout, false);
    }

    private Subscription doSubscribe(SubscriptionRequest request, MessageListener l, boolean wait, Duration timeout,
                                     boolean onIoThread) {
        return doSubscribe(request, l, wait, timeout, onIoThread, null);
    }

    private Subscription doSubscribe(SubscriptionRequest request, MessageListener l, boolean wait, Duration timeout,
                                     boolean onIoThread, CompletableFuture<Void> confirmed) {
        Channel ch = checkOpen();
        String id = request.extraHeaders().getOrDefault(StompHeaders.ID, "sub-" + ids.incrementAndGet());
        Subscription s = new Subscription(this, id, request, l, onIoThread);
        if (subscriptions.putIfAbsent(id, s) != null) {
            throw new IllegalArgumentException("subscription id '" + id + "' is already in use on this connection");
        }
        StompHeaders h = new StompHeaders();
        h.add(StompHeaders.ID, id);
        h.add(StompHeaders.DESTINATION, request.destination());
        h.add(StompHeaders.ACK, request.ackMode().wireValue());
        if (request.selector() != null) {
            h.add(StompHeaders.SELECTOR, request.selector());
        }
        if (request.prefetch() > 0) {
            h.add(StompHeaders.PREFETCH, Integer.toString(request.prefetch()));
        }
        request.extraHeaders().forEach((k, v) -> {
            if (!k.equals(StompHeaders.ID)) {
                h.add(k, v);
            }
        });
        if (l != null && !onIoThread && dispatcher == null) {
            synchronized (this) {
                if (dispatcher == null) {
                    dispatcher = Executors.newSingleThreadExecutor(r -> {
                        Thread t = new Thread(r, name + "-dispatch");
                        t.setDaemon(true);
                        return t;
                    });
                }
            }
        }
        StompFrame frame = new StompFrame(StompCommand.SUBSCRIBE, h);
        if (wait) {
            try {
                sendFrame(frame, true).get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            } catch (ExecutionException e) {
                subscriptions.remove(id);
                throw e.getCause() instanceof StompException se ? se : new StompException("subscribe failed", e.getCause());
            } catch (TimeoutException e) {
                throw new StompException("no receipt for SUBSCRIBE to " + request.destination() + " within " + timeout);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new StompException("interrupted while subscribing to " + request.destination(), e);
            }
        } else if (confirmed != null) {
            sendForReceipt(frame, !onIoThread).whenComplete((v, e) -> {
                if (e != null) {
                    confirmed.completeExceptionally(e);
                } else {
                    confirmed.complete(null);
                }
            });
        } else {
            write(ch, frame, !onIoThread);
        }
        return s;
    }

    void unsubscribe(Subscription s, Map<String, String> extra) {
        subscriptions.remove(s.id());
        Channel ch = channel;
        if (ch != null && ch.isActive()) {
            StompHeaders h = StompHeaders.of(StompHeaders.ID, s.id());
            extra.forEach(h::add);
            write(ch, new StompFrame(StompCommand.UNSUBSCRIBE, h), !s.onIoThread());
        }
    }

    /** UNSUBSCRIBE, keeping the listener until the broker's RECEIPT: what the broker dispatched before it still arrives. */
    void unsubscribeAfterReceipt(Subscription s) {
        Channel ch = channel;
        if (ch == null || !ch.isActive()) {
            subscriptions.remove(s.id());
            return;
        }
        try {
            sendForReceipt(new StompFrame(StompCommand.UNSUBSCRIBE, StompHeaders.of(StompHeaders.ID, s.id())), !s.onIoThread())
                    .whenComplete((r, e) -> subscriptions.remove(s.id(), s));
        } catch (RuntimeException e) {
            subscriptions.remove(s.id());
            throw e;
        }
    }

    void ack(ReceivedMessage m, String txId) {
        ackOrNack(StompCommand.ACK, m, txId);
    }

    void nack(ReceivedMessage m, String txId) {
        ackOrNack(StompCommand.NACK, m, txId);
    }

    private void ackOrNack(StompCommand cmd, ReceivedMessage m, String txId) {
        Channel ch = checkOpen();
        StompHeaders h = new StompHeaders(4);
        h.add(StompHeaders.ID, m.ackId());
        if (!"1.2".equals(version())) {
            h.add(StompHeaders.MESSAGE_ID, m.messageId());
            h.add(StompHeaders.SUBSCRIPTION, m.subscription().id());
        }
        if (txId != null) {
            h.add(StompHeaders.TRANSACTION, txId);
        }
        write(ch, new StompFrame(cmd, h));
    }

    // ---------------------------------------------------------------- transactions

    /** Starts a transaction. */
    public Transaction begin() {
        Channel ch = checkOpen();
        String id = "tx-" + name + "-" + ids.incrementAndGet();
        write(ch, StompFrame.of(StompCommand.BEGIN, StompHeaders.TRANSACTION, id));
        return new Transaction(this, id);
    }

    CompletableFuture<Void> endTransaction(StompCommand cmd, String id) {
        return sendFrame(StompFrame.of(cmd, StompHeaders.TRANSACTION, id), true);
    }

    // ---------------------------------------------------------------- state

    public boolean isConnected() {
        Channel ch = channel;
        return ch != null && ch.isActive() && connectedHeaders != null && !closing;
    }

    /** The CONNECTED frame's headers (server, version, session, heart-beat, and fedbridge's broker identity). */
    public StompHeaders connectedHeaders() {
        return connectedHeaders;
    }

    public String version() {
        StompHeaders h = connectedHeaders;
        return h == null ? null : h.get(StompHeaders.VERSION, "1.0");
    }

    /** This connection's name, unique in the JVM ({@code stomp-client-N}), as its log lines show it. */
    public String name() {
        return name;
    }

    public String sessionId() {
        StompHeaders h = connectedHeaders;
        return h == null ? null : h.get(StompHeaders.SESSION);
    }

    public ClientConfig config() {
        return config;
    }

    /** Sends awaiting their receipt. */
    public int pendingReceipts() {
        return receipts.size();
    }

    /** Completes when the connection is closed, by either side. */
    public CompletableFuture<Void> closeFuture() {
        return closed;
    }

    /** Why the connection closed, or null (still open, or closed cleanly). */
    public Throwable closeCause() {
        return closeCause;
    }

    /**
     * Sends DISCONNECT with a receipt, waits for it (up to the close timeout) so that everything sent
     * before has been processed, then closes the socket.
     */
    @Override
    public void close() {
        Channel ch = channel;
        if (ch == null || closing) {
            if (ch != null) {
                closed.join();
            }
            return;
        }
        // A peer that stopped reading (a slow consumer's broker cut its subscription, a stalled link) never takes the
        // DISCONNECT: after closeTimeout the socket just closes.
        if (ch.isActive() && connectedHeaders != null
                && awaitWritable(ch, System.nanoTime() + config.closeTimeout().toNanos())) {
            closing = true;
            try {
                sendForReceipt(StompFrame.of(StompCommand.DISCONNECT), true, ch)
                        .get(config.closeTimeout().toMillis(), TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (ExecutionException | TimeoutException e) {
                LOG.debug("{}: no receipt for DISCONNECT: {}", name, e.toString());
            }
        }
        closing = true;
        ch.close().syncUninterruptibly();
        closed.join();
    }

    /**
     * Sends DISCONNECT after everything already written, flushes and closes, without waiting: safe from any
     * thread, I/O threads included.
     */
    public void closeAsync() {
        Channel ch = channel;
        FrameWriter w = writer;
        if (ch == null || closing) {
            return;
        }
        closing = true;
        if (w == null || !ch.isActive()) {
            ch.close();
            return;
        }
        w.write(StompFrame.of(StompCommand.DISCONNECT), 16);
        ch.eventLoop().execute(() -> ch.writeAndFlush(io.netty.buffer.Unpooled.EMPTY_BUFFER)
                .addListener(io.netty.channel.ChannelFutureListener.CLOSE));
    }

    /** Closes the socket at once, without DISCONNECT (as a crash would). */
    public void abort() {
        Channel ch = channel;
        closing = true;
        if (ch != null) {
            ch.close();
        }
    }

    private Channel checkOpen() {
        Channel ch = channel;
        if (ch == null || !ch.isActive() || closing) {
            throw closedException("");
        }
        return ch;
    }

    private ConnectionClosedException closedException(String when) {
        Throwable cause = closeCause;
        String msg = "connection to " + config.uri() + " is closed" + (when.isEmpty() ? "" : " " + when)
                + (cause == null ? "" : ": " + cause.getMessage());
        return new ConnectionClosedException(msg, cause);
    }

    @Override
    public String toString() {
        return name + "[" + config.uri() + (isConnected() ? ", connected" : ", not connected") + "]";
    }

    // ---------------------------------------------------------------- I/O

    private final class Handler extends SimpleChannelInboundHandler<Object> {

        @Override
        public void channelActive(ChannelHandlerContext ctx) {
            writer = new FrameWriter(ctx.channel(), this::signalWritable);
            channel = ctx.channel();
            StompHeaders h = new StompHeaders();
            h.add(StompHeaders.ACCEPT_VERSION, "1.2");
            h.add(StompHeaders.HOST, config.host());
            h.add(StompHeaders.HEART_BEAT, config.heartBeatSend().toMillis() + "," + config.heartBeatReceive().toMillis());
            if (config.login() != null) {
                h.add(StompHeaders.LOGIN, config.login());
            }
            if (config.passcode() != null) {
                h.add(StompHeaders.PASSCODE, config.passcode());
            }
            if (config.clientId() != null) {
                h.add("client-id", config.clientId());
            }
            config.connectHeaders().forEach(h::add);
            ctx.writeAndFlush(new StompFrame(StompCommand.CONNECT, h));
        }

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, Object msg) {
            if (msg instanceof MalformedFrame bad) {
                failConnection(ctx, new StompException("malformed frame from " + config.uri() + ": " + bad.reason()));
                return;
            }
            if (errored) {
                return; // after an ERROR the connection is over: a later RECEIPT must not confirm anything
            }
            StompFrame f = (StompFrame) msg;
            switch (f.command()) {
                case CONNECTED -> onConnected(ctx, f);
                case MESSAGE -> onMessage(f);
                case RECEIPT -> {
                    CompletableFuture<StompFrame> r = receipts.remove(f.header(StompHeaders.RECEIPT_ID));
                    if (r != null) {
                        r.complete(f);
                    }
                }
                case ERROR -> onErrorFrame(ctx, f);
                default -> failConnection(ctx, new StompException("unexpected " + f.command() + " frame from " + config.uri()));
            }
        }

        private void onConnected(ChannelHandlerContext ctx, StompFrame f) {
            HeartBeats beats;
            try {
                long[] peer = HeartBeats.parse(f.header(StompHeaders.HEART_BEAT));
                beats = HeartBeats.negotiate(config.heartBeatSend().toMillis(), config.heartBeatReceive().toMillis(), peer[0], peer[1]);
            } catch (IllegalArgumentException e) {
                failConnection(ctx, new StompException("broker at " + config.uri() + " sent " + e.getMessage()));
                return;
            }
            if (beats.sendMillis() > 0 || beats.receiveMillis() > 0) {
                ctx.pipeline().addBefore(PipelineNames.DECODER, PipelineNames.HEART_BEAT, new HeartBeatHandler(beats));
            }
            connectedHeaders = f.headers();
            LOG.debug("{}: connected to {} ({})", name, config.uri(), f.headers());
            connected.complete(StompConnection.this);
        }

        private void onMessage(StompFrame f) {
            Subscription s = subscriptions.get(f.header(StompHeaders.SUBSCRIPTION));
            if (s == null) {
                LOG.debug("{}: MESSAGE for unknown subscription {}", name, f.header(StompHeaders.SUBSCRIPTION));
                return;
            }
            ReceivedMessage m = new ReceivedMessage(StompConnection.this, s, f);
            MessageListener l = s.listener();
            if (l == null) {
                s.enqueue(m);
                return;
            }
            if (s.onIoThread()) {
                try {
                    l.onMessage(m);
                } catch (RuntimeException e) {
                    LOG.warn("{}: listener of {} threw; the message is not acknowledged", name, s, e);
                }
                return;
            }
            dispatcher.execute(() -> {
                try {
                    l.onMessage(m);
                } catch (RuntimeException e) {
                    LOG.warn("{}: listener of {} threw; the message is not acknowledged", name, s, e);
                }
            });
        }

        private void onErrorFrame(ChannelHandlerContext ctx, StompFrame f) {
            String receiptId = f.header(StompHeaders.RECEIPT_ID);
            errored = true;
            StompErrorException e = new StompErrorException("broker at " + config.uri() + " answered ERROR", f);
            if (!connected.isDone()) {
                connected.completeExceptionally(e);
                closeCause = e;
                ctx.close();
                return;
            }
            CompletableFuture<StompFrame> r = receiptId == null ? null : receipts.remove(receiptId);
            if (r != null) {
                r.completeExceptionally(e);
            } else {
                listener.onError(StompConnection.this, e);
            }
            // STOMP servers close the connection after an ERROR frame; a server that does not would leave a connection
            // whose later frames this client ignores, so close it from this side too.
            closeCause = e;
            ctx.close();
        }

        private void failConnection(ChannelHandlerContext ctx, StompException e) {
            closeCause = e;
            connected.completeExceptionally(e);
            ctx.close();
        }

        @Override
        public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
            if (evt instanceof HeartBeatHandler.DeadPeer dp) {
                LOG.info("{}: no heart-beat from {} for {} ms; closing", name, config.uri(), dp.silentMillis());
                failConnection(ctx, new StompException("broker at " + config.uri() + " sent no heart-beat for "
                        + dp.silentMillis() + " ms"));
                return;
            }
            super.userEventTriggered(ctx, evt);
        }

        @Override
        public void channelWritabilityChanged(ChannelHandlerContext ctx) throws Exception {
            if (ctx.channel().isWritable()) {
                signalWritable();
            }
            super.channelWritabilityChanged(ctx);
        }

        private void signalWritable() {
            synchronized (writability) {
                writability.notifyAll();
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            LOG.debug("{}: I/O error: {}", name, cause.toString());
            if (closeCause == null) {
                closeCause = cause;
            }
            ctx.close();
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            synchronized (writability) {
                writability.notifyAll();
            }
            Throwable cause = closeCause;
            boolean clean = closing && cause == null;
            if (!connected.isDone()) {
                connected.completeExceptionally(cause != null ? cause
                        : new ConnectionClosedException("connection to " + config.uri() + " closed during the handshake"));
            }
            List<CompletableFuture<StompFrame>> pending = new ArrayList<>(receipts.values());
            receipts.clear();
            for (CompletableFuture<StompFrame> r : pending) {
                r.completeExceptionally(closedException("before its receipt arrived"));
            }
            for (Subscription s : subscriptions.values()) {
                s.connectionClosed();
            }
            ExecutorService d = dispatcher;
            if (d != null) {
                d.shutdown();
            }
            if (!clean) {
                LOG.debug("{}: connection to {} lost: {}", name, config.uri(), cause == null ? "closed by peer" : cause.toString());
            }
            try {
                listener.onClosed(StompConnection.this, clean ? null
                        : cause != null ? cause : new ConnectionClosedException("connection to " + config.uri() + " closed by peer"));
            } finally {
                closed.complete(null);
            }
        }
    }
}
