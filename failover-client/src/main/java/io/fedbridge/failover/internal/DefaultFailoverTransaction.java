package io.fedbridge.failover.internal;

import io.fedbridge.core.ConnectionClosedException;
import io.fedbridge.core.Message;
import io.fedbridge.core.StompCommand;
import io.fedbridge.core.StompConnection;
import io.fedbridge.core.StompErrorException;
import io.fedbridge.core.StompFrame;
import io.fedbridge.core.StompHeaders;
import io.fedbridge.failover.FailoverException;
import io.fedbridge.failover.FailoverTransaction;
import io.fedbridge.failover.TransactionInDoubtException;
import io.fedbridge.failover.TransactionRolledBackException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A transaction bound to one connection. It never moves: when that connection fails the transaction is rolled back
 * (the broker discards it), and a COMMIT without its receipt is in doubt. Either way the messages it acknowledged are
 * forgotten by their subscriptions, so the broker's redelivery reaches the application again.
 *
 * <p>Lock order: a subscription may call in here while holding its own lock; this class never calls a subscription
 * while holding its own.
 */
final class DefaultFailoverTransaction implements FailoverTransaction {

    private enum State { OPEN, COMMITTING, COMMITTED, ABORTED, ROLLED_BACK, IN_DOUBT }

    private record Ack(DefaultFailoverSubscription subscription, DefaultFailoverMessage message) {
    }

    private final DefaultFailoverClient client;
    private final String id;
    private final StompConnection connection;
    private final String brokerUri;
    private final Duration commitTimeout;
    private State state = State.OPEN;
    private Throwable failure;
    private final List<String> federationIds = new ArrayList<>();
    private final List<Ack> acks = new ArrayList<>();

    DefaultFailoverTransaction(DefaultFailoverClient client, String id, StompConnection connection, String brokerUri,
                               Duration commitTimeout) {
        this.client = client;
        this.id = id;
        this.connection = connection;
        this.brokerUri = brokerUri;
        this.commitTimeout = commitTimeout;
    }

    StompConnection connection() {
        return connection;
    }

    @Override
    public String id() {
        return id;
    }

    /** Throws unless the transaction can take more work; rolls it back if its connection has failed. */
    void checkUsable() {
        List<Ack> forget = null;
        TransactionRolledBackException e;
        synchronized (this) {
            if (state == State.OPEN && connection.isConnected()) {
                return;
            }
            if (state == State.OPEN) {
                forget = rollBackLocked(connection.closeCause());
            } else if (state != State.ROLLED_BACK) {
                throw new IllegalStateException("transaction " + id + " is " + state.name().toLowerCase().replace('_', ' '));
            }
            e = rolledBack();
        }
        forget(forget);
        throw e;
    }

    synchronized void acknowledged(DefaultFailoverSubscription s, DefaultFailoverMessage m) {
        acks.add(new Ack(s, m));
    }

    @Override
    public void send(Message message) {
        checkUsable();
        String fid = client.federationId(message);
        StompFrame f = PendingSend.sendFrame(message, fid, id);
        List<Ack> forget;
        TransactionRolledBackException e;
        synchronized (this) {
            try {
                connection.sendFrame(f, false);
                federationIds.add(fid);
                return;
            } catch (ConnectionClosedException closed) {
                forget = rollBackLocked(closed);
                e = rolledBack();
            }
        }
        forget(forget);
        throw e;
    }

    @Override
    public void commit() {
        checkUsable();
        CompletableFuture<StompFrame> receipt = null;
        List<Ack> rolledBack = null;
        TransactionRolledBackException notSent = null;
        synchronized (this) {
            state = State.COMMITTING;
            try {
                receipt = connection.sendForReceipt(StompFrame.of(StompCommand.COMMIT, StompHeaders.TRANSACTION, id));
            } catch (ConnectionClosedException closed) {
                rolledBack = rollBackLocked(closed);
                notSent = rolledBack();
            }
        }
        if (notSent != null) {
            forget(rolledBack);
            throw notSent;
        }
        Throwable problem;
        try {
            if (commitTimeout.isNegative()) {
                receipt.get();
            } else {
                receipt.get(Math.max(1, commitTimeout.toMillis()), TimeUnit.MILLISECONDS);
            }
            List<Ack> done;
            synchronized (this) {
                state = State.COMMITTED;
                done = List.copyOf(acks);
            }
            for (Ack a : done) {
                a.subscription().confirmed(a.message().identity());
            }
            client.transactionEnded(this);
            return;
        } catch (ExecutionException e) {
            problem = e.getCause();
        } catch (TimeoutException e) {
            problem = e;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            problem = e;
        }
        List<Ack> forget;
        FailoverException thrown;
        synchronized (this) {
            forget = List.copyOf(acks);
            if (problem instanceof StompErrorException refused) {
                state = State.ROLLED_BACK;
                failure = refused;
                thrown = new TransactionRolledBackException(id, "broker " + brokerUri + " refused to commit transaction "
                        + id + ": " + refused.errorMessage() + "; none of its " + federationIds.size() + " sends and "
                        + acks.size() + " acknowledgements took effect", refused);
            } else {
                state = State.IN_DOUBT;
                failure = problem;
                String why = problem instanceof TimeoutException ? "no receipt came within " + commitTimeout
                        : problem instanceof InterruptedException ? "the committing thread was interrupted"
                        : "the connection failed (" + problem.getMessage() + ")";
                thrown = new TransactionInDoubtException(id, federationIds, "COMMIT of transaction " + id + " was sent to "
                        + brokerUri + " but " + why + " before its receipt: the broker committed all of it or none of it. "
                        + "Messages it acknowledged are handed out again if redelivered; its " + federationIds.size()
                        + " sends can be repeated with the same fedbridge-ids " + federationIds + " safely", problem);
            }
        }
        forget(forget);
        throw thrown;
    }

    @Override
    public void abort() {
        List<Ack> reopen;
        boolean sent = false;
        synchronized (this) {
            if (state == State.ROLLED_BACK) {
                return;
            }
            if (state != State.OPEN) {
                throw new IllegalStateException("transaction " + id + " is " + state.name().toLowerCase().replace('_', ' '));
            }
            state = State.ABORTED;
            reopen = List.copyOf(acks);
            try {
                connection.sendFrame(StompFrame.of(StompCommand.ABORT, StompHeaders.TRANSACTION, id), false);
                sent = true;
            } catch (ConnectionClosedException e) {
                // the broker discarded it with the connection
            }
        }
        for (Ack a : reopen) {
            if (sent) {
                a.subscription().reopen(a.message());
            } else {
                a.subscription().forget(a.message());
            }
        }
        client.transactionEnded(this);
    }

    /** Its connection failed (the engine calls this): an open transaction is rolled back. */
    void connectionLost(Throwable cause) {
        List<Ack> forget;
        synchronized (this) {
            if (state != State.OPEN) {
                return;
            }
            forget = rollBackLocked(cause);
        }
        forget(forget);
    }

    private List<Ack> rollBackLocked(Throwable cause) {
        state = State.ROLLED_BACK;
        failure = cause;
        return List.copyOf(acks);
    }

    /** After a rollback, outside this object's lock: the acknowledged messages are handed out again when redelivered. */
    private void forget(List<Ack> rolledBack) {
        if (rolledBack != null) {
            for (Ack a : rolledBack) {
                a.subscription().forget(a.message());
            }
            client.transactionEnded(this);
        }
    }

    private TransactionRolledBackException rolledBack() {
        return new TransactionRolledBackException(id, "transaction " + id + " was rolled back: the connection to "
                + brokerUri + " failed before it was committed" + (failure == null ? "" : " (" + failure.getMessage() + ")")
                + "; none of its " + federationIds.size() + " sends and " + acks.size()
                + " acknowledgements took effect; the messages it acknowledged will be delivered again", failure);
    }

    @Override
    public synchronized boolean isOpen() {
        return state == State.OPEN && connection.isConnected();
    }

    @Override
    public synchronized List<String> federationIds() {
        return List.copyOf(federationIds);
    }

    @Override
    public String toString() {
        return "FailoverTransaction[" + id + " on " + brokerUri + "]";
    }
}
