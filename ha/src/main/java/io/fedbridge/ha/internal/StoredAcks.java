package io.fedbridge.ha.internal;

import io.fedbridge.core.ReceivedMessage;
import io.fedbridge.core.StompCommand;
import io.fedbridge.core.StompConnection;
import io.fedbridge.core.StompFrame;
import io.fedbridge.core.StompHeaders;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BiConsumer;
import java.util.function.Function;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A replica's side of the stream's flow: it numbers the records that arrive on a connection, has each applied, and
 * acknowledges to the source ({@code ACK ha-index:N ha-count:C}, see {@link Replication}) the highest record stored so
 * far, one frame for however many were stored meanwhile, sent on {@code executor}. {@link #onRecord} runs on the
 * connection's I/O thread; the rest is thread-safe.
 */
final class StoredAcks {

    private static final Logger LOG = LoggerFactory.getLogger(StoredAcks.class);

    private final String who;
    private final Executor executor;
    private final Predicate<StompConnection> current;
    private final AtomicBoolean scheduled = new AtomicBoolean();
    private volatile long count;
    private volatile long index;
    private long received;
    private long receivedIndex;

    /**
     * @param who     names the replica in log lines
     * @param current whether a connection is still the replica's current one (records of another are ignored)
     */
    StoredAcks(String who, Executor executor, Predicate<StompConnection> current) {
        this.who = who;
        this.executor = executor;
        this.current = current;
    }

    /** A new connection: nothing received or stored on it yet. Before it subscribes. */
    void reset() {
        count = 0;
        index = 0;
        received = 0;
        receivedIndex = 0;
    }

    /**
     * One record from the source on {@code c}: {@code apply} applies it, its future completing once the record is
     * durable, and then it is acknowledged. What fails goes to {@code fail}, saying which record.
     */
    void onRecord(StompConnection c, ReceivedMessage m, Function<ReceivedMessage, CompletableFuture<Void>> apply,
                  BiConsumer<StompConnection, String> fail) {
        if (!current.test(c)) {
            return;
        }
        long n = ++received;
        String at = m.header(Replication.INDEX);
        if (at != null) {
            receivedIndex = Long.parseLong(at);
        }
        long atIndex = receivedIndex;
        CompletableFuture<Void> done;
        try {
            done = apply.apply(m);
        } catch (RuntimeException e) {
            fail.accept(c, "cannot apply record " + n + ": " + e.getMessage());
            return;
        }
        done.whenComplete((v, e) -> {
            if (e != null) {
                fail.accept(c, "cannot store record " + n + ": " + e.getMessage());
                return;
            }
            stored(c, n, atIndex);
        });
    }

    /** Records stored on the current connection. */
    long count() {
        return count;
    }

    /** Record {@code count} (live index {@code index}) is stored, and every one before it: acknowledge them. */
    private void stored(StompConnection c, long count, long index) {
        this.count = Math.max(this.count, count);
        this.index = Math.max(this.index, index);
        if (scheduled.compareAndSet(false, true)) {
            executor.execute(() -> {
                scheduled.set(false);
                if (!current.test(c) || !c.isConnected()) {
                    return;
                }
                StompHeaders h = new StompHeaders();
                h.add(StompHeaders.ID, Long.toString(this.count));
                h.add(Replication.INDEX, Long.toString(this.index));
                h.add(Replication.COUNT, Long.toString(this.count));
                try {
                    c.sendFrame(new StompFrame(StompCommand.ACK, h), false);
                } catch (RuntimeException e) {
                    LOG.debug("{}: cannot acknowledge: {}", who, e.toString());
                }
            });
        }
    }
}
