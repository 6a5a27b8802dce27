package io.fedbridge.benchmarks;

import io.fedbridge.core.AckMode;
import io.fedbridge.core.ClientConfig;
import io.fedbridge.core.uri.CompositeUri;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A STOMP 1.2 client on a blocking socket that writes each frame with one {@code write(2)} and no buffering across
 * frames, as most third-party clients do (stomp.py's {@code sendall} per frame, stomp.js's one WebSocket message per
 * frame, a JMS producer sending one message at a time). A broker driven by it reads about one frame per wake-up.
 *
 * <p>Thread-safety: writes are serialized on this object (each frame whole); one daemon thread per connection reads
 * frames and runs subscription listeners, completes receipts and ends everything on ERROR or EOF. Plain
 * {@code tcp://} only, with the URI's {@code login} and {@code passcode}; heart-beats off.
 */
final class PerFrameConnection implements LoadConnection {

    private static final byte[] EMPTY = new byte[0];

    private final Socket socket;
    private final OutputStream out;
    private final InputStream in;
    private final Map<String, CompletableFuture<Void>> receipts = new ConcurrentHashMap<>();
    private final Map<String, Subscriber> subscriptions = new ConcurrentHashMap<>();
    private final AtomicLong ids = new AtomicLong();
    private final String server;
    private volatile Throwable failure;

    private record Subscriber(boolean acks, Listener listener) {
    }

    private PerFrameConnection(Socket socket, String host, String login, String passcode) throws IOException {
        this.socket = socket;
        this.out = socket.getOutputStream();
        this.in = socket.getInputStream();
        StringBuilder connect = new StringBuilder("CONNECT\naccept-version:1.2\nhost:").append(host).append("\nheart-beat:0,0\n");
        if (login != null) {
            connect.append("login:").append(login).append("\npasscode:").append(passcode == null ? "" : passcode).append('\n');
        }
        write(frame(connect.append('\n'), EMPTY));
        Frame connected = readFrame();
        if (!connected.command.equals("CONNECTED")) {
            throw new IOException("expected CONNECTED, but got " + connected.command + " " + connected.headers);
        }
        this.server = connected.headers.getOrDefault("server", "?");
        Thread reader = new Thread(this::readLoop, "per-frame-reader-" + socket.getLocalPort());
        reader.setDaemon(true);
        reader.start();
    }

    static PerFrameConnection connect(String uri) {
        ClientConfig config = ClientConfig.fromUri(uri);
        CompositeUri u = config.uri();
        if (!u.scheme().equals("tcp")) {
            throw new IllegalArgumentException("the per-frame client mode needs a tcp:// URI, but was " + u);
        }
        try {
            Socket s = new Socket();
            s.setTcpNoDelay(true);
            s.connect(new InetSocketAddress(u.host(), u.port()), 10_000);
            return new PerFrameConnection(s, config.host() != null ? config.host() : u.host(), config.login(), config.passcode());
        } catch (IOException e) {
            throw new BenchmarkException("per-frame client could not connect to " + u + ": " + e, e);
        }
    }

    @Override
    public void sendWithoutReceipt(String destination, byte[] body, boolean persistent) {
        write(frame(sendHeaders(destination, persistent, body).append('\n'), body));
    }

    @Override
    public CompletableFuture<Void> send(String destination, byte[] body, boolean persistent) {
        String r = Long.toString(ids.incrementAndGet());
        CompletableFuture<Void> f = new CompletableFuture<>();
        receipts.put(r, f);
        write(frame(sendHeaders(destination, persistent, body).append("receipt:").append(r).append("\n\n"), body));
        Throwable e = failure;
        if (e != null) {
            f.completeExceptionally(e);
        }
        return f;
    }

    /**
     * A non-persistent SEND carries no {@code persistent} header, as third-party clients send it (and every broker's
     * default): RabbitMQ's STOMP plugin would take {@code persistent:false} to mean a non-durable queue and refuse it.
     */
    private static StringBuilder sendHeaders(String destination, boolean persistent, byte[] body) {
        return new StringBuilder(96).append("SEND\ndestination:").append(destination).append(persistent ? "\npersistent:true" : "")
                .append("\ncontent-length:").append(body.length).append('\n');
    }

    @Override
    public Runnable subscribe(String destination, AckMode ack, int prefetch, Listener listener) {
        String id = "sub-" + ids.incrementAndGet();
        subscriptions.put(id, new Subscriber(ack != AckMode.AUTO, listener));
        request("SUBSCRIBE to " + destination, new StringBuilder("SUBSCRIBE\nid:").append(id).append("\ndestination:")
                .append(destination).append("\nack:").append(ack.wireValue()).append("\nprefetch-size:").append(prefetch)
                .append(LoadConnection.ACTIVEMQ_PREFETCH.get() ? "\nactivemq.prefetchSize:" + prefetch : "").append('\n'));
        return () -> {
            request("UNSUBSCRIBE of " + destination, new StringBuilder("UNSUBSCRIBE\nid:").append(id).append('\n'));
            subscriptions.remove(id);
        };
    }

    /** Writes a frame ({@code head} without its blank line) with a receipt and waits for it. */
    private void request(String what, StringBuilder head) {
        String r = "r-" + ids.incrementAndGet();
        CompletableFuture<Void> f = new CompletableFuture<>();
        receipts.put(r, f);
        write(frame(head.append("receipt:").append(r).append("\n\n"), EMPTY));
        LoadConnection.awaitReceipt(what, f);
    }

    @Override
    public String server() {
        return server;
    }

    @Override
    public void close() {
        try {
            write(frame(new StringBuilder("DISCONNECT\n\n"), EMPTY));
        } catch (BenchmarkException e) {
            // already gone
        }
        try {
            socket.close();
        } catch (IOException e) {
            // closing anyway
        }
    }

    private static byte[] frame(CharSequence head, byte[] body) {
        byte[] h = head.toString().getBytes(StandardCharsets.UTF_8);
        byte[] f = new byte[h.length + body.length + 1];
        System.arraycopy(h, 0, f, 0, h.length);
        System.arraycopy(body, 0, f, h.length, body.length);
        return f; // last byte 0: the frame's NUL
    }

    /** One frame, one write(2): the socket stream is unbuffered. */
    private synchronized void write(byte[] frame) {
        try {
            out.write(frame);
        } catch (IOException e) {
            throw new BenchmarkException("per-frame client: write failed: " + e, e);
        }
    }

    // ---------------------------------------------------------------- reading

    private record Frame(String command, Map<String, String> headers, byte[] body) {
    }

    private void readLoop() {
        try {
            while (true) {
                Frame f = readFrame();
                switch (f.command) {
                    case "MESSAGE" -> {
                        Subscriber s = subscriptions.get(f.headers.get("subscription"));
                        if (s != null) {
                            String ackId = f.headers.get("ack");
                            s.listener.onMessage(f.body, s.acks && ackId != null ? () -> ack(ackId) : () -> { });
                        }
                    }
                    case "RECEIPT" -> {
                        CompletableFuture<Void> r = receipts.remove(f.headers.get("receipt-id"));
                        if (r != null) {
                            r.complete(null);
                        }
                    }
                    case "ERROR" -> throw new IOException("ERROR from the broker: " + f.headers.get("message"));
                    default -> {
                        // heart-beats are off; nothing else is expected
                    }
                }
            }
        } catch (IOException | RuntimeException e) {
            failure = e;
            receipts.values().forEach(r -> r.completeExceptionally(e));
            receipts.clear();
        }
    }

    private void ack(String id) {
        write(frame(new StringBuilder("ACK\nid:").append(id).append("\n\n"), EMPTY));
    }

    private Frame readFrame() throws IOException {
        String command;
        do {
            command = readLine();
        } while (command.isEmpty()); // EOLs between frames
        Map<String, String> headers = new HashMap<>();
        String line;
        while (!(line = readLine()).isEmpty()) {
            int colon = line.indexOf(':');
            headers.putIfAbsent(line.substring(0, colon), line.substring(colon + 1)); // values unescaped: none needed here
        }
        String length = headers.get("content-length");
        byte[] body;
        if (length != null) {
            body = new byte[Integer.parseInt(length)];
            for (int off = 0; off < body.length; ) {
                if (pos == limit) {
                    fill();
                }
                int n = Math.min(body.length - off, limit - pos);
                System.arraycopy(buf, pos, body, off, n);
                pos += n;
                off += n;
            }
            if (read() != 0) {
                throw new IOException("frame " + command + " does not end with NUL after its content-length");
            }
        } else {
            ByteArrayOutputStream b = new ByteArrayOutputStream();
            int c;
            while ((c = read()) != 0) {
                b.write(c);
            }
            body = b.toByteArray();
        }
        return new Frame(command, headers, body);
    }

    private final StringBuilder line = new StringBuilder();

    private String readLine() throws IOException {
        line.setLength(0);
        int c;
        while ((c = read()) != '\n') {
            if (c != '\r') {
                line.append((char) c); // headers used here are ASCII
            }
        }
        return line.toString();
    }

    /** The reading thread's own buffer: no lock per byte, as a buffered stream would take. */
    private final byte[] buf = new byte[64 * 1024];
    private int pos;
    private int limit;

    private int read() throws IOException {
        if (pos == limit) {
            fill();
        }
        return buf[pos++] & 0xff;
    }

    private void fill() throws IOException {
        int n = in.read(buf, 0, buf.length);
        if (n < 0) {
            throw new EOFException("connection closed by the broker");
        }
        pos = 0;
        limit = n;
    }
}
