package io.fedbridge.benchmarks;

import io.fedbridge.core.AckMode;
import io.fedbridge.core.ClientConfig;
import io.fedbridge.core.uri.CompositeUri;
import java.lang.reflect.Type;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.springframework.messaging.simp.stomp.ReactorNettyTcpStompClient;
import org.springframework.messaging.simp.stomp.StompCommand;
import org.springframework.messaging.simp.stomp.StompFrameHandler;
import org.springframework.messaging.simp.stomp.StompHeaders;
import org.springframework.messaging.simp.stomp.StompSession;
import org.springframework.messaging.simp.stomp.StompSessionHandlerAdapter;
import org.springframework.scheduling.concurrent.ConcurrentTaskScheduler;

/**
 * The load generator's connection through a third-party client: Spring Framework's STOMP client
 * ({@link ReactorNettyTcpStompClient}, spring-messaging over Reactor Netty), used as its documentation shows. Spring
 * writes and flushes each frame on its own, so this is the per-frame load of a real application, with a client that is
 * not fedbridge's. Listeners run on Reactor Netty's I/O thread, as Spring calls them; receipts are Spring's own
 * ({@link StompSession.Receiptable}).
 *
 * <p>Plain {@code tcp://} only, with the URI's {@code login} and {@code passcode}; heart-beats off.
 */
final class SpringStompConnection implements LoadConnection {

    private static final long TIMEOUT_SECONDS = 30;

    private final ReactorNettyTcpStompClient client;
    private final ScheduledExecutorService scheduler;
    private final StompSession session;
    private final AtomicLong ids = new AtomicLong();
    private volatile String server = "?";
    private volatile Throwable failure;

    private SpringStompConnection(String host, int port, String virtualHost, String login, String passcode) {
        scheduler = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "spring-stomp-receipts-" + port);
            t.setDaemon(true);
            return t;
        });
        client = new ReactorNettyTcpStompClient(host, port);
        client.setDefaultHeartbeat(new long[] {0, 0});
        // Spring tracks receipts only with a scheduler (for its receipt time limit)
        client.setTaskScheduler(new ConcurrentTaskScheduler(scheduler));
        client.setReceiptTimeLimit(TimeUnit.MINUTES.toMillis(5));
        StompHeaders connect = new StompHeaders();
        connect.setHost(virtualHost);
        if (login != null) {
            connect.setLogin(login);
            connect.setPasscode(passcode == null ? "" : passcode);
        }
        try {
            session = client.connectAsync(connect, new StompSessionHandlerAdapter() {
                @Override
                public void afterConnected(StompSession s, StompHeaders connected) {
                    String name = connected.getFirst("server");
                    server = name == null ? "?" : name;
                }

                @Override
                public void handleException(StompSession s, StompCommand command, StompHeaders headers, byte[] payload,
                                            Throwable exception) {
                    failure = exception;
                }

                @Override
                public void handleTransportError(StompSession s, Throwable exception) {
                    failure = exception;
                }

                @Override
                public void handleFrame(StompHeaders headers, Object payload) {
                    failure = new BenchmarkException("ERROR from the broker: " + headers.getFirst("message"));
                }
            }).get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
        } catch (Exception e) {
            close();
            throw new BenchmarkException("Spring's STOMP client could not connect to " + host + ":" + port + ": " + e, e);
        }
    }

    static SpringStompConnection connect(String uri) {
        ClientConfig config = ClientConfig.fromUri(uri);
        CompositeUri u = config.uri();
        if (!u.scheme().equals("tcp")) {
            throw new IllegalArgumentException("the spring client mode needs a tcp:// URI, but was " + u);
        }
        return new SpringStompConnection(u.host(), u.port(), config.host() != null ? config.host() : u.host(),
                config.login(), config.passcode());
    }

    /**
     * A non-persistent SEND carries no {@code persistent} header, as with the per-frame client: RabbitMQ's STOMP
     * plugin would read {@code persistent:false} as a non-durable queue.
     */
    private static StompHeaders sendHeaders(String destination, boolean persistent) {
        StompHeaders h = new StompHeaders();
        h.setDestination(destination);
        if (persistent) {
            h.set("persistent", "true");
        }
        return h;
    }

    @Override
    public void sendWithoutReceipt(String destination, byte[] body, boolean persistent) {
        checkAlive();
        session.send(sendHeaders(destination, persistent), body);
    }

    @Override
    public CompletableFuture<Void> send(String destination, byte[] body, boolean persistent) {
        StompHeaders h = sendHeaders(destination, persistent);
        h.setReceipt("r-" + ids.incrementAndGet());
        return receipted(session.send(h, body));
    }

    private CompletableFuture<Void> receipted(StompSession.Receiptable r) {
        CompletableFuture<Void> f = new CompletableFuture<>();
        r.addReceiptTask(() -> f.complete(null));
        r.addReceiptLostTask(() -> f.completeExceptionally(new BenchmarkException("no RECEIPT for " + r.getReceiptId()
                + (failure != null ? ": " + failure : ""))));
        Throwable e = failure;
        if (e != null) {
            f.completeExceptionally(e);
        }
        return f;
    }

    @Override
    public Runnable subscribe(String destination, AckMode ack, int prefetch, Listener listener) {
        StompHeaders h = new StompHeaders();
        h.setDestination(destination);
        h.setAck(ack.wireValue());
        h.set("prefetch-size", Integer.toString(prefetch));
        if (LoadConnection.ACTIVEMQ_PREFETCH.get()) {
            h.set("activemq.prefetchSize", Integer.toString(prefetch));
        }
        h.setReceipt("s-" + ids.incrementAndGet());
        boolean acks = ack != AckMode.AUTO;
        StompSession.Subscription sub = session.subscribe(h, new StompFrameHandler() {
            @Override
            public Type getPayloadType(StompHeaders headers) {
                return byte[].class;
            }

            @Override
            public void handleFrame(StompHeaders headers, Object payload) {
                // STOMP 1.2: an ACK names the MESSAGE's ack header, which Spring's acknowledge(String) sends as its id
                listener.onMessage((byte[]) payload, acks ? () -> session.acknowledge(headers.getAck(), true) : () -> { });
            }
        });
        LoadConnection.awaitReceipt("SUBSCRIBE to " + destination, receipted(sub));
        // Spring tracks no receipt for UNSUBSCRIBE: frames are handled in order, so a receipted SUBSCRIBE that follows it
        // (the next run's) cannot overtake it, and every message of a run has arrived before the run unsubscribes
        return sub::unsubscribe;
    }

    private void checkAlive() {
        Throwable e = failure;
        if (e != null) {
            throw new BenchmarkException("Spring's STOMP client failed: " + e, e);
        }
    }

    @Override
    public String server() {
        return server;
    }

    @Override
    public void close() {
        try {
            if (session != null && session.isConnected()) {
                session.disconnect();
            }
        } catch (RuntimeException e) {
            // closing anyway
        }
        client.shutdown();
        scheduler.shutdownNow();
    }
}
