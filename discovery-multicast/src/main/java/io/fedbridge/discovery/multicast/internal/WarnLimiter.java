package io.fedbridge.discovery.multicast.internal;

import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;

/**
 * Says when a warning about a key (e.g. a kind of rejected datagram and its source address) may be logged: once
 * per {@code period} per key, so that a flood of forged datagrams yields one line a minute per source, not one per
 * datagram. Remembers at most {@code maxKeys} keys; with that many warned about within the period, further keys
 * wait until one ages out (a flood from that many sources has been reported by then).
 *
 * <p>Thread-safe.
 */
public final class WarnLimiter {

    private final Duration period;
    private final int maxKeys;
    private final Map<String, Instant> lastWarned = new HashMap<>();

    public WarnLimiter(Duration period, int maxKeys) {
        this.period = period;
        this.maxKeys = maxKeys;
    }

    /** Whether to warn about {@code key} at {@code now}; if so, the next time is a period later. */
    public synchronized boolean shouldWarn(String key, Instant now) {
        Instant last = lastWarned.get(key);
        if (last != null && now.isBefore(last.plus(period))) {
            return false;
        }
        if (last == null && lastWarned.size() >= maxKeys) {
            lastWarned.values().removeIf(t -> !now.isBefore(t.plus(period)));
            if (lastWarned.size() >= maxKeys) {
                return false;
            }
        }
        lastWarned.put(key, now);
        return true;
    }
}
