package io.fedbridge.broker.internal;

import io.fedbridge.broker.store.DedupeWindow;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * Drops a SEND whose federation id this broker already accepted, so a bridge's or a client's resend after a
 * failure never reaches a consumer twice. Recent ids live in a bounded in-memory LRU; with a data directory
 * they also go to the persisted {@link DedupeWindow} (committed every 100 ms), and ids of messages still in
 * the journal are re-learned at recovery.
 */
final class FederationDedupe {

    private final int capacity;
    private final DedupeWindow persistent;
    private final Set<String> inFlight = new HashSet<>();
    private final Map<String, Boolean> recent;
    private long duplicates;

    FederationDedupe(int capacity, DedupeWindow persistent) {
        this.capacity = capacity;
        this.persistent = persistent;
        this.recent = new LinkedHashMap<>(1024, 0.75f, false) {
            private static final long serialVersionUID = 1L;

            @Override
            protected boolean removeEldestEntry(Map.Entry<String, Boolean> eldest) {
                return size() > FederationDedupe.this.capacity;
            }
        };
    }

    /**
     * Claims {@code id} for a message about to be accepted; false if it is a duplicate. Only persistent messages
     * consult the persisted window (a non-persistent message does not outlive a restart, so the in-memory window
     * decides for it, and the I/O thread never waits on MapDB for it).
     */
    synchronized boolean claim(String id, boolean persistentMessage) {
        if (inFlight.contains(id) || recent.containsKey(id)
                || persistentMessage && persistent != null && persistent.contains(id)) {
            duplicates++;
            return false;
        }
        inFlight.add(id);
        return true;
    }

    /** The message with {@code id} is accepted (stored, if persistent); persistent ones are also remembered on disk. */
    synchronized void accepted(String id, boolean persistentMessage) {
        inFlight.remove(id);
        recent.put(id, Boolean.TRUE);
        if (persistentMessage && persistent != null) {
            persistent.firstSeen(id);
        }
    }

    /** The message with {@code id} was not accepted after all: a resend must get through. */
    synchronized void failed(String id) {
        inFlight.remove(id);
    }

    /** Learned from a message recovered from the journal. */
    synchronized void recovered(String id) {
        recent.put(id, Boolean.TRUE);
    }

    synchronized long duplicates() {
        return duplicates;
    }

    void close() {
        if (persistent != null) {
            persistent.close();
        }
    }
}
