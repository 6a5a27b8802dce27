package io.fedbridge.samples.admin;

/** An admin command failed; {@link #exitCode()} says how (see {@link AdminCommand}), the message says why in one line. */
final class AdminException extends RuntimeException {

    private static final long serialVersionUID = 1L;
    private final int exitCode;

    AdminException(int exitCode, String message) {
        super(message);
        this.exitCode = exitCode;
    }

    int exitCode() {
        return exitCode;
    }
}
