package io.fedbridge.failover;

import java.time.Duration;
import java.util.List;

/** What happened to a {@link FailoverClient}'s connection; see {@link FailoverListener}. */
public sealed interface FailoverEvent {

    /**
     * Connected (first time or after a loss) and restored: subscriptions re-established, unconfirmed sends resent.
     *
     * @param uri                    the broker
     * @param brokerId               its {@code fedbridge-broker-id}, or null for a broker that is not fedbridge
     * @param reconnect              false for the client's first connection
     * @param downtime               how long the client was without a connection (zero the first time)
     * @param restoredSubscriptions subscriptions re-established
     * @param resentSends            sends written again
     */
    record Connected(String uri, String brokerId, boolean reconnect, Duration downtime, int restoredSubscriptions,
                     int resentSends) implements FailoverEvent {
    }

    /** The connection to {@code uri} failed; the client is reconnecting. */
    record ConnectionLost(String uri, Throwable cause) implements FailoverEvent {
    }

    /** A connect round failed: every broker was tried; the next round starts after {@code delay}. */
    record ReconnectScheduled(int failedRounds, Duration delay, Throwable lastFailure) implements FailoverEvent {
    }

    /**
     * The brokers the client knows changed after a federation announcement.
     *
     * @param uris      every broker the client now knows, configured first
     * @param rebalance whether the announcement asked clients to rebalance
     */
    record UrisUpdated(List<String> uris, boolean rebalance) implements FailoverEvent {
    }

    /** The client moved from one broker to another without a failure (priority broker back, or rebalance). */
    record Switched(String from, String to, String reason) implements FailoverEvent {
    }

    /** The client gave up (maxReconnectAttempts); every pending and later operation fails with {@code failure}. */
    record GaveUp(int failedRounds, FailoverException failure) implements FailoverEvent {
    }
}
