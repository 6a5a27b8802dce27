package io.fedbridge.failover;

import io.fedbridge.core.Message;
import io.fedbridge.core.SubscriptionRequest;
import io.fedbridge.failover.internal.DefaultFailoverClient;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * A STOMP client that survives broker failures without losing or duplicating a message. Connect with a
 * {@code failover:(tcp://a:61613,tcp://b:61613)?…} URI (see {@link FailoverConfig} for the options) or a plain
 * {@code tcp://host:port} one.
 *
 * <pre>{@code
 * try (FailoverClient client = FailoverClient.connect("failover:(tcp://a:61613,tcp://b:61613)?randomize=false")) {
 *     client.subscribe(SubscriptionRequest.builder("/queue/orders").ackMode(AckMode.CLIENT_INDIVIDUAL).build(), m -> {
 *         process(m.bodyAsString());
 *         m.ack();
 *     });
 *     SendReceipt r = client.send(Message.builder("/queue/orders").body("hello").persistent(true).build());
 * }
 * }</pre>
 *
 * <h2>At a failover</h2>
 * The client reconnects with back-off, re-subscribes (durable subscriptions by name), then resends every send still
 * waiting for its receipt, with the same {@code fedbridge-id}: a fedbridge broker drops an id it already accepted and
 * says so in its receipt ({@link SendReceipt#duplicate()}). Deliveries the application had not acknowledged are
 * redelivered by the brokers; the client drops those it already handed out. A transaction open at a failover is rolled
 * back ({@link TransactionRolledBackException}); one whose COMMIT was in flight is in doubt
 * ({@link TransactionInDoubtException}). While no broker is connected, sends wait in a bounded buffer
 * ({@code maxCacheSize}) for up to {@code timeout}, then fail with {@link FailoverTimeoutException}; none is dropped
 * silently.
 *
 * <p>On the wire every subscription uses {@code ack:client-individual}: {@code auto} is acknowledged by the client
 * after the listener returns (or when {@code receive} hands the message out), {@code client}'s cumulative
 * acknowledgement is done by the client message by message. So no delivery is lost at a broker failure whatever the
 * mode.
 *
 * <p>Thread-safe. Listeners run on one dispatch thread per client; the futures of {@link #sendAsync} and the
 * {@link FailoverListener} complete on one callback thread per client (do not block there).
 */
public interface FailoverClient extends AutoCloseable {

    /**
     * Connects with a {@code failover:(…)} or plain URI and waits until connected, for up to the URI's {@code timeout}
     * (but at least the first broker's {@code connectTimeout}, 10 s by default; forever with {@code timeout=-1}).
     *
     * @throws IllegalArgumentException  for a bad URI or option
     * @throws FailoverTimeoutException  if no broker was reachable within {@code timeout}
     * @throws FailoverException         if the client gave up ({@code startupMaxReconnectAttempts})
     */
    static FailoverClient connect(String uri) {
        return connect(FailoverConfig.fromUri(uri));
    }

    static FailoverClient connect(FailoverConfig config) {
        return connect(config, FailoverListener.none());
    }

    static FailoverClient connect(FailoverConfig config, FailoverListener listener) {
        return DefaultFailoverClient.connect(config, listener);
    }

    /**
     * Sends and waits for the broker's receipt, across failovers.
     *
     * @throws FailoverTimeoutException  if it waited {@code timeout} for a connection or for buffer room
     * @throws MessageRejectedException  if the broker answered with an ERROR
     * @throws FailoverException         if the client gave up or was closed, or the thread was interrupted
     */
    SendReceipt send(Message message);

    /**
     * Sends without waiting for the receipt; the future completes with it, or fails as {@link #send} throws. Blocks
     * only while the send buffer is full (up to {@code timeout}).
     *
     * @throws FailoverTimeoutException if the send buffer stayed full for {@code timeout} (the send was never made)
     * @throws FailoverException        if the client is closed or gave up
     */
    CompletableFuture<SendReceipt> sendAsync(Message message);

    /**
     * Sends without waiting, for a sender that only needs to hear of a failure (a JMS NON_PERSISTENT send, say): the
     * send is resent at a failover as {@link #send}'s is, and {@code onFailure} runs on the client's callback thread
     * only if it fails as {@link #send} would throw. Nothing runs on success, so a high-rate sender pays no thread
     * hand-over per message. Blocks only while the send buffer is full (up to {@code timeout}).
     *
     * @throws FailoverTimeoutException if the send buffer stayed full for {@code timeout} (the send was never made)
     * @throws FailoverException        if the client is closed or gave up
     */
    void sendAsync(Message message, java.util.function.Consumer<Throwable> onFailure);

    /**
     * Subscribes with a listener. If connected, waits until the broker confirms the subscription.
     *
     * @throws io.fedbridge.core.StompErrorException if the broker rejects it (bad selector, durable subscription in use)
     */
    FailoverSubscription subscribe(SubscriptionRequest request, FailoverMessageListener listener);

    /** Subscribes for {@link FailoverSubscription#receive}. */
    FailoverSubscription subscribe(SubscriptionRequest request);

    /**
     * Begins a transaction on the current connection, waiting up to {@code timeout} for one.
     *
     * @throws FailoverTimeoutException if no broker was connected within {@code timeout}
     */
    FailoverTransaction begin();

    /** True while connected and restored. */
    boolean isConnected();

    /** The broker the client is connected to, or null while it is not. */
    String connectedUri();

    /** The {@code fedbridge-broker-id} of that broker, or null (not connected, or not a fedbridge broker). */
    String connectedBrokerId();

    /**
     * How long the broker the client is (or was last) connected to keeps this client's temporary queues, and the
     * replies sent to them, after the connection is lost: reconnecting within it, to any broker of the federation, the
     * client gets the same {@code /temp-queue/NAME} back with the replies that arrived meanwhile. Zero when the broker
     * announced none (not fedbridge, or its {@code tempDestinationReconnectGrace} is zero): a failover then loses them.
     */
    default java.time.Duration tempDestinationReconnectGrace() {
        return java.time.Duration.ZERO;
    }

    /** Every broker the client knows, configured ones first, then those learned from the federation. */
    List<String> knownUris();

    FailoverStats stats();

    FailoverConfig config();

    /**
     * Waits (up to the broker's close timeout) for sends awaiting their receipt, then disconnects. Sends still
     * unconfirmed fail with {@link FailoverException}; subscriptions end. Idempotent.
     */
    @Override
    void close();
}
