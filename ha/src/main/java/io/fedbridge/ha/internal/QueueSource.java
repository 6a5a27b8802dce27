package io.fedbridge.ha.internal;

import io.fedbridge.broker.StoredMessage;
import io.fedbridge.broker.internal.QueueReplicas;
import io.fedbridge.broker.store.internal.JournalRecord;
import io.netty.channel.ChannelHandler;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

/**
 * One queue of an ordinary broker that replicas copy: every store operation on the queue's key goes to a
 * {@link ReplicationHub} of its own, which hands it to each replica's {@link ReplicationLink} — the HA group's wire
 * format, on the destination {@code /fedbridge.ha/queue/NAME}. As in a group, a persistent send to the queue is
 * receipted once every READY replica has stored it, and a replica still catching up holds nothing back.
 *
 * <p>Thread-safe: the observer methods run on whichever thread changes the queue, under its locks.
 */
final class QueueSource implements QueueReplicas.Observer {

    /** How long a READY replica may take to store a record before the source drops it (it then catches up again). */
    static final Duration REPLICA_TIMEOUT = Duration.ofSeconds(5);

    private final String queue;
    private final QueueReplicas replicas;
    private final ReplicationHub hub;

    QueueSource(String broker, String queue, QueueReplicas replicas, Executor executor) {
        this.queue = queue;
        this.replicas = replicas;
        this.hub = new ReplicationHub(broker, 0, REPLICA_TIMEOUT, null, executor);
    }

    /** The replication stream's destination for {@code queue}: {@code /fedbridge.ha/queue/orders} for /queue/orders. */
    static String destination(String queue) {
        return Replication.DESTINATION_PREFIX + group(queue);
    }

    private static String group(String queue) {
        return queue.substring(1);
    }

    /** A replica's link; it reads the queue's content once the replica subscribes. */
    ChannelHandler newLink(String member) {
        return Links.newLink(hub, member + " (replica of " + queue + ")", group(queue), this::snapshot);
    }

    private ReplicatingStore.Snapshot snapshot() {
        List<StoredMessage> content = replicas.observe(queue, this);
        List<JournalRecord> records = new ArrayList<>(content.size());
        for (StoredMessage m : content) {
            records.add(new JournalRecord.Add(queue, m));
        }
        return new ReplicatingStore.Snapshot(records.iterator(), records.size());
    }

    void checkTimeouts() {
        hub.checkTimeouts();
    }

    @Override
    public CompletableFuture<Void> added(StoredMessage message) {
        return hub.publish(new JournalRecord.Add(queue, message), true);
    }

    @Override
    public CompletableFuture<Void> removed(long sequence, boolean consumedHere, boolean awaited) {
        return hub.publish(new JournalRecord.Remove(queue, sequence, consumedHere), awaited);
    }

    @Override
    public void redelivered(long sequence, int count) {
        hub.publish(new JournalRecord.Redelivery(queue, sequence, count), false);
    }
}
