package io.fedbridge.failover;

/**
 * A send (or {@code begin}, or the first connect) could not complete within the configured {@code timeout}: no broker
 * was reachable, or the send buffer stayed full.
 *
 * <p>{@link #isInDoubt()} tells whether the message had been written to a broker before the connection was lost: it
 * may then have been accepted. Resending it with the same {@link #federationId()} (set as the message's
 * {@code fedbridge-id} header) is safe on a fedbridge federation, which drops an id it has already accepted.
 */
public class FailoverTimeoutException extends FailoverException {
    private static final long serialVersionUID = 1L;

    private final String federationId;
    private final boolean inDoubt;

    public FailoverTimeoutException(String message, String federationId, boolean inDoubt, Throwable cause) {
        super(message, cause);
        this.federationId = federationId;
        this.inDoubt = inDoubt;
    }

    /** The {@code fedbridge-id} of the send that timed out, or null if this was not a send. */
    public String federationId() {
        return federationId;
    }

    /** True if the message reached a broker before the connection was lost, so it may have been accepted. */
    public boolean isInDoubt() {
        return inDoubt;
    }
}
