package io.fedbridge.benchmarks;

import io.fedbridge.core.AckMode;
import io.fedbridge.core.ClientConfig;
import io.fedbridge.core.Message;
import io.fedbridge.core.StompConnection;
import io.fedbridge.core.SubscriptionRequest;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;

/**
 * One client connection of the load generator, in one of two {@link Mode}s, so that each comparison scenario can be
 * driven the way fedbridge's own client drives a broker and the way most third-party clients do.
 */
interface LoadConnection extends AutoCloseable {

    /** How the load generator's connections write. */
    enum Mode {
        /**
         * fedbridge's own {@link StompConnection}: frames written from any thread are queued to its event loop and a
         * burst of them leaves with one flush, so a broker reads many frames per syscall.
         */
        BATCHED,
        /**
         * A blocking socket that writes and flushes each frame on its own, as stomp.py, stomp.js, Spring's STOMP
         * client and JMS clients sending one message at a time do: one {@code write(2)} per SEND, per ACK, with no
         * batching across frames ({@link PerFrameConnection}).
         */
        PER_FRAME,
        /**
         * A third-party client: Spring Framework's STOMP client over Reactor Netty ({@link SpringStompConnection}), one
         * write and flush per frame, so that the per-frame figures can be checked with a client that is not fedbridge's.
         */
        SPRING;

        static Mode of(String s) {
            return switch (s.trim().toLowerCase(Locale.ROOT)) {
                case "batched" -> BATCHED;
                case "per-frame" -> PER_FRAME;
                case "spring" -> SPRING;
                default -> throw new IllegalArgumentException("client mode must be per-frame, spring or batched, but was '" + s + "'");
            };
        }

        String key() {
            return switch (this) {
                case BATCHED -> "batched";
                case PER_FRAME -> "per-frame";
                case SPRING -> "spring";
            };
        }
    }

    /** What a subscriber is told of each MESSAGE: its body and how to acknowledge it (a no-op for {@code ack:auto}). */
    interface Listener {
        void onMessage(byte[] body, Runnable ack);
    }

    /** Sends without a receipt. */
    void sendWithoutReceipt(String destination, byte[] body, boolean persistent);

    /** Sends with a receipt; completes when the receipt arrives. */
    CompletableFuture<Void> send(String destination, byte[] body, boolean persistent);

    /**
     * Whether subscriptions carry {@code activemq.prefetchSize} (default). Artemis reads it as a window in bytes that an
     * {@code ack:auto} subscription never gets credit back for, so the load client for Artemis turns it off (its
     * argument {@code artemis}); one load client process talks to one product.
     */
    java.util.concurrent.atomic.AtomicBoolean ACTIVEMQ_PREFETCH = new java.util.concurrent.atomic.AtomicBoolean(true);

    /**
     * Subscribes with {@code ack} and {@code prefetch} (sent as {@code prefetch-size} and {@code activemq.prefetchSize});
     * the listener runs on the connection's reading thread. Returns what unsubscribes (and waits until the broker
     * confirmed it).
     */
    Runnable subscribe(String destination, AckMode ack, int prefetch, Listener listener);

    /** The CONNECTED frame's {@code server} header. */
    String server();

    @Override
    void close();

    /** Waits up to 30 s for the receipt of a SUBSCRIBE, UNSUBSCRIBE or the like; {@code what} names it in the error. */
    static void awaitReceipt(String what, CompletableFuture<Void> receipt) {
        try {
            receipt.get(30, java.util.concurrent.TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new BenchmarkException(what + " not receipted: " + e, e);
        }
    }

    static LoadConnection connect(Mode mode, String uri) {
        return switch (mode) {
            case BATCHED -> new Batched(uri);
            case PER_FRAME -> PerFrameConnection.connect(uri);
            case SPRING -> SpringStompConnection.connect(uri);
        };
    }

    /** fedbridge's {@link StompConnection}. */
    final class Batched implements LoadConnection {
        private final StompConnection c;

        Batched(String uri) {
            // fromUri: a secured target's URI carries the login and trust store (BenchSecurity).
            this.c = StompConnection.connect(ClientConfig.fromUri(uri).toBuilder().heartBeats(Duration.ZERO).build());
        }

        @Override
        public void sendWithoutReceipt(String destination, byte[] body, boolean persistent) {
            c.sendWithoutReceipt(Message.builder(destination).body(body).persistent(persistent).build());
        }

        @Override
        public CompletableFuture<Void> send(String destination, byte[] body, boolean persistent) {
            return c.send(Message.builder(destination).body(body).persistent(persistent).build());
        }

        @Override
        public Runnable subscribe(String destination, AckMode ack, int prefetch, Listener listener) {
            SubscriptionRequest.Builder sub = SubscriptionRequest.builder(destination).ackMode(ack).prefetch(prefetch);
            if (ACTIVEMQ_PREFETCH.get()) {
                sub.header("activemq.prefetchSize", Integer.toString(prefetch));
            }
            SubscriptionRequest req = sub.build();
            // The listener only counts and timestamps, so it runs on the I/O thread: the client adds no thread
            // hand-over of its own to what is measured (the same for every target).
            return c.subscribeOnIoThread(req, m -> listener.onMessage(m.body(), m::ack))::unsubscribe;
        }

        @Override
        public String server() {
            return c.connectedHeaders().get("server", "?");
        }

        @Override
        public void close() {
            c.close();
        }
    }
}
