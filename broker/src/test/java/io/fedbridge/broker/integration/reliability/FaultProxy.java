package io.fedbridge.broker.integration.reliability;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A TCP proxy on {@code 127.0.0.1:0} in front of one target, for injecting link faults between a bridge and its
 * peer. Every accepted connection gets its own connection to the target and two relay threads (one per
 * direction).
 *
 * <ul>
 *   <li>{@link #cutAll()} resets every connection on both sides (SO_LINGER 0, then close: an RST, not a FIN).</li>
 *   <li>{@link #stall()} stops relaying in both directions while every socket stays open, as a partition would:
 *       no data and no heart-beats pass, not even a close; {@link #resume()} relays again, the held bytes first.
 *       Connections accepted while stalled are stalled too.</li>
 *   <li>{@link #refuseNew(boolean)} resets connections as soon as they are accepted.</li>
 * </ul>
 *
 * <pre>{@code
 * try (FaultProxy proxy = FaultProxy.start("tcp://127.0.0.1:61613")) {
 *     broker.addNetworkConnector("static:(" + proxy.uri() + ")");
 *     proxy.cutAll();
 * }
 * }</pre>
 *
 * Thread-safe; nothing in it sleeps. {@link #close()} resets every connection and joins the accept thread.
 */
public final class FaultProxy implements AutoCloseable {

    private static final int BUFFER = 16 * 1024;
    private static final AtomicInteger IDS = new AtomicInteger();

    private final ServerSocket server;
    private final InetSocketAddress target;
    private final String name;
    private final Set<Link> links = ConcurrentHashMap.newKeySet();
    private final Thread acceptor;
    /** Guards {@link #stalled}; relay threads wait on it while stalled. */
    private final Object gate = new Object();
    private boolean stalled;
    private volatile boolean refuseNew;
    private volatile boolean closed;
    private final AtomicInteger accepted = new AtomicInteger();
    private final AtomicInteger refused = new AtomicInteger();
    private final AtomicInteger cut = new AtomicInteger();
    private final AtomicLong bytesRelayed = new AtomicLong();

    private FaultProxy(ServerSocket server, InetSocketAddress target) {
        this.server = server;
        this.target = target;
        this.name = "fault-proxy-" + IDS.incrementAndGet();
        this.acceptor = new Thread(this::acceptLoop, name + "-accept");
        this.acceptor.setDaemon(true);
    }

    /** Starts a proxy to {@code targetUri} ({@code tcp://host:port}), listening on an ephemeral port of 127.0.0.1. */
    public static FaultProxy start(String targetUri) throws IOException {
        URI u = URI.create(targetUri);
        if (u.getHost() == null || u.getPort() < 0) {
            throw new IllegalArgumentException("targetUri must be tcp://host:port, but was '" + targetUri + "'");
        }
        ServerSocket s = new ServerSocket();
        s.setReuseAddress(true);
        s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 50);
        FaultProxy p = new FaultProxy(s, new InetSocketAddress(u.getHost(), u.getPort()));
        p.acceptor.start();
        return p;
    }

    /** {@code tcp://127.0.0.1:PORT}, for a network connector or client. */
    public String uri() {
        return "tcp://127.0.0.1:" + server.getLocalPort();
    }

    /** Resets every open connection on both sides; returns how many there were. */
    public int cutAll() {
        List<Link> now = new ArrayList<>(links);
        for (Link l : now) {
            l.reset();
        }
        cut.addAndGet(now.size());
        return now.size();
    }

    /** Stops relaying bytes in both directions, on every connection, current and new; sockets stay open. */
    public void stall() {
        synchronized (gate) {
            stalled = true;
        }
    }

    /** Relays again after {@link #stall()}, the bytes held meanwhile first. */
    public void resume() {
        synchronized (gate) {
            stalled = false;
            gate.notifyAll();
        }
    }

    public boolean isStalled() {
        synchronized (gate) {
            return stalled;
        }
    }

    /** While true, every new connection is reset as soon as it is accepted. */
    public void refuseNew(boolean refuse) {
        this.refuseNew = refuse;
    }

    /** Connections accepted and relayed so far (not counting refused ones). */
    public int acceptedConnections() {
        return accepted.get();
    }

    /** Connections open now. */
    public int activeConnections() {
        return links.size();
    }

    public int refusedConnections() {
        return refused.get();
    }

    /** Connections reset by {@link #cutAll()}. */
    public int cutConnections() {
        return cut.get();
    }

    long bytesRelayed() {
        return bytesRelayed.get();
    }

    @Override
    public void close() throws InterruptedException {
        closed = true;
        try {
            server.close();
        } catch (IOException e) {
            // closing anyway
        }
        for (Link l : new ArrayList<>(links)) {
            l.reset();
        }
        synchronized (gate) {
            gate.notifyAll();
        }
        acceptor.join(10_000);
    }

    @Override
    public String toString() {
        return name + "[" + uri() + " -> " + target + ", " + links.size() + " open" + (isStalled() ? ", stalled" : "") + "]";
    }

    private void acceptLoop() {
        while (!closed) {
            Socket client;
            try {
                client = server.accept();
            } catch (IOException e) {
                return; // closed
            }
            if (refuseNew || closed) {
                refused.incrementAndGet();
                resetQuietly(client);
                continue;
            }
            Socket upstream = new Socket();
            try {
                client.setTcpNoDelay(true);
                upstream.setTcpNoDelay(true);
                upstream.connect(target, 5_000);
            } catch (IOException e) {
                // The target is down: the client sees a reset, as it would connecting to the target itself.
                refused.incrementAndGet();
                resetQuietly(client);
                resetQuietly(upstream);
                continue;
            }
            accepted.incrementAndGet();
            Link l = new Link(client, upstream);
            links.add(l);
            l.start();
        }
    }

    /** Blocks while stalled; false once the link should stop. */
    private boolean awaitFlowing(Link l) {
        synchronized (gate) {
            while (stalled && !l.closed && !closed) {
                try {
                    gate.wait();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return false;
                }
            }
            return !l.closed;
        }
    }

    private static void resetQuietly(Socket s) {
        try {
            if (!s.isClosed()) {
                s.setSoLinger(true, 0);
            }
        } catch (SocketException e) {
            // not connected: close is all there is to do
        }
        try {
            s.close();
        } catch (IOException e) {
            // nothing more to do
        }
    }

    /** One proxied connection: client socket, target socket, a relay thread per direction. */
    private final class Link {
        final Socket client;
        final Socket upstream;
        final AtomicInteger finished = new AtomicInteger();
        volatile boolean closed;

        Link(Socket client, Socket upstream) {
            this.client = client;
            this.upstream = upstream;
        }

        void start() {
            int id = accepted.get();
            Thread up = new Thread(() -> relay(client, upstream), name + "-" + id + "-up");
            Thread down = new Thread(() -> relay(upstream, client), name + "-" + id + "-down");
            up.setDaemon(true);
            down.setDaemon(true);
            up.start();
            down.start();
        }

        private void relay(Socket from, Socket to) {
            byte[] buf = new byte[BUFFER];
            try {
                InputStream in = from.getInputStream();
                OutputStream out = to.getOutputStream();
                while (awaitFlowing(this)) {
                    int n = in.read(buf);
                    if (!awaitFlowing(this)) {
                        return;
                    }
                    if (n < 0) {
                        // An orderly close (FIN) passes on as one; the link ends when both directions have.
                        to.shutdownOutput();
                        if (finished.incrementAndGet() == 2) {
                            close();
                        }
                        return;
                    }
                    out.write(buf, 0, n);
                    out.flush();
                    bytesRelayed.addAndGet(n);
                }
            } catch (IOException e) {
                // A reset (or a cut) on one side becomes a reset on the other, once bytes flow again.
                awaitFlowing(this);
                reset();
            }
        }

        void reset() {
            closed = true;
            links.remove(this);
            resetQuietly(client);
            resetQuietly(upstream);
            synchronized (gate) {
                gate.notifyAll();
            }
        }

        void close() {
            closed = true;
            links.remove(this);
            try {
                client.close();
            } catch (IOException e) {
                // nothing more to do
            }
            try {
                upstream.close();
            } catch (IOException e) {
                // nothing more to do
            }
        }
    }
}
