package io.fedbridge.camel.internal;

import io.fedbridge.failover.FailoverClient;
import io.fedbridge.failover.FailoverConfig;
import io.fedbridge.failover.FailoverEvent;
import io.fedbridge.failover.FailoverException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One {@link FailoverClient} shared by every consumer and producer of a component with the same {@code brokerUrl}.
 * It connects on first use; if the client gives up reconnecting ({@code maxReconnectAttempts}, or at once with a plain
 * {@code tcp://} URI) the next use connects a new one, so routes recover when a broker comes back. Thread-safe.
 */
public final class SharedConnection implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(SharedConnection.class);

    private final String brokerUrl;
    private final FailoverConfig config;
    /** Written under this; read without it on the fast path of {@link #client()}. */
    private volatile FailoverClient client;
    /** Written under this; read without it by the event listener, which must never wait for this lock. */
    private volatile ReplyManager replies;
    /** Guarded by this. */
    private int users;
    /** Which client events belong to: an event of a client already replaced is ignored. */
    private volatile int generation;
    private volatile boolean gaveUp;
    private volatile boolean closed;

    SharedConnection(String brokerUrl, FailoverConfig config) {
        this.brokerUrl = brokerUrl;
        this.config = config;
    }

    public String brokerUrl() {
        return brokerUrl;
    }

    public FailoverConfig config() {
        return config;
    }

    synchronized void retain() {
        users++;
    }

    /** True when the last user is gone. */
    synchronized boolean release() {
        return --users == 0;
    }

    /**
     * The connected client, connecting one first if there is none or the last one gave up.
     *
     * @throws FailoverException        if no broker could be reached (see {@link FailoverClient#connect})
     * @throws IllegalStateException    if the component has stopped
     */
    public FailoverClient client() {
        FailoverClient c = client;
        if (c != null && !gaveUp && !closed) {
            return c;
        }
        return connectedClient();
    }

    private synchronized FailoverClient connectedClient() {
        if (closed) {
            throw new IllegalStateException("the fedbridge connection to " + brokerUrl + " is closed");
        }
        if (client != null && gaveUp) {
            LOG.info("the client of {} gave up reconnecting; connecting a new one", brokerUrl);
            dropClient(new FailoverException("the client of " + brokerUrl + " gave up reconnecting"));
        }
        if (client == null) {
            gaveUp = false;
            int current = ++generation;
            client = FailoverClient.connect(config, event -> onEvent(current, event));
        }
        return client;
    }

    /** The reply queue of the current client, created on first use. */
    public synchronized ReplyManager replies() {
        FailoverClient c = client();
        if (replies == null) {
            replies = ReplyManager.start(c);
        }
        return replies;
    }

    /** On the client's callback thread. */
    private void onEvent(int from, FailoverEvent event) {
        if (from != generation) {
            return;
        }
        if (event instanceof FailoverEvent.ConnectionLost lost) {
            ReplyManager r = replies;
            if (r != null) {
                r.connectionLost(lost.uri());
            }
        } else if (event instanceof FailoverEvent.Connected connected && connected.reconnect()) {
            ReplyManager r = replies;
            if (r != null) {
                r.reconnected(connected.uri(), connected.downtime());
            }
        } else if (event instanceof FailoverEvent.GaveUp) {
            gaveUp = true;
        }
    }

    private void dropClient(FailoverException cause) {
        if (replies != null) {
            replies.close(cause);
            replies = null;
        }
        if (client != null) {
            try {
                client.close();
            } catch (RuntimeException e) {
                LOG.debug("closing the client of {} failed", brokerUrl, e);
            }
            client = null;
        }
    }

    @Override
    public synchronized void close() {
        closed = true;
        dropClient(new FailoverException("the fedbridge connection to " + brokerUrl + " was closed"));
    }

    @Override
    public String toString() {
        return "SharedConnection[" + brokerUrl + "]";
    }
}
