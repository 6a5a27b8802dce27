package io.fedbridge.jms.internal;

import io.fedbridge.jms.FedbridgeDestination;
import jakarta.jms.InvalidDestinationException;
import jakarta.jms.JMSException;

/** Ownership rules of temporary destinations (Jakarta Messaging 3.1: 4.1.5, 4.2.7, 6.2.2). */
final class TemporaryDestinations {

    private TemporaryDestinations() {
    }

    static JmsConnection owner(FedbridgeDestination d) {
        if (d instanceof JmsTemporaryQueue q) {
            return q.owner();
        }
        if (d instanceof JmsTemporaryTopic t) {
            return t.owner();
        }
        return null;
    }

    static boolean isTemporary(FedbridgeDestination d) {
        return d instanceof JmsTemporaryQueue || d instanceof JmsTemporaryTopic;
    }

    static void delete(FedbridgeDestination d, JmsConnection owner) throws JMSException {
        if (owner == null) {
            throw new InvalidDestinationException("temporary destination " + d + " belongs to another connection: only the "
                    + "connection that created it may delete it");
        }
        owner.deleteTemporary(d);
    }

    /** A consumer may read a temporary destination only on the connection that created it, and not once deleted. */
    static void checkConsumable(FedbridgeDestination d, JmsConnection connection) throws JMSException {
        if (!isTemporary(d)) {
            return;
        }
        JmsConnection owner = owner(d);
        if (owner != connection) {
            throw new InvalidDestinationException("temporary destination " + d + " belongs to another connection: only the "
                    + "connection that created it may consume from it");
        }
        if (connection.isDeleted(d)) {
            throw new InvalidDestinationException("temporary destination " + d + " was deleted");
        }
    }
}
