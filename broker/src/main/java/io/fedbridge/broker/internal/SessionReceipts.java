package io.fedbridge.broker.internal;

import io.fedbridge.core.FederationHeaders;
import io.fedbridge.core.StompCommand;
import io.fedbridge.core.StompFrame;
import io.fedbridge.core.StompHeaders;
import java.util.concurrent.CompletableFuture;

/**
 * The RECEIPTs of one {@link ServerSession} for frames whose outcome comes later (a stored SEND, an ACK, a COMMIT):
 * written once the work is done, and for SENDs forwarded by a bridge in the order they arrived, each covering every
 * forwarded SEND before it ({@link FederationHeaders#ORDERED_RECEIPTS}).
 *
 * <p>Concurrency: {@link #forwarded} and {@link #whenDone} are called on the connection's event loop; the receipts
 * themselves may be written from whichever thread completes the work (the session's {@code write} is thread-safe), and
 * a failure goes back to the event loop through the session's {@code failed}. The count of duplicates is atomic for
 * that reason.
 */
final class SessionReceipts {

    private final ServerSession session;
    private final BrokerCore core;
    /** Accepted (or not) once every SEND forwarded on this connection so far was; see {@link #forwarded}. */
    private CompletableFuture<Void> lastForwarded = BrokerCore.DONE;
    private final java.util.concurrent.atomic.AtomicInteger forwardedDuplicates = new java.util.concurrent.atomic.AtomicInteger();

    SessionReceipts(ServerSession session, BrokerCore core) {
        this.session = session;
        this.core = core;
    }

    private StompFrame receiptFor(StompFrame frame, String r) {
        StompFrame receipt = StompFrame.of(StompCommand.RECEIPT, StompHeaders.RECEIPT_ID, r);
        String dest = frame.header(StompHeaders.DESTINATION);
        if (frame.command() == StompCommand.SEND && frame.header(FederationHeaders.BROKER_PATH) != null
                && dest != null && !Destinations.isTopic(dest)) {
            // Forwarded by a bridge: tell it how far this queue's consumers are behind (capacity-aware forwarding).
            receipt.headers().add(FederationHeaders.QUEUE_PENDING, Integer.toString(core.queuePending(dest)));
        }
        return receipt;
    }

    /**
     * The receipt of a SEND forwarded by a bridge ({@link FederationHeaders#ORDERED_RECEIPTS}): written only once
     * this SEND and every forwarded SEND before it on this connection were accepted, so a bridge may ask for a
     * receipt on some of its forwards only and take each receipt as covering everything it sent before. It also
     * says how many forwarded SENDs since the previous such receipt were dropped as duplicates. After a failure
     * no later forwarded SEND gets a receipt: the connection closes with an ERROR.
     */
    void forwarded(StompFrame frame, CompletableFuture<Void> done) {
        String r = frame.header(StompHeaders.RECEIPT);
        boolean duplicate = done == BrokerCore.DUPLICATE;
        if (duplicate) {
            forwardedDuplicates.incrementAndGet();
        }
        if (!done.isDone() || done.isCompletedExceptionally()) {
            done.whenComplete((v, e) -> {
                if (e != null) {
                    session.failed(frame, e); // the receipt itself comes below, in order
                }
            });
        }
        CompletableFuture<Void> before = lastForwarded;
        if (before.isDone() && !before.isCompletedExceptionally() && done.isDone() && !done.isCompletedExceptionally()) {
            if (r != null) {
                session.write(forwardedReceiptFrame(frame, r, duplicate));
            }
            return;
        }
        // Written inside the combining function: it runs only after the previous one (which wrote the previous
        // receipt) completed, so receipts leave in order; if either failed it never runs.
        lastForwarded = before.thenCombine(done, (a, b) -> {
            if (r != null) {
                session.write(forwardedReceiptFrame(frame, r, duplicate));
            }
            return null;
        });
    }

    private StompFrame forwardedReceiptFrame(StompFrame frame, String r, boolean duplicate) {
        StompFrame receipt = receiptFor(frame, r);
        if (duplicate) {
            receipt.headers().add(FederationHeaders.DUPLICATE, "true");
        }
        receipt.headers().add(FederationHeaders.DUPLICATES, Integer.toString(forwardedDuplicates.getAndSet(0)));
        return receipt;
    }

    void whenDone(StompFrame frame, CompletableFuture<Void> done) {
        String r = frame.header(StompHeaders.RECEIPT);
        if (done.isDone() && !done.isCompletedExceptionally()) {
            if (r != null) {
                session.write(receiptFor(frame, r));
            }
            return;
        }
        done.whenComplete((v, e) -> {
            if (e != null) {
                session.failed(frame, e);
            } else if (r != null) {
                session.write(receiptFor(frame, r));
            }
        });
    }
}
