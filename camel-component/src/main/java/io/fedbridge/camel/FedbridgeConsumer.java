package io.fedbridge.camel;

import io.fedbridge.camel.internal.FedbridgeBinding;
import io.fedbridge.camel.internal.SharedConnection;
import io.fedbridge.core.AckMode;
import io.fedbridge.core.Message;
import io.fedbridge.core.StompHeaders;
import io.fedbridge.core.SubscriptionRequest;
import io.fedbridge.failover.FailoverClient;
import io.fedbridge.failover.FailoverException;
import io.fedbridge.failover.FailoverMessage;
import io.fedbridge.failover.FailoverSubscription;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReferenceArray;
import org.apache.camel.Exchange;
import org.apache.camel.ExchangePattern;
import org.apache.camel.Processor;
import org.apache.camel.support.DefaultConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Subscribes to the endpoint's destination and hands each message to the route on one of {@code concurrentConsumers}
 * threads. With {@code CLIENT_INDIVIDUAL} or {@code CLIENT} acknowledgement a message is acknowledged when its exchange
 * completes, and NACKed when the exchange failed (an exception Camel's error handler did not handle, or
 * {@code rollback()}): the broker redelivers it, with {@code redelivery-count}, until its {@code maxRedeliveries}, then
 * dead-letters it. An InOut exchange (the message had a {@code reply-to}) sends its result back before the request is
 * acknowledged.
 *
 * <p>The subscriptions live on the failover client, which re-subscribes after a failover; if the client gives up
 * reconnecting, the consumer subscribes again on a new client every {@code recoveryInterval} until it succeeds or
 * stops. Stopping lets the exchanges in progress finish (up to the context's shutdown timeout), then unsubscribes.
 */
public class FedbridgeConsumer extends DefaultConsumer {

    private static final Logger LOG = LoggerFactory.getLogger(FedbridgeConsumer.class);
    /** How long an idle thread waits for a message before it checks whether the consumer is stopping. */
    private static final Duration POLL = Duration.ofMillis(250);

    private final FedbridgeEndpoint endpoint;
    private final FedbridgeBinding binding;
    private volatile SharedConnection connection;
    private volatile AtomicReferenceArray<FailoverSubscription> subscriptions;
    private volatile ExecutorService workers;
    private volatile boolean running;
    private volatile CountDownLatch stopping;

    public FedbridgeConsumer(FedbridgeEndpoint endpoint, Processor processor) {
        super(endpoint, processor);
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
        FedbridgeConfiguration config = endpoint.getConfiguration();
        int threads = config.getConcurrentConsumers();
        int count = endpoint.destinationType().isTopic() ? 1 : threads;
        SharedConnection c = endpoint.acquireConnection();
        AtomicReferenceArray<FailoverSubscription> subs = new AtomicReferenceArray<>(count);
        try {
            FailoverClient client = c.client();
            SubscriptionRequest request = endpoint.subscriptionRequest();
            for (int i = 0; i < count; i++) {
                subs.set(i, client.subscribe(request));
            }
        } catch (RuntimeException e) {
            unsubscribeAll(subs);
            endpoint.releaseConnection(c);
            throw e;
        }
        connection = c;
        subscriptions = subs;
        stopping = new CountDownLatch(1);
        running = true;
        ExecutorService pool = getEndpoint().getCamelContext().getExecutorServiceManager()
                .newFixedThreadPool(this, "Fedbridge[" + endpoint.destination() + "]", threads);
        workers = pool;
        for (int i = 0; i < threads; i++) {
            int slot = i % count;
            pool.execute(() -> pollLoop(slot));
        }
        LOG.debug("consuming {} with {} thread(s) over {} subscription(s) on {}", endpoint.destination(), threads, count,
                c.brokerUrl());
    }

    @Override
    protected void doStop() throws Exception {
        running = false;
        CountDownLatch s = stopping;
        if (s != null) {
            s.countDown();
        }
        ExecutorService pool = workers;
        workers = null;
        if (pool != null) {
            pool.shutdown();
            long timeout = Math.max(1, getEndpoint().getCamelContext().getShutdownStrategy().getTimeout());
            TimeUnit unit = getEndpoint().getCamelContext().getShutdownStrategy().getTimeUnit();
            if (!pool.awaitTermination(timeout, unit)) {
                LOG.warn("{}: exchanges still running after {} {}; interrupting them, their messages will be redelivered",
                        endpoint.destination(), timeout, unit);
                pool.shutdownNow();
            }
        }
        AtomicReferenceArray<FailoverSubscription> subs = subscriptions;
        subscriptions = null;
        if (subs != null) {
            unsubscribeAll(subs);
        }
        SharedConnection c = connection;
        connection = null;
        if (c != null) {
            endpoint.releaseConnection(c);
        }
        super.doStop();
    }

    private static void unsubscribeAll(AtomicReferenceArray<FailoverSubscription> subs) {
        for (int i = 0; i < subs.length(); i++) {
            FailoverSubscription s = subs.get(i);
            if (s != null) {
                try {
                    s.unsubscribe();
                } catch (RuntimeException e) {
                    LOG.debug("unsubscribing {} failed; it ends with its connection", s, e);
                }
            }
        }
    }

    private void pollLoop(int slot) {
        AtomicReferenceArray<FailoverSubscription> subs = subscriptions;
        while (running) {
            FailoverSubscription s = subs.get(slot);
            FailoverMessage m;
            try {
                m = s.receive(POLL);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (FailoverException e) {
                if (!running) {
                    return;
                }
                resubscribe(subs, slot, s, e);
                continue;
            }
            if (m != null) {
                // Delivered: processed even if the consumer is stopping, so the exchange completes before the route stops.
                try {
                    onMessage(m);
                } catch (RuntimeException e) {
                    // Not from the route (its failures are on the exchange): keep the thread, let the broker redeliver.
                    nackQuietly(m);
                    getExceptionHandler().handleException("handling " + m.identity() + " from " + endpoint.destination()
                            + " failed", e);
                }
            }
        }
    }

    /** The subscription in {@code slot} ended (its client gave up): subscribe again until that works or we stop. */
    private void resubscribe(AtomicReferenceArray<FailoverSubscription> subs, int slot, FailoverSubscription ended,
                             FailoverException cause) {
        SharedConnection c = connection;
        if (c == null) {
            return; // stopping
        }
        synchronized (subs) {
            if (subs.get(slot) != ended) {
                return; // another thread of this slot did it
            }
            getExceptionHandler().handleException("the subscription to " + endpoint.destination() + " on "
                    + c.brokerUrl() + " ended; subscribing again every "
                    + endpoint.getConfiguration().getRecoveryInterval().toMillis() + " ms", cause);
            while (running) {
                try {
                    subs.set(slot, c.client().subscribe(endpoint.subscriptionRequest()));
                    LOG.info("subscribed to {} on {} again", endpoint.destination(), c.brokerUrl());
                    return;
                } catch (RuntimeException e) {
                    LOG.debug("subscribing to {} again failed; next try in {}", endpoint.destination(),
                            endpoint.getConfiguration().getRecoveryInterval(), e);
                }
                try {
                    if (stopping.await(endpoint.getConfiguration().getRecoveryInterval().toMillis(), TimeUnit.MILLISECONDS)) {
                        return;
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    private void onMessage(FailoverMessage m) {
        FedbridgeConfiguration config = endpoint.getConfiguration();
        Exchange exchange = createExchange(false);
        try {
            binding.populate(exchange.getIn(), m, exchange);
            String replyTo = m.header(StompHeaders.REPLY_TO);
            boolean reply = replyTo != null && !config.isDisableReplyTo();
            if (reply) {
                exchange.setPattern(ExchangePattern.InOut);
            }
            try {
                getProcessor().process(exchange);
            } catch (Exception e) {
                exchange.setException(e);
            }
            if (reply && !failed(exchange)) {
                try {
                    sendReply(exchange, m, replyTo);
                } catch (Exception e) {
                    exchange.setException(new FailoverException("the reply to " + m.identity() + " from "
                            + endpoint.destination() + " could not be sent to " + replyTo, e));
                }
            }
            if (failed(exchange)) {
                if (config.getAcknowledgementMode() != AckMode.AUTO) {
                    m.nack();
                }
                if (exchange.getException() != null) {
                    getExceptionHandler().handleException("processing " + m.identity() + " from "
                            + endpoint.destination() + " failed" + (config.getAcknowledgementMode() == AckMode.AUTO
                            ? "; it was acknowledged on receipt (acknowledgementMode=AUTO) and is not redelivered"
                            : "; NACKed for the broker to redeliver"), exchange, exchange.getException());
                }
            } else if (config.getAcknowledgementMode() != AckMode.AUTO) {
                m.ack();
            }
        } finally {
            releaseExchange(exchange, false);
        }
    }

    private void nackQuietly(FailoverMessage m) {
        if (endpoint.getConfiguration().getAcknowledgementMode() == AckMode.AUTO) {
            return;
        }
        try {
            m.nack();
        } catch (RuntimeException e) {
            LOG.debug("NACK of {} failed; the broker redelivers it when the subscription ends", m.identity(), e);
        }
    }

    private static boolean failed(Exchange exchange) {
        return exchange.getException() != null || exchange.isRollbackOnly() || exchange.isRollbackOnlyLast();
    }

    /** Sends the exchange's result to {@code replyTo} with the request's correlation id, and waits for the receipt. */
    private void sendReply(Exchange exchange, FailoverMessage request, String replyTo) throws Exception {
        // Not the request's own reply-to: a reply that asked for a reply would loop.
        Message.Builder reply = binding.toFedbridge(exchange, exchange.getMessage(), replyTo, StompHeaders.REPLY_TO);
        FedbridgeProducer.applyQualityOfService(reply, endpoint.getConfiguration());
        String correlationId = request.header(StompHeaders.CORRELATION_ID);
        reply.header(StompHeaders.CORRELATION_ID, correlationId != null ? correlationId : request.messageId());
        connection.client().send(reply.build());
    }
}
