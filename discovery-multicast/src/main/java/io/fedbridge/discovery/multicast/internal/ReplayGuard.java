package io.fedbridge.discovery.multicast.internal;

import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;

/**
 * Tells fresh signed announcements from stale and replayed ones. A signature proves who wrote a datagram, not
 * when: anyone on the network can record one and send it again. So a receiver also demands that:
 * <ul>
 *   <li>its timestamp is within {@code maxClockSkew} of the receiver's clock, either way (older: stale; a copy
 *       kept for later is useless after that long);</li>
 *   <li>within that window, each datagram counts once: per sender (broker id) the guard remembers the session
 *       and the highest sequence number seen, and takes only higher ones of that session. A datagram of another
 *       session is a restart if it is newer than anything seen from the sender, else a replay of an earlier
 *       session.</li>
 * </ul>
 * Sequence numbers, not timestamps, order a session's datagrams, so a sender whose clock steps back is not taken
 * for a replayer. Memory is one entry per sender, at most {@code capacity}; an entry whose newest datagram is
 * older than {@code maxClockSkew} can go, as all its datagrams are stale by then.
 *
 * <p>Not thread-safe: the caller serializes calls.
 */
public final class ReplayGuard {

    /** What {@link #check} decided. */
    public enum Verdict {
        /** Act on it. */
        FRESH,
        /** The timestamp is too far from the receiver's clock. */
        STALE,
        /** Seen before (a copy), or sent before something already seen. */
        REPLAYED,
        /** A new sender, and {@code capacity} senders are remembered already. */
        FULL
    }

    private final long maxSkewMillis;
    private final int capacity;
    private final Map<String, Last> senders = new HashMap<>();

    /** What is known of one sender. */
    private static final class Last {
        long session;
        long sequence;
        long newestMillis;

        Last(AnnouncementCodec.Seal seal) {
            session = seal.session();
            sequence = seal.sequence();
            newestMillis = seal.timestampMillis();
        }
    }

    public ReplayGuard(Duration maxClockSkew, int capacity) {
        this.maxSkewMillis = maxClockSkew.toMillis();
        this.capacity = capacity;
    }

    /** Decides on a datagram of {@code brokerId} sealed with {@code seal}, received at {@code now}; remembers it if fresh. */
    public Verdict check(String brokerId, AnnouncementCodec.Seal seal, Instant now) {
        long nowMillis = now.toEpochMilli();
        if (Math.abs(seal.timestampMillis() - nowMillis) > maxSkewMillis) {
            return Verdict.STALE;
        }
        Last last = senders.get(brokerId);
        if (last == null) {
            if (senders.size() >= capacity) {
                senders.values().removeIf(l -> l.newestMillis + maxSkewMillis < nowMillis);
                if (senders.size() >= capacity) {
                    return Verdict.FULL;
                }
            }
            senders.put(brokerId, new Last(seal));
            return Verdict.FRESH;
        }
        if (last.session == seal.session()) {
            if (seal.sequence() <= last.sequence) {
                return Verdict.REPLAYED;
            }
            last.sequence = seal.sequence();
            last.newestMillis = Math.max(last.newestMillis, seal.timestampMillis());
            return Verdict.FRESH;
        }
        if (seal.timestampMillis() <= last.newestMillis) {
            return Verdict.REPLAYED;
        }
        senders.put(brokerId, new Last(seal));
        return Verdict.FRESH;
    }

    /** How many senders are remembered. */
    public int size() {
        return senders.size();
    }
}
