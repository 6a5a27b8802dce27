package io.fedbridge.ha.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.fedbridge.broker.HaConfig;
import io.fedbridge.broker.StoredMessage;
import io.fedbridge.broker.store.InMemoryMessageStore;
import io.fedbridge.broker.store.internal.JournalRecord;
import io.fedbridge.core.StompCommand;
import io.fedbridge.core.StompFrame;
import io.fedbridge.core.StompHeaders;
import io.netty.channel.embedded.EmbeddedChannel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * The primary's side of replication, driven frame by frame over embedded channels: which backups a receipt waits for,
 * and which backups the primary declares complete copies (those that ZooKeeper lets win an election).
 */
class ReplicationHubTest {

    private static final String GROUP = "g";
    private final List<List<String>> recorded = Collections.synchronizedList(new ArrayList<>());
    private final ReplicationHub hub = new ReplicationHub("p", 1, Duration.ofMinutes(1), members -> {
        recorded.add(List.copyOf(members));
        return true;
    }, Runnable::run);

    @Test
    void aBackupThatStartsToCountIsNotACompleteCopyUntilItHoldsEveryRecordAReceiptCompletedWithoutIt() {
        EmbeddedChannel a = join("a");
        ack(a, lastIndex(a));
        assertThat(hub.readyMembers()).containsExactly("a");

        EmbeddedChannel b = join("b");
        long bMarker = lastIndex(b); // b's caught-up marker: b has the state it joined with
        CompletableFuture<Void> receipt = hub.publish(new JournalRecord.Remove("q", 7, true), true);
        ack(a, lastIndex(a));
        assertThat(receipt).as("completed on a's acknowledgement alone: b does not count yet").isDone();
        ack(b, bMarker); // b counts from now on, but the receipted record is still on its way to it

        assertThat(hub.readyMembers()).as("b lacks a receipted record: promoting it would lose it").containsExactly("a");
        assertThat(recorded).noneMatch(set -> set.contains("b"));
        assertThat(ops(b)).doesNotContain(Replication.OP_READY);

        CompletableFuture<Void> later = hub.publish(new JournalRecord.Remove("q", 8, true), true);
        ack(a, lastIndex(a));
        assertThat(later).as("a receipt numbered after b counted waits for b too").isNotDone();

        ack(b, lastIndex(b));
        assertThat(later).isDone();
        assertThat(hub.readyMembers()).containsExactlyInAnyOrder("a", "b");
        assertThat(recorded.get(recorded.size() - 1)).containsExactlyInAnyOrder("a", "b");
        assertThat(ops(b)).as("b hears it is a complete copy only now").contains(Replication.OP_READY);
    }

    @Test
    void aBackupThatJoinsWithNoOtherBackupIsACompleteCopyOnceItAcknowledgesTheLastRecord() {
        hub.publish(new JournalRecord.Remove("q", 1, true), true);
        EmbeddedChannel b = join("b");
        hub.publish(new JournalRecord.Remove("q", 2, true), false);
        long last = lastIndex(b);
        ack(b, last);
        assertThat(hub.readyMembers()).containsExactly("b");
        assertThat(ops(b)).containsSubsequence(Replication.OP_CAUGHT_UP, Replication.OP_READY);
    }

    @Test
    void aTransactionGoesToABackupAsOneGroupRecordAndItsWritesWaitForThatRecord() {
        EmbeddedChannel a = join("a");
        ack(a, lastIndex(a));
        ReplicatingStore store = new ReplicatingStore(new InMemoryMessageStore(), hub, HaConfig.Replicate.ALL);
        StoredMessage result = new StoredMessage(11, "ID:r-11", "/queue/results", java.util.Map.of("job", "7"), new byte[] {1}, 0);
        List<CompletableFuture<Void>> writes = new ArrayList<>();
        int before = frames(a).size();

        store.atomically(() -> {
            writes.add(store.add("/queue/results", result));
            writes.add(store.remove("/queue/jobs", 7, true));
        });

        List<StompFrame> sent = frames(a).subList(before, frames(a).size());
        assertThat(sent).as("one record for the whole transaction: a backup stores all of it or none").hasSize(1);
        JournalRecord record = Replication.decode(sent.get(0).body());
        assertThat(record).isInstanceOf(JournalRecord.Group.class);
        List<JournalRecord> grouped = ((JournalRecord.Group) record).records();
        assertThat(grouped).hasSize(2);
        assertThat(grouped.get(0)).isInstanceOfSatisfying(JournalRecord.Add.class, add -> {
            assertThat(add.key()).isEqualTo("/queue/results");
            assertThat(add.message().sequence()).isEqualTo(11);
            assertThat(add.message().headers()).containsEntry("job", "7");
        });
        assertThat(grouped.get(1)).isEqualTo(new JournalRecord.Remove("/queue/jobs", 7, true));
        assertThat(writes).as("waiting for the READY backup").noneMatch(CompletableFuture::isDone);

        ack(a, lastIndex(a));
        assertThat(writes).allMatch(CompletableFuture::isDone);
    }

    private final java.util.Map<EmbeddedChannel, List<StompFrame>> sent = new java.util.HashMap<>();

    private EmbeddedChannel join(String member) {
        EmbeddedChannel ch = new EmbeddedChannel(Links.newLink(hub, member, GROUP,
                () -> new ReplicatingStore.Snapshot(Collections.emptyIterator(), 0)));
        ch.writeInbound(new StompFrame(StompCommand.SUBSCRIBE, StompHeaders.of(StompHeaders.DESTINATION,
                Replication.DESTINATION_PREFIX + GROUP, StompHeaders.ID, "ha")));
        return ch;
    }

    private List<StompFrame> frames(EmbeddedChannel ch) {
        ch.runPendingTasks();
        List<StompFrame> out = sent.computeIfAbsent(ch, c -> new ArrayList<>());
        for (Object o; (o = ch.readOutbound()) != null; ) {
            out.add((StompFrame) o);
        }
        return out;
    }

    private long lastIndex(EmbeddedChannel ch) {
        List<StompFrame> f = frames(ch);
        return Long.parseLong(f.get(f.size() - 1).header(Replication.INDEX));
    }

    private List<String> ops(EmbeddedChannel ch) {
        return frames(ch).stream().map(f -> f.header(Replication.OP)).filter(java.util.Objects::nonNull).toList();
    }

    private void ack(EmbeddedChannel ch, long index) {
        frames(ch);
        ch.writeInbound(new StompFrame(StompCommand.ACK, StompHeaders.of(Replication.INDEX, Long.toString(index),
                Replication.COUNT, Integer.toString(frames(ch).size()))));
        frames(ch);
    }
}
