package io.fedbridge.broker.internal;

import io.fedbridge.core.StompHeaders;
import java.util.List;

/**
 * What the broker core tells the federation-wide destination definitions (io.fedbridge.broker.cluster): a definition
 * a federation link sent, and what a new subscriber of the definitions topic gets first. Called on I/O threads.
 */
public interface ClusterHook {

    ClusterHook NONE = new ClusterHook() {
    };

    /** A definition SENT to {@code FederationHeaders.DEFINITIONS_TOPIC} by a federation link holding {@code federate}. */
    default void received(StompHeaders headers, byte[] body) {
    }

    /** Every definition held, tombstones included, as messages for a new subscriber (the state exchange of a link). */
    default List<Definition> snapshot() {
        return List.of();
    }

    /** One definition as a message of the definitions topic. */
    record Definition(StompHeaders headers, byte[] body) {
    }
}
