package io.fedbridge.core;

import java.util.concurrent.CompletableFuture;

/**
 * A STOMP transaction: sends and acks inside it take effect together on {@link #commit()}, or not at all
 * on {@link #abort()}.
 */
public final class Transaction {

    private final StompConnection connection;
    private final String id;
    private volatile boolean done;

    Transaction(StompConnection connection, String id) {
        this.connection = connection;
        this.id = id;
    }

    public String id() {
        return id;
    }

    /** Sends inside the transaction (no receipt: the commit's receipt covers it). */
    public void send(Message message) {
        checkOpen();
        connection.sendInTransaction(message, id);
    }

    /** Commits; the future completes when the broker's RECEIPT confirms it. */
    public CompletableFuture<Void> commit() {
        checkOpen();
        done = true;
        return connection.endTransaction(StompCommand.COMMIT, id);
    }

    public CompletableFuture<Void> abort() {
        checkOpen();
        done = true;
        return connection.endTransaction(StompCommand.ABORT, id);
    }

    public boolean isDone() {
        return done;
    }

    private void checkOpen() {
        if (done) {
            throw new IllegalStateException("transaction " + id + " is already committed or aborted");
        }
    }
}
