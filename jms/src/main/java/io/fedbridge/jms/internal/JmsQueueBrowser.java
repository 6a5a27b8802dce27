package io.fedbridge.jms.internal;

import io.fedbridge.core.AckMode;
import io.fedbridge.core.SubscriptionRequest;
import io.fedbridge.core.selector.Selector;
import io.fedbridge.failover.FailoverException;
import io.fedbridge.failover.FailoverMessage;
import io.fedbridge.failover.FailoverSubscription;
import io.fedbridge.jms.FedbridgeDestination;
import jakarta.jms.InvalidSelectorException;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import jakarta.jms.Queue;
import jakarta.jms.QueueBrowser;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Enumeration;
import java.util.List;
import java.util.Map;

/**
 * A QueueBrowser (JMS 4.1.2): each {@link #getEnumeration()} is one STOMP browse, {@code SUBSCRIBE browser:true}, to
 * which the broker (fedbridge, or ActiveMQ) answers with the messages waiting in the queue, left there, and a MESSAGE
 * with {@code browser:end}. The enumeration holds that snapshot: messages delivered to consumers and not yet
 * acknowledged are not in it, and a fedbridge broker shows at most 10,000. Through a failover the browse is made again
 * and the messages already seen are not repeated.
 */
final class JmsQueueBrowser implements QueueBrowser {

    static final String BROWSER = "browser";
    /** How long the broker has to answer a browse. */
    private static final Duration ANSWER = Duration.ofSeconds(30);

    private final JmsSession session;
    private final FedbridgeDestination queue;
    private final String selector;
    private volatile boolean closed;

    JmsQueueBrowser(JmsSession session, FedbridgeDestination queue, String selector) throws JMSException {
        this.session = session;
        this.queue = queue;
        this.selector = selector == null || selector.isBlank() ? null : selector.trim();
        if (this.selector != null) {
            try {
                Selector.parse(this.selector);
            } catch (RuntimeException e) {
                InvalidSelectorException x = new InvalidSelectorException("invalid selector '" + selector + "': " + e.getMessage());
                x.setLinkedException(e);
                throw x;
            }
        }
    }

    private void checkOpen() throws JMSException {
        if (closed) {
            throw Errors.closed("browser of " + queue);
        }
        session.checkOpen();
    }

    @Override
    public Queue getQueue() throws JMSException {
        checkOpen();
        return (Queue) queue;
    }

    @Override
    public String getMessageSelector() throws JMSException {
        checkOpen();
        return selector;
    }

    @Override
    public Enumeration<?> getEnumeration() throws JMSException {
        checkOpen();
        var config = session.connection().config();
        List<Message> seen = new ArrayList<>();
        FailoverSubscription s;
        try {
            s = session.client().subscribe(SubscriptionRequest.builder(JmsConnection.wireName(queue, session.connection()))
                    .ackMode(AckMode.CLIENT_INDIVIDUAL).selector(selector).header(BROWSER, "true").build());
        } catch (RuntimeException e) {
            throw Errors.jms("cannot browse " + queue, e);
        }
        try {
            long deadline = System.nanoTime() + ANSWER.toNanos();
            while (true) {
                long left = deadline - System.nanoTime();
                FailoverMessage f = left <= 0 ? null : s.receive(Duration.ofNanos(left));
                if (f == null) {
                    throw new JMSException("the broker did not finish the browse of " + queue + " within " + ANSWER.toSeconds()
                            + " s (no browser:end); it may not support browsing (SUBSCRIBE browser:true)");
                }
                if ("end".equals(f.header(BROWSER))) {
                    return Collections.enumeration(seen);
                }
                if (f.header(JmsConnection.PROBE) != null) {
                    continue; // a temporary queue's name probe, never the application's
                }
                seen.add(MessageMapping.fromStomp(f, config.trustedPackages(), config.trustAllPackages()));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new JMSException("interrupted while browsing " + queue);
        } catch (FailoverException e) {
            throw Errors.jms("browse of " + queue, e);
        } finally {
            end(s);
        }
    }

    /** The broker ended the browse itself; the UNSUBSCRIBE with {@code browser:true} only tidies (harmless there). */
    private static void end(FailoverSubscription s) {
        try {
            s.unsubscribe(Map.of(BROWSER, "true"));
        } catch (RuntimeException e) {
            s.close(); // not connected: ends it here only
        }
    }

    @Override
    public void close() {
        closed = true;
    }

    @Override
    public String toString() {
        return "FedbridgeQueueBrowser[" + queue + (selector == null ? "" : " selector=" + selector) + "]";
    }
}
