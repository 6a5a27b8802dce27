package io.fedbridge.core.bridge.internal;

import io.fedbridge.core.FederationHeaders;
import io.fedbridge.core.ReceivedMessage;
import io.fedbridge.core.StompCommand;
import io.fedbridge.core.StompConnection;
import io.fedbridge.core.StompFrame;
import io.fedbridge.core.StompHeaders;
import io.fedbridge.core.SubscriptionRequest;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Settles the forwards an earlier link of this direction left in doubt ({@link FederationHeaders#IN_DOUBT_TOPIC}): the
 * source kept each message its peer, the target, may have stored before the link died, for that peer only. Without
 * this, such a message waited for the target's bridge to subscribe to its queue again, and if the target no longer had
 * a consumer there (its consumers failed over to the source, say) it went to anyone once the hold ended: a second
 * delivery of a message the target had already delivered. Here the target is asked about each one (a probe with the
 * forward's own dedupe key) and the source told the answer: the target has it (the source drops its copy) or never
 * had it (the source hands it to any consumer at once).
 *
 * <p>Only between two fedbridge brokers that both announce {@link FederationHeaders#IN_DOUBT}. Runs on the connections'
 * I/O threads and never blocks; a link that dies midway leaves the rest in doubt for the next link.
 */
final class InDoubtSettler {

    private static final Logger LOG = LoggerFactory.getLogger(InDoubtSettler.class);
    /** A probe answered {@code pending} (the target is storing that very forward) is asked again this often... */
    private static final long RETRY_MILLIS = 100;
    /** ...at most this many times; then the message stays in doubt, and the source's hold decides. */
    private static final int MAX_TRIES = 100;

    private final StompConnection source;
    private final StompConnection target;
    private final String targetId;
    private final ForwardFrames forwardFrames;
    private final String label;
    private final AtomicInteger outstanding = new AtomicInteger();
    private final AtomicInteger stored = new AtomicInteger();
    private final AtomicInteger absent = new AtomicInteger();

    private InDoubtSettler(StompConnection source, StompConnection target, String targetId, ForwardFrames forwardFrames, String label) {
        this.source = source;
        this.target = target;
        this.targetId = targetId;
        this.forwardFrames = forwardFrames;
        this.label = label;
    }

    /** Starts settling if both brokers can; {@code targetId}: the target broker's id, as the source knows the peer. */
    static void startIfSupported(StompConnection source, StompConnection target, String targetId, ForwardFrames forwardFrames,
                                 String label) {
        StompHeaders s = source.connectedHeaders();
        StompHeaders t = target.connectedHeaders();
        if (targetId == null || s == null || t == null || !"true".equals(s.get(FederationHeaders.IN_DOUBT))
                || !"true".equals(t.get(FederationHeaders.IN_DOUBT))) {
            return;
        }
        InDoubtSettler settler = new InDoubtSettler(source, target, targetId, forwardFrames, label);
        source.subscribeOnIoThread(SubscriptionRequest.builder(FederationHeaders.IN_DOUBT_TOPIC)
                .header(FederationHeaders.NETWORK_CONSUMER, "true")
                .header(FederationHeaders.EXCLUDE_BROKER, targetId).build(), settler::onInDoubt);
    }

    private void onInDoubt(ReceivedMessage m) {
        String queue = m.header(FederationHeaders.ADVISORY_DESTINATION);
        String messageId = m.messageId();
        if (queue == null || messageId == null || !FederationHeaders.IN_DOUBT_ADVISORY.equals(m.header(FederationHeaders.ADVISORY))) {
            return;
        }
        // The forward's own dedupe key: what ForwardFrames would put on the SEND of this message.
        StompHeaders forward = forwardFrames.of(m, queue).frame().headers();
        outstanding.incrementAndGet();
        probe(queue, messageId, forward.get(FederationHeaders.FEDERATION_ID), forward.get(FederationHeaders.REPLAYS), 1);
    }

    private void probe(String queue, String messageId, String fedId, String replays, int attempt) {
        if (!target.isConnected()) {
            outstanding.decrementAndGet();
            return;
        }
        StompHeaders h = StompHeaders.of(StompHeaders.DESTINATION, queue, FederationHeaders.IN_DOUBT_PROBE, "true",
                FederationHeaders.FEDERATION_ID, fedId);
        if (replays != null) {
            h.add(FederationHeaders.REPLAYS, replays);
        }
        CompletableFuture<StompFrame> answer;
        try {
            answer = target.sendForReceipt(new StompFrame(StompCommand.SEND, h));
        } catch (RuntimeException closed) {
            outstanding.decrementAndGet();
            return;
        }
        answer.whenComplete((receipt, failure) -> {
            if (failure != null) {
                outstanding.decrementAndGet(); // the link is gone: the next one asks again
                return;
            }
            String state = receipt.header(FederationHeaders.IN_DOUBT_STATE);
            if (FederationHeaders.IN_DOUBT_PENDING.equals(state)) {
                if (attempt < MAX_TRIES) {
                    CompletableFuture.delayedExecutor(RETRY_MILLIS, TimeUnit.MILLISECONDS)
                            .execute(() -> probe(queue, messageId, fedId, replays, attempt + 1));
                    return;
                }
                LOG.warn("bridge {}: {} still shows message {} of {} as being stored after {} probes; it stays in doubt",
                        label, target.config().uri(), messageId, queue, attempt);
                finished();
                return;
            }
            boolean has = FederationHeaders.IN_DOUBT_STORED.equals(state);
            if (!has && !FederationHeaders.IN_DOUBT_ABSENT.equals(state)) {
                LOG.warn("bridge {}: {} answered a probe of message {} of {} with {}='{}'; it stays in doubt", label,
                        target.config().uri(), messageId, queue, FederationHeaders.IN_DOUBT_STATE, state);
                finished();
                return;
            }
            settle(queue, messageId, has);
        });
    }

    private void settle(String queue, String messageId, boolean has) {
        if (source.isConnected()) {
            try {
                source.sendFrame(new StompFrame(StompCommand.SEND, StompHeaders.of(StompHeaders.DESTINATION, queue,
                        FederationHeaders.IN_DOUBT_SETTLE, has ? FederationHeaders.IN_DOUBT_STORED : FederationHeaders.IN_DOUBT_ABSENT,
                        FederationHeaders.IN_DOUBT_MESSAGE, messageId, FederationHeaders.EXCLUDE_BROKER, targetId)), false);
                (has ? stored : absent).incrementAndGet();
            } catch (RuntimeException closed) {
                // the link is gone: the next one asks again
            }
        }
        finished();
    }

    private void finished() {
        if (outstanding.decrementAndGet() == 0 && stored.get() + absent.get() > 0) {
            LOG.info("bridge {}: settled {} forward(s) the last link left in doubt: {} stored on {} (dropped at the source), "
                    + "{} never stored there (released at the source)", label, stored.get() + absent.get(), stored.get(),
                    target.config().uri(), absent.get());
            stored.set(0);
            absent.set(0);
        }
    }
}
