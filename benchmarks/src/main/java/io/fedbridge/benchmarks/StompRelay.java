package io.fedbridge.benchmarks;

import io.fedbridge.core.FrameLimits;
import io.fedbridge.core.StompCommand;
import io.fedbridge.core.StompFrame;
import io.fedbridge.core.StompHeaders;
import io.fedbridge.core.internal.MalformedFrame;
import io.fedbridge.core.internal.PipelineNames;
import io.fedbridge.core.internal.StompFrameDecoder;
import io.fedbridge.core.internal.CoalescingFrameEncoder;
import io.fedbridge.core.internal.Transports;
import io.fedbridge.core.uri.CompositeUri;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The wire ceiling: a minimal STOMP relay on the same Netty transport and codec as the broker, doing no
 * broker work. CONNECT is answered with CONNECTED (no heart-beats), SUBSCRIBE registers the connection, each
 * SEND becomes a MESSAGE written straight to a subscriber of that destination (round-robin), RECEIPTs are
 * answered. No queue, no store, no acks (ACK/NACK are ignored), no selectors, no prefetch window; a SEND
 * with no subscriber is dropped.
 *
 * <p>Same threads as the broker: one acceptor, one event loop per core. MESSAGEs produced while reading one
 * batch of a producer's socket are handed to the subscriber's event loop as one task and flushed once. A
 * producer stops being read while a subscriber it feeds is congested, so memory stays bounded.
 *
 * <p>With an upstream relay ({@link #start(String, String)}), every SEND goes on unchanged over one connection to
 * it instead of to a local subscriber: two relays chained are the floor of a two-broker forward (the same
 * process hops, no broker or bridge work), which is what the bridge benchmark's latency compares against.
 */
final class StompRelay implements AutoCloseable {

    private static final long CONGESTED_BYTES = 1024 * 1024;

    private final EventLoopGroup boss;
    private final EventLoopGroup workers;
    private final Channel server;
    private final String connectUri;
    private final Map<String, List<Subscriber>> subscribers = new ConcurrentHashMap<>();
    private final AtomicInteger roundRobin = new AtomicInteger();
    private final AtomicLong messageIds = new AtomicLong();
    /** The next relay's connection, as a subscriber of every destination, or null: SENDs go to local subscribers. */
    private final Subscriber upstream;

    private StompRelay(String uri, String upstreamUri) {
        // The broker's transport (Linux epoll where it loads), its thread counts: the same wake-ups, no broker work.
        boss = Transports.newEventLoopGroup(1, new DefaultThreadFactory("relay-accept"));
        workers = Transports.newEventLoopGroup(Runtime.getRuntime().availableProcessors(), new DefaultThreadFactory("relay-io"));
        CompositeUri parsed = CompositeUri.parse(uri);
        ChannelFuture f = Transports.bind(parsed, boss, workers, new ChannelInitializer<>() {
            @Override
            protected void initChannel(Channel ch) {
                ch.pipeline()
                        .addLast(PipelineNames.DECODER, new StompFrameDecoder(FrameLimits.ofDefaults()))
                        .addLast(PipelineNames.ENCODER, new CoalescingFrameEncoder())
                        .addLast(PipelineNames.HANDLER, new RelayHandler());
            }
        }).awaitUninterruptibly();
        if (!f.isSuccess()) {
            close();
            throw new BenchmarkException("relay could not listen on " + uri + ": " + f.cause(), f.cause());
        }
        server = f.channel();
        connectUri = Transports.boundUri(parsed, server);
        upstream = upstreamUri == null ? null : connectUpstream(upstreamUri);
    }

    static StompRelay start(String uri) {
        return new StompRelay(uri, null);
    }

    /** A relay on {@code uri} that passes every SEND on to the relay at {@code upstreamUri}. */
    static StompRelay start(String uri, String upstreamUri) {
        return new StompRelay(uri, upstreamUri);
    }

    private Subscriber connectUpstream(String uri) {
        java.util.concurrent.CompletableFuture<Void> connected = new java.util.concurrent.CompletableFuture<>();
        ChannelFuture f = Transports.connect(CompositeUri.parse(uri), workers, java.time.Duration.ofSeconds(10),
                new ChannelInitializer<>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        ch.pipeline()
                                .addLast(PipelineNames.DECODER, new StompFrameDecoder(FrameLimits.ofDefaults()))
                                .addLast(PipelineNames.ENCODER, new CoalescingFrameEncoder())
                                .addLast(PipelineNames.HANDLER, new ChannelInboundHandlerAdapter() {
                                    @Override
                                    public void channelRead(ChannelHandlerContext ctx, Object msg) {
                                        if (msg instanceof StompFrame frame && frame.command() == StompCommand.CONNECTED) {
                                            connected.complete(null);
                                        } // RECEIPTs of forwarded SENDs: nothing to do
                                    }

                                    @Override
                                    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
                                        Subscriber u = upstream;
                                        if (u != null && ctx.channel().isWritable()) {
                                            u.resumeProducersIfDrained();
                                        }
                                        ctx.fireChannelWritabilityChanged();
                                    }

                                    @Override
                                    public void channelInactive(ChannelHandlerContext ctx) {
                                        connected.completeExceptionally(new BenchmarkException("upstream relay " + uri
                                                + " closed the connection"));
                                    }
                                });
                    }
                }).awaitUninterruptibly();
        if (!f.isSuccess()) {
            close();
            throw new BenchmarkException("relay could not connect to its upstream " + uri + ": " + f.cause(), f.cause());
        }
        Channel ch = f.channel();
        ch.writeAndFlush(StompFrame.of(StompCommand.CONNECT, StompHeaders.ACCEPT_VERSION, "1.2", StompHeaders.HOST, "relay"));
        try {
            connected.get(10, TimeUnit.SECONDS);
        } catch (Exception e) {
            close();
            throw new BenchmarkException("upstream relay " + uri + " did not answer CONNECT: " + e, e);
        }
        return new Subscriber(ch, null, null);
    }

    String connectUri() {
        return connectUri;
    }

    @Override
    public void close() {
        if (upstream != null) {
            upstream.channel.close().awaitUninterruptibly();
        }
        if (server != null) {
            server.close().awaitUninterruptibly();
        }
        boss.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly();
        workers.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly();
    }

    private Subscriber pick(String destination) {
        List<Subscriber> l = subscribers.get(destination);
        if (l == null || l.isEmpty()) {
            return null;
        }
        if (l.size() == 1) {
            return l.get(0);
        }
        try {
            return l.get(Math.floorMod(roundRobin.getAndIncrement(), l.size()));
        } catch (IndexOutOfBoundsException e) {
            return null; // unsubscribed meanwhile
        }
    }

    /** One SUBSCRIBE: where its MESSAGEs go, and the producers paused while it is congested. */
    private static final class Subscriber {
        final Channel channel;
        final String id;
        final String destination;
        final AtomicLong handedOffBytes = new AtomicLong();
        final Set<Channel> pausedProducers = ConcurrentHashMap.newKeySet();

        Subscriber(Channel channel, String id, String destination) {
            this.channel = channel;
            this.id = id;
            this.destination = destination;
        }

        boolean isCongested() {
            return handedOffBytes.get() > CONGESTED_BYTES || !channel.isWritable();
        }

        void resumeProducersIfDrained() {
            if (isCongested() && channel.isActive()) {
                return;
            }
            for (Channel p : pausedProducers) {
                if (pausedProducers.remove(p)) {
                    p.config().setAutoRead(true);
                }
            }
        }
    }

    private final class RelayHandler extends ChannelInboundHandlerAdapter {

        private final List<Subscriber> own = new ArrayList<>();
        /** MESSAGEs produced in the current read batch, per subscriber. */
        private final Map<Subscriber, List<StompFrame>> batch = new IdentityHashMap<>();

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (msg instanceof MalformedFrame bad) {
                ctx.writeAndFlush(StompFrame.of(StompCommand.ERROR, StompHeaders.MESSAGE, bad.reason()))
                        .addListener(f -> ctx.close());
                return;
            }
            StompFrame f = (StompFrame) msg;
            switch (f.command()) {
                case CONNECT, STOMP -> ctx.write(StompFrame.of(StompCommand.CONNECTED, StompHeaders.VERSION, "1.2",
                        StompHeaders.SERVER, "fedbridge-relay", StompHeaders.HEART_BEAT, "0,0"));
                case SEND -> onSend(f);
                case SUBSCRIBE -> {
                    Subscriber s = new Subscriber(ctx.channel(), f.header(StompHeaders.ID), f.header(StompHeaders.DESTINATION));
                    own.add(s);
                    subscribers.computeIfAbsent(s.destination, d -> new CopyOnWriteArrayList<>()).add(s);
                }
                case UNSUBSCRIBE -> {
                    String id = f.header(StompHeaders.ID);
                    own.removeIf(s -> {
                        if (s.id.equals(id)) {
                            remove(s);
                            return true;
                        }
                        return false;
                    });
                }
                case DISCONNECT -> {
                    String r = f.header(StompHeaders.RECEIPT);
                    if (r != null) {
                        ctx.writeAndFlush(StompFrame.of(StompCommand.RECEIPT, StompHeaders.RECEIPT_ID, r))
                                .addListener(w -> ctx.close());
                    } else {
                        ctx.close();
                    }
                    return;
                }
                default -> {
                    // ACK, NACK, BEGIN, COMMIT, ABORT: nothing to do but the receipt
                }
            }
            String r = f.header(StompHeaders.RECEIPT);
            if (r != null) {
                ctx.write(StompFrame.of(StompCommand.RECEIPT, StompHeaders.RECEIPT_ID, r));
            }
        }

        private void onSend(StompFrame f) {
            if (upstream != null) {
                batch.computeIfAbsent(upstream, k -> new ArrayList<>()).add(f);
                return;
            }
            String destination = f.header(StompHeaders.DESTINATION);
            Subscriber s = destination == null ? null : pick(destination);
            if (s == null) {
                return;
            }
            StompHeaders in = f.headers();
            StompHeaders h = new StompHeaders(in.size() + 3);
            h.add(StompHeaders.SUBSCRIPTION, s.id);
            h.add(StompHeaders.MESSAGE_ID, "relay-" + messageIds.incrementAndGet());
            for (int i = 0; i < in.size(); i++) {
                String name = in.name(i);
                if (!name.equals(StompHeaders.RECEIPT) && !name.equals(StompHeaders.CONTENT_LENGTH)) {
                    h.add(name, in.value(i));
                }
            }
            batch.computeIfAbsent(s, k -> new ArrayList<>()).add(new StompFrame(StompCommand.MESSAGE, h, f.body()));
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            Channel producer = ctx.channel();
            for (Map.Entry<Subscriber, List<StompFrame>> e : batch.entrySet()) {
                Subscriber s = e.getKey();
                List<StompFrame> frames = e.getValue();
                long bytes = 0;
                for (StompFrame m : frames) {
                    bytes += m.body().length + 128;
                }
                long handedOff = bytes;
                s.handedOffBytes.addAndGet(handedOff);
                Runnable writeAll = () -> {
                    for (StompFrame m : frames) {
                        s.channel.write(m, s.channel.voidPromise());
                    }
                    s.channel.flush();
                    s.handedOffBytes.addAndGet(-handedOff);
                    s.resumeProducersIfDrained();
                };
                if (s.channel.eventLoop().inEventLoop()) {
                    writeAll.run();
                } else {
                    s.channel.eventLoop().execute(writeAll);
                }
                if (s.isCongested() && s.channel.isActive()) {
                    // Stop reading first, then register: a resume can only undo a pause that is in place.
                    producer.config().setAutoRead(false);
                    s.pausedProducers.add(producer);
                    s.resumeProducersIfDrained(); // it may have drained between the check and the registration
                }
            }
            batch.clear();
            ctx.flush();
        }

        @Override
        public void channelWritabilityChanged(ChannelHandlerContext ctx) {
            if (ctx.channel().isWritable()) {
                for (Subscriber s : own) {
                    s.resumeProducersIfDrained();
                }
            }
            ctx.fireChannelWritabilityChanged();
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            for (Subscriber s : own) {
                remove(s);
                s.resumeProducersIfDrained();
            }
            own.clear();
            ctx.fireChannelInactive();
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            ctx.close();
        }

        private void remove(Subscriber s) {
            List<Subscriber> l = subscribers.get(s.destination);
            if (l != null) {
                l.remove(s);
            }
        }
    }
}
