package io.fedbridge.broker.management;

/**
 * A management operation failed; the message names the object, e.g. {@code no queue /queue/x on broker B}.
 * {@link #kind()} is what the JSON reply calls {@code errorType}.
 */
public final class ManagementException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** Why: the object does not exist, the request is malformed, or the operation itself failed. */
    public enum Kind {
        NOT_FOUND("not-found"), BAD_REQUEST("bad-request"), FAILED("failed");

        private final String wireName;

        Kind(String wireName) {
            this.wireName = wireName;
        }

        public String wireName() {
            return wireName;
        }
    }

    private final Kind kind;

    public ManagementException(Kind kind, String message) {
        super(message);
        this.kind = kind;
    }

    public ManagementException(Kind kind, String message, Throwable cause) {
        super(message, cause);
        this.kind = kind;
    }

    public static ManagementException notFound(String message) {
        return new ManagementException(Kind.NOT_FOUND, message);
    }

    public static ManagementException badRequest(String message) {
        return new ManagementException(Kind.BAD_REQUEST, message);
    }

    public Kind kind() {
        return kind;
    }
}
