package io.fedbridge.broker.internal;

import io.fedbridge.core.FederationHeaders;
import io.fedbridge.core.StompFrame;
import io.fedbridge.core.StompHeaders;

/**
 * How a {@link ServerSession} reads a client frame's headers: what a SEND's message keeps, the federation headers an
 * ordinary client may not use, and the integer and durable-subscription headers of SUBSCRIBE.
 *
 * <p>Stateless static functions, safe from any thread.
 */
final class SessionHeaders {

    private SessionHeaders() {
    }

    private static final java.util.Set<String> NOT_STORED = java.util.Set.of(StompHeaders.RECEIPT, StompHeaders.TRANSACTION,
            StompHeaders.CONTENT_LENGTH, StompHeaders.MESSAGE_ID, StompHeaders.SUBSCRIPTION, StompHeaders.ACK,
            StompHeaders.REDELIVERED, StompHeaders.REDELIVERY_COUNT);

    private static final String FEDERATION_HEADER_PREFIX = "fedbridge-";

    /**
     * The headers a message keeps: the SEND's, minus the frame-level ones, in one pass. Unless the SEND came over a
     * federation link holding {@code federate} ({@code idScope} null), the federation headers are the sender's own
     * words, not the federation's: they are dropped (a message an application received and sends on carries them, so
     * refusing them would break it), and its {@code fedbridge-id} is kept under {@code idScope}, so that it
     * deduplicates only this producer's own resends and never another producer's message.
     */
    static StompHeaders messageHeaders(StompFrame f, String idScope) {
        StompHeaders in = f.headers();
        StompHeaders h = new StompHeaders(in.size());
        boolean ownId = false;
        for (int i = 0; i < in.size(); i++) {
            String n = in.name(i);
            if (NOT_STORED.contains(n)) {
                continue;
            }
            if (idScope != null && n.startsWith(FEDERATION_HEADER_PREFIX)) {
                if (!ownId && n.equals(FederationHeaders.FEDERATION_ID) && !in.value(i).isEmpty()) {
                    ownId = true;
                    h.add(n, ProducerIds.scoped(idScope, in.value(i)));
                }
                continue;
            }
            h.add(n, in.value(i));
        }
        return h;
    }

    /**
     * How many times the broker a federation link forwarded this message from had delivered it
     * ({@link FederationHeaders#REDELIVERIES}; only a federation link's SEND keeps it): 0 if none, or not a count.
     */
    static int priorDeliveries(StompHeaders h) {
        String v = h.get(FederationHeaders.REDELIVERIES);
        if (v == null) {
            return 0;
        }
        try {
            return Math.max(0, Integer.parseInt(v.trim()));
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    /** The first federation header of {@code f}, or null. */
    static String federationHeader(StompFrame f) {
        StompHeaders in = f.headers();
        for (int i = 0; i < in.size(); i++) {
            if (in.name(i).startsWith(FEDERATION_HEADER_PREFIX)) {
                return in.name(i);
            }
        }
        return null;
    }

    static String durableName(StompFrame f) {
        String n = f.header("durable-subscription-name");
        if (n == null) {
            n = f.header("activemq.subscriptionName");
        }
        return n == null || n.isBlank() ? null : n;
    }

    static int intHeader(StompFrame f, int dflt, String... names) {
        for (String n : names) {
            String v = f.header(n);
            if (v != null) {
                try {
                    return Integer.parseInt(v.trim());
                } catch (NumberFormatException e) {
                    return Integer.MIN_VALUE;
                }
            }
        }
        return dflt;
    }
}
