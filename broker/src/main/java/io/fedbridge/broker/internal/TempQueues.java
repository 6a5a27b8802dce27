package io.fedbridge.broker.internal;

import io.fedbridge.broker.security.Identity;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Who owns the temporary queues on this broker, and how long they outlive their owner (docs/cluster.md, "Temporary
 * queues that survive their owner's broker").
 *
 * <p>A connection that proves a {@code fedbridge-producer-secret} (the failover client) gets a <em>reclaimable</em>
 * owner, {@code r} and 20 hex characters of SHA-256 over its user and secret: the same on every broker, so after a
 * failover the client's {@code /temp-queue/X} is again {@code /temp-queue/@OWNER@X}, wherever it reconnects. Such a
 * queue stays on a broker while its owner is connected there or it has a consumer (the owner's, or a bridge's toward the
 * owner's broker), and for {@code tempDestinationReconnectGrace} after both ended, with the replies sent to it; then it
 * goes. An owner that said DISCONNECT takes its empty queues with it at once. Any other connection's owner names the
 * broker and connection ({@code 8 hex-N}), and its queues go when it disconnects, as before; so do all with a zero grace.
 *
 * <p>Thread-safety: called from connections' event loops, queues' consumer removal and the broker's scheduler; the
 * owner registry and idle stamps are guarded by {@code this}; a queue's own state by the queue.
 */
final class TempQueues {

    private static final Logger LOG = LoggerFactory.getLogger(TempQueues.class);
    private static final String QUEUE_PREFIX = Destinations.TEMP_QUEUE + "@";
    private static final int TOKEN_HEX = 20;

    private final BrokerCore core;
    private final Duration grace;
    /** Reclaimable owners with a live connection here, and the temporary queue names they used. */
    private final Map<String, Owner> owners = new HashMap<>();
    /** Since when (clock millis) each reclaimable queue nobody owns or consumes here has waited. */
    private final Map<String, Long> idleSince = new HashMap<>();

    private static final class Owner {
        int live;
        final Set<String> names = new HashSet<>();
    }

    TempQueues(BrokerCore core, Duration grace) {
        this.core = core;
        this.grace = grace;
    }

    /** Whether {@code owner} (the part between the {@code @}s of a temporary name) is a reclaimable one. */
    static boolean isReclaimable(String owner) {
        if (owner.length() != TOKEN_HEX + 1 || owner.charAt(0) != 'r') {
            return false;
        }
        for (int i = 1; i < owner.length(); i++) {
            char c = owner.charAt(i);
            if (!(c >= '0' && c <= '9' || c >= 'a' && c <= 'f')) {
                return false;
            }
        }
        return true;
    }

    /** The owner part of {@code /temp-queue/@OWNER@X}, or null for another name. */
    static String ownerOf(String name) {
        if (!name.startsWith(QUEUE_PREFIX)) {
            return null;
        }
        int end = name.indexOf('@', QUEUE_PREFIX.length());
        return end < 0 ? null : name.substring(QUEUE_PREFIX.length(), end);
    }

    /**
     * A connection completed CONNECT: its owner name, reclaimable (and counted live) when it proved a secret and the
     * grace is not zero, else {@code perConnection}.
     */
    String connected(Identity identity, String secret, String perConnection) {
        if (secret == null || grace.isZero()) {
            return perConnection;
        }
        String owner = "r" + HexFormat.of().formatHex(sha256("temp\n" + identity.name() + "\n" + secret)).substring(0, TOKEN_HEX);
        synchronized (this) {
            owners.computeIfAbsent(owner, o -> new Owner()).live++;
        }
        return owner;
    }

    /** The grace announced to a connection with this owner in CONNECTED; zero if its queues do not outlive it. */
    Duration graceFor(String owner) {
        return isReclaimable(owner) ? grace : Duration.ZERO;
    }

    /** A live connection of {@code owner} used the temporary destination {@code name}. */
    synchronized void used(String owner, String name) {
        Owner o = owners.get(owner);
        if (o != null) {
            o.names.add(name);
            idleSince.remove(name);
        }
    }

    /** A connection of {@code owner} closed; {@code names} are the temporary destinations it used. */
    void closed(String owner, Set<String> names, boolean saidDisconnect) {
        if (!isReclaimable(owner)) {
            names.forEach(core::deleteTemp);
            return;
        }
        Set<String> orphaned;
        synchronized (this) {
            Owner o = owners.get(owner);
            if (o == null || --o.live > 0) {
                return;
            }
            owners.remove(owner);
            orphaned = o.names;
        }
        for (String name : orphaned) {
            QueueDestination q = core.queues.get(name);
            if (q == null) {
                continue;
            }
            if (saidDisconnect && q.isIdle()) {
                core.deleteTemp(name);
            } else {
                waitFor(q);
            }
        }
    }

    /** A new queue: a reclaimable temporary one that nobody here owns (a reply came first) waits like an orphan. */
    void created(QueueDestination q) {
        if (orphanedReclaimable(q)) {
            waitFor(q);
        }
    }

    /** A temporary queue lost its last consumer. */
    void lastConsumerGone(QueueDestination q) {
        String owner = ownerOf(q.name);
        if (owner == null || !isReclaimable(owner)) {
            if (!q.name.startsWith(QUEUE_PREFIX + core.tempOwnerPrefix())) { // another broker's: it went there too
                core.queues.remove(q.name, q);
                q.delete();
            }
            return;
        }
        if (orphanedReclaimable(q)) {
            waitFor(q);
        }
    }

    private synchronized boolean orphanedReclaimable(QueueDestination q) {
        String owner = ownerOf(q.name);
        if (owner == null || !isReclaimable(owner) || grace.isZero()) {
            return false;
        }
        Owner o = owners.get(owner);
        return o == null || !o.names.contains(q.name);
    }

    private void waitFor(QueueDestination q) {
        synchronized (this) {
            idleSince.put(q.name, core.clock.millis());
        }
        LOG.debug("broker {}: temporary queue {} has no owner or consumer here; kept for {}", core.config.name(), q.name, grace);
        schedule(q, grace.toMillis());
    }

    private void schedule(QueueDestination q, long delayMillis) {
        try {
            core.scheduler.schedule(() -> expire(q), Math.max(1, delayMillis), TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.RejectedExecutionException e) {
            // the broker is stopping: its temporary queues end with it
        }
    }

    private void expire(QueueDestination q) {
        boolean consumed = q.hasConsumers(); // the queue's lock is never taken while holding ours: it calls us holding its
        long left;
        synchronized (this) {
            Long since = idleSince.get(q.name);
            if (since == null || core.queues.get(q.name) != q) {
                return; // claimed by its owner again, or gone
            }
            if (consumed || !orphanedReclaimable(q)) {
                idleSince.remove(q.name); // when that ends, the wait starts again
                return;
            }
            left = since + grace.toMillis() - core.clock.millis();
            if (left <= 0) {
                idleSince.remove(q.name);
            }
        }
        if (left > 0) {
            schedule(q, left); // a later wait replaced the one this timer was for
            return;
        }
        synchronized (q) {
            if (q.hasConsumers() || !orphanedReclaimable(q) || !core.queues.remove(q.name, q)) {
                return;
            }
            LOG.info("broker {}: temporary queue {} had no owner or consumer for {}; deleted with its {} message(s)",
                    core.config.name(), q.name, grace, q.pendingApprox());
            q.delete();
        }
    }

    private static byte[] sha256(String s) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is not available", e);
        }
    }
}
