package io.fedbridge.camel.internal;

import io.fedbridge.core.AckMode;
import io.fedbridge.core.StompHeaders;
import io.fedbridge.core.SubscriptionRequest;
import io.fedbridge.failover.FailoverClient;
import io.fedbridge.failover.FailoverException;
import io.fedbridge.failover.FailoverMessage;
import io.fedbridge.failover.FailoverSubscription;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The temporary reply queue of one client, shared by every InOut producer on it, and the requests waiting for their
 * replies by correlation id. The broker gives {@code /temp-queue/NAME} a federation-wide name and rewrites the
 * {@code reply-to} of requests the same way, so a responder on any bridged broker reaches it.
 *
 * <p>At a failover the client subscribes again on the new broker. A fedbridge broker that announced a
 * {@code tempDestinationReconnectGrace} keeps the queue, and the replies sent to it, for that long after the loss, and
 * gives the reconnected client the same name on any broker: requests confirmed before the loss keep waiting for their
 * replies. Otherwise (no grace, or the client was away longer than it) the new broker names the queue anew, replies to
 * requests confirmed before the loss went to the old name and cannot arrive, so those requests fail at once
 * ({@link #connectionLost}, {@link #reconnected}); requests confirmed afterwards carry the new name. Thread-safe.
 */
public final class ReplyManager implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ReplyManager.class);

    private final String replyTo;
    private final String correlationPrefix;
    private final AtomicLong sequence = new AtomicLong();
    private final ConcurrentMap<String, PendingReply> pending = new ConcurrentHashMap<>();
    private final FailoverSubscription subscription;
    private final FailoverClient client;
    /** While reconnecting: the lost broker's grace, within which the reply queue survives; else null. */
    private volatile Duration lostGrace;

    private ReplyManager(FailoverClient client) {
        this.client = client;
        String id = UUID.randomUUID().toString();
        this.replyTo = "/temp-queue/camel-reply-" + id;
        this.correlationPrefix = id + ":";
        this.subscription = client.subscribe(SubscriptionRequest.builder(replyTo).ackMode(AckMode.AUTO).build(),
                this::onReply);
    }

    /** Subscribes to a new temporary reply queue on {@code client}. */
    public static ReplyManager start(FailoverClient client) {
        return new ReplyManager(client);
    }

    /** The {@code reply-to} to put on requests (the broker rewrites it to the queue's federation-wide name). */
    public String replyTo() {
        return replyTo;
    }

    /** Registers a request under a new correlation id, before it is sent. */
    public PendingReply register() {
        PendingReply p = new PendingReply(correlationPrefix + sequence.incrementAndGet());
        pending.put(p.correlationId, p);
        return p;
    }

    /** Forgets a request (answered, timed out or failed). */
    public void remove(PendingReply p) {
        pending.remove(p.correlationId, p);
    }

    int pendingCount() {
        return pending.size();
    }

    /** On the client's dispatch thread: completes the request the reply answers. */
    private void onReply(FailoverMessage m) {
        String correlationId = m.header(StompHeaders.CORRELATION_ID);
        PendingReply p = correlationId == null ? null : pending.remove(correlationId);
        if (p == null) {
            LOG.debug("reply {} on {} with correlation-id {} matches no waiting request (it timed out); dropped",
                    m.identity(), replyTo, correlationId);
            return;
        }
        p.reply.complete(m);
    }

    /**
     * The connection to {@code uri} failed: without a grace from that broker, requests it had confirmed will get no
     * reply; with one, they wait for the reconnection ({@link #reconnected}).
     */
    public void connectionLost(String uri) {
        Duration grace = client.tempDestinationReconnectGrace();
        if (!grace.isZero()) {
            lostGrace = grace;
            LOG.debug("connection to {} lost; its reply queue {} is kept for {}", uri, replyTo, grace);
            return;
        }
        failSent("the connection to " + uri + " was lost after it accepted the request; the reply queue " + replyTo
                + " did not survive it, so the reply cannot arrive (the request may have been processed)");
    }

    /**
     * The client is connected to {@code uri} again after {@code downtime}: requests confirmed before the loss keep
     * waiting only if it came back within the lost broker's grace, to a broker that keeps reply queues too.
     */
    public void reconnected(String uri, Duration downtime) {
        Duration grace = lostGrace;
        lostGrace = null;
        if (grace == null) {
            return;
        }
        if (downtime.compareTo(grace) > 0) {
            failSent("the client was without a broker for " + downtime + ", longer than the " + grace + " for which the "
                    + "reply queue " + replyTo + " outlives its connection, so the reply cannot arrive (the request may have "
                    + "been processed)");
        } else if (client.tempDestinationReconnectGrace().isZero()) {
            failSent("the client reconnected to " + uri + ", which does not keep temporary queues across a failover, so "
                    + "the reply to the reply queue " + replyTo + " cannot arrive (the request may have been processed)");
        }
    }

    private void failSent(String why) {
        for (PendingReply p : pending.values()) {
            if (p.sent && pending.remove(p.correlationId, p)) {
                p.reply.completeExceptionally(new ReplyLostException(why));
            }
        }
    }

    /** Ends the reply queue; waiting requests fail with {@code cause}. */
    public void close(FailoverException cause) {
        for (PendingReply p : pending.values()) {
            if (pending.remove(p.correlationId, p)) {
                p.reply.completeExceptionally(cause);
            }
        }
        try {
            subscription.unsubscribe();
        } catch (RuntimeException e) {
            LOG.debug("unsubscribing {} failed; it ends with the connection", replyTo, e);
        }
    }

    @Override
    public void close() {
        close(new FailoverException("the reply queue " + replyTo + " was closed"));
    }

    /** A request waiting for its reply. */
    public static final class PendingReply {
        private final String correlationId;
        private final CompletableFuture<FailoverMessage> reply = new CompletableFuture<>();
        private volatile boolean sent;

        private PendingReply(String correlationId) {
            this.correlationId = correlationId;
        }

        public String correlationId() {
            return correlationId;
        }

        /** The broker confirmed the request: from now on a failover loses its reply. */
        public void sent() {
            sent = true;
        }

        /**
         * Waits for the reply.
         *
         * @return the reply, or null if none arrived within {@code timeout}
         * @throws ReplyLostException   if a failover lost the reply queue
         * @throws FailoverException    if the reply queue was closed
         * @throws InterruptedException if interrupted
         */
        public FailoverMessage await(Duration timeout) throws InterruptedException {
            try {
                return reply.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
            } catch (TimeoutException e) {
                return null;
            } catch (ExecutionException e) {
                if (e.getCause() instanceof RuntimeException r) {
                    throw r;
                }
                throw new FailoverException("waiting for the reply to " + correlationId + " failed", e.getCause());
            }
        }
    }

    /** The reply queue was lost at a failover after the broker accepted the request. */
    public static final class ReplyLostException extends FailoverException {
        private static final long serialVersionUID = 1L;

        ReplyLostException(String message) {
            super(message);
        }
    }
}
