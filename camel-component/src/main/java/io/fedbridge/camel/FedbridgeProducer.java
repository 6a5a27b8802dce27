package io.fedbridge.camel;

import io.fedbridge.camel.internal.FedbridgeBinding;
import io.fedbridge.camel.internal.ReplyManager;
import io.fedbridge.camel.internal.SharedConnection;
import io.fedbridge.core.Message;
import io.fedbridge.core.StompHeaders;
import io.fedbridge.failover.FailoverClient;
import io.fedbridge.failover.FailoverMessage;
import io.fedbridge.failover.SendReceipt;
import java.time.Duration;
import org.apache.camel.Exchange;
import org.apache.camel.ExchangeTimedOutException;
import org.apache.camel.support.DefaultMessage;
import org.apache.camel.support.DefaultProducer;

/**
 * Sends an exchange's message to the endpoint's destination and completes when the broker confirms it. InOut waits
 * for the reply on the connection's temporary reply queue. Runs on the calling thread; thread-safe.
 */
public class FedbridgeProducer extends DefaultProducer {

    private final FedbridgeEndpoint endpoint;
    private final FedbridgeBinding binding;
    private volatile SharedConnection connection;

    public FedbridgeProducer(FedbridgeEndpoint endpoint) {
        super(endpoint);
        this.endpoint = endpoint;
        this.binding = endpoint.binding();
    }

    @Override
    public FedbridgeEndpoint getEndpoint() {
        return endpoint;
    }

    @Override
    protected void doStart() throws Exception {
        super.doStart();
        SharedConnection c = endpoint.acquireConnection();
        connection = c;
        try {
            c.client();
        } catch (RuntimeException e) {
            connection = null;
            endpoint.releaseConnection(c);
            throw e;
        }
    }

    @Override
    protected void doStop() throws Exception {
        SharedConnection c = connection;
        connection = null;
        if (c != null) {
            endpoint.releaseConnection(c);
        }
        super.doStop();
    }

    @Override
    public void process(Exchange exchange) throws Exception {
        SharedConnection c = connection;
        if (c == null) {
            throw new IllegalStateException(this + " is not started");
        }
        Message.Builder message = binding.toFedbridge(exchange, exchange.getMessage(), endpoint.destination());
        applyQualityOfService(message, endpoint.getConfiguration());
        if (exchange.getPattern().isOutCapable()) {
            requestReply(exchange, c, message);
        } else {
            SendReceipt receipt = c.client().send(message.build());
            exchange.getMessage().setHeader(FedbridgeConstants.SENT_FEDERATION_ID, receipt.federationId());
        }
    }

    /** Sets persistent, priority and expires from the endpoint options, over any headers of the same names. */
    static void applyQualityOfService(Message.Builder message, FedbridgeConfiguration c) {
        message.persistent(c.isPersistent());
        if (c.getPriority() != null) {
            message.priority(c.getPriority());
        }
        if (c.getTimeToLive() != null) {
            message.header(StompHeaders.EXPIRES, Long.toString(System.currentTimeMillis() + c.getTimeToLive().toMillis()));
        }
    }

    private void requestReply(Exchange exchange, SharedConnection c, Message.Builder message) throws Exception {
        Duration timeout = requestTimeout(exchange);
        FailoverClient client = c.client();
        ReplyManager replies = c.replies();
        ReplyManager.PendingReply pending = replies.register();
        try {
            message.header(StompHeaders.REPLY_TO, replies.replyTo())
                    .header(StompHeaders.CORRELATION_ID, pending.correlationId());
            client.send(message.build());
            pending.sent();
            FailoverMessage reply;
            try {
                reply = pending.await(timeout);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for the reply to the request sent to "
                        + endpoint.destination() + " (correlation-id " + pending.correlationId() + ")", e);
            } catch (ReplyManager.ReplyLostException e) {
                ExchangeTimedOutException lost = new ExchangeTimedOutException(exchange, timeout.toMillis(),
                        "reply with correlation-id " + pending.correlationId() + " for the request sent to "
                                + endpoint.destination() + " can no longer arrive: " + e.getMessage());
                lost.initCause(e);
                throw lost;
            }
            if (reply == null) {
                throw new ExchangeTimedOutException(exchange, timeout.toMillis(), "reply with correlation-id "
                        + pending.correlationId() + " not received on " + replies.replyTo()
                        + " for the request sent to " + endpoint.destination());
            }
            DefaultMessage out = new DefaultMessage(exchange);
            binding.populate(out, reply, exchange);
            exchange.setMessage(out);
        } finally {
            replies.remove(pending);
        }
    }

    private Duration requestTimeout(Exchange exchange) throws Exception {
        Object override = exchange.getMessage().getHeader(FedbridgeConstants.REQUEST_TIMEOUT);
        if (override == null) {
            return endpoint.getConfiguration().getRequestTimeout();
        }
        Duration d = override instanceof Number n ? Duration.ofMillis(n.longValue())
                : exchange.getContext().getTypeConverter().mandatoryConvertTo(Duration.class, exchange, override);
        if (d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException(FedbridgeConstants.REQUEST_TIMEOUT + " must be a positive duration, but was "
                    + override);
        }
        return d;
    }
}
