package io.fedbridge.broker.management;

/**
 * A client connection (a bridge's too). Properties: id to connectedAt; statistics: consumers.
 *
 * @param id              the STOMP session id, e.g. {@code A-session-7}: what {@code close} takes
 * @param user            the authenticated user, or {@code anonymous}
 * @param clientId        the CONNECT {@code client-id}, or null
 * @param federationLink  whether it announced itself as a federation link (a bridge)
 * @param state           {@code AWAITING_CONNECT}, {@code CONNECTED} or {@code CLOSED}
 * @param connectedAt     epoch millis
 */
public record ConnectionInfo(String id, String remoteAddress, String user, String clientId, String protocolVersion,
                             boolean federationLink, String state, long connectedAt, int consumers, long timestamp) {
}
