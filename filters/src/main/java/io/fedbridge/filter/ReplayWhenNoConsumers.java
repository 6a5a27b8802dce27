package io.fedbridge.filter;

import io.fedbridge.core.FederationHeaders;
import io.fedbridge.core.bridge.BridgeFilter;
import io.fedbridge.core.bridge.RemoteConsumer;
import java.time.Duration;
import java.util.Map;

/**
 * Replay when no consumers: a queue message that crossed to a broker whose consumers have since gone goes back
 * toward a broker that has consumers now — even though that broker is on its path — once it waited
 * {@code replayDelay} with no local consumer. The source broker applies it where it dispatches (a network
 * subscription marked with {@link FederationHeaders#REPLAY_DELAY}), and rechecks waiting messages when the
 * delay passes, so a message on a quiet queue does not wait for unrelated traffic.
 *
 * <p>Unlike ActiveMQ's, it works with duplicate detection on: a replay carries a replay count that is part of
 * the receiving broker's dedupe key, so the replay is accepted once and resends of it are still dropped.
 * Against ping-pong it replays only toward consumers local to the peer (never toward relayed demand), only
 * after the message waited {@code replayDelay}, and — with {@code selectorAware} — only when no local consumer's
 * selector matches the message (otherwise any local consumer at all keeps it here).
 *
 * @param replayDelay   how long a message waits with no local consumer before it may go back (ActiveMQ: 0; here default 500 ms)
 * @param selectorAware a local consumer only counts if its selector matches the message
 */
public record ReplayWhenNoConsumers(Duration replayDelay, boolean selectorAware) implements BridgeFilter {

    public ReplayWhenNoConsumers {
        if (replayDelay == null || replayDelay.isNegative()) {
            throw new IllegalArgumentException("replayDelay must be >= 0, but was " + replayDelay);
        }
    }

    @Override
    public void configureSubscription(RemoteConsumer consumer, Map<String, String> headers) {
        if (consumer.isQueue() && consumer.isLocalToPeer()) {
            headers.put(FederationHeaders.REPLAY_DELAY, Long.toString(replayDelay.toMillis()));
            headers.put(FederationHeaders.REPLAY_SELECTOR_AWARE, Boolean.toString(selectorAware));
        }
    }

    @Override
    public boolean mayBlock() {
        return false;
    }
}
