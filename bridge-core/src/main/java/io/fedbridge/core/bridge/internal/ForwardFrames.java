package io.fedbridge.core.bridge.internal;

import io.fedbridge.core.FederationHeaders;
import io.fedbridge.core.ReceivedMessage;
import io.fedbridge.core.StompCommand;
import io.fedbridge.core.StompFrame;
import io.fedbridge.core.StompHeaders;
import io.fedbridge.core.internal.Decimals;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The SEND a {@link Direction} writes to its target for a MESSAGE its source delivered: the message's own headers,
 * minus the source's frame-level ones, plus this hop on {@code fedbridge-broker-path}, the hop count, a federation id
 * when the message had none, a replay count when it goes back toward a broker it came from, and the target's naming.
 *
 * <p>Immutable and stateless: called on whichever thread forwards (the source's I/O thread, or a dispatch thread when a
 * filter may block), for every forwarded message, so it makes one pass over the headers and allocates one frame.
 */
final class ForwardFrames {

    private static final Logger LOG = LoggerFactory.getLogger(ForwardFrames.class);
    private static final Set<String> NOT_FORWARDED = Set.of(StompHeaders.SUBSCRIPTION, StompHeaders.MESSAGE_ID,
            StompHeaders.ACK, StompHeaders.REDELIVERED, StompHeaders.REDELIVERY_COUNT, StompHeaders.CONTENT_LENGTH,
            StompHeaders.RECEIPT, StompHeaders.DESTINATION, FederationHeaders.BROKER_PATH, FederationHeaders.HOPS);

    /** A forward's SEND, and whether it takes the message back toward a broker it came from. */
    record Outgoing(StompFrame frame, boolean replay) {
    }

    private final String label;
    private final String hop;
    private final String targetKey;
    private final PeerNames sourceNames;
    private final PeerNames targetNames;

    /**
     * @param hop       this hop's name on the broker path (the source broker's id, else its URI key)
     * @param targetKey the target's name on broker paths: a message whose path holds it is a replay
     */
    ForwardFrames(String label, String hop, String targetKey, PeerNames sourceNames, PeerNames targetNames) {
        this.label = label;
        this.hop = hop;
        this.targetKey = targetKey;
        this.sourceNames = sourceNames;
        this.targetNames = targetNames;
    }

    /** The SEND that carries {@code m}, received on a network subscription to {@code subscribed}, on to the target. */
    Outgoing of(ReceivedMessage m, String subscribed) {
        StompHeaders in = m.frame().headers();
        StompHeaders h = new StompHeaders(in.size() + 6);
        h.add(StompHeaders.DESTINATION, sourceNames.fedbridgeName(m.destination(), subscribed));
        String oldPath = null;
        String federationId = null;
        for (int i = 0; i < in.size(); i++) {
            String n = in.name(i);
            if (n.equals(FederationHeaders.BROKER_PATH)) {
                oldPath = oldPath == null ? in.value(i) : oldPath; // the first occurrence wins, as in StompHeaders.get
            } else if (!NOT_FORWARDED.contains(n)) {
                if (federationId == null && n.equals(FederationHeaders.FEDERATION_ID)) {
                    federationId = in.value(i);
                }
                h.add(n, in.value(i));
            }
        }
        List<String> before = oldPath == null || oldPath.isEmpty() ? List.of() : FederationHeaders.parsePath(oldPath);
        h.add(FederationHeaders.BROKER_PATH, before.isEmpty() ? hop : oldPath + "," + hop);
        h.add(FederationHeaders.HOPS, Decimals.of(before.size() + 1));
        if (federationId == null) {
            federationId = hop + ":" + sourceNames.stableMessageId(in);
            h.add(FederationHeaders.FEDERATION_ID, federationId);
        }
        boolean replay = before.contains(targetKey);
        if (replay) {
            // Going back toward a broker it came from: a replay (the source allowed it: no consumer here).
            h.set(FederationHeaders.REPLAYS, Integer.toString(replays(in.get(FederationHeaders.REPLAYS)) + 1));
        }
        String replyTo = h.get(StompHeaders.REPLY_TO);
        if (replyTo != null) {
            h.set(StompHeaders.REPLY_TO, sourceNames.fedbridgeReplyTo(replyTo));
        }
        targetNames.prepareSend(h);
        return new Outgoing(new StompFrame(StompCommand.SEND, h, m.body()), replay);
    }

    /** A peer's replay count; one that is not a number counts as none (and is said once per message). */
    private int replays(String value) {
        if (value == null) {
            return 0;
        }
        try {
            return Math.max(0, Integer.parseInt(value.trim()));
        } catch (NumberFormatException e) {
            LOG.warn("{}: header {} is not a number: '{}'; counting it as 0", label, FederationHeaders.REPLAYS, value);
            return 0;
        }
    }
}
