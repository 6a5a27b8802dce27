package io.fedbridge.core.bridge.internal;

import io.fedbridge.core.FederationHeaders;
import io.fedbridge.core.ReceivedMessage;
import io.fedbridge.core.StompCommand;
import io.fedbridge.core.StompConnection;
import io.fedbridge.core.StompFrame;
import io.fedbridge.core.StompHeaders;
import java.util.concurrent.CompletableFuture;

/**
 * Forwarding without ownership transfer ("ack-through", docs/cluster.md) for one {@link Direction}: on a queue with a
 * federation-wide exclusive consumer, a message goes to the active consumer's broker <em>lent</em>
 * ({@link FederationHeaders#BORROWED}); that broker stores nothing and answers the SEND's receipt only once its consumer
 * acknowledged the message ({@code acked}) or it gave the message back ({@code returned}). Only then does the source
 * hear of it: an acked message is acknowledged at the source, a returned one is left unacknowledged there, so it goes
 * back to the head of the source queue when the network subscription ends. Should the borrower die, everything it
 * borrowed and whose acknowledgement did not reach the source is still the source's, in order.
 *
 * <p>When the consumer's ACK asked for a receipt, the borrower says so ({@link FederationHeaders#BORROW_CONFIRM}): the
 * source's ACK then asks for one too, and once it came the borrower is told, which lets it answer its consumer. So a
 * receipted ACK is final: the message is gone from the federation.
 *
 * <p>Stateless besides its two connections: the futures it returns carry the state. Called on the source's I/O thread
 * (or a filter's dispatch thread); completions run on the target's and source's I/O threads.
 */
final class Lending {

    private final StompConnection source;
    private final StompConnection target;

    Lending(StompConnection source, StompConnection target) {
        this.source = source;
        this.target = target;
    }

    /** Whether {@code target} takes lent messages (a fedbridge broker that says so in CONNECTED). */
    static boolean lendsTo(StompConnection target) {
        StompHeaders connected = target.connectedHeaders();
        return connected != null && "true".equals(connected.get(FederationHeaders.ACK_THROUGH));
    }

    /**
     * Lends {@code m} (forwarded as {@code frame}) to the target, for its consumer {@code consumer}. The future completes with true once the consumer's
     * acknowledgement was passed on to the source, with false if the target gave the message back (unacknowledged at the
     * source), and fails if either connection failed.
     */
    CompletableFuture<Boolean> lend(ReceivedMessage m, StompFrame frame, String consumer) {
        frame.headers().set(FederationHeaders.BORROWED, "true");
        frame.headers().set(FederationHeaders.ORIGIN_CONSUMER, consumer);
        return target.sendForReceipt(frame).thenCompose(receipt -> {
            if (FederationHeaders.BORROWED_RETURNED.equals(receipt.header(FederationHeaders.BORROWED))) {
                return CompletableFuture.completedFuture(false);
            }
            String receiptId = receipt.header(StompHeaders.RECEIPT_ID);
            if (!"true".equals(receipt.header(FederationHeaders.BORROW_CONFIRM)) || receiptId == null) {
                m.ack();
                return CompletableFuture.completedFuture(true);
            }
            StompHeaders ack = new StompHeaders(2);
            ack.add(StompHeaders.ID, m.ackId());
            return source.sendForReceipt(new StompFrame(StompCommand.ACK, ack)).thenApply(sourceReceipt -> {
                StompHeaders confirm = new StompHeaders(1);
                confirm.add(FederationHeaders.BORROW_CONFIRM, receiptId);
                target.sendFrame(new StompFrame(StompCommand.SEND, confirm), false);
                return true;
            });
        });
    }
}
