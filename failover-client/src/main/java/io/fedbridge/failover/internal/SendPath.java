package io.fedbridge.failover.internal;

import io.fedbridge.core.ConnectionClosedException;
import io.fedbridge.core.FederationHeaders;
import io.fedbridge.core.Message;
import io.fedbridge.core.StompConnection;
import io.fedbridge.core.StompErrorException;
import io.fedbridge.core.StompHeaders;
import io.fedbridge.failover.FailoverConfig;
import io.fedbridge.failover.FailoverException;
import io.fedbridge.failover.FailoverTimeoutException;
import io.fedbridge.failover.MessageRejectedException;
import io.fedbridge.failover.SendReceipt;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A send's path through the failover client, from the caller to its receipt: it takes room in the bounded
 * {@link PendingSends} buffer, gets its {@code fedbridge-id}, is written at once to the active connection or waits for
 * the next one ({@link SendDeadlines} bounds the wait), is written again, in send order, on every connection the client
 * restores until a receipt settles it ({@link SendWriter}), and fails, saying whether it may have been delivered, when
 * the broker refuses it or the client ends.
 *
 * <p>Concurrency: callers' threads reserve room outside the client's lock, then add and write a send under it, so a
 * restore (which resends every pending send under the same lock) cannot overtake them; the methods documented "caller
 * holds the client's lock" are the engine's part of restore, loss and end. Receipts settle sends on the connections'
 * I/O threads; {@code sendAsync} results reach user code on the client's callback thread.
 */
final class SendPath {

    private static final Logger LOG = LoggerFactory.getLogger(SendPath.class);

    private final DefaultFailoverClient client;
    private final String name;
    private final FailoverConfig config;
    private final PendingSends pending;
    private final SendWriter writer;
    private final SendDeadlines deadlines;
    private final FederationIds federationIds;
    private final Clock clock;
    private final ClientThreads threads;
    private final Object lock;

    SendPath(DefaultFailoverClient client, String name, FailoverConfig config, PendingSends pending, SendDeadlines deadlines,
             FederationIds federationIds, Clock clock, ClientThreads threads, Object lock) {
        this.client = client;
        this.name = name;
        this.config = config;
        this.pending = pending;
        this.writer = new SendWriter(pending);
        this.deadlines = deadlines;
        this.federationIds = federationIds;
        this.clock = clock;
        this.threads = threads;
        this.lock = lock;
    }

    /** The message's own {@code fedbridge-id}, or a new one: this client's key, its destination's stream and number. */
    String federationId(Message m) {
        String own = m.headers().get(FederationHeaders.FEDERATION_ID);
        return own != null && !own.isEmpty() ? own : federationIds.next(m.destination());
    }

    SendReceipt send(Message message) {
        PendingSend p = enqueue(message, false);
        try {
            return p.result.get();
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof RuntimeException r) {
                throw r;
            }
            throw new FailoverException(p + " failed: " + cause, cause);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new FailoverException("interrupted while waiting for the receipt of " + p
                    + "; the send goes on and may still be delivered", e);
        }
    }

    CompletableFuture<SendReceipt> sendAsync(Message message) {
        PendingSend p = enqueue(message, false);
        CompletableFuture<SendReceipt> user = new CompletableFuture<>();
        p.result.whenComplete((r, e) -> threads.callback(() -> {
            if (e != null) {
                user.completeExceptionally(e);
            } else {
                user.complete(r);
            }
        }));
        return user;
    }

    void sendAsync(Message message, Consumer<Throwable> onFailure) {
        Objects.requireNonNull(onFailure, "onFailure");
        enqueue(message, true).result.whenComplete((r, e) -> {
            if (e == null) {
                return;
            }
            threads.callback(() -> onFailure.accept(e));
        });
    }

    private PendingSend enqueue(Message message, boolean pipelined) {
        Objects.requireNonNull(message, "message");
        client.checkUsable();
        long start = clock.millis();
        PendingSend p = new PendingSend(message, federationId(message), pipelined);
        try {
            if (!pending.reserve(p, config.timeout())) {
                throw new FailoverTimeoutException(p + " failed: the send buffer stayed full for " + config.timeout()
                        + " (timeout): " + pending.size() + " sends, " + pending.bytes() + " of maxCacheSize="
                        + config.maxCacheSize() + " bytes await their receipt" + (client.isConnected() ? "" : " and no broker is connected")
                        + "; it was never sent", p.federationId, false, null);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new FailoverException("interrupted while waiting for room in the send buffer for " + p + "; it was never sent", e);
        }
        boolean waiting;
        synchronized (lock) {
            if (client.isEnding()) {
                pending.unreserve(p);
                throw client.usageError();
            }
            pending.add(p);
            StompConnection c = client.activeConnection();
            waiting = c == null;
            if (c != null) {
                try {
                    writer.write(p, c);
                } catch (ConnectionClosedException e) {
                    p.waitingSince = clock.millis();
                    waiting = true;
                }
            } else {
                p.waitingSince = start;
            }
        }
        if (waiting) {
            threads.runOnEngine(deadlines::ensure);
        }
        return p;
    }

    /**
     * Writes every pending send to the connection being restored, in send order. Caller holds the client's lock.
     *
     * @return how many of them had been written before (resent)
     */
    int resendAll(StompConnection c) {
        int resent = 0;
        for (PendingSend p : pending.inOrder()) {
            if (p.writes > 0) {
                resent++;
            }
            writer.write(p, c);
        }
        return resent;
    }

    /** The connection is lost: every pending send waits since {@code since}. Caller holds the client's lock. */
    void waitAll(long since) {
        for (PendingSend p : pending.inOrder()) {
            p.waitingSince = since;
        }
    }

    /** A restore failed: the sends it wrote wait since {@code since}. Caller holds the client's lock. */
    void waitWritten(long since) {
        for (PendingSend p : pending.inOrder()) {
            if (p.waitingSince < 0) {
                p.waitingSince = since;
            }
        }
    }

    /**
     * An ERROR that answered no receipt ({@link SendWindow}): the sends written to {@code c} without a receipt of their
     * own, taken out of the pending ones, since one of them may be what the broker refuses (resending it would be
     * refused again). Caller holds the client's lock; {@link #reject} them outside it.
     */
    List<PendingSend> takeRefused(StompConnection c, Throwable cause) {
        if (!(cause instanceof StompErrorException err) || err.frame().header(StompHeaders.RECEIPT_ID) != null) {
            return List.of();
        }
        List<PendingSend> refused = new ArrayList<>();
        for (PendingSend p : pending.inOrder()) {
            if (p.receiptless && p.connection == c && pending.remove(p)) {
                refused.add(p);
            }
        }
        return refused;
    }

    /** Fails the sends {@link #takeRefused} took: the broker's ERROR ({@code cause}) may have been about any of them. */
    void reject(List<PendingSend> refused, StompConnection c, Throwable cause) {
        for (PendingSend p : refused) {
            StompErrorException err = (StompErrorException) cause;
            p.result.completeExceptionally(new MessageRejectedException("broker " + DefaultFailoverClient.uriOf(c)
                    + " refused a send and closed the connection (" + err.errorMessage() + ") while this " + p
                    + ", written without a receipt of its own, awaited confirmation: it may be the refused one, or an"
                    + " earlier one the broker took; not resent", p.federationId, err));
        }
    }

    /** The client ends: takes every pending send out, to {@link #fail} outside the lock. Caller holds the client's lock. */
    List<PendingSend> drain() {
        return pending.drain();
    }

    /** Fails sends the client could not settle before it ended, saying whether their delivery is in doubt. */
    void fail(List<PendingSend> failed, FailoverException failure) {
        for (PendingSend p : failed) {
            String what = p.writes > 0 ? "it was sent to " + DefaultFailoverClient.uriOf(p.connection)
                    + " but not confirmed: its delivery is in doubt" : "it was never sent";
            p.result.completeExceptionally(new FailoverException(failure.getMessage() + "; " + p + " failed: " + what, failure));
        }
    }

    /** Closing: gives the sends already written up to {@code timeout} for their receipts. */
    void awaitReceipts(Duration timeout) {
        List<CompletableFuture<SendReceipt>> waiting = pending.inOrder().stream().map(p -> p.result).toList();
        try {
            CompletableFuture.allOf(waiting.toArray(CompletableFuture[]::new)).exceptionally(e -> null)
                    .get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            LOG.debug("{}: closing with {} sends unconfirmed", name, pending.size());
        }
    }

    long duplicateReceipts() {
        return writer.duplicateReceipts();
    }

    int size() {
        return pending.size();
    }
}
