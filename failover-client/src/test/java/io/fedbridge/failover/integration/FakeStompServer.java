package io.fedbridge.failover.integration;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;

/**
 * A scripted STOMP 1.2 server on real TCP (port 0), one blocking thread per connection, for what a real broker will
 * not do on demand: withhold receipts, mark them duplicate, drop a connection on a given frame, announce cluster URIs,
 * push frames. It records every frame it receives. It offers no heart-beats.
 */
final class FakeStompServer implements AutoCloseable {

    /** A frame as received. */
    record Frame(String command, Map<String, String> headers, String body, Session session) {
        String header(String name) {
            return headers.get(name);
        }
    }

    private final ServerSocket server;
    private final List<Session> sessions = new CopyOnWriteArrayList<>();
    private final BlockingQueue<Frame> received = new LinkedBlockingQueue<>();
    /** Guarded by itself (a copy-on-write list made a test of 20,000 ACKs quadratic). */
    private final List<Frame> all = new ArrayList<>();
    private final AtomicInteger accepted = new AtomicInteger();
    private final Thread acceptor;
    private volatile boolean closed;

    /** Extra headers of every CONNECTED frame. */
    volatile Map<String, String> connectedHeaders = Map.of();
    /** Answer SEND frames that ask for a receipt. */
    volatile boolean receiptSends = true;
    /** Mark SEND receipts with {@code fedbridge-duplicate:true}. */
    volatile boolean duplicateReceipts;
    /** Answer a matching frame with an ERROR (with the frame's receipt as {@code receipt-id}, if any), then close. */
    volatile Predicate<Frame> errorOn = f -> false;
    /** Close the connection (without an answer) when a frame matches. */
    volatile Predicate<Frame> dropOn = f -> false;

    private final String scheme;

    private FakeStompServer(ServerSocket server, String scheme) {
        this.server = server;
        this.scheme = scheme;
        this.acceptor = new Thread(this::acceptLoop, "fake-stomp-" + server.getLocalPort());
        acceptor.setDaemon(true);
        acceptor.start();
    }

    static FakeStompServer start() throws IOException {
        return start(0);
    }

    static FakeStompServer start(int port) throws IOException {
        ServerSocket s = new ServerSocket();
        s.setReuseAddress(true);
        s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
        return new FakeStompServer(s, "tcp");
    }

    /** A fake broker behind TLS with {@code context}'s key, at {@code ssl://127.0.0.1:PORT}. */
    static FakeStompServer startTls(javax.net.ssl.SSLContext context) throws IOException {
        ServerSocket s = context.getServerSocketFactory().createServerSocket();
        s.setReuseAddress(true);
        s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        return new FakeStompServer(s, "ssl");
    }

    String uri() {
        return scheme + "://127.0.0.1:" + server.getLocalPort();
    }

    int port() {
        return server.getLocalPort();
    }

    int acceptedConnections() {
        return accepted.get();
    }

    List<Session> sessions() {
        return List.copyOf(sessions);
    }

    List<Session> openSessions() {
        return sessions.stream().filter(s -> !s.socket.isClosed()).toList();
    }

    /** Every frame received so far, in arrival order. */
    List<Frame> frames() {
        synchronized (all) {
            return List.copyOf(all);
        }
    }

    List<Frame> frames(String command) {
        synchronized (all) {
            return all.stream().filter(f -> f.command().equals(command)).toList();
        }
    }

    /** The next frame received with {@code command}, waiting up to {@code timeout}; null if none came. */
    Frame next(String command, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            long left = deadline - System.nanoTime();
            Frame f = received.poll(Math.max(0, left), TimeUnit.NANOSECONDS);
            if (f == null || f.command().equals(command)) {
                return f;
            }
        }
    }

    /** Closes every connection abruptly, as a crashed broker's would; keeps listening. */
    void dropConnections() {
        for (Session s : sessions) {
            s.close();
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
        dropConnections();
    }

    private void acceptLoop() {
        while (!closed) {
            try {
                Socket socket = server.accept();
                socket.setTcpNoDelay(true);
                accepted.incrementAndGet();
                Session s = new Session(socket);
                sessions.add(s);
                Thread t = new Thread(s::readLoop, "fake-stomp-session-" + socket.getPort());
                t.setDaemon(true);
                t.start();
            } catch (IOException e) {
                return;
            }
        }
    }

    /** One client connection. */
    final class Session {
        private final Socket socket;
        private final OutputStream out;
        private final AtomicInteger messageIds = new AtomicInteger();
        volatile Map<String, String> connectHeaders;

        Session(Socket socket) throws IOException {
            this.socket = socket;
            this.out = socket.getOutputStream();
        }

        boolean isOpen() {
            return !socket.isClosed();
        }

        void close() {
            try {
                socket.close();
            } catch (IOException e) {
                // already closed
            }
        }

        /** Writes a frame to the client. */
        synchronized void write(String command, Map<String, String> headers, String body) {
            boolean escape = !command.equals("CONNECTED");
            StringBuilder sb = new StringBuilder(command).append('\n');
            headers.forEach((k, v) -> sb.append(escape ? esc(k) : k).append(':').append(escape ? esc(v) : v).append('\n'));
            byte[] b = body == null ? new byte[0] : body.getBytes(StandardCharsets.UTF_8);
            if (b.length > 0) {
                sb.append("content-length:").append(b.length).append('\n');
            }
            sb.append('\n');
            ByteArrayOutputStream frame = new ByteArrayOutputStream(sb.length() + b.length + 1);
            frame.writeBytes(sb.toString().getBytes(StandardCharsets.UTF_8));
            frame.writeBytes(b);
            frame.write(0);
            try {
                out.write(frame.toByteArray());
                out.flush();
            } catch (IOException e) {
                close();
            }
        }

        /** Pushes a MESSAGE to the client's subscription {@code subscriptionId}. */
        void message(String subscriptionId, String destination, Map<String, String> headers, String body) {
            Map<String, String> h = new LinkedHashMap<>();
            String id = "fake-" + port() + "-" + messageIds.incrementAndGet();
            h.put("subscription", subscriptionId);
            h.put("destination", destination);
            h.put("message-id", id);
            h.put("ack", id);
            h.putAll(headers);
            write("MESSAGE", h, body);
        }

        private void readLoop() {
            try (InputStream in = new BufferedInputStream(socket.getInputStream())) {
                while (true) {
                    Frame f = readFrame(in);
                    if (f == null) {
                        return;
                    }
                    synchronized (all) {
                        all.add(f);
                    }
                    received.add(f);
                    if (dropOn.test(f)) {
                        close();
                        return;
                    }
                    answer(f);
                    if (f.command().equals("DISCONNECT")) {
                        close();
                        return;
                    }
                }
            } catch (IOException e) {
                // connection gone
            } finally {
                close();
            }
        }

        private void answer(Frame f) {
            String receipt = f.header("receipt");
            if (errorOn.test(f)) {
                Map<String, String> h = new LinkedHashMap<>();
                h.put("message", "refused " + f.command());
                if (receipt != null) {
                    h.put("receipt-id", receipt);
                }
                write("ERROR", h, null);
                close();
                return;
            }
            switch (f.command()) {
                case "CONNECT", "STOMP" -> {
                    connectHeaders = f.headers();
                    Map<String, String> h = new LinkedHashMap<>();
                    h.put("version", "1.2");
                    h.put("heart-beat", "0,0");
                    h.put("server", "fake");
                    h.putAll(connectedHeaders);
                    write("CONNECTED", h, null);
                }
                case "SEND" -> {
                    if (receipt != null && receiptSends) {
                        Map<String, String> h = new LinkedHashMap<>();
                        h.put("receipt-id", receipt);
                        if (duplicateReceipts) {
                            h.put("fedbridge-duplicate", "true");
                        }
                        write("RECEIPT", h, null);
                    }
                }
                default -> {
                    if (receipt != null) {
                        write("RECEIPT", Map.of("receipt-id", receipt), null);
                    }
                }
            }
        }

        private Frame readFrame(InputStream in) throws IOException {
            int c;
            do {
                c = in.read();
                if (c == -1) {
                    return null;
                }
            } while (c == '\n' || c == '\r');
            ByteArrayOutputStream line = new ByteArrayOutputStream();
            List<String> lines = new ArrayList<>();
            while (true) {
                if (c == -1) {
                    return null;
                }
                if (c == '\n') {
                    String l = line.toString(StandardCharsets.UTF_8);
                    if (l.endsWith("\r")) {
                        l = l.substring(0, l.length() - 1);
                    }
                    if (l.isEmpty()) {
                        break;
                    }
                    lines.add(l);
                    line.reset();
                } else {
                    line.write(c);
                }
                c = in.read();
            }
            String command = lines.get(0);
            boolean unescape = !command.equals("CONNECT") && !command.equals("STOMP");
            Map<String, String> headers = new LinkedHashMap<>();
            for (String l : lines.subList(1, lines.size())) {
                int colon = l.indexOf(':');
                String k = l.substring(0, colon);
                String v = l.substring(colon + 1);
                headers.putIfAbsent(unescape ? unesc(k) : k, unescape ? unesc(v) : v);
            }
            ByteArrayOutputStream body = new ByteArrayOutputStream();
            String length = headers.get("content-length");
            if (length != null) {
                byte[] b = in.readNBytes(Integer.parseInt(length));
                body.write(b);
                if (in.read() == -1) {
                    return null;
                }
            } else {
                while ((c = in.read()) != 0) {
                    if (c == -1) {
                        return null;
                    }
                    body.write(c);
                }
            }
            return new Frame(command, headers, body.toString(StandardCharsets.UTF_8), this);
        }
    }

    private static String esc(String s) {
        return s.replace("\\", "\\\\").replace("\n", "\\n").replace("\r", "\\r").replace(":", "\\c");
    }

    private static String unesc(String s) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < s.length(); i++) {
            char ch = s.charAt(i);
            if (ch == '\\' && i + 1 < s.length()) {
                char n = s.charAt(++i);
                sb.append(switch (n) {
                    case 'n' -> '\n';
                    case 'r' -> '\r';
                    case 'c' -> ':';
                    default -> n;
                });
            } else {
                sb.append(ch);
            }
        }
        return sb.toString();
    }
}
