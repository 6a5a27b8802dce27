package io.fedbridge.broker.integration;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A deliberately independent STOMP speaker over a plain socket: writes the bytes a test gives it and parses
 * frames with its own minimal code, so broker compliance is not checked by fedbridge's codec against itself.
 */
final class RawStomp implements AutoCloseable {

    record Frame(String command, Map<String, String> headers, byte[] body) {
        String header(String name) {
            return headers.get(name);
        }

        String bodyText() {
            return new String(body, StandardCharsets.UTF_8);
        }
    }

    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;

    RawStomp(String host, int port) throws IOException {
        socket = new Socket(host, port);
        socket.setTcpNoDelay(true);
        socket.setSoTimeout(10_000);
        in = socket.getInputStream();
        out = socket.getOutputStream();
    }

    static RawStomp connectTo(String tcpUri) throws IOException {
        String hostPort = tcpUri.substring("tcp://".length());
        int colon = hostPort.lastIndexOf(':');
        return new RawStomp(hostPort.substring(0, colon), Integer.parseInt(hostPort.substring(colon + 1)));
    }

    RawStomp write(String text) throws IOException {
        return write(text.getBytes(StandardCharsets.UTF_8));
    }

    RawStomp write(byte[] bytes) throws IOException {
        out.write(bytes);
        out.flush();
        return this;
    }

    /** Writes {@code CONNECT} for STOMP 1.2 without heart-beats and returns the CONNECTED frame. */
    Frame handshake() throws IOException {
        write("CONNECT\naccept-version:1.2\nhost:localhost\nheart-beat:0,0\n\n\0");
        Frame f = read();
        if (!f.command().equals("CONNECTED")) {
            throw new AssertionError("expected CONNECTED but got " + f);
        }
        return f;
    }

    /** Reads the next frame, skipping heart-beat EOLs; fails on timeout or end of stream. */
    Frame read() throws IOException {
        int b;
        do {
            b = in.read();
            if (b < 0) {
                throw new IOException("connection closed by the broker");
            }
        } while (b == '\n' || b == '\r');
        StringBuilder line = new StringBuilder().append((char) b);
        String command = readLine(line);
        Map<String, String> headers = new LinkedHashMap<>();
        while (true) {
            String h = readLine(new StringBuilder());
            if (h.isEmpty()) {
                break;
            }
            int colon = h.indexOf(':');
            headers.putIfAbsent(unescape(h.substring(0, colon)), unescape(h.substring(colon + 1)));
        }
        byte[] body;
        String cl = headers.get("content-length");
        if (cl != null) {
            body = in.readNBytes(Integer.parseInt(cl));
            int nul = in.read();
            if (nul != 0) {
                throw new IOException("frame body not followed by NUL: " + nul);
            }
        } else {
            ByteArrayOutputStream bo = new ByteArrayOutputStream();
            while ((b = in.read()) > 0) {
                bo.write(b);
            }
            if (b < 0) {
                throw new IOException("connection closed inside a frame body");
            }
            body = bo.toByteArray();
        }
        return new Frame(command, headers, body);
    }

    /** One raw byte (heart-beats are bytes outside frames). */
    int readByte() throws IOException {
        return in.read();
    }

    /** True if the broker closed the connection (end of stream) within the socket timeout. */
    boolean isClosedByPeer() throws IOException {
        try {
            while (true) {
                int b = in.read();
                if (b < 0) {
                    return true;
                }
            }
        } catch (SocketTimeoutException e) {
            return false;
        } catch (IOException e) {
            return true; // connection reset
        }
    }

    private String readLine(StringBuilder sb) throws IOException {
        ByteArrayOutputStream bo = new ByteArrayOutputStream();
        bo.writeBytes(sb.toString().getBytes(StandardCharsets.UTF_8));
        int b;
        while ((b = in.read()) != '\n') {
            if (b < 0) {
                throw new IOException("connection closed inside a frame");
            }
            bo.write(b);
        }
        String s = bo.toString(StandardCharsets.UTF_8);
        return s.endsWith("\r") ? s.substring(0, s.length() - 1) : s;
    }

    private static String unescape(String s) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '\\' && i + 1 < s.length()) {
                char n = s.charAt(++i);
                sb.append(n == 'n' ? '\n' : n == 'r' ? '\r' : n == 'c' ? ':' : n);
            } else {
                sb.append(c);
            }
        }
        return sb.toString();
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
