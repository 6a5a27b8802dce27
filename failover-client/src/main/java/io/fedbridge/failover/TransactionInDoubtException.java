package io.fedbridge.failover;

import java.util.List;

/**
 * COMMIT was sent but the connection failed before the broker's receipt: the broker committed the whole transaction
 * or nothing of it (a broker never half-commits), and the client cannot tell which. Messages acknowledged in it are
 * handed to the application again if the broker redelivers them (it does if it did not commit). Repeating the
 * transaction's sends with the same {@link #federationIds()} (as their {@code fedbridge-id} header) is safe on a
 * fedbridge federation: a broker that committed them drops the repeats.
 */
public class TransactionInDoubtException extends FailoverException {
    private static final long serialVersionUID = 1L;

    private final String transactionId;
    private final List<String> federationIds;

    public TransactionInDoubtException(String transactionId, List<String> federationIds, String message, Throwable cause) {
        super(message, cause);
        this.transactionId = transactionId;
        this.federationIds = List.copyOf(federationIds);
    }

    public String transactionId() {
        return transactionId;
    }

    /** The {@code fedbridge-id}s of the transaction's sends, in order. */
    public List<String> federationIds() {
        return federationIds;
    }
}
