package io.fedbridge.broker.internal;

import io.fedbridge.broker.management.ConsumerInfo;
import io.fedbridge.core.StompHeaders;

/**
 * What the broker core tells management (io.fedbridge.broker.management): requests to the management queue and the
 * events it publishes. Called on I/O threads and under queue locks: implementations hand the work to their own thread.
 */
public interface ManagementHook {

    ManagementHook NONE = new ManagementHook() {
    };

    /** A request SENT to the management queue by {@code user} (already authorized); the broker sent its receipt. */
    default void request(String user, StompHeaders headers, byte[] body) {
    }

    default void consumerAdded(ConsumerInfo consumer) {
    }

    default void consumerRemoved(ConsumerInfo consumer) {
    }

    default void destinationCreated(String destination) {
    }

    default void destinationDeleted(String destination) {
    }

    default void deadLettered(String from, String messageId, String reason) {
    }

    default void loginFailed(String login, String remoteAddress, String reason) {
    }

    /**
     * Producers started waiting because the broker's memory reached {@code memoryLimit} ({@code reached}), or resumed
     * because it fell below the resume mark; {@code data} says how much is held and by whom, or how long they waited.
     */
    default void memoryLimit(boolean reached, java.util.Map<String, Object> data) {
    }
}
