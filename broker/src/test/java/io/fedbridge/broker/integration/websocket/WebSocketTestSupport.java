package io.fedbridge.broker.integration.websocket;

import io.fedbridge.broker.Broker;
import io.fedbridge.broker.BrokerConfig;
import io.fedbridge.core.ClientConfig;
import io.fedbridge.core.StompConnection;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;

/**
 * Shared base of the STOMP over WebSocket integration tests: brokers on port 0, fedbridge clients, a raw WebSocket
 * client (the JDK's) that sees each frame and the close, and everything closed after each test.
 */
abstract class WebSocketTestSupport {

    static final Duration WAIT = Duration.ofSeconds(15);
    private static final AtomicInteger NAMES = new AtomicInteger();

    protected final List<AutoCloseable> resources = new ArrayList<>();

    static String uniqueName(String prefix) {
        return prefix + "-" + NAMES.incrementAndGet();
    }

    protected Broker start(BrokerConfig.Builder builder) {
        Broker b = Broker.start(builder.build());
        resources.add(b);
        return b;
    }

    protected StompConnection connect(ClientConfig config) {
        StompConnection c = StompConnection.connect(config);
        resources.add(0, c);
        return c;
    }

    static ClientConfig.Builder client(String uri) {
        return ClientConfig.builder(uri).heartBeats(Duration.ZERO).connectTimeout(Duration.ofSeconds(10));
    }

    /** The broker's connect URI with {@code scheme}. */
    static String uri(Broker b, String scheme) {
        return b.connectUris().stream().filter(u -> u.startsWith(scheme + "://")).findFirst()
                .orElseThrow(() -> new AssertionError(b + " has no " + scheme + ":// listener"));
    }

    protected RawWebSocket rawWebSocket(String uri, String... subprotocols) throws Exception {
        RawWebSocket ws = RawWebSocket.open(URI.create(uri), subprotocols);
        resources.add(0, ws);
        return ws;
    }

    @AfterEach
    void closeResources() {
        for (AutoCloseable c : resources) {
            try {
                c.close();
            } catch (Exception e) {
                // already closed by the test
            }
        }
        resources.clear();
    }

    /** A WebSocket seen frame by frame, as a browser's STOMP client sees it: text messages and the close. */
    static final class RawWebSocket implements WebSocket.Listener, AutoCloseable {

        /** The status code and reason of the close frame received. */
        record Close(int status, String reason) {
        }

        final BlockingQueue<String> messages = new LinkedBlockingQueue<>();
        final CompletableFuture<Close> closed = new CompletableFuture<>();
        private final StringBuilder partial = new StringBuilder();
        private WebSocket ws;

        static RawWebSocket open(URI uri, String... subprotocols) throws Exception {
            RawWebSocket l = new RawWebSocket();
            WebSocket.Builder b = HttpClient.newHttpClient().newWebSocketBuilder().connectTimeout(WAIT);
            if (subprotocols.length > 0) {
                b.subprotocols(subprotocols[0], java.util.Arrays.copyOfRange(subprotocols, 1, subprotocols.length));
            }
            l.ws = b.buildAsync(uri, l).get(WAIT.toSeconds(), TimeUnit.SECONDS);
            return l;
        }

        String subprotocol() {
            return ws.getSubprotocol();
        }

        /** Sends one text message in as many WebSocket frames as there are parts. */
        void send(String... parts) {
            for (int i = 0; i < parts.length; i++) {
                ws.sendText(parts[i], i == parts.length - 1).join();
            }
        }

        /** The next text message, or null after {@link #WAIT}. */
        String next() throws InterruptedException {
            return messages.poll(WAIT.toSeconds(), TimeUnit.SECONDS);
        }

        Close awaitClose() throws Exception {
            return closed.get(WAIT.toSeconds(), TimeUnit.SECONDS);
        }

        @Override
        public CompletionStage<?> onText(WebSocket webSocket, CharSequence data, boolean last) {
            partial.append(data);
            if (last) {
                messages.add(partial.toString());
                partial.setLength(0);
            }
            webSocket.request(1);
            return null;
        }

        @Override
        public CompletionStage<?> onClose(WebSocket webSocket, int statusCode, String reason) {
            closed.complete(new Close(statusCode, reason));
            return null;
        }

        @Override
        public void onError(WebSocket webSocket, Throwable error) {
            closed.completeExceptionally(error);
        }

        @Override
        public void close() {
            if (ws != null) {
                ws.abort();
            }
        }
    }
}
