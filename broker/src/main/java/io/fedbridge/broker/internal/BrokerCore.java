package io.fedbridge.broker.internal;

import io.fedbridge.broker.BrokerConfig;
import io.fedbridge.broker.DestinationStats;
import io.fedbridge.broker.MessageStore;
import io.fedbridge.broker.StoredMessage;
import io.fedbridge.core.StompHeaders;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The broker's routing core: destinations, sequence numbers, the store and memory accounting. */
public final class BrokerCore {

    private static final Logger LOG = LoggerFactory.getLogger(BrokerCore.class);
    static final CompletableFuture<Void> DONE = CompletableFuture.completedFuture(null);

    final BrokerConfig config;
    final String brokerId;
    final MessageStore store;
    final MemoryUsage memory;
    final Clock clock;
    final TopicRegistry topics;
    private final Map<String, QueueDestination> queues = new ConcurrentHashMap<>();
    private final Set<ServerSession> sessions = ConcurrentHashMap.newKeySet();
    private final AtomicLong sequence;
    private final AtomicLong sessionIds = new AtomicLong();
    private final String idPrefix;

    public BrokerCore(BrokerConfig config, String brokerId, MessageStore store, Clock clock) {
        this.config = config;
        this.brokerId = brokerId;
        this.store = store;
        this.clock = clock;
        this.memory = new MemoryUsage(config.memoryLimit());
        this.topics = new TopicRegistry(this);
        this.idPrefix = "ID:" + config.name() + "-" + Long.toString(clock.millis(), 36) + "-";
        recover();
        this.sequence = new AtomicLong(Math.max(store.lastSequence(), 0));
    }

    private void recover() {
        long[] count = {0};
        store.recover((key, stored) -> {
            QueueDestination q = queue(key);
            BrokerMessage m = BrokerMessage.fromStored(stored);
            memory.reserve(m.size);
            q.enqueue(new QueueEntry(m, key, stored.redeliveryCount()));
            count[0]++;
        });
        if (count[0] > 0) {
            LOG.info("broker {}: recovered {} persistent messages", config.name(), count[0]);
        }
    }

    QueueDestination queue(String name) {
        QueueDestination q = queues.get(name);
        if (q == null) {
            q = queues.computeIfAbsent(name, n -> new QueueDestination(this, n, n));
        }
        return q;
    }

    String newSessionId() {
        return config.name() + "-session-" + sessionIds.incrementAndGet();
    }

    void register(ServerSession s) {
        sessions.add(s);
    }

    void unregister(ServerSession s) {
        sessions.remove(s);
    }

    /**
     * Accepts a message for a destination: stores it if persistent (queues), then routes it. The future
     * completes when the message is safely accepted (durable, for persistent messages).
     */
    CompletableFuture<Void> route(String destination, StompHeaders headers, byte[] body) {
        long seq = sequence.incrementAndGet();
        BrokerMessage m = new BrokerMessage(seq, idPrefix + seq, destination, headers, body);
        if (Destinations.isTopic(destination)) {
            topics.publish(m);
            return DONE;
        }
        QueueDestination q = queue(destination);
        memory.reserve(m.size);
        if (!m.persistent || !store.isPersistent()) {
            q.enqueue(new QueueEntry(m, q.storeKey, 0));
            return DONE;
        }
        StoredMessage stored = m.toStored(0);
        return store.add(q.storeKey, stored).whenComplete((v, e) -> {
            if (e == null) {
                q.enqueue(new QueueEntry(m, q.storeKey, 0));
            } else {
                memory.release(m.size);
            }
        });
    }

    /** Snapshot of every queue's counters (topic subscriptions excluded). */
    public List<DestinationStats> queueSnapshots() {
        List<DestinationStats> l = new ArrayList<>();
        for (QueueDestination q : queues.values()) {
            l.add(q.snapshot());
        }
        return l;
    }

    public long memoryUsed() {
        return memory.used();
    }

    public int sessionCount() {
        return sessions.size();
    }

    public Set<String> topicNames() {
        return topics.topics();
    }

    /** Closes every client connection (broker shutdown). */
    public void closeSessions() {
        for (ServerSession s : new ArrayList<>(sessions)) {
            s.close();
        }
    }

    public String brokerId() {
        return brokerId;
    }

    public BrokerConfig config() {
        return config;
    }
}
