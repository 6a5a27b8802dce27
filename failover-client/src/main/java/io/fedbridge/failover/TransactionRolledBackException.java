package io.fedbridge.failover;

/**
 * A transaction ended without taking effect: the connection it was begun on failed before COMMIT was sent, or the
 * broker refused the COMMIT. None of its sends and acknowledgements took effect; messages acknowledged in it are
 * handed to the application again when the broker redelivers them.
 */
public class TransactionRolledBackException extends FailoverException {
    private static final long serialVersionUID = 1L;

    private final String transactionId;

    public TransactionRolledBackException(String transactionId, String message, Throwable cause) {
        super(message, cause);
        this.transactionId = transactionId;
    }

    public String transactionId() {
        return transactionId;
    }
}
