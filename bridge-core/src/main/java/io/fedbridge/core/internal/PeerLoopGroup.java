package io.fedbridge.core.internal;

import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelPromise;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.local.LocalAddress;
import io.netty.util.concurrent.AbstractEventExecutorGroup;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.Future;
import java.net.SocketAddress;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The child group of {@code vm://} listeners: registers the broker's end of a local connection on the event loop
 * of the client's end, so a frame crossing the connection is a method call on one thread instead of a task
 * handed to another (a wake-up each way, on every frame, between a broker and its own bridge). Clients that
 * {@link Transports#connect} announce their loop under the local address they connect from; any other client
 * gets the next loop of the shared group. Everything else is delegated to that group.
 */
final class PeerLoopGroup extends AbstractEventExecutorGroup implements EventLoopGroup {

    private static final Map<SocketAddress, EventLoop> CLIENT_LOOPS = new ConcurrentHashMap<>();

    private final EventLoopGroup delegate;

    PeerLoopGroup(EventLoopGroup delegate) {
        this.delegate = delegate;
    }

    /** Client side: the connection from {@code address} runs on {@code ch}'s loop; forgotten when it closes. */
    static void announce(LocalAddress address, Channel ch) {
        CLIENT_LOOPS.put(address, ch.eventLoop());
        ch.closeFuture().addListener(f -> CLIENT_LOOPS.remove(address));
    }

    private EventLoop loopFor(Channel child) {
        SocketAddress peer = child.remoteAddress();
        EventLoop loop = peer == null ? null : CLIENT_LOOPS.get(peer);
        return loop != null ? loop : delegate.next();
    }

    @Override
    public ChannelFuture register(Channel channel) {
        return loopFor(channel).register(channel);
    }

    @Override
    public ChannelFuture register(ChannelPromise promise) {
        return loopFor(promise.channel()).register(promise);
    }

    @Override
    @Deprecated
    public ChannelFuture register(Channel channel, ChannelPromise promise) {
        return loopFor(channel).register(promise);
    }

    @Override
    public EventLoop next() {
        return delegate.next();
    }

    @Override
    public Iterator<EventExecutor> iterator() {
        return delegate.iterator();
    }

    @Override
    public boolean isShuttingDown() {
        return delegate.isShuttingDown();
    }

    @Override
    public Future<?> shutdownGracefully(long quietPeriod, long timeout, TimeUnit unit) {
        return delegate.shutdownGracefully(quietPeriod, timeout, unit);
    }

    @Override
    public Future<?> terminationFuture() {
        return delegate.terminationFuture();
    }

    @Override
    @Deprecated
    public void shutdown() {
        delegate.shutdown();
    }

    @Override
    @Deprecated
    public List<Runnable> shutdownNow() {
        return delegate.shutdownNow();
    }

    @Override
    public boolean isShutdown() {
        return delegate.isShutdown();
    }

    @Override
    public boolean isTerminated() {
        return delegate.isTerminated();
    }

    @Override
    public boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
        return delegate.awaitTermination(timeout, unit);
    }
}
