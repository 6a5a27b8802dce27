package io.fedbridge.broker.internal;

import io.fedbridge.core.StompCommand;
import io.fedbridge.core.StompFrame;
import io.fedbridge.core.StompHeaders;
import io.fedbridge.core.selector.InvalidSelectorException;
import io.fedbridge.core.selector.Selector;
import java.util.List;

/**
 * A browse: {@code SUBSCRIBE} with {@code browser:true} on a queue, as ActiveMQ's STOMP has it (a JMS QueueBrowser).
 * The broker answers with the messages waiting in the queue at that moment, in delivery order, each a MESSAGE of the
 * subscription without an {@code ack} header, left in the queue; then one MESSAGE with {@code browser:end} and an empty
 * body. Nothing is registered: no acknowledgement is expected and the subscription ends by itself (an UNSUBSCRIBE of it
 * with {@code browser:true} is harmless). A {@code selector} filters what is shown. Messages delivered and not yet
 * acknowledged, expired ones and ones scheduled for later ({@link ScheduledDelivery}) are not shown; at most
 * {@value #MAX_SHOWN} are.
 *
 * <p>Runs on the session's I/O thread, like the rest of its SUBSCRIBE.
 */
final class QueueBrowse {

    static final String BROWSER = "browser";
    static final int MAX_SHOWN = 10_000;

    private QueueBrowse() {
    }

    static boolean isBrowse(StompFrame f) {
        return "true".equals(f.header(BROWSER));
    }

    /** Writes the browse of {@code dest} for subscription {@code id} to {@code session}; null, or why it was refused. */
    static String browse(BrokerCore core, ServerSession session, StompFrame f, String dest, String id) {
        if (Destinations.isTopic(dest) || Destinations.isWildcard(dest)) {
            return "SUBSCRIBE rejected: browser:true is for a queue, but got '" + dest + "'";
        }
        Selector selector = null;
        String sel = f.header(StompHeaders.SELECTOR);
        if (sel != null && !sel.isBlank()) {
            try {
                selector = Selector.parse(sel);
            } catch (InvalidSelectorException e) {
                return "SUBSCRIBE to " + dest + " rejected: " + e.getMessage();
            }
        }
        String r = f.header(StompHeaders.RECEIPT);
        if (r != null) {
            session.write(StompFrame.of(StompCommand.RECEIPT, StompHeaders.RECEIPT_ID, r));
        }
        QueueDestination q = core.queues.get(dest);
        List<QueueEntry> waiting = q == null ? List.of() : q.peekPending(MAX_SHOWN);
        long now = core.clock.millis();
        int shown = 0;
        for (QueueEntry e : waiting) {
            BrokerMessage m = e.message;
            if (m.isExpired(now) || ScheduledDelivery.isLater(m, now)
                    || selector != null && !selector.matches(m.headers::get)) {
                continue;
            }
            StompHeaders h = new StompHeaders(m.headers.size() + 5);
            h.add(StompHeaders.SUBSCRIPTION, id);
            h.add(StompHeaders.MESSAGE_ID, m.messageId);
            h.add(StompHeaders.DESTINATION, m.destination);
            if (e.redeliveryCount > 0) {
                h.add(StompHeaders.REDELIVERED, "true");
                h.add(StompHeaders.REDELIVERY_COUNT, Integer.toString(e.redeliveryCount));
            }
            for (int i = 0; i < m.headers.size(); i++) {
                if (!m.headers.name(i).equals(StompHeaders.DESTINATION)) {
                    h.add(m.headers.name(i), m.headers.value(i));
                }
            }
            session.write(new StompFrame(StompCommand.MESSAGE, h, m.body));
            shown++;
        }
        StompHeaders end = new StompHeaders(5);
        end.add(StompHeaders.SUBSCRIPTION, id);
        end.add(StompHeaders.MESSAGE_ID, "browse-end-" + id);
        end.add(StompHeaders.DESTINATION, dest);
        end.add(BROWSER, "end");
        end.add("browser-shown", Integer.toString(shown));
        session.write(new StompFrame(StompCommand.MESSAGE, end, new byte[0]));
        return null;
    }
}
