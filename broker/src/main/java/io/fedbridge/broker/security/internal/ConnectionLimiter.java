package io.fedbridge.broker.security.internal;

import io.fedbridge.broker.security.ConnectionLimits;
import io.netty.channel.Channel;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Counts one listener's open connections, in total and per source address, and refuses those over its
 * {@link ConnectionLimits}. The broker asks when a connection is accepted, before building its pipeline, so a
 * refused connection costs no TLS handshake and no session. Thread-safe.
 */
public final class ConnectionLimiter {

    private static final Logger LOG = LoggerFactory.getLogger(ConnectionLimiter.class);

    private final String listener;
    private final ConnectionLimits limits;
    private final AtomicInteger total = new AtomicInteger();
    private final ConcurrentHashMap<InetAddress, AtomicInteger> perAddress = new ConcurrentHashMap<>();

    public ConnectionLimiter(String listener, ConnectionLimits limits) {
        this.listener = listener;
        this.limits = limits;
    }

    /**
     * Counts {@code ch} in, and out again when it closes; false (and nothing counted) if that would exceed a
     * limit, in which case the caller closes it.
     */
    public boolean tryAccept(Channel ch) {
        InetAddress address = ch.remoteAddress() instanceof InetSocketAddress a ? a.getAddress() : null;
        int max = limits.maximumConnections();
        if (total.incrementAndGet() > max && max > 0) {
            total.decrementAndGet();
            LOG.debug("listener {}: refused a connection from {}: maximumConnections={} reached", listener, address, max);
            return false;
        }
        int perMax = limits.maximumConnectionsPerAddress();
        if (address != null && perMax > 0) {
            int[] open = new int[1];
            perAddress.compute(address, (k, v) -> {
                AtomicInteger c = v == null ? new AtomicInteger() : v;
                open[0] = c.incrementAndGet();
                return c;
            });
            if (open[0] > perMax) {
                release(address);
                total.decrementAndGet();
                LOG.debug("listener {}: refused a connection from {}: maximumConnectionsPerAddress={} reached", listener,
                        address, perMax);
                return false;
            }
        }
        ch.closeFuture().addListener(f -> {
            total.decrementAndGet();
            if (address != null && perMax > 0) {
                release(address);
            }
        });
        return true;
    }

    private void release(InetAddress address) {
        perAddress.computeIfPresent(address, (k, v) -> v.decrementAndGet() <= 0 ? null : v);
    }

    /** Open connections counted now. */
    public int connections() {
        return total.get();
    }
}
