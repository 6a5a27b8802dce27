package io.fedbridge.failover;

import io.fedbridge.core.Message;
import java.util.List;

/**
 * A STOMP transaction on the connection current at {@link FailoverClient#begin()}: its sends and acknowledgements take
 * effect together on {@link #commit()} or not at all. A transaction never moves to another broker: if its connection
 * fails it is rolled back, and the next call (or the commit) throws {@link TransactionRolledBackException}. Not for
 * use by several threads at once.
 */
public interface FailoverTransaction {

    String id();

    /**
     * Sends inside the transaction (the commit's receipt covers it). Each send gets a {@code fedbridge-id}, unless the
     * message carries one.
     *
     * @throws TransactionRolledBackException if the connection failed
     */
    void send(Message message);

    /**
     * Commits and waits for the broker's receipt.
     *
     * @throws TransactionRolledBackException if it was rolled back (connection failed before COMMIT, or the broker
     *                                        refused it)
     * @throws TransactionInDoubtException    if the connection failed after COMMIT was sent, before the receipt
     */
    void commit();

    /** Aborts: nothing of it takes effect. Messages acknowledged in it may be acknowledged again. */
    void abort();

    /** True until committed, aborted or rolled back. */
    boolean isOpen();

    /** The {@code fedbridge-id}s of the sends so far, in order. */
    List<String> federationIds();
}
