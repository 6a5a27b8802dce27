package io.fedbridge.jms.internal;

import io.fedbridge.failover.FailoverException;
import io.fedbridge.failover.FailoverMessage;
import io.fedbridge.failover.FailoverTransaction;
import jakarta.jms.IllegalStateException;
import jakarta.jms.JMSException;
import jakarta.jms.Session;
import jakarta.jms.TransactionRolledBackException;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a session has delivered or sent and not yet settled: in CLIENT_ACKNOWLEDGE the messages awaiting
 * {@code acknowledge()}, in a transacted session the messages consumed and the STOMP transaction of the sends, and the
 * consumers whose close waits for them. Guarded by {@code this}; the session checks its state and mode before calling.
 */
final class SessionWork {

    private static final Logger LOG = LoggerFactory.getLogger(SessionWork.class);

    private final JmsSession session;
    private final int mode;
    /** CLIENT: delivered, not yet acknowledged. SESSION_TRANSACTED: consumed in the open transaction. */
    private final List<FailoverMessage> delivered = new ArrayList<>();
    /** Consumers closed while messages they delivered await acknowledge/commit/rollback: unsubscribed after it. */
    private final List<JmsMessageConsumer> closing = new ArrayList<>();
    private FailoverTransaction transaction;
    private Throwable rollbackOnly;

    SessionWork(JmsSession session, int mode) {
        this.session = session;
        this.mode = mode;
    }

    /**
     * Turns what a consumer got into the JMS message the application sees, and records it for the session's
     * acknowledgement. AUTO and DUPS_OK: {@code autoAck} acknowledges now (receive) or the caller does after the
     * listener ({@link #afterListener}).
     */
    JmsMessage delivered(FailoverMessage f, boolean autoAckNow) throws JMSException {
        JmsMessage m;
        try {
            var config = session.connection().config();
            m = MessageMapping.fromStomp(f, config.trustedPackages(), config.trustAllPackages());
        } catch (JMSException | RuntimeException e) {
            f.nack();
            throw Errors.jms("cannot read message " + f.messageId() + " from " + f.destination(), e);
        }
        switch (mode) {
            case Session.CLIENT_ACKNOWLEDGE -> {
                synchronized (this) {
                    delivered.add(f);
                }
                m.acknowledger(session::acknowledge);
            }
            case Session.SESSION_TRANSACTED -> {
                synchronized (this) {
                    delivered.add(f);
                }
            }
            default -> {
                if (autoAckNow) {
                    f.ack();
                }
            }
        }
        return m;
    }

    /** AUTO/DUPS_OK after a listener: acknowledged if it returned, redelivered if it threw (JMS 8.7). */
    void afterListener(FailoverMessage f, boolean threw) {
        if (mode == Session.AUTO_ACKNOWLEDGE || mode == Session.DUPS_OK_ACKNOWLEDGE) {
            if (threw) {
                f.nack();
            } else {
                f.ack();
            }
        }
    }

    /** Whether messages delivered by {@code c} still await the session's acknowledge, commit or rollback. */
    synchronized boolean holdsMessagesOf(JmsMessageConsumer c) {
        for (FailoverMessage f : delivered) {
            if (f.subscription() == c.subscription()) {
                return true;
            }
        }
        return false;
    }

    synchronized void closeLater(JmsMessageConsumer c) {
        closing.add(c);
    }

    void finishClosing() {
        List<JmsMessageConsumer> done;
        synchronized (this) {
            done = new ArrayList<>(closing);
            closing.clear();
        }
        for (JmsMessageConsumer c : done) {
            c.endSubscription();
        }
    }

    /** CLIENT_ACKNOWLEDGE: every message this session delivered so far (JMS 6.2.10). */
    void acknowledge() {
        if (mode != Session.CLIENT_ACKNOWLEDGE) {
            return;
        }
        List<FailoverMessage> batch;
        synchronized (this) {
            batch = new ArrayList<>(delivered);
            delivered.clear();
        }
        for (FailoverMessage f : batch) {
            f.ack();
        }
        finishClosing();
    }

    /** Sends inside the session's transaction, begun on first use. */
    void sendInTransaction(io.fedbridge.core.Message m) throws JMSException {
        synchronized (this) {
            if (rollbackOnly != null) {
                throw Errors.jms("the transaction was rolled back at a failover; call rollback()", rollbackOnly);
            }
            try {
                if (transaction == null) {
                    transaction = session.client().begin();
                }
                transaction.send(m);
            } catch (io.fedbridge.failover.TransactionRolledBackException e) {
                rollbackOnly = e;
                throw Errors.jms("send to " + m.destination() + " in a transaction", e);
            } catch (FailoverException e) {
                throw Errors.jms("send to " + m.destination() + " in a transaction", e);
            }
        }
    }

    void commit() throws JMSException {
        List<FailoverMessage> consumed;
        FailoverTransaction tx;
        Throwable doomed;
        synchronized (this) {
            consumed = new ArrayList<>(delivered);
            delivered.clear();
            tx = transaction;
            transaction = null;
            doomed = rollbackOnly;
            rollbackOnly = null;
        }
        try {
            if (doomed != null) {
                throw new io.fedbridge.failover.TransactionRolledBackException(tx == null ? null : tx.id(),
                        "the transaction was rolled back at a failover", doomed);
            }
            if (tx == null && consumed.isEmpty()) {
                return;
            }
            if (tx == null) {
                tx = session.client().begin();
            }
            for (FailoverMessage f : consumed) {
                f.ack(tx);
            }
            tx.commit();
        } catch (io.fedbridge.failover.TransactionInDoubtException e) {
            throw Errors.jms("commit", e);
        } catch (FailoverException | IllegalStateException e) {
            abortQuietly(tx);
            nackAll(consumed);
            TransactionRolledBackException x = new TransactionRolledBackException("commit failed and the transaction was "
                    + "rolled back (its messages come again): " + e.getMessage());
            x.setLinkedException(e);
            x.initCause(e);
            throw x;
        } finally {
            finishClosing();
        }
    }

    void rollback() {
        List<FailoverMessage> consumed;
        FailoverTransaction tx;
        synchronized (this) {
            consumed = new ArrayList<>(delivered);
            delivered.clear();
            tx = transaction;
            transaction = null;
            rollbackOnly = null;
        }
        abortQuietly(tx);
        nackAll(consumed);
        finishClosing();
    }

    private static void abortQuietly(FailoverTransaction tx) {
        if (tx != null && tx.isOpen()) {
            try {
                tx.abort();
            } catch (RuntimeException e) {
                LOG.debug("abort of {} failed: {}", tx.id(), e.toString());
            }
        }
    }

    private static void nackAll(List<FailoverMessage> messages) {
        for (FailoverMessage f : messages) {
            try {
                f.nack();
            } catch (RuntimeException e) {
                LOG.debug("nack of {} failed (it is redelivered anyway): {}", f.messageId(), e.toString());
            }
        }
    }

    /** CLIENT: the unacknowledged messages come again, marked redelivered (JMS 6.2.10). */
    void recover() {
        List<FailoverMessage> batch;
        synchronized (this) {
            batch = new ArrayList<>(delivered);
            delivered.clear();
        }
        nackAll(batch);
        finishClosing();
    }


    /** The session closes: a transaction rolls back, unacknowledged messages go back. */
    void settleOnClose() {
        if (mode == Session.SESSION_TRANSACTED) {
            rollback();
        } else {
            recover();
        }
    }
}
