package io.fedbridge.failover.internal;

import io.fedbridge.core.FederationHeaders;
import io.fedbridge.core.StompConnection;
import io.fedbridge.core.StompHeaders;
import java.util.ArrayList;
import java.util.List;

/**
 * Fewer receipts for pipelined sends ({@code sendAsync(message, onFailure)} of NON_PERSISTENT messages) to a broker that
 * answers one connection's frames in order ({@value FederationHeaders#ORDERED_RECEIPTS}, a fedbridge broker): while a
 * receipt of such a send is outstanding, the next ones go without one, up to {@value #SIZE}; the next receipt then
 * confirms them as well (the broker routed them before it). When the last receipt is back and sends written without
 * one still wait, a fence confirms them: an empty transaction (BEGIN, then ABORT with a receipt). A broker's ERROR that
 * answers no receipt closes the connection; the sends written without a receipt on it are then failed, not resent,
 * since one of them may be what the broker refuses.
 *
 * <p>A send at a low rate finds no receipt outstanding and gets its own, as before; a burst costs one receipt per
 * {@value #SIZE} sends and one fence.
 *
 * <p>Concurrency: guarded by its own monitor, never held while writing. Senders write under the client's lock, one at a
 * time, and {@link #added} a send once written, so what a receipt or fence covers was written before it; receipts
 * arrive on the connection's I/O thread, which must never wait for the client's lock (a sender holding it may be
 * waiting for that thread to drain the connection).
 */
final class SendWindow {

    static final int SIZE = 64;

    private StompConnection connection;
    private List<PendingSend> unreceipted = new ArrayList<>();
    private int receiptsOutstanding;

    /** Whether {@code p}, when written to {@code c}, may share a later receipt. */
    static boolean applies(PendingSend p, StompConnection c) {
        if (!p.pipelined || "true".equals(p.message.headers().get(StompHeaders.PERSISTENT))) {
            return false;
        }
        StompHeaders h = c.connectedHeaders();
        return h != null && "true".equals(h.get(FederationHeaders.ORDERED_RECEIPTS));
    }

    private void on(StompConnection c) {
        if (connection != c) {
            connection = c;
            unreceipted = new ArrayList<>();
            receiptsOutstanding = 0;
        }
    }

    /** Whether the next pipelined send on {@code c} goes without a receipt (then {@link #added} once written). */
    synchronized boolean withoutReceipt(StompConnection c) {
        on(c);
        return receiptsOutstanding > 0 && unreceipted.size() < SIZE - 1;
    }

    /**
     * {@code p} was written to {@code c} without a receipt. Returns the sends a fence must confirm now (the receipt
     * that was outstanding came back meanwhile), already {@link #cover covered}; else an empty list.
     */
    synchronized List<PendingSend> added(PendingSend p, StompConnection c) {
        if (connection != c) {
            return List.of(); // the connection was replaced: p is pending and is resent
        }
        unreceipted.add(p);
        return receiptsOutstanding == 0 ? cover(c) : List.of();
    }

    /** A receipt is asked for on {@code c} now: it confirms the returned sends, written before it. */
    synchronized List<PendingSend> cover(StompConnection c) {
        on(c);
        receiptsOutstanding++;
        List<PendingSend> covered = unreceipted;
        unreceipted = new ArrayList<>();
        return covered;
    }

    /**
     * A receipt asked for on {@code c} came (or failed): the sends a fence must confirm now (none outstanding, some
     * waiting), already {@link #cover covered}; else an empty list.
     */
    synchronized List<PendingSend> receiptDone(StompConnection c) {
        if (connection != c) {
            return List.of();
        }
        receiptsOutstanding--;
        if (receiptsOutstanding == 0 && !unreceipted.isEmpty() && c.isConnected()) {
            return cover(c);
        }
        return List.of();
    }
}
