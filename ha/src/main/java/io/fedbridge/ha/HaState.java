package io.fedbridge.ha;

/**
 * An HA member's state, as Qpid names them. A backup goes {@code joining} (looking for the primary) →
 * {@code catchup} (copying its state) → {@code ready} (a complete copy, following it); a primary is
 * {@code recovering} (right after its promotion, until the backups that were READY have caught up with it, or the
 * recovery timeout passed) → {@code active}.
 */
public enum HaState {
    JOINING, CATCHUP, READY, RECOVERING, ACTIVE;

    /** The state's name as the CLI, the management API and the log print it. */
    public String label() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
