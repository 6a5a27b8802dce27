package io.fedbridge.broker.security;

/**
 * Decides whether an identity may perform an operation on a destination. Called on I/O threads for every
 * SEND and SUBSCRIBE of a secured broker, so it must be fast, non-blocking and thread-safe. A connection remembers
 * each answer for a destination for as long as it lives (as ActiveMQ's security context does): a changed answer
 * applies to connections made after the change.
 * {@link AuthorizationRules} is the implementation that ships.
 */
@FunctionalInterface
public interface Authorizer {

    /**
     * @param identity    who asks
     * @param operation   what for
     * @param destination a destination such as {@code /queue/orders}, or for a wildcard topic subscription a
     *                    pattern such as {@code /topic/prices.>}; a pattern is allowed only if every destination
     *                    it can match is
     */
    boolean isAllowed(Identity identity, Operation operation, String destination);
}
