package io.fedbridge.failover.internal;

import io.fedbridge.core.FederationHeaders;
import io.fedbridge.core.Message;
import io.fedbridge.core.StompCommand;
import io.fedbridge.core.StompConnection;
import io.fedbridge.core.StompFrame;
import io.fedbridge.core.StompHeaders;
import io.fedbridge.failover.SendReceipt;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/** A send awaiting its receipt: written to a broker, or waiting for a connection. */
final class PendingSend {

    /** Bytes counted per send on top of its body and headers. */
    private static final int OVERHEAD = 64;

    final Message message;
    final String federationId;
    final long size;
    /** Completed on the thread that learns the outcome (an I/O thread, the engine); no user code depends on it. */
    final CompletableFuture<SendReceipt> result = new CompletableFuture<>();
    long order;
    int permits;
    /** The connection it was last written to, or null. */
    volatile StompConnection connection;
    volatile int writes;
    /** Since when it has been waiting without a connection (clock millis), or -1 while written to a live one. */
    volatile long waitingSince = -1;

    /** Sent by {@code sendAsync(message, onFailure)}: may share a receipt ({@link SendWindow}). */
    final boolean pipelined;
    /** Last written without a receipt of its own ({@link SendWindow}). */
    volatile boolean receiptless;

    PendingSend(Message message, String federationId) {
        this(message, federationId, false);
    }

    PendingSend(Message message, String federationId, boolean pipelined) {
        this.message = message;
        this.federationId = federationId;
        this.pipelined = pipelined;
        long s = OVERHEAD + message.body().length + message.destination().length();
        for (Map.Entry<String, String> e : message.headers().entrySet()) {
            s += e.getKey().length() + e.getValue().length() + 2;
        }
        this.size = s;
    }

    StompFrame frame() {
        return sendFrame(message, federationId, null);
    }

    /** A SEND frame for {@code m} with its federation id (replacing any in its headers) and, if given, a transaction. */
    static StompFrame sendFrame(Message m, String federationId, String transactionId) {
        StompHeaders h = new StompHeaders(m.headers().size() + 4);
        h.add(StompHeaders.DESTINATION, m.destination());
        for (Map.Entry<String, String> e : m.headers().entrySet()) {
            String k = e.getKey();
            if (!k.equals(StompHeaders.DESTINATION) && !k.equals(StompHeaders.RECEIPT) && !k.equals(StompHeaders.TRANSACTION)
                    && !k.equals(FederationHeaders.FEDERATION_ID) && !k.equals(StompHeaders.CONTENT_LENGTH)) {
                h.add(k, e.getValue());
            }
        }
        h.add(FederationHeaders.FEDERATION_ID, federationId);
        if (transactionId != null) {
            h.add(StompHeaders.TRANSACTION, transactionId);
        }
        return new StompFrame(StompCommand.SEND, h, m.body());
    }

    @Override
    public String toString() {
        return "send to " + message.destination() + " (fedbridge-id " + federationId + ")";
    }
}
