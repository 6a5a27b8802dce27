package io.fedbridge.failover;

/**
 * Life-cycle callbacks of a {@link FailoverClient}: connected, lost, retrying, given up, brokers learned. Called one at
 * a time on the client's callback thread; keep them short. The default does nothing.
 *
 * <pre>{@code
 * FailoverClient c = FailoverClient.connect(config, event -> {
 *     if (event instanceof FailoverEvent.ConnectionLost lost) {
 *         log.warn("lost {}: {}", lost.uri(), lost.cause().toString());
 *     }
 * });
 * }</pre>
 */
@FunctionalInterface
public interface FailoverListener {

    void onEvent(FailoverEvent event);

    /** A listener that ignores every event. */
    static FailoverListener none() {
        return event -> { };
    }
}
