package io.fedbridge.failover;

/**
 * A broker's confirmation of a send: with {@code persistent:true} on a fedbridge broker, the message is on disk.
 *
 * @param federationId the send's {@code fedbridge-id}
 * @param brokerUri    the broker that confirmed it
 * @param duplicate    true if that broker had already accepted this federation id (a resend after a failover whose
 *                     first copy got through); the message is then there once, not twice
 * @param resent       true if the send was written more than once (it was in flight at a failover)
 */
public record SendReceipt(String federationId, String brokerUri, boolean duplicate, boolean resent) {
}
