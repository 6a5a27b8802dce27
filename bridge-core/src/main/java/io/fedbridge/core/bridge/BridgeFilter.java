package io.fedbridge.core.bridge;

import io.fedbridge.core.StompFrame;
import java.util.Map;

/**
 * A conditional filter on a bridge: decides which remote consumers create demand, how their network
 * subscriptions behave, and whether (and when) each message crosses. Filters are configured per destination
 * pattern ({@link BridgeConfig#filters()}); the built-ins live in the {@code filters} module, and embedders may
 * add their own. Every method has a pass-through default.
 *
 * <p>Called from the bridge's threads; implementations must be thread-safe. {@link #beforeForward} may block
 * to pace a link (the source then holds further messages back through the subscription's prefetch window) if
 * {@link #mayBlock()} says so.
 */
public interface BridgeFilter {

    /** Whether {@code consumer} creates demand over this bridge (false: it is ignored). Runs on an I/O thread: never block. */
    default boolean admitsDemand(RemoteConsumer consumer) {
        return true;
    }

    /**
     * Adds SUBSCRIBE headers for the network subscription that carries {@code consumer}'s demand, e.g. the
     * broker-side replay options of {@link io.fedbridge.core.FederationHeaders#REPLAY_DELAY}.
     */
    default void configureSubscription(RemoteConsumer consumer, Map<String, String> subscribeHeaders) {
    }

    /**
     * Called before a message received by a network subscription is forwarded. Return false to drop it: it
     * is acknowledged at the source and not forwarded (counted as filtered). {@code message}'s body array may be the
     * source broker's own (on {@code vm://} it is not copied): read it, never write to it.
     */
    default boolean beforeForward(RemoteConsumer consumer, StompFrame message) {
        return true;
    }

    /**
     * Called with the peer's RECEIPT of each forwarded message. Returns true to keep forwarding on this
     * subscription, false to hold it back: the bridge then ends the network subscription (undelivered messages
     * return to the source queue for local consumers) and offers it again after {@link #holdTime()}.
     */
    default boolean afterReceipt(RemoteConsumer consumer, StompFrame receipt) {
        return true;
    }

    /**
     * Whether {@link #beforeForward} may block. Network subscriptions whose filters never block forward straight
     * from the source connection's I/O thread; one with a blocking filter hands each message to a dispatch thread
     * first. The default, true, is the safe answer for a filter that does not say.
     */
    default boolean mayBlock() {
        return true;
    }

    /** How long a subscription held back by {@link #afterReceipt} stays away before it is offered again. */
    default java.time.Duration holdTime() {
        return java.time.Duration.ofMillis(200);
    }

    /**
     * A filter that applies to destinations matching {@code pattern} (wildcards {@code *} and {@code >}).
     *
     * @param pattern destination pattern, e.g. {@code /queue/orders.>}; {@code >} alone matches everything
     * @param filter  the filter
     */
    record Entry(String pattern, BridgeFilter filter) {
        public boolean applies(String destination) {
            return pattern.equals(">") || io.fedbridge.core.bridge.internal.Wildcards.matches(pattern, destination);
        }
    }
}
