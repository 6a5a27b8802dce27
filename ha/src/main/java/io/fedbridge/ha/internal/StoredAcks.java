package io.fedbridge.ha.internal;

import io.fedbridge.core.StompCommand;
import io.fedbridge.core.StompConnection;
import io.fedbridge.core.StompFrame;
import io.fedbridge.core.StompHeaders;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A replica's acknowledgements to its source ({@code ACK ha-index:N ha-count:C}, see {@link Replication}): it tells the
 * highest record stored so far, one frame for however many records were stored meanwhile, sent on {@code executor}.
 * Thread-safe; {@link #stored} is called in store order.
 */
final class StoredAcks {

    private static final Logger LOG = LoggerFactory.getLogger(StoredAcks.class);

    private final String who;
    private final Executor executor;
    private final AtomicBoolean scheduled = new AtomicBoolean();
    private volatile long count;
    private volatile long index;

    /** @param who names the replica in log lines */
    StoredAcks(String who, Executor executor) {
        this.who = who;
        this.executor = executor;
    }

    /** A new connection: nothing stored on it yet. */
    void reset() {
        count = 0;
        index = 0;
    }

    /** Records stored on the current connection. */
    long count() {
        return count;
    }

    /** Record {@code count} (live index {@code index}) is stored: acknowledge it on {@code c} while {@code current} holds. */
    void stored(StompConnection c, long count, long index, Predicate<StompConnection> current) {
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
