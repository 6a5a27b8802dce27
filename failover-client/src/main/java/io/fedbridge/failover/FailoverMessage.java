package io.fedbridge.failover;

import java.util.Map;

/**
 * A message handed to the application by a {@link FailoverSubscription}. The client hands each message once, even if
 * a broker redelivers it after a failover: it remembers what it handed out by {@link #identity()}.
 *
 * <p>Acknowledging works across failovers: if the connection the message came over has failed, the ACK goes with the
 * broker's redelivery of it instead. Thread-safe.
 */
public interface FailoverMessage {

    String destination();

    /** The broker's {@code message-id} of the first delivery. */
    String messageId();

    /** The {@code fedbridge-id} header, or null if the message has none (sent by another client to another broker). */
    String federationId();

    /**
     * What the client knows the message by to drop redeliveries. From a broker that vouches for its ids
     * ({@code fedbridge-vouched-ids:true} in CONNECTED, as fedbridge brokers do): its {@code fedbridge-id}, else its
     * {@code message-id}, the same across connections and brokers. From any other broker (ActiveMQ, say): the
     * {@code message-id} scoped to the connection it came over, so a redelivery after a failover is handed out again.
     */
    String identity();

    /** A header of the delivered MESSAGE frame, or null. */
    String header(String name);

    /** Every header of the delivered MESSAGE frame, first occurrence winning. */
    Map<String, String> headers();

    byte[] body();

    String bodyAsString();

    /** The broker's {@code redelivery-count}, 0 if absent. */
    int redeliveryCount();

    FailoverSubscription subscription();

    /**
     * Acknowledges this message; with {@code ack:client}, also every earlier message of the subscription not yet
     * acknowledged. Does nothing with {@code ack:auto} (the client acknowledges for the application). Returns at once.
     */
    void ack();

    /**
     * Acknowledges inside a transaction.
     *
     * @throws TransactionRolledBackException if the transaction's connection has failed
     * @throws FailoverException              if the message came over an earlier connection than the transaction's and
     *                                        has not been redelivered yet
     */
    void ack(FailoverTransaction transaction);

    /** Rejects the message: the broker redelivers it (or dead-letters it), and it is handed out again. */
    void nack();
}
