package io.fedbridge.failover.internal;

import io.fedbridge.core.AckMode;
import io.fedbridge.core.ConnectionClosedException;
import io.fedbridge.core.ReceivedMessage;
import io.fedbridge.core.StompCommand;
import io.fedbridge.core.StompConnection;
import io.fedbridge.core.StompHeaders;
import io.fedbridge.core.Subscription;
import io.fedbridge.core.SubscriptionRequest;
import io.fedbridge.failover.FailoverException;
import io.fedbridge.failover.FailoverMessage;
import io.fedbridge.failover.FailoverMessageListener;
import io.fedbridge.failover.FailoverSubscription;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A subscription re-established on every connection. Deliveries go through {@link #handOut}, which hands each message
 * to the application once: a redelivery of a message already handed out is not handed again; it replaces the delivery
 * the message will be acknowledged with, or is acknowledged at once if the application already acknowledged it.
 *
 * <p>On the wire the ack mode is always {@code client-individual}: AUTO is acknowledged by the client once the
 * listener returns (or {@code receive} hands the message out), CLIENT's cumulative ACK is done message by message.
 */
final class DefaultFailoverSubscription implements FailoverSubscription {

    private static final Logger LOG = LoggerFactory.getLogger(DefaultFailoverSubscription.class);
    private static final Object CLOSED = new Object();

    private final Subscriptions owner;
    private final String id;
    private final SubscriptionRequest request;
    private final FailoverMessageListener listener;
    private final BlockingQueue<Object> queue;
    /** Guarded by this. */
    private final DeliveryLog log;
    /** CLIENT mode: messages handed out and not acknowledged, in hand-out order. Guarded by this. */
    private final LinkedHashSet<DefaultFailoverMessage> unacked = new LinkedHashSet<>();
    /** ACKs (without transaction) ask for a receipt once per this many on a connection (fewer if auditDepth is lower). */
    static final int ACK_RECEIPT_EVERY = 64;
    private final int ackReceiptEvery;
    /** The identities ACKed on {@link #ackBatchConnection} since its last ACK with a receipt. Guarded by this. */
    private List<String> ackBatch = new ArrayList<>(ACK_RECEIPT_EVERY);
    private StompConnection ackBatchConnection;
    private volatile boolean active = true;
    private volatile Subscription underlying;
    private volatile StompConnection underlyingConnection;
    private volatile FailoverException endCause;

    DefaultFailoverSubscription(Subscriptions owner, String id, SubscriptionRequest request,
                                FailoverMessageListener listener, int auditDepth) {
        this.owner = owner;
        this.id = id;
        this.request = request;
        this.listener = listener;
        this.queue = listener == null ? new LinkedBlockingQueue<>() : null;
        this.log = new DeliveryLog(auditDepth);
        this.ackReceiptEvery = Math.min(ACK_RECEIPT_EVERY, auditDepth);
    }

    private SubscriptionRequest wireRequest() {
        SubscriptionRequest.Builder b = SubscriptionRequest.builder(request.destination())
                .ackMode(AckMode.CLIENT_INDIVIDUAL).selector(request.selector()).prefetch(request.prefetch());
        request.extraHeaders().forEach(b::header);
        b.header(StompHeaders.ID, id);
        return b.build();
    }

    /**
     * Subscribes on {@code c} without waiting (restoring after a failover: frames on a connection stay in order).
     * Deliveries are taken on the I/O thread: {@link #onDelivery} never blocks, and skipping the connection's dispatch
     * thread saves a thread wake-up per message.
     */
    void attach(StompConnection c) {
        underlyingConnection = c;
        underlying = c.subscribeOnIoThread(wireRequest(), m -> onDelivery(c, m));
    }

    /** Subscribes on {@code c} and waits for the broker's receipt. */
    void attachAndWait(StompConnection c, Duration timeout) {
        underlyingConnection = c;
        underlying = c.subscribeOnIoThreadAndWait(wireRequest(), m -> onDelivery(c, m), timeout);
    }

    Subscription underlying() {
        return underlying;
    }

    StompConnection underlyingConnection() {
        return underlyingConnection;
    }

    /** On the connection's I/O thread, never blocking: queue for pulling, or pass to the client's dispatch thread. */
    private void onDelivery(StompConnection c, ReceivedMessage m) {
        if (!active) {
            return;
        }
        Delivery d = new Delivery(c, m);
        if (listener == null) {
            queue.add(d);
        } else {
            owner.dispatch(() -> deliverToListener(d));
        }
    }

    private void deliverToListener(Delivery d) {
        DefaultFailoverMessage m = handOut(d);
        if (m == null) {
            return;
        }
        try {
            listener.onMessage(m);
        } catch (RuntimeException e) {
            LOG.warn("listener of {} threw on {}; the message is not acknowledged{}", this, m.identity(),
                    request.ackMode() == AckMode.AUTO ? " but NACKed, to come back" : "", e);
            if (request.ackMode() == AckMode.AUTO) {
                nack(m);
            }
            return;
        }
        if (request.ackMode() == AckMode.AUTO) {
            ack(m, null, true);
        }
    }

    /** The message to hand to the application for {@code d}, or null if the application has it already. */
    DefaultFailoverMessage handOut(Delivery d) {
        if (!d.isLive()) {
            // Its connection failed before the application saw it; the broker redelivers it.
            return null;
        }
        String identity = d.identity();
        boolean ackCopy;
        synchronized (this) {
            if (!active) {
                return null;
            }
            switch (log.status(identity)) {
                case UNKNOWN -> {
                    DefaultFailoverMessage m = new DefaultFailoverMessage(this, identity, d);
                    log.handed(identity, m);
                    if (request.ackMode() == AckMode.CLIENT) {
                        unacked.add(m);
                    }
                    return m;
                }
                case HANDED -> {
                    DefaultFailoverMessage first = log.handedMessage(identity);
                    if (first.delivery().isLive()) {
                        ackCopy = true; // a second copy while the first is still acknowledgeable
                    } else {
                        first.rebind(d);
                        ackCopy = false;
                    }
                }
                default -> ackCopy = true;
            }
        }
        LOG.debug("{}: dropped a redelivery of {}", this, identity);
        owner.redeliveryDropped();
        if (ackCopy) {
            try {
                d.connection().sendForReceipt(d.frame(StompCommand.ACK, null)).whenComplete((r, e) -> {
                    if (e == null) {
                        confirmed(identity);
                    }
                });
            } catch (ConnectionClosedException e) {
                // Redelivered again later, and acknowledged then.
            }
        }
        return null;
    }

    /**
     * Acknowledges {@code m} (and, in CLIENT mode, the messages handed out before it), inside {@code tx} if given.
     * {@code byClient}: the client acknowledging an AUTO-mode message.
     */
    void ack(DefaultFailoverMessage m, DefaultFailoverTransaction tx, boolean byClient) {
        AckMode mode = request.ackMode();
        if (mode == AckMode.AUTO && !byClient && tx == null) {
            return;
        }
        List<DefaultFailoverMessage> batch = new ArrayList<>();
        synchronized (this) {
            if (mode == AckMode.CLIENT && !byClient) {
                if (!unacked.contains(m)) {
                    return;
                }
                for (DefaultFailoverMessage x : unacked) {
                    batch.add(x);
                    if (x == m) {
                        break;
                    }
                }
            } else {
                if (log.handedMessage(m.identity()) != m) {
                    return; // acknowledged already
                }
                batch.add(m);
            }
            if (tx != null) {
                tx.checkUsable();
                for (DefaultFailoverMessage x : batch) {
                    if (x.delivery().connection() != tx.connection()) {
                        throw new FailoverException("message " + x.identity() + " on " + destination()
                                + " arrived over an earlier connection than transaction " + tx.id()
                                + "; it can be acknowledged in a transaction once the broker redelivers it");
                    }
                }
            }
            for (DefaultFailoverMessage x : batch) {
                unacked.remove(x);
                log.acked(x.identity());
                if (tx != null) {
                    tx.acknowledged(this, x);
                }
            }
        }
        for (DefaultFailoverMessage x : batch) {
            Delivery d = x.delivery();
            if (!active || !d.isLive()) {
                continue; // the broker redelivers it; the redelivery is acknowledged then
            }
            try {
                if (tx == null) {
                    ackWithoutWaiting(d, x.identity());
                } else {
                    d.connection().sendFrame(d.frame(StompCommand.ACK, tx.id()), false);
                }
            } catch (ConnectionClosedException e) {
                // as above: acknowledged when redelivered (or, in a transaction, rolled back with it)
            }
        }
    }

    /**
     * Sends the ACK of {@code d}. Only every {@value #ACK_RECEIPT_EVERY}th ACK on a connection asks for a receipt (every
     * {@code auditDepth}th if that is lower, so no more ids than that wait unconfirmed for a batch's receipt): a
     * broker answers frames of one connection in order, so that receipt confirms the ACKs before it as well. The
     * receipt only moves identities in the {@link DeliveryLog} from unconfirmed to confirmed; an ACK is counted as
     * done ({@code acked}) before it is written, so a redelivery after a failover is dropped either way. One receipt
     * per ACK cost the broker a RECEIPT frame and the client a future per message.
     */
    private void ackWithoutWaiting(Delivery d, String identity) {
        StompConnection c = d.connection();
        List<String> covered = null;
        synchronized (this) {
            if (ackBatchConnection != c) {
                ackBatchConnection = c;
                ackBatch = new ArrayList<>(ACK_RECEIPT_EVERY);
            }
            ackBatch.add(identity);
            if (ackBatch.size() >= ackReceiptEvery) {
                covered = ackBatch;
                ackBatch = new ArrayList<>(ACK_RECEIPT_EVERY);
            }
        }
        if (covered == null) {
            c.sendFrame(d.frame(StompCommand.ACK, null), false);
            return;
        }
        List<String> confirmedByReceipt = covered;
        c.sendForReceipt(d.frame(StompCommand.ACK, null)).whenComplete((r, e) -> {
            if (e == null) {
                confirmed(confirmedByReceipt);
            }
        });
    }

    private synchronized void confirmed(List<String> identities) {
        for (String identity : identities) {
            log.confirmed(identity);
        }
    }

    void nack(DefaultFailoverMessage m) {
        synchronized (this) {
            if (log.handedMessage(m.identity()) != m) {
                return;
            }
            log.forget(m.identity());
            unacked.remove(m);
        }
        Delivery d = m.delivery();
        if (active && d.isLive()) {
            try {
                d.connection().sendFrame(d.frame(StompCommand.NACK, null), false);
            } catch (ConnectionClosedException e) {
                // redelivered anyway
            }
        }
    }

    synchronized void confirmed(String identity) {
        log.confirmed(identity);
    }

    /** A transaction that acknowledged {@code m} was rolled back or is in doubt: hand a redelivery out again. */
    synchronized void forget(DefaultFailoverMessage m) {
        log.forget(m.identity());
    }

    /** A transaction that acknowledged {@code m} was aborted: the application may acknowledge it again. */
    synchronized void reopen(DefaultFailoverMessage m) {
        if (log.status(m.identity()) == DeliveryLog.Status.ACKED) {
            log.handed(m.identity(), m);
            if (request.ackMode() == AckMode.CLIENT) {
                unacked.add(m);
            }
        }
    }

    /** Ends the subscription locally: no more deliveries; pulling threads get {@code cause}. */
    void end(FailoverException cause) {
        endCause = cause;
        active = false;
        if (queue != null) {
            queue.add(CLOSED);
        }
    }

    @Override
    public String id() {
        return id;
    }

    @Override
    public String destination() {
        return request.destination();
    }

    @Override
    public SubscriptionRequest request() {
        return request;
    }

    @Override
    public FailoverMessage receive(Duration timeout) throws InterruptedException {
        if (queue == null) {
            throw new IllegalStateException("subscription " + id + " to " + destination()
                    + " has a listener; receive() is for subscriptions without one");
        }
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            long left = deadline - System.nanoTime();
            Object o = left <= 0 ? queue.poll() : queue.poll(left, TimeUnit.NANOSECONDS);
            if (o == null) {
                return null;
            }
            if (o == CLOSED) {
                queue.add(CLOSED);
                throw endCause;
            }
            DefaultFailoverMessage m = handOut((Delivery) o);
            if (m == null) {
                continue;
            }
            if (request.ackMode() == AckMode.AUTO) {
                ack(m, null, true);
            }
            return m;
        }
    }

    @Override
    public boolean isActive() {
        return active;
    }

    @Override
    public void unsubscribe() {
        owner.unsubscribe(this, Map.of());
    }

    @Override
    public void unsubscribe(Map<String, String> headers) {
        owner.unsubscribe(this, headers);
    }

    @Override
    public void close() {
        unsubscribe();
    }

    @Override
    public String toString() {
        return "FailoverSubscription[" + id + " " + destination() + " " + request.ackMode() + "]";
    }
}
