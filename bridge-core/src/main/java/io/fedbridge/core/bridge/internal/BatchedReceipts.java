package io.fedbridge.core.bridge.internal;

import io.fedbridge.core.FederationHeaders;
import io.fedbridge.core.ReceivedMessage;
import io.fedbridge.core.StompCommand;
import io.fedbridge.core.StompConnection;
import io.fedbridge.core.StompFrame;
import io.fedbridge.core.StompHeaders;
import io.fedbridge.core.bridge.FederationBridge;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Batched receipts for one {@link Direction} whose target promises ordered receipts
 * ({@link FederationHeaders#ORDERED_RECEIPTS}) and whose filters never block: a receipt is asked for only on the last
 * forward of each burst (and at least every {@code receiptEvery} forwards), each receipt settles every forward written
 * before it, and the Direction acknowledges them at the source with one cumulative ACK per subscription.
 *
 * <p>Concurrency: {@link #forward} and the burst state ({@code held}, {@code sinceReceipt}, {@code releaseScheduled},
 * {@code unreceiptedTail}) are confined to the source connection's I/O thread, where every network subscription
 * forwards when receipts are batched. Receipts arrive on the target's I/O thread; {@code receiptsOutstanding} and
 * {@code receiptWanted} hand over between the two. {@code unreceipted}, like the subscriptions' windows, is guarded by
 * the Direction's lock, never held while waiting for the network.
 */
final class BatchedReceipts {

    private final Direction direction;
    private final StompConnection target;
    private final FederationBridge bridge;
    private final int receiptEvery;
    /** Forwards written to the target and not yet covered by a receipt, in write order. Guarded by the Direction. */
    private final ArrayDeque<Direction.Forward> unreceipted = new ArrayDeque<>();
    // Confined to the source's I/O thread:
    private Direction.Forward held;
    private int sinceReceipt;
    private boolean releaseScheduled;
    private volatile io.netty.util.concurrent.EventExecutor sourceLoop; // read by the target I/O thread
    /** Receipts asked for and not yet arrived. */
    private final AtomicInteger receiptsOutstanding = new AtomicInteger();
    /** A burst ended while a receipt was outstanding: once it arrives, ask for one covering the rest. */
    private volatile boolean receiptWanted;
    /** The last forward written asked for no receipt. */
    private boolean unreceiptedTail;

    BatchedReceipts(Direction direction, StompConnection target, FederationBridge bridge, int prefetchSize) {
        this.direction = direction;
        this.target = target;
        this.bridge = bridge;
        this.receiptEvery = Math.max(1, Math.min(128, prefetchSize / 2));
    }

    /**
     * Holds the newest forward back until the next one arrives (then it goes without a receipt) or the burst ends
     * (then it goes with one): a burst of forwards costs one RECEIPT and, per subscription, one ACK.
     */
    void forward(Direction.Forward fw) {
        synchronized (direction) {
            fw.ns.window.addLast(fw);
        }
        Direction.Forward previous = held;
        held = fw;
        if (previous != null) {
            write(previous, false);
        }
        if (++sinceReceipt >= receiptEvery) {
            releaseHeld();
        } else if (!releaseScheduled) {
            io.netty.util.concurrent.EventExecutor loop = io.netty.util.internal.ThreadExecutorMap.currentExecutor();
            if (loop == null) {
                releaseHeld();
                return;
            }
            sourceLoop = loop;
            releaseScheduled = true;
            loop.execute(this::burstEnded); // runs after the frames already read in this burst were forwarded
        }
    }

    /**
     * The end of a burst. Its last forward goes out with a receipt request if none is outstanding; else it goes out
     * at once without one, and when the outstanding receipt arrives a receipt-only frame settles what followed. So a
     * busy link asks for about one receipt per round trip, and no message ever waits for a receipt to go out.
     */
    private void burstEnded() {
        releaseScheduled = false;
        if (direction.isStopped() || held == null) {
            return;
        }
        if (receiptsOutstanding.get() == 0) {
            releaseHeld();
            return;
        }
        Direction.Forward h = held;
        held = null;
        write(h, false);
        receiptWanted = true;
        if (receiptsOutstanding.get() == 0) { // the outstanding one arrived meanwhile and did not see receiptWanted
            receiptIfWanted();
        }
    }

    /** Source I/O thread: asks for a receipt covering the forwards written since the last one asked for. */
    private void receiptIfWanted() {
        if (!receiptWanted || direction.isStopped() || receiptsOutstanding.get() != 0) {
            return;
        }
        receiptWanted = false;
        if (held != null || !unreceiptedTail) {
            return; // a burst is in progress (its end asks), or the last write asked already
        }
        StompHeaders h = new StompHeaders(2);
        h.add(FederationHeaders.RECEIPT_ONLY, "true");
        sinceReceipt = 0;
        write(new Direction.Forward(null, null, new StompFrame(StompCommand.SEND, h)), true);
    }

    private void releaseHeld() {
        Direction.Forward h = held;
        held = null;
        if (h != null) {
            sinceReceipt = 0;
            write(h, true);
        }
    }

    private void write(Direction.Forward fw, boolean receipt) {
        StompFrame frame = fw.frame;
        fw.frame = null;
        unreceiptedTail = !receipt;
        synchronized (direction) {
            unreceipted.addLast(fw); // in write order: only this thread writes forwards
        }
        try {
            if (receipt) {
                receiptsOutstanding.incrementAndGet();
                target.sendForReceipt(frame).whenComplete((r, e) -> onReceipt(fw, r, e));
            } else {
                target.sendFrame(frame, false);
            }
        } catch (RuntimeException e) {
            abandonUnreceipted();
            bridge.fail(e);
        }
    }

    /** A receipt settles its forward and every one written before it (ordered receipts). Target I/O thread. */
    private void onReceipt(Direction.Forward last, StompFrame receipt, Throwable e) {
        if (receiptsOutstanding.decrementAndGet() == 0 && receiptWanted && sourceLoop != null) {
            sourceLoop.execute(this::receiptIfWanted);
        }
        if (e != null) {
            abandonUnreceipted();
            bridge.fail(e instanceof java.util.concurrent.CompletionException && e.getCause() != null ? e.getCause() : e);
            return;
        }
        List<Direction.Forward> covered = new ArrayList<>();
        synchronized (direction) {
            Direction.Forward fw;
            do {
                fw = unreceipted.pollFirst();
                if (fw == null) {
                    break; // abandoned meanwhile: the bridge is failing
                }
                fw.done = true;
                if (fw.ns != null) { // not a receipt-only frame
                    covered.add(fw);
                }
            } while (fw != last);
        }
        String dups = receipt.header(FederationHeaders.DUPLICATES);
        int duplicates = 0;
        try {
            duplicates = dups == null ? 0 : Integer.parseInt(dups);
        } catch (NumberFormatException ignored) {
            // a peer that says something else: count none
        }
        bridge.countReceipted(covered.size(), duplicates);
        Set<Direction.NetworkSub> touched = new LinkedHashSet<>();
        for (Direction.Forward fw : covered) {
            if (!Direction.keepsForwarding(fw.ns, receipt)) {
                synchronized (direction) {
                    direction.hold(fw.ns);
                }
            }
            touched.add(fw.ns);
        }
        synchronized (direction) {
            for (Direction.NetworkSub ns : touched) {
                acknowledgeDone(ns);
            }
        }
    }

    /**
     * Acknowledges, with one cumulative ACK, the done forwards at the head of {@code ns}'s window. Under the Direction's
     * lock, so ACKs leave in delivery order; {@code ack} never blocks (every caller is on an I/O thread).
     */
    void acknowledgeDone(Direction.NetworkSub ns) {
        ReceivedMessage last = null;
        int n = 0;
        while (!ns.window.isEmpty() && ns.window.peekFirst().done) {
            last = ns.window.pollFirst().message;
            n++;
        }
        if (last == null) {
            return;
        }
        ns.inflight -= n;
        try {
            last.ack();
        } catch (RuntimeException ackFailed) {
            // The source connection is gone; the messages return to their queue and are deduplicated on resend.
            // Failing the bridge withdraws demand from other routes: not while holding the Direction's lock.
            FederationBridge.timers().execute(() -> bridge.fail(ackFailed));
            return;
        }
        direction.unsubscribeIfDrained(ns);
    }

    /** The link failed: what the target did not receipt is counted abandoned (the source redelivers it). */
    void abandonUnreceipted() {
        int n = 0;
        synchronized (direction) {
            for (Direction.Forward fw : unreceipted) {
                n += fw.ns != null ? 1 : 0;
            }
            unreceipted.clear();
        }
        for (int i = 0; i < n; i++) {
            bridge.countAbandoned();
        }
    }
}
