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
 * confirms them as well (the broker routed them before it). When the last receipt comes back and sends written after
 * it still wait, a fence confirms them: an empty transaction (BEGIN, then ABORT with a receipt). A broker's ERROR that
 * answers no receipt closes the connection; the sends written without a receipt on it are then failed, not resent,
 * since one of them may be what the broker refuses.
 *
 * <p>A send at a low rate finds no receipt outstanding and gets its own, as before; a burst costs one receipt per
 * {@value #SIZE} sends and one fence. Not thread-safe: the client's lock guards it.
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

    /** Whether the next pipelined send on {@code c} goes without a receipt ({@link #add} it once written). */
    boolean withoutReceipt(StompConnection c) {
        if (connection != c) {
            connection = c;
            unreceipted = new ArrayList<>();
            receiptsOutstanding = 0;
        }
        return receiptsOutstanding > 0 && unreceipted.size() < SIZE - 1;
    }

    void add(PendingSend p) {
        unreceipted.add(p);
    }

    /** A receipt is asked for on {@code c} now: it confirms the returned sends, written before it. */
    List<PendingSend> cover(StompConnection c) {
        if (connection != c) {
            connection = c;
            unreceipted = new ArrayList<>();
            receiptsOutstanding = 0;
        }
        receiptsOutstanding++;
        List<PendingSend> covered = unreceipted;
        unreceipted = new ArrayList<>();
        return covered;
    }

    /**
     * A receipt asked for on {@code c} came (or failed): the sends a fence must confirm now (none outstanding, some
     * waiting), already {@link #cover covered}; else an empty list.
     */
    List<PendingSend> receiptDone(StompConnection c) {
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
