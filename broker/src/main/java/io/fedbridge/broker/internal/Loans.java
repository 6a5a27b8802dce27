package io.fedbridge.broker.internal;

import io.fedbridge.core.FederationHeaders;
import io.fedbridge.core.StompCommand;
import io.fedbridge.core.StompFrame;
import io.fedbridge.core.StompHeaders;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The messages one federation link lent this broker ({@link FederationHeaders#BORROWED}: forwarding without ownership
 * transfer, docs/cluster.md). A lent message enters its queue unstored and goes only to the local consumer it was lent
 * for ({@link FederationHeaders#ORIGIN_CONSUMER} on the SEND); when that one acknowledges it the link is told by the
 * RECEIPT of the SEND that lent it ({@code acked}); when that consumer leaves, what it did not acknowledge is given back
 * the same way ({@code returned}) and leaves the queue. The
 * lender's copy stays the only one that counts: should this broker die, nothing it borrowed is lost or kept.
 *
 * <p>A consumer's ACK that asks for a receipt gets it only once the lender said its source took the acknowledgement
 * ({@link FederationHeaders#BORROW_CONFIRM}); if the link ends first, the ACK is refused (the message will be delivered
 * again). When the link ends, the messages it lent that wait in queues leave them (their lender's source delivers them
 * again); those a consumer holds are forgotten when it acknowledges or leaves them.
 *
 * <p>Thread-safety: {@link #lend} and {@link #closed} run on the link's event loop; {@link Loan}'s callbacks on any
 * thread, under a queue's monitor. The maps are concurrent; a loan is settled once ({@link Loan}).
 */
final class Loans {

    private final ServerSession session;
    private final BrokerCore core;
    /** Lent and not yet settled, by the receipt id of the SEND that lent them. */
    private final Map<String, QueueEntry> outstanding = new ConcurrentHashMap<>();
    /** Consumers' ACKs waiting for the lender's confirmation, by receipt id. */
    private final Map<String, CompletableFuture<Void>> confirming = new ConcurrentHashMap<>();
    private volatile boolean closed;

    Loans(ServerSession session, BrokerCore core) {
        this.session = session;
        this.core = core;
    }

    /** A lent SEND to queue {@code dest} (its headers already those the message keeps). */
    void lend(StompFrame f, String dest, StompHeaders headers) {
        int redeliveries = SessionHeaders.priorDeliveries(headers);
        headers.remove(FederationHeaders.BORROWED);
        String consumerId = f.header(FederationHeaders.ORIGIN_CONSUMER);
        headers.remove(FederationHeaders.ORIGIN_CONSUMER);
        QueueDestination q = core.queue(dest);
        BrokerMessage m = core.newMessage(dest, headers, f.body());
        String rejected = q.admit(m);
        if (rejected != null) {
            session.failed(f, new BrokerCore.PolicyRejection(rejected));
            return;
        }
        QueueEntry e = new QueueEntry(m, null, redeliveries);
        String receiptId = f.header(StompHeaders.RECEIPT);
        e.loan = new Loan(this, q, receiptId, consumerId == null ? "" : consumerId);
        if (receiptId != null) {
            outstanding.put(receiptId, e);
        }
        core.memory.reserve(m.size);
        synchronized (q.arrivalLock) {
            // after the messages accepted before it, as any message (see BrokerCore.accept)
            CompletableFuture<Void> before = q.lastArrival;
            if (before.isDone()) {
                q.enqueue(e);
            } else {
                q.lastArrival = before.handle((v, x) -> {
                    q.enqueue(e);
                    return null;
                });
            }
        }
    }

    /** A consumer acknowledged {@code loan}: tell the lender; with {@code awaited}, the future waits for its confirmation. */
    CompletableFuture<Void> acked(Loan loan, boolean awaited) {
        if (loan.receiptId == null) {
            return BrokerCore.DONE;
        }
        outstanding.remove(loan.receiptId);
        StompHeaders h = new StompHeaders(3);
        h.add(StompHeaders.RECEIPT_ID, loan.receiptId);
        h.add(FederationHeaders.BORROWED, FederationHeaders.BORROWED_ACKED);
        CompletableFuture<Void> confirmed = BrokerCore.DONE;
        if (awaited) {
            h.add(FederationHeaders.BORROW_CONFIRM, "true");
            confirmed = new CompletableFuture<>();
            confirming.put(loan.receiptId, confirmed);
        }
        session.write(new StompFrame(StompCommand.RECEIPT, h));
        if (closed && confirming.remove(loan.receiptId) != null) {
            confirmed.completeExceptionally(unconfirmed());
        }
        return confirmed;
    }

    /** {@code loan} left its queue unconsumed: the lender keeps the message. */
    void returned(Loan loan) {
        if (loan.receiptId == null) {
            return;
        }
        outstanding.remove(loan.receiptId);
        session.write(StompFrame.of(StompCommand.RECEIPT, StompHeaders.RECEIPT_ID, loan.receiptId,
                FederationHeaders.BORROWED, FederationHeaders.BORROWED_RETURNED));
    }

    /** The lender's SEND saying its source took the acknowledgement of the message lent by {@code receiptId}. */
    void confirmed(String receiptId) {
        CompletableFuture<Void> f = confirming.remove(receiptId);
        if (f != null) {
            f.complete(null);
        }
    }

    /** The link ended: what it lent is its source's again. */
    void closed() {
        closed = true;
        for (QueueEntry e : outstanding.values()) {
            if (e.loan.voidIt()) {
                e.loan.queue.dropLoan(e);
            }
        }
        outstanding.clear();
        for (String id : confirming.keySet()) {
            CompletableFuture<Void> f = confirming.remove(id);
            if (f != null) {
                f.completeExceptionally(unconfirmed());
            }
        }
    }

    static RuntimeException unconfirmed() {
        return new BrokerCore.PolicyRejection("the acknowledgement is not final: the message was lent by a federation link"
                + " that ended before its broker confirmed it, so it will be delivered again");
    }

    /**
     * One lent message, settled once: acknowledged, given back, or void because its lender is gone. Thread-safe.
     */
    static final class Loan {
        private final Loans lender;
        final QueueDestination queue;
        final String receiptId;
        /** The federation-wide id of the consumer of this broker it was lent for. */
        final String consumerId;
        private final java.util.concurrent.atomic.AtomicBoolean settled = new java.util.concurrent.atomic.AtomicBoolean();

        Loan(Loans lender, QueueDestination queue, String receiptId, String consumerId) {
            this.consumerId = consumerId;
            this.lender = lender;
            this.queue = queue;
            this.receiptId = receiptId;
        }

        /**
         * The message left this broker's queue for good (a consumer acknowledged it; or it expired, was dead-lettered or
         * purged here): the lender acknowledges its copy. The future completes when the ACK's receipt may be sent.
         */
        CompletableFuture<Void> acked(boolean awaited) {
            if (!settled.compareAndSet(false, true)) {
                return awaited ? CompletableFuture.failedFuture(unconfirmed()) : BrokerCore.DONE;
            }
            return lender.acked(this, awaited);
        }

        /** Given back to the lender, unconsumed. */
        void returned() {
            if (settled.compareAndSet(false, true)) {
                lender.returned(this);
            }
        }

        /** The lender is gone; true if this loan was still open. */
        boolean voidIt() {
            return settled.compareAndSet(false, true);
        }

        /** Whether {@code c} may have it: the consumer of this broker it was lent for. */
        boolean isFor(ServerConsumer c) {
            return !c.network && consumerId.equals(c.originId);
        }

        /** Settled or void: no longer this broker's to deliver again. */
        boolean isSettled() {
            return settled.get();
        }
    }
}
