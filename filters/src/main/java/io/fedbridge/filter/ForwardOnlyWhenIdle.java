package io.fedbridge.filter;

import io.fedbridge.core.FederationHeaders;
import io.fedbridge.core.StompFrame;
import io.fedbridge.core.bridge.BridgeFilter;
import io.fedbridge.core.bridge.RemoteConsumer;
import java.time.Duration;

/**
 * Capacity-aware queue forwarding, as RabbitMQ's queue federation does it: forward a queue's messages to a
 * peer only while the peer's consumers keep up. Every forward's RECEIPT says how many messages wait in the
 * peer's queue ({@link FederationHeaders#QUEUE_PENDING}); above {@code maxPending} the bridge ends that network
 * subscription — undelivered messages return to the local queue for local consumers — and offers it again
 * after {@code holdTime}. So a slow remote consumer cannot strand a backlog on its broker while local
 * consumers sit idle.
 *
 * @param maxPending messages allowed to wait at the peer (0 = forward only while the peer's consumers are idle)
 * @param holdTime   how long a held-back subscription stays away
 */
public record ForwardOnlyWhenIdle(int maxPending, Duration holdTime) implements BridgeFilter {

    public ForwardOnlyWhenIdle {
        if (maxPending < 0) {
            throw new IllegalArgumentException("maxPending must be >= 0, but was " + maxPending);
        }
        if (holdTime == null || holdTime.isNegative()) {
            throw new IllegalArgumentException("holdTime must be >= 0, but was " + holdTime);
        }
    }

    @Override
    public boolean afterReceipt(RemoteConsumer consumer, StompFrame receipt) {
        if (!consumer.isQueue()) {
            return true;
        }
        String pending = receipt.header(FederationHeaders.QUEUE_PENDING);
        if (pending == null) {
            return true; // a peer that does not say: nothing to go by
        }
        try {
            return Integer.parseInt(pending) <= maxPending;
        } catch (NumberFormatException e) {
            return true;
        }
    }

    @Override
    public boolean mayBlock() {
        return false;
    }
}
