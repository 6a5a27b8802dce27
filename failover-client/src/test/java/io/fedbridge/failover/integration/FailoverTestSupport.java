package io.fedbridge.failover.integration;

import static org.awaitility.Awaitility.await;

import io.fedbridge.broker.Broker;
import io.fedbridge.broker.BrokerConfig;
import io.fedbridge.broker.BrokerException;
import io.fedbridge.core.ClientConfig;
import io.fedbridge.core.Message;
import io.fedbridge.core.StompConnection;
import io.fedbridge.failover.FailoverClient;
import io.fedbridge.failover.FailoverConfig;
import io.fedbridge.failover.FailoverEvent;
import io.fedbridge.failover.FailoverListener;
import io.fedbridge.failover.internal.DefaultFailoverClient;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;

/**
 * Shared base of the failover client's integration tests: fedbridge brokers in this JVM on {@code tcp://127.0.0.1:0}
 * (stopped and restarted on the same port and data directory), fake STOMP servers, failover clients; everything is
 * closed after each test, clients before brokers.
 */
abstract class FailoverTestSupport {

    protected static final Duration WAIT = Duration.ofSeconds(15);
    private static final AtomicInteger NAMES = new AtomicInteger();

    @TempDir
    protected Path tmp;

    private final Deque<AutoCloseable> resources = new ArrayDeque<>();

    @AfterEach
    void closeResources() throws Exception {
        Exception first = null;
        while (!resources.isEmpty()) {
            try {
                resources.pop().close();
            } catch (Exception e) {
                first = first == null ? e : first;
            }
        }
        if (first != null) {
            throw first;
        }
    }

    protected <T extends AutoCloseable> T track(T resource) {
        resources.push(resource);
        return resource;
    }

    /** A broker with a data directory (persistent messages and durable subscriptions survive its restart). */
    protected Broker startBroker() {
        String name = "fo-" + NAMES.incrementAndGet();
        return startBroker(BrokerConfig.builder(name).listen("tcp://127.0.0.1:0").dataDirectory(tmp.resolve(name)));
    }

    protected Broker startBroker(BrokerConfig.Builder builder) {
        return track(Broker.start(builder.build()));
    }

    /** Starts a stopped broker again on the same port and data directory (retrying while the port is not free yet). */
    protected Broker restart(Broker stopped) {
        BrokerConfig again = stopped.config().toBuilder().listeners(List.of(uri(stopped))).build();
        AtomicReference<Broker> started = new AtomicReference<>();
        await("broker " + stopped.name() + " restarted on " + uri(stopped)).atMost(WAIT).pollInSameThread()
                .pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(50)).until(() -> {
                    try {
                        started.set(Broker.start(again));
                        return true;
                    } catch (BrokerException e) {
                        return false;
                    }
                });
        return track(started.get());
    }

    protected static String uri(Broker b) {
        return b.connectUris().get(0);
    }

    protected FakeStompServer fake() throws IOException {
        return track(FakeStompServer.start());
    }

    /**
     * A {@code tcp://127.0.0.1:PORT} URI that refuses connections for the whole test: the port stays bound by a socket
     * that never listens. (A server's port closed for the purpose was once taken by another listener before the
     * client's last attempt, which then connected.)
     */
    protected String refusingUri() throws IOException {
        java.net.Socket holder = new java.net.Socket();
        holder.bind(new java.net.InetSocketAddress(java.net.InetAddress.getLoopbackAddress(), 0));
        track(holder);
        return "tcp://127.0.0.1:" + holder.getLocalPort();
    }

    protected FailoverClient connect(String uri) {
        return track(FailoverClient.connect(uri));
    }

    protected FailoverClient connect(FailoverConfig config) {
        return track(FailoverClient.connect(config));
    }

    protected FailoverClient connect(FailoverConfig config, FailoverListener listener) {
        return track(FailoverClient.connect(config, listener));
    }

    protected DefaultFailoverClient connect(FailoverConfig config, FailoverListener listener, DefaultFailoverClient.Environment env) {
        return track(DefaultFailoverClient.connect(config, listener, env));
    }

    protected StompConnection plain(Broker b) {
        return track(StompConnection.connect(ClientConfig.builder(uri(b)).heartBeats(Duration.ZERO).build()));
    }

    /** A failover config over {@code uris} in that order (no shuffling), with fast retries and no heart-beats. */
    protected static FailoverConfig.Builder ordered(String... uris) {
        FailoverConfig.Builder b = FailoverConfig.builder().randomize(false).heartBeats(Duration.ZERO)
                .initialReconnectDelay(Duration.ofMillis(10)).maxReconnectDelay(Duration.ofMillis(200));
        for (String u : uris) {
            b.uri(u);
        }
        return b;
    }

    protected static Message persistent(String destination, String body) {
        return Message.builder(destination).body(body).persistent(true).build();
    }

    /** Records a client's events. */
    static final class Events implements FailoverListener {
        final List<FailoverEvent> all = new CopyOnWriteArrayList<>();

        @Override
        public void onEvent(FailoverEvent event) {
            all.add(event);
        }

        <E extends FailoverEvent> List<E> of(Class<E> type) {
            return all.stream().filter(type::isInstance).map(type::cast).toList();
        }

        <E extends FailoverEvent> E await(Class<E> type, Predicate<E> which) {
            AtomicReference<E> found = new AtomicReference<>();
            org.awaitility.Awaitility.await("a " + type.getSimpleName() + " event").atMost(WAIT).until(() -> {
                for (E e : of(type)) {
                    if (which.test(e)) {
                        found.set(e);
                        return true;
                    }
                }
                return false;
            });
            return found.get();
        }
    }
}
