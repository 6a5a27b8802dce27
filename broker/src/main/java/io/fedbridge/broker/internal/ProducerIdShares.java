package io.fedbridge.broker.internal;

import java.util.Iterator;
import java.util.LinkedHashMap;

/**
 * The accepted {@code fedbridge-id}s that ordinary clients chose, kept apart from the ids of federation links and
 * brokers, and apart from each other: each producer (a user, or an anonymous client's address) has a share of its own
 * and evicts only its own oldest ids. One client flooding ids therefore cannot push anyone else's out of the dedupe
 * window, and no client can push out the ids bridges rely on. Only a producer's own resends ever need its ids, and it
 * resends only what is unreceipted, so {@link #PER_PRODUCER} ids are far more than any producer's resend window.
 * At most {@link #TOTAL} ids in all: beyond it the producer that sent an id longest ago gives up its oldest.
 * Not thread-safe: {@link FederationDedupe} holds its lock around every call.
 */
final class ProducerIdShares {

    /** Ids kept per producer. */
    static final int PER_PRODUCER = 10_000;
    /** Ids kept in all. */
    static final int TOTAL = 1_000_000;

    private final int perProducer;
    private final int total;
    private final FingerprintSet all = new FingerprintSet(1024);
    /** Least recently used first. */
    private final LinkedHashMap<String, Ring> shares = new LinkedHashMap<>(16, 0.75f, true);

    ProducerIdShares() {
        this(PER_PRODUCER, TOTAL);
    }

    ProducerIdShares(int perProducer, int total) {
        this.perProducer = perProducer;
        this.total = total;
    }

    boolean contains(BoundedIdSet.Fingerprint f) {
        return all.contains(f.high(), f.low());
    }

    /** Remembers {@code f} in {@code producer}'s share, evicting that share's oldest id when it is full. */
    void add(String producer, BoundedIdSet.Fingerprint f) {
        if (all.contains(f.high(), f.low())) {
            return;
        }
        Ring ring = shares.computeIfAbsent(producer, k -> new Ring());
        if (ring.size == perProducer) {
            ring.evictOldest();
        }
        ring.add(f.high(), f.low());
        all.addAbsent(f.high(), f.low());
        while (all.size() > total) {
            Iterator<Ring> lru = shares.values().iterator();
            Ring oldest = lru.next();
            oldest.evictOldest();
            if (oldest.size == 0) {
                lru.remove();
            }
        }
    }

    int size() {
        return all.size();
    }

    int producers() {
        return shares.size();
    }

    /** One producer's ids, oldest first, in arrays that grow as needed up to {@link #perProducer}. */
    private final class Ring {
        private long[] high = new long[16];
        private long[] low = new long[16];
        private int head;
        private int size;

        void add(long h, long l) {
            if (size == high.length) {
                long[] nh = new long[Math.min(perProducer, high.length * 2)];
                long[] nl = new long[nh.length];
                for (int i = 0; i < size; i++) {
                    nh[i] = high[(head + i) % high.length];
                    nl[i] = low[(head + i) % low.length];
                }
                high = nh;
                low = nl;
                head = 0;
            }
            int tail = (head + size) % high.length;
            high[tail] = h;
            low[tail] = l;
            size++;
        }

        void evictOldest() {
            all.remove(high[head], low[head]);
            head = (head + 1) % high.length;
            size--;
        }
    }
}
