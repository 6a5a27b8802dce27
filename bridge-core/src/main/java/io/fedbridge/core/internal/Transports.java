package io.fedbridge.core.internal;

import io.fedbridge.core.uri.CompositeUri;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.local.LocalAddress;
import io.netty.channel.local.LocalChannel;
import io.netty.channel.local.LocalServerChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.time.Duration;
import java.util.List;

/**
 * The transports every fedbridge connection runs on: {@code tcp://host:port} (NIO sockets, Nagle off),
 * {@code ssl://host:port} (the same sockets; the initializer adds an SslHandler first, see
 * {@link io.fedbridge.core.tls.TlsConfig}), {@code ws://host:port/path} and {@code wss://host:port/path} (STOMP over
 * WebSocket on the same sockets, see {@link WebSockets}) and {@code vm://name} (in-JVM Netty local channels, no socket).
 */
public final class Transports {

    public static final List<String> SCHEMES = List.of("tcp", "ssl", "vm", "ws", "wss");
    static final WriteBufferWaterMark WATER_MARK = new WriteBufferWaterMark(256 * 1024, 1024 * 1024);

    /**
     * Whether sockets run on Linux's epoll directly (Netty's native transport): true where it loads, unless
     * {@code -Dfedbridge.transport=nio}. Unlike the JDK's selector it takes no lock to wake a loop: with NIO, every
     * hand-over between two loops (a broker passing a message from its producer's connection to its consumer's) made
     * the woken loop wait for the waking thread's selector lock about every other time, a futex sleep each.
     */
    public static final boolean EPOLL = !"nio".equals(System.getProperty("fedbridge.transport"))
            && io.netty.channel.epoll.Epoll.isAvailable();

    private static final java.util.concurrent.atomic.AtomicLong CLIENTS = new java.util.concurrent.atomic.AtomicLong();
    private static volatile EventLoopGroup ioGroup;

    private Transports() {
    }

    /**
     * The shared, daemon-threaded group used when the caller brings none. Its loops run sockets and {@code vm://}
     * channels alike (see {@link #newEventLoopGroup}).
     */
    public static EventLoopGroup ioGroup() {
        EventLoopGroup g = ioGroup;
        if (g == null) {
            synchronized (Transports.class) {
                if (ioGroup == null) {
                    ioGroup = newEventLoopGroup(0, new DefaultThreadFactory("fedbridge-io", true));
                }
                g = ioGroup;
            }
        }
        return g;
    }

    /**
     * A group whose loops run both sockets (epoll, see {@link #EPOLL}, else NIO) and {@code vm://} channels, so
     * connections that pass frames to each
     * other (a bridge's two ends, a broker and its in-JVM clients) can share one thread. {@code threads} 0 means
     * Netty's default (twice the cores).
     */
    public static EventLoopGroup newEventLoopGroup(int threads, java.util.concurrent.ThreadFactory threadFactory) {
        return new MultiThreadIoEventLoopGroup(threads, threadFactory, SocketAndLocalIoHandler.newFactory(
                EPOLL ? io.netty.channel.epoll.EpollIoHandler.newFactory() : io.netty.channel.nio.NioIoHandler.newFactory()));
    }

    /** Whether {@code group}'s loops run epoll sockets (a group from {@link #newEventLoopGroup}, or a loop of one). */
    private static boolean runsEpoll(EventLoopGroup group) {
        return EPOLL && group instanceof io.netty.channel.IoEventLoopGroup io
                && io.isCompatible(io.netty.channel.epoll.EpollIoHandle.class);
    }

    public static boolean isLocal(CompositeUri uri) {
        return "vm".equals(uri.scheme());
    }

    /** Whether connections on {@code uri} run TLS ({@code ssl://}, {@code wss://}). */
    public static boolean isTls(CompositeUri uri) {
        return "ssl".equals(uri.scheme()) || "wss".equals(uri.scheme());
    }

    /** Whether connections on {@code uri} carry STOMP in WebSocket frames ({@code ws://}, {@code wss://}). */
    public static boolean isWebSocket(CompositeUri uri) {
        return "ws".equals(uri.scheme()) || "wss".equals(uri.scheme());
    }

    public static void checkScheme(CompositeUri uri) {
        if (!SCHEMES.contains(uri.scheme())) {
            throw new IllegalArgumentException("unsupported transport scheme '" + uri.scheme() + "' in URI '" + uri
                    + "'; supported schemes are: " + String.join(", ", SCHEMES));
        }
        if (uri.isComposite()) {
            throw new IllegalArgumentException(uri.scheme() + ": URI '" + uri + "' must be plain, e.g. " + uri.scheme()
                    + (isLocal(uri) ? "://A" : "://127.0.0.1:61613") + ", not composite");
        }
        if (isLocal(uri)) {
            if (uri.host() == null || uri.host().isEmpty()) {
                throw new IllegalArgumentException("vm:// URI '" + uri + "' must name the in-JVM broker, e.g. vm://A");
            }
        } else if (uri.host() == null || uri.host().isEmpty() || uri.port() < 0) {
            throw new IllegalArgumentException(uri.scheme() + ":// URI '" + uri + "' must have a host and a port, e.g. "
                    + uri.scheme() + (isWebSocket(uri) ? "://127.0.0.1:61614/stomp" : "://127.0.0.1:61613"));
        }
    }

    public static SocketAddress address(CompositeUri uri) {
        checkScheme(uri);
        if (isLocal(uri)) {
            return new LocalAddress(uri.host());
        }
        return new InetSocketAddress(uri.host(), uri.port());
    }

    /**
     * Binds a listener; the returned channel's local address tells the bound port. For {@code vm://}, {@code workers}
     * (null: the shared group) must be from {@link #newEventLoopGroup}.
     */
    public static ChannelFuture bind(CompositeUri uri, EventLoopGroup boss, EventLoopGroup workers,
                                     ChannelInitializer<Channel> initializer) {
        checkScheme(uri);
        ServerBootstrap b = new ServerBootstrap();
        if (isLocal(uri)) {
            // The broker's end of each connection runs on the client's loop (PeerLoopGroup), else on workers.
            EventLoopGroup children = workers == null ? ioGroup() : workers;
            b.group(children, new PeerLoopGroup(children)).channel(LocalServerChannel.class);
        } else {
            b.group(boss, workers).channel(runsEpoll(boss) && runsEpoll(workers)
                            ? io.netty.channel.epoll.EpollServerSocketChannel.class : NioServerSocketChannel.class)
                    .option(ChannelOption.SO_BACKLOG, 1024)
                    .option(ChannelOption.SO_REUSEADDR, true)
                    .childOption(ChannelOption.TCP_NODELAY, true)
                    .childOption(ChannelOption.SO_KEEPALIVE, true);
        }
        b.childOption(ChannelOption.WRITE_BUFFER_WATER_MARK, WATER_MARK);
        b.childHandler(initializer);
        return b.bind(address(uri));
    }

    /**
     * Opens a client connection on {@code group} (null: the shared group; for {@code vm://} it must be from
     * {@link #newEventLoopGroup}). A single loop as the group keeps connections that pass frames to each other on
     * one thread.
     */
    public static ChannelFuture connect(CompositeUri uri, EventLoopGroup group, Duration connectTimeout,
                                        ChannelInitializer<Channel> initializer) {
        checkScheme(uri);
        Bootstrap b = new Bootstrap();
        LocalAddress from = null;
        if (isLocal(uri)) {
            b.group(group == null ? ioGroup() : group).channel(LocalChannel.class);
            from = new LocalAddress("fedbridge-vm-client-" + CLIENTS.incrementAndGet());
        } else {
            EventLoopGroup g = group == null ? ioGroup() : group;
            b.group(g).channel(runsEpoll(g) ? io.netty.channel.epoll.EpollSocketChannel.class : NioSocketChannel.class)
                    .option(ChannelOption.TCP_NODELAY, true)
                    .option(ChannelOption.SO_KEEPALIVE, true);
        }
        b.option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) Math.min(Integer.MAX_VALUE, connectTimeout.toMillis()))
                .option(ChannelOption.WRITE_BUFFER_WATER_MARK, WATER_MARK)
                .handler(initializer);
        if (from == null) {
            return b.connect(address(uri));
        }
        LocalAddress self = from;
        b.handler(new ChannelInitializer<Channel>() {
            @Override
            protected void initChannel(Channel ch) {
                PeerLoopGroup.announce(self, ch); // before connecting: the broker's end is registered on this loop
                ch.pipeline().addLast(initializer);
            }
        });
        return b.connect(address(uri), self);
    }

    /** The URI a client should use to reach a bound listener (port 0 resolved to the real port; a WebSocket's path). */
    public static String boundUri(CompositeUri requested, Channel serverChannel) {
        if (isLocal(requested)) {
            return "vm://" + requested.host();
        }
        InetSocketAddress a = (InetSocketAddress) serverChannel.localAddress();
        return requested.scheme() + "://" + uriHost(requested.host()) + ":" + a.getPort()
                + (isWebSocket(requested) ? WebSockets.path(requested) : "");
    }

    /** {@code tcp://IP:PORT} for a socket address (its IP, not a name). */
    public static String tcpUri(InetSocketAddress a) {
        return "tcp://" + uriHost(a.getAddress().getHostAddress()) + ":" + a.getPort();
    }

    /** A host as it goes into a URI: an IPv6 address in brackets. */
    static String uriHost(String host) {
        return host.contains(":") && !host.startsWith("[") ? "[" + host + "]" : host;
    }
}
