package io.fedbridge.discovery.multicast.internal;

/**
 * A datagram that is not a valid announcement; the message says what is wrong with it. Garbage on the network is
 * data, not a failure: the agent counts it and moves on, so this carries no stack trace.
 */
public final class MalformedAnnouncementException extends Exception {

    private static final long serialVersionUID = 1L;

    public MalformedAnnouncementException(String reason) {
        super(reason, null, false, false);
    }
}
