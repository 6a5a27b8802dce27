package io.fedbridge.core.internal;

import io.fedbridge.core.StompHeaders;

/**
 * STOMP heart-beat negotiation. A side that offers {@code cx,cy} to a peer offering {@code sx,sy} sends
 * every {@code max(cx,sy)} ms (0 if either is 0) and expects data every {@code max(cy,sx)} ms.
 *
 * @param sendMillis    how often this side must send something; 0 = never
 * @param receiveMillis how often the peer promised to send; 0 = no dead-peer detection
 */
public record HeartBeats(long sendMillis, long receiveMillis) {

    public static final HeartBeats NONE = new HeartBeats(0, 0);

    /** Parses {@code "cx,cy"}; throws IllegalArgumentException naming the header on bad input. */
    public static long[] parse(String header) {
        if (header == null || header.isBlank()) {
            return new long[] {0, 0};
        }
        String[] parts = header.split(",");
        if (parts.length != 2) {
            throw new IllegalArgumentException("invalid " + StompHeaders.HEART_BEAT + " header '" + header + "': expected 'cx,cy'");
        }
        try {
            long a = Long.parseLong(parts[0].trim());
            long b = Long.parseLong(parts[1].trim());
            if (a < 0 || b < 0) {
                throw new NumberFormatException();
            }
            return new long[] {a, b};
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("invalid " + StompHeaders.HEART_BEAT + " header '" + header
                    + "': both values must be non-negative integers (milliseconds)");
        }
    }

    /** Negotiates from this side's offer {@code (mySend, myReceive)} and the peer's offer. */
    public static HeartBeats negotiate(long mySend, long myReceive, long peerSend, long peerReceive) {
        long send = mySend == 0 || peerReceive == 0 ? 0 : Math.max(mySend, peerReceive);
        long receive = myReceive == 0 || peerSend == 0 ? 0 : Math.max(myReceive, peerSend);
        return new HeartBeats(send, receive);
    }
}
