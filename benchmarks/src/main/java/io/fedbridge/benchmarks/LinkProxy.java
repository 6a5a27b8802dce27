package io.fedbridge.benchmarks;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A TCP proxy on {@code 127.0.0.1:0} in front of one broker port, through which the soak routes a bridge so it can
 * break the link without touching either broker: {@link #cut()} resets every connection (RST on both sides),
 * {@link #stall(boolean)} stops relaying with the sockets open (a partition: no bytes, no heart-beats, no close).
 * The target may be down (killed) and come back on the same port: a connection attempt while it is down is reset.
 *
 * <p>The broker test suite has its own, fuller {@code FaultProxy}; this one lives in the benchmark jar so the
 * {@code soak} command can run without test classes. Thread-safe; two daemon threads per open connection.
 */
final class LinkProxy implements AutoCloseable {

    private final ServerSocket server;
    /** The broker's port; 0 until it is known (connections are reset meanwhile). */
    private volatile int targetPort;
    private final String name;
    private final Set<Socket[]> open = ConcurrentHashMap.newKeySet();
    private final Object gate = new Object();
    private boolean stalled;
    private volatile boolean closed;

    private LinkProxy(String name, ServerSocket server) {
        this.name = name;
        this.server = server;
    }

    /** A proxy whose target is not known yet: it resets every connection until {@link #target(int)} names it. */
    static LinkProxy start(String name) throws IOException {
        ServerSocket s = new ServerSocket();
        s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 50);
        LinkProxy p = new LinkProxy(name, s);
        Thread t = new Thread(p::accept, "link-proxy-" + name);
        t.setDaemon(true);
        t.start();
        return p;
    }

    String uri() {
        return "tcp://127.0.0.1:" + server.getLocalPort();
    }

    /** Relays new connections to {@code port} of 127.0.0.1. */
    void target(int port) {
        this.targetPort = port;
    }

    String name() {
        return name;
    }

    /** Resets every open connection; returns how many there were. */
    int cut() {
        List<Socket[]> now = List.copyOf(open);
        now.forEach(this::reset);
        return now.size();
    }

    /** true: relay nothing (sockets stay open, new connections too); false: relay again, held bytes first. */
    void stall(boolean on) {
        synchronized (gate) {
            stalled = on;
            gate.notifyAll();
        }
    }

    @Override
    public void close() {
        closed = true;
        try {
            server.close();
        } catch (IOException e) {
            // closing anyway
        }
        stall(false);
        cut();
    }

    private void accept() {
        while (!closed) {
            Socket in;
            try {
                in = server.accept();
            } catch (IOException e) {
                return;
            }
            Socket out = new Socket();
            Socket[] pair = {in, out};
            try {
                in.setTcpNoDelay(true);
                out.setTcpNoDelay(true);
                int port = targetPort;
                if (port == 0) {
                    throw new IOException("target not known yet");
                }
                out.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 2_000);
            } catch (IOException e) {
                reset(pair); // the broker is down: the bridge sees a reset and retries
                continue;
            }
            open.add(pair);
            pump(pair, in, out, "up");
            pump(pair, out, in, "down");
        }
    }

    private void pump(Socket[] pair, Socket from, Socket to, String direction) {
        Thread t = new Thread(() -> {
            byte[] buf = new byte[16 * 1024];
            try {
                InputStream r = from.getInputStream();
                OutputStream w = to.getOutputStream();
                int n;
                while ((n = r.read(buf)) >= 0) {
                    awaitFlowing();
                    w.write(buf, 0, n);
                }
            } catch (IOException e) {
                // a reset on one side
            }
            awaitFlowing();
            reset(pair);
        }, "link-proxy-" + name + "-" + direction);
        t.setDaemon(true);
        t.start();
    }

    private void awaitFlowing() {
        synchronized (gate) {
            while (stalled && !closed) {
                try {
                    gate.wait();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    private void reset(Socket[] pair) {
        open.remove(pair);
        for (Socket s : pair) {
            try {
                if (!s.isClosed()) {
                    s.setSoLinger(true, 0);
                }
            } catch (IOException e) {
                // not connected
            }
            try {
                s.close();
            } catch (IOException e) {
                // nothing more to do
            }
        }
    }

    @Override
    public String toString() {
        return "LinkProxy[" + name + " " + uri() + " -> " + targetPort + "]";
    }
}
