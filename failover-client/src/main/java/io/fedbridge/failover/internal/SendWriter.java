package io.fedbridge.failover.internal;

import io.fedbridge.core.ConnectionClosedException;
import io.fedbridge.core.FederationHeaders;
import io.fedbridge.core.StompCommand;
import io.fedbridge.core.StompConnection;
import io.fedbridge.core.StompErrorException;
import io.fedbridge.core.StompFrame;
import io.fedbridge.core.StompHeaders;
import io.fedbridge.failover.MessageRejectedException;
import io.fedbridge.failover.SendReceipt;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Writes the failover client's sends to a connection and settles them from what comes back: a send's own RECEIPT, a
 * receipt that confirms the sends written before it without one ({@link SendWindow}), an empty transaction's ABORT
 * that fences such a tail, or an ERROR that rejects a send. A settled send leaves {@link PendingSends}; one whose
 * connection failed stays there, to be written again on the next connection.
 *
 * <p>Concurrency: {@link #write} is called under the client's lock, so sends reach a connection in the order they
 * were taken; receipts are handled on the connection's I/O thread, never under that lock ({@link PendingSends} and
 * {@link SendWindow} guard themselves).
 */
final class SendWriter {

    private final PendingSends pending;
    private final SendWindow window = new SendWindow();
    private final AtomicLong fences = new AtomicLong();
    private final AtomicLong duplicateReceipts = new AtomicLong();
    /** The URI of the connection last settled on: a receipt names it, and making its string costs more than the rest. */
    private volatile ConnectionUri lastUri;

    private record ConnectionUri(StompConnection connection, String uri) {
    }

    SendWriter(PendingSends pending) {
        this.pending = pending;
    }

    /** Receipts that said a send was a duplicate the broker dropped. */
    long duplicateReceipts() {
        return duplicateReceipts.get();
    }

    /** Writes {@code p} to {@code c}; its receipt completes it. Caller holds the client's lock. */
    void write(PendingSend p, StompConnection c) {
        StompConnection before = p.connection;
        p.connection = c;
        p.waitingSince = -1;
        p.writes++;
        CompletableFuture<StompFrame> receipt;
        List<PendingSend> covered = null;
        try {
            if (SendWindow.applies(p, c)) {
                if (window.withoutReceipt(c)) {
                    p.receiptless = true;
                    c.sendFrame(p.frame(), false);
                    fence(c, window.added(p, c));
                    return;
                }
                covered = window.cover(c);
            }
            p.receiptless = false;
            receipt = c.sendForReceipt(p.frame());
        } catch (ConnectionClosedException e) {
            p.writes--;
            p.connection = before;
            throw e;
        }
        List<PendingSend> confirms = covered;
        receipt.whenComplete((r, e) -> {
            onReceipt(p, c, r, e);
            if (confirms != null) {
                onWindowReceipt(c, confirms, e);
            }
        });
    }

    /**
     * A receipt that confirms {@code covered} ({@link SendWindow}) came, or an ERROR answering it (the broker routed
     * every send before the one it refused); a failure otherwise leaves them pending, to be resent. Then fences what
     * was written after it, if nothing else will confirm that.
     */
    private void onWindowReceipt(StompConnection c, List<PendingSend> covered, Throwable e) {
        if (e == null || unwrap(e) instanceof StompErrorException) {
            for (PendingSend q : covered) {
                if (q.connection == c && pending.remove(q)) {
                    q.result.complete(new SendReceipt(q.federationId, uriOf(c), false, q.writes > 1));
                }
            }
        }
        fence(c, window.receiptDone(c)); // on the I/O thread: never the client's lock here
    }

    /** Confirms {@code tail}, written to {@code c} without a receipt, by an empty transaction whose ABORT has one. */
    private void fence(StompConnection c, List<PendingSend> tail) {
        if (tail.isEmpty()) {
            return;
        }
        String tx = "fedbridge-fence-" + fences.incrementAndGet();
        try {
            c.sendFrame(StompFrame.of(StompCommand.BEGIN, StompHeaders.TRANSACTION, tx), false);
            c.sendForReceipt(StompFrame.of(StompCommand.ABORT, StompHeaders.TRANSACTION, tx))
                    .whenComplete((r, x) -> onWindowReceipt(c, tail, x));
        } catch (ConnectionClosedException x) {
            fence(c, window.receiptDone(c)); // the tail stays pending and is resent on the next connection
        }
    }

    private void onReceipt(PendingSend p, StompConnection c, StompFrame receipt, Throwable e) {
        if (e == null) {
            if (pending.remove(p)) {
                boolean duplicate = "true".equals(receipt.header(FederationHeaders.DUPLICATE));
                if (duplicate) {
                    duplicateReceipts.incrementAndGet();
                }
                p.result.complete(new SendReceipt(p.federationId, uriOf(c), duplicate, p.writes > 1));
            }
            return;
        }
        Throwable cause = unwrap(e);
        if (cause instanceof StompErrorException err && p.connection == c && pending.remove(p)) {
            p.result.completeExceptionally(new MessageRejectedException("broker " + uriOf(c)
                    + " rejected the " + p + ": " + (err.errorMessage() != null ? err.errorMessage() : err.getMessage()),
                    p.federationId, err));
        }
        // Otherwise the connection failed: the send stays pending and is written again on the next connection.
    }

    private String uriOf(StompConnection c) {
        ConnectionUri last = lastUri;
        if (last == null || last.connection() != c) {
            last = new ConnectionUri(c, DefaultFailoverClient.uriOf(c));
            lastUri = last;
        }
        return last.uri();
    }

    private static Throwable unwrap(Throwable e) {
        while ((e instanceof CompletionException || e instanceof ExecutionException) && e.getCause() != null) {
            e = e.getCause();
        }
        return e;
    }
}
