package io.fedbridge.broker.internal;

import io.fedbridge.broker.MessageStore;
import io.fedbridge.core.StompFrame;
import io.fedbridge.core.StompHeaders;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * The open STOMP transactions of one {@link ServerSession}: BEGIN, COMMIT and ABORT, and the SENDs and ACKs enlisted
 * in a transaction, held as actions and applied in the order they came when it commits, their store writes as one
 * atomic unit ({@link MessageStore#atomically}); the RECEIPT of the COMMIT waits until that unit
 * is durable.
 *
 * <p>Confined to the connection's event loop, like the session.
 */
final class SessionTransactions {

    private final ServerSession session;
    private final SessionLimits limits;
    private final SessionReceipts receipts;
    private final MessageStore store;
    private final Map<String, List<Supplier<CompletableFuture<Void>>>> open = new HashMap<>();

    SessionTransactions(ServerSession session, SessionLimits limits, SessionReceipts receipts, MessageStore store) {
        this.session = session;
        this.store = store;
        this.limits = limits;
        this.receipts = receipts;
    }

    /** The actions of open transaction {@code tx}, to add one to; null if no such transaction is open. */
    List<Supplier<CompletableFuture<Void>>> actions(String tx) {
        return open.get(tx);
    }

    /** Forgets every open transaction (the connection closed: nothing of them is applied). */
    void clear() {
        open.clear();
    }

    void begin(StompFrame f) {
        String tx = f.header(StompHeaders.TRANSACTION);
        if (tx == null) {
            session.error("BEGIN without a transaction header", null, f.header(StompHeaders.RECEIPT));
            return;
        }
        if (open.containsKey(tx)) {
            session.error("BEGIN of transaction '" + tx + "' which is already open", null, f.header(StompHeaders.RECEIPT));
            return;
        }
        String refused = limits.refuseBegin(open.size());
        if (refused != null) {
            session.error(refused, null, f.header(StompHeaders.RECEIPT));
            return;
        }
        open.put(tx, new ArrayList<>());
        session.receipt(f);
    }

    void commit(StompFrame f) {
        String tx = f.header(StompHeaders.TRANSACTION);
        List<Supplier<CompletableFuture<Void>>> actions = tx == null ? null : open.remove(tx);
        if (actions == null) {
            session.error("COMMIT of unknown transaction '" + tx + "'", null, f.header(StompHeaders.RECEIPT));
            return;
        }
        // Actions are sends (route returns a future) and acks, applied in the order they were sent. Their store writes
        // are one unit: after a crash the store holds the sends and the acks of the commit together, or none of them
        // (so an in-doubt commit never comes back half done, its results kept and its consumed messages redelivered).
        List<CompletableFuture<Void>> done = new ArrayList<>();
        BrokerCore.COMMITTING.set(Boolean.TRUE); // its sends wait for the unit, even to be forwarded (BrokerCore.accept)
        try {
            store.atomically(() -> {
                for (Supplier<CompletableFuture<Void>> action : actions) {
                    done.add(action.get());
                }
            });
        } finally {
            BrokerCore.COMMITTING.set(Boolean.FALSE);
        }
        limits.transactionEnded(tx);
        receipts.whenDone(f, CompletableFuture.allOf(done.toArray(CompletableFuture[]::new)));
    }

    void abort(StompFrame f) {
        String tx = f.header(StompHeaders.TRANSACTION);
        if (tx == null || open.remove(tx) == null) {
            session.error("ABORT of unknown transaction '" + tx + "'", null, f.header(StompHeaders.RECEIPT));
            return;
        }
        limits.transactionEnded(tx);
        session.receipt(f);
    }
}
