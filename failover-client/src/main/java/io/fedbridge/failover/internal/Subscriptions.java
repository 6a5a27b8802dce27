package io.fedbridge.failover.internal;

import io.fedbridge.core.ConnectionClosedException;
import io.fedbridge.core.StompConnection;
import io.fedbridge.core.StompErrorException;
import io.fedbridge.core.StompException;
import io.fedbridge.core.StompHeaders;
import io.fedbridge.core.Subscription;
import io.fedbridge.core.SubscriptionRequest;
import io.fedbridge.failover.FailoverConfig;
import io.fedbridge.failover.FailoverException;
import io.fedbridge.failover.FailoverMessageListener;
import io.fedbridge.failover.FailoverSubscription;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The failover client's subscriptions, by id: each is re-established on every connection the client restores
 * ({@link #attachAll}), subscribing and unsubscribing act on the active connection too, and the client's end ends them.
 * Each {@link DefaultFailoverSubscription} drops redeliveries of messages it already handed out; they are counted here.
 *
 * <p>Concurrency: the registry is guarded by the client's lock. {@link #subscribe} and {@link #unsubscribe} run on
 * user threads and hold the lock while they talk to the active connection, so a restore cannot interleave with them;
 * the engine calls {@link #attachAll} and {@link #drain} under the lock. Message listeners run on the client's dispatch
 * thread.
 */
final class Subscriptions {

    private static final Logger LOG = LoggerFactory.getLogger(Subscriptions.class);

    private final DefaultFailoverClient client;
    private final String name;
    private final FailoverConfig config;
    private final ClientThreads threads;
    private final Object lock;
    private final AtomicLong numbers = new AtomicLong();
    private final AtomicLong redeliveriesDropped = new AtomicLong();
    /** Guarded by {@link #lock}. */
    private final Map<String, DefaultFailoverSubscription> byId = new LinkedHashMap<>();

    Subscriptions(DefaultFailoverClient client, String name, FailoverConfig config, ClientThreads threads, Object lock) {
        this.client = client;
        this.name = name;
        this.config = config;
        this.threads = threads;
        this.lock = lock;
    }

    /** Subscribes on the active connection (if any) and on every later one; null listener: pull with receive. */
    FailoverSubscription subscribe(SubscriptionRequest request, FailoverMessageListener messageListener) {
        Objects.requireNonNull(request, "request");
        client.checkUsable();
        String id = request.extraHeaders().getOrDefault(StompHeaders.ID, "fsub-" + numbers.incrementAndGet());
        if (id.equals(ClusterUpdates.SUBSCRIPTION_ID)) {
            throw new IllegalArgumentException("subscription id '" + id + "' is reserved");
        }
        DefaultFailoverSubscription s = new DefaultFailoverSubscription(this, id, request, messageListener, config.auditDepth());
        synchronized (lock) {
            if (client.isEnding()) {
                throw client.usageError();
            }
            if (byId.containsKey(id)) {
                throw new IllegalArgumentException("subscription id '" + id + "' is already in use on this client");
            }
            byId.put(id, s);
            StompConnection c = client.activeConnection();
            if (c != null) {
                try {
                    s.attachAndWait(c, c.config().connectTimeout());
                } catch (StompException e) {
                    if (rejected(e)) {
                        byId.remove(id);
                        s.end(new FailoverException("subscription " + id + " to " + request.destination() + " was rejected", e));
                        throw e;
                    }
                    // The connection failed or was slow: the subscription is (re-)established on the next one.
                    LOG.debug("{}: subscribing {} on {} did not complete: {}", name, id, DefaultFailoverClient.uriOf(c), e.toString());
                }
            }
        }
        return s;
    }

    private static boolean rejected(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof StompErrorException) {
                return true;
            }
        }
        return false;
    }

    void unsubscribe(DefaultFailoverSubscription s, Map<String, String> headers) {
        synchronized (lock) {
            if (!s.isActive()) {
                return;
            }
            StompConnection c = client.activeConnection();
            if (!headers.isEmpty() && c == null) {
                throw new FailoverException("cannot send UNSUBSCRIBE " + headers + " for " + s + ": no broker is connected");
            }
            byId.remove(s.id());
            s.end(new FailoverException(s + " is closed"));
            Subscription u = s.underlying();
            if (c != null && u != null && s.underlyingConnection() == c) {
                try {
                    if (headers.isEmpty()) {
                        u.unsubscribe();
                    } else {
                        u.unsubscribe(headers);
                    }
                } catch (ConnectionClosedException e) {
                    // gone with the connection anyway
                }
            }
        }
    }

    /**
     * Subscribes every subscription on the connection being restored. Caller holds the client's lock.
     *
     * @return how many
     */
    int attachAll(StompConnection c) {
        int restored = 0;
        for (DefaultFailoverSubscription s : byId.values()) {
            s.attach(c);
            restored++;
        }
        return restored;
    }

    /** The client ends: takes every subscription out, to end outside the lock. Caller holds the client's lock. */
    List<DefaultFailoverSubscription> drain() {
        List<DefaultFailoverSubscription> all = List.copyOf(byId.values());
        byId.clear();
        return all;
    }

    void dispatch(Runnable task) {
        threads.dispatch(task);
    }

    void redeliveryDropped() {
        redeliveriesDropped.incrementAndGet();
    }

    long redeliveriesDropped() {
        return redeliveriesDropped.get();
    }
}
