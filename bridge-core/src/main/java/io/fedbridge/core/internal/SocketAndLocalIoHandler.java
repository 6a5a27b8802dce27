package io.fedbridge.core.internal;

import io.netty.channel.IoHandle;
import io.netty.channel.IoHandler;
import io.netty.channel.IoHandlerContext;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.IoOps;
import io.netty.channel.IoRegistration;
import io.netty.channel.local.LocalIoHandle;
import io.netty.channel.nio.NioIoHandler;
import io.netty.util.concurrent.ThreadAwareExecutor;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A socket event loop (epoll or NIO) that also runs {@code vm://} ({@link io.netty.channel.local.LocalChannel})
 * connections. Netty
 * keeps the two on separate loops, so a bridge inside a broker crossed threads three times per message: from the
 * broker's socket loop to the loop of its in-JVM connection, from there to the loop of its socket to the peer, and
 * back for the peer's receipt. On one loop each crossing is a method call, without the wake-up (a futex or an
 * eventfd write and a context switch) that made most of a forward's CPU at low rates and, on a busy machine, its
 * tail latency.
 *
 * <p>Sockets are handled by the socket handler ({@code EpollIoHandler} or {@link NioIoHandler}), which also does the
 * blocking and the wake-ups; a local channel needs neither, only to be told when it is registered and unregistered, as
 * Netty's own local handler does.
 */
final class SocketAndLocalIoHandler implements IoHandler {

    private final IoHandler sockets;
    private final ThreadAwareExecutor executor;
    private final Set<LocalIoHandle> locals = new HashSet<>();

    private SocketAndLocalIoHandler(IoHandler sockets, ThreadAwareExecutor executor) {
        this.sockets = sockets;
        this.executor = executor;
    }

    /** Loops whose sockets run on {@code socketHandlers}' handlers. */
    static IoHandlerFactory newFactory(IoHandlerFactory socketHandlers) {
        return executor -> new SocketAndLocalIoHandler(socketHandlers.newHandler(executor), executor);
    }

    @Override
    public void initialize() {
        sockets.initialize();
    }

    @Override
    public int run(IoHandlerContext context) {
        return sockets.run(context);
    }

    @Override
    public void wakeup() {
        sockets.wakeup();
    }

    @Override
    public void prepareToDestroy() {
        closeLocals();
        sockets.prepareToDestroy();
    }

    /** Also here: a loop that sees its shutdown only when confirming it ends without calling prepareToDestroy. */
    @Override
    public void destroy() {
        closeLocals();
        sockets.destroy();
    }

    private void closeLocals() {
        // a copy: closing a channel may unregister it at once, from this set
        for (LocalIoHandle h : new java.util.ArrayList<>(locals)) {
            h.closeNow();
        }
        locals.clear();
    }

    @Override
    public IoRegistration register(IoHandle handle) throws Exception {
        if (!(handle instanceof LocalIoHandle local)) {
            return sockets.register(handle);
        }
        if (!locals.add(local)) {
            throw new IllegalStateException("local channel registered twice: " + handle);
        }
        LocalRegistration r = new LocalRegistration(local);
        local.registered();
        return r;
    }

    @Override
    public boolean isCompatible(Class<? extends IoHandle> handleType) {
        return LocalIoHandle.class.isAssignableFrom(handleType) || sockets.isCompatible(handleType);
    }

    private final class LocalRegistration implements IoRegistration {
        private final AtomicBoolean cancelled = new AtomicBoolean();
        private final LocalIoHandle handle;

        LocalRegistration(LocalIoHandle handle) {
            this.handle = handle;
        }

        @Override
        public <T> T attachment() {
            return null;
        }

        @Override
        public long submit(IoOps ops) {
            throw new UnsupportedOperationException("a local channel has no I/O operations to submit");
        }

        @Override
        public boolean isValid() {
            return !cancelled.get();
        }

        @Override
        public boolean cancel() {
            if (cancelled.getAndSet(true)) {
                return false;
            }
            if (executor.isExecutorThread(Thread.currentThread())) {
                unregister();
            } else {
                executor.execute(this::unregister);
            }
            return true;
        }

        private void unregister() {
            if (locals.remove(handle)) {
                handle.unregistered();
            }
        }
    }
}
