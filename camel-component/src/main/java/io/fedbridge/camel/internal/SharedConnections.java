package io.fedbridge.camel.internal;

import io.fedbridge.failover.FailoverConfig;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A component's connections, one per distinct {@code brokerUrl}, counted by their users (started consumers and
 * producers): the last to stop closes it. Thread-safe.
 */
public final class SharedConnections implements AutoCloseable {

    private final Map<String, SharedConnection> byUrl = new HashMap<>();

    /**
     * The connection for {@code brokerUrl}, counted as used until {@link #release}. It connects on its first
     * {@link SharedConnection#client()}.
     */
    public synchronized SharedConnection acquire(String brokerUrl, FailoverConfig config) {
        SharedConnection c = byUrl.computeIfAbsent(brokerUrl, url -> new SharedConnection(url, config));
        c.retain();
        return c;
    }

    public void release(SharedConnection connection) {
        boolean last;
        synchronized (this) {
            last = connection.release();
            if (last) {
                byUrl.remove(connection.brokerUrl(), connection);
            }
        }
        if (last) {
            connection.close();
        }
    }

    /** How many connections are open or ready to open. */
    public synchronized int size() {
        return byUrl.size();
    }

    @Override
    public void close() {
        List<SharedConnection> all;
        synchronized (this) {
            all = new ArrayList<>(byUrl.values());
            byUrl.clear();
        }
        all.forEach(SharedConnection::close);
    }
}
