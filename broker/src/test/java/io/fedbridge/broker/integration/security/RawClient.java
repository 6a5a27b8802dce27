package io.fedbridge.broker.integration.security;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A minimal STOMP speaker on a plain socket bound to a chosen local address (127.0.0.2, say), so a test can
 * play an attacker from another source address than the well-behaved clients on 127.0.0.1.
 */
final class RawClient implements AutoCloseable {

    record Frame(String command, Map<String, String> headers, String body) {
        String header(String name) {
            return headers.get(name);
        }
    }

    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;

    private RawClient(Socket socket) throws IOException {
        this.socket = socket;
        this.in = socket.getInputStream();
        this.out = socket.getOutputStream();
    }

    /** Connects from {@code localAddress} to {@code tcp://host:port}. */
    static RawClient connect(String tcpUri, String localAddress) throws IOException {
        String hostPort = tcpUri.substring(tcpUri.indexOf("://") + 3);
        int colon = hostPort.lastIndexOf(':');
        Socket s = new Socket();
        s.bind(new InetSocketAddress(InetAddress.getByName(localAddress), 0));
        s.connect(new InetSocketAddress(hostPort.substring(0, colon), Integer.parseInt(hostPort.substring(colon + 1))), 5000);
        s.setSoTimeout(10_000);
        return new RawClient(s);
    }

    /** Sends CONNECT with {@code login}/{@code passcode} (each may be null) and returns the answer. */
    Frame login(String login, String passcode) throws IOException {
        StringBuilder sb = new StringBuilder("CONNECT\naccept-version:1.2\nhost:localhost\nheart-beat:0,0\n");
        if (login != null) {
            sb.append("login:").append(login).append('\n');
        }
        if (passcode != null) {
            sb.append("passcode:").append(passcode).append('\n');
        }
        write(sb.append("\n\0").toString());
        return read();
    }

    void write(String frame) throws IOException {
        out.write(frame.getBytes(StandardCharsets.UTF_8));
        out.flush();
    }

    /** The next frame (content-length ignored: test frames have text bodies); EOF is an IOException. */
    Frame read() throws IOException {
        int b;
        do {
            b = in.read();
            if (b < 0) {
                throw new IOException("connection closed by the broker");
            }
        } while (b == '\n' || b == '\r');
        ByteArrayOutputStream raw = new ByteArrayOutputStream();
        raw.write(b);
        while ((b = in.read()) > 0) {
            raw.write(b);
        }
        if (b < 0) {
            throw new IOException("connection closed inside a frame");
        }
        String text = raw.toString(StandardCharsets.UTF_8);
        int blank = text.indexOf("\n\n");
        String[] lines = text.substring(0, blank).split("\n");
        Map<String, String> headers = new LinkedHashMap<>();
        for (int i = 1; i < lines.length; i++) {
            int c = lines[i].indexOf(':');
            headers.putIfAbsent(lines[i].substring(0, c), lines[i].substring(c + 1)
                    .replace("\\c", ":").replace("\\n", "\n").replace("\\\\", "\\"));
        }
        return new Frame(lines[0], headers, text.substring(blank + 2));
    }

    /** Whether the broker closed the connection (end of stream) within the socket timeout. */
    boolean isClosedByPeer() {
        try {
            while (true) {
                if (in.read() < 0) {
                    return true;
                }
            }
        } catch (IOException e) {
            return e.getMessage() != null && e.getMessage().contains("reset");
        }
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
