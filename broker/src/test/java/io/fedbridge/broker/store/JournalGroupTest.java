package io.fedbridge.broker.store;

import static io.fedbridge.broker.store.TestMessages.message;
import static io.fedbridge.broker.store.TestMessages.recoverAll;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fedbridge.broker.store.internal.JournalFormat;
import io.fedbridge.broker.store.internal.JournalRecord;
import io.fedbridge.broker.store.internal.SegmentScanner;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@link JournalMessageStore#atomically}: a transaction's adds and removals, on real files, hold all together or not
 * at all after a crash — whatever part of the group's write reached the disk.
 */
class JournalGroupTest {

    private static final String JOBS = "/queue/jobs";
    private static final String RESULTS = "/queue/results";
    private static final String AUDIT = "/queue/audit";

    @TempDir
    Path dir;

    private StoreConfig config(boolean preallocate) {
        return StoreConfig.builder().directory(dir).segmentSize(StoreConfig.MIN_SEGMENT_SIZE).preallocate(preallocate).build();
    }

    /** Jobs 1..3 stored one by one, then one unit: results 101 and 102 on two queues, jobs 1 and 2 removed. */
    private static List<CompletableFuture<Void>> commitTwoJobs(JournalMessageStore store) {
        addJobs(store);
        return commitJobs(store);
    }

    private static void addJobs(JournalMessageStore store) {
        CompletableFuture.allOf(LongStream.rangeClosed(1, 3).mapToObj(s -> store.add(JOBS, message(s, JOBS)))
                .toArray(CompletableFuture[]::new)).join();
    }

    private static List<CompletableFuture<Void>> commitJobs(JournalMessageStore store) {
        List<CompletableFuture<Void>> writes = new ArrayList<>();
        store.atomically(() -> {
            writes.add(store.add(RESULTS, message(101, RESULTS)));
            writes.add(store.add(AUDIT, message(102, AUDIT)));
            writes.add(store.remove(JOBS, 1, true));
            writes.add(store.remove(JOBS, 2, true));
        });
        return writes;
    }

    private static List<String> recovered(JournalMessageStore store) {
        return recoverAll(store).stream().map(s -> s.key() + "#" + s.message().sequence()).toList();
    }

    /** Every record of a segment as the scanner hands it on: grouped records one by one, at their own offsets. */
    private static List<Scanned> scan(Path segment) throws Exception {
        List<Scanned> out = new ArrayList<>();
        try (FileChannel ch = FileChannel.open(segment, StandardOpenOption.READ)) {
            SegmentScanner.scan(ch, JournalFormat.segmentId(segment.getFileName().toString()),
                    (r, offset, size) -> out.add(new Scanned(r, offset, size)));
        }
        return out;
    }

    private record Scanned(JournalRecord record, long offset, int size) {
    }

    @Test
    void shouldWriteAUnitAsOneGroupForcedOnceAndRecoverAllOfIt() throws Exception {
        Path segment;
        try (JournalMessageStore store = JournalMessageStore.open(config(true))) {
            addJobs(store);
            long forces = store.syncs();
            List<CompletableFuture<Void>> writes = commitJobs(store);
            CompletableFuture.allOf(writes.toArray(CompletableFuture[]::new)).join();
            assertThat(store.syncs()).as("the whole unit is forced once").isEqualTo(forces + 1);
            segment = store.segmentFiles().get(0);
        }
        List<Scanned> records = scan(segment);
        assertThat(records).hasSize(7);
        // the unit's records are contiguous inside one GROUP record: each right after the one before
        for (int i = 4; i < 7; i++) {
            assertThat(records.get(i).offset()).isEqualTo(records.get(i - 1).offset() + records.get(i - 1).size());
        }
        assertThat(records.get(3).offset()).as("the group's header and count come before its first record")
                .isEqualTo(records.get(2).offset() + records.get(2).size() + JournalFormat.RECORD_HEADER_SIZE
                        + JournalFormat.GROUP_HEADER_SIZE);
        try (JournalMessageStore store = JournalMessageStore.open(config(true))) {
            assertThat(recovered(store)).containsExactlyInAnyOrder(JOBS + "#3", RESULTS + "#101", AUDIT + "#102");
        }
    }

    /**
     * A crash tore the group's write: only its first {@code keptPercent} bytes reached the disk (the rest is zeros in a
     * preallocated file, or missing). Recovery must apply none of it: the jobs are still there, no result is.
     */
    @ParameterizedTest(name = "preallocate={0}, {1}% of the group written")
    @CsvSource({"true,0", "true,5", "true,50", "true,99", "false,3", "false,50", "false,99"})
    void shouldApplyNothingOfAGroupTornByACrash(boolean preallocate, int keptPercent) throws Exception {
        Path segment;
        try (JournalMessageStore store = JournalMessageStore.open(config(preallocate))) {
            CompletableFuture.allOf(commitTwoJobs(store).toArray(CompletableFuture[]::new)).join();
            segment = store.segmentFiles().get(0);
        }
        List<Scanned> records = scan(segment);
        long groupStart = records.get(2).offset() + records.get(2).size();
        long groupEnd = records.get(6).offset() + records.get(6).size();
        long cut = groupStart + Math.max(1, (groupEnd - groupStart) * keptPercent / 100);
        try (FileChannel ch = FileChannel.open(segment, StandardOpenOption.WRITE)) {
            if (preallocate) {
                ch.write(ByteBuffer.allocate((int) (groupEnd - cut)), cut); // never written: zeros
            } else {
                ch.truncate(cut);
            }
        }
        try (JournalMessageStore store = JournalMessageStore.open(config(preallocate))) {
            assertThat(recovered(store)).as("a torn group applies nothing")
                    .containsExactlyInAnyOrder(JOBS + "#1", JOBS + "#2", JOBS + "#3");
            store.add(JOBS, message(4, JOBS)).join(); // short: the torn group's remains must not become readable
        }
        try (JournalMessageStore store = JournalMessageStore.open(config(preallocate))) {
            assertThat(recovered(store)).containsExactlyInAnyOrder(JOBS + "#1", JOBS + "#2", JOBS + "#3", JOBS + "#4");
        }
    }

    @Test
    void shouldKeepAWholeGroupAndDropOnlyTheTornOneAfterIt() throws Exception {
        Path segment;
        try (JournalMessageStore store = JournalMessageStore.open(config(false))) {
            CompletableFuture.allOf(commitTwoJobs(store).toArray(CompletableFuture[]::new)).join();
            List<CompletableFuture<Void>> second = new ArrayList<>();
            store.atomically(() -> {
                second.add(store.add(RESULTS, message(103, RESULTS)));
                second.add(store.remove(JOBS, 3, true));
            });
            CompletableFuture.allOf(second.toArray(CompletableFuture[]::new)).join();
            segment = store.segmentFiles().get(0);
        }
        List<Scanned> records = scan(segment);
        assertThat(records).hasSize(9);
        try (FileChannel ch = FileChannel.open(segment, StandardOpenOption.WRITE)) {
            ch.truncate(records.get(8).offset() + 3); // the second group's last record cut short
        }
        try (JournalMessageStore store = JournalMessageStore.open(config(false))) {
            assertThat(recovered(store)).containsExactlyInAnyOrder(JOBS + "#3", RESULTS + "#101", AUDIT + "#102");
        }
    }

    @Test
    void shouldLeaveOutOfAGroupTheRemovalOfAMessageNotStoredButKeepOnesOfMessagesItAdds() throws Exception {
        try (JournalMessageStore store = JournalMessageStore.open(config(true))) {
            List<CompletableFuture<Void>> writes = new ArrayList<>();
            store.atomically(() -> {
                writes.add(store.remove(JOBS, 77, true)); // not stored: changes nothing
                writes.add(store.add(RESULTS, message(5, RESULTS)));
                writes.add(store.add(RESULTS, message(6, RESULTS)));
                writes.add(store.remove(RESULTS, 5, true)); // added by the group itself
                store.updateRedeliveryCount(RESULTS, 6, 2);
            });
            CompletableFuture.allOf(writes.toArray(CompletableFuture[]::new)).join();
            assertThat(scan(store.segmentFiles().get(0))).extracting(s -> s.record().type())
                    .containsExactly(JournalRecord.Add.TYPE, JournalRecord.Add.TYPE, JournalRecord.Remove.TYPE_CONSUMED_HERE,
                            JournalRecord.Redelivery.TYPE);
        }
        try (JournalMessageStore store = JournalMessageStore.open(config(true))) {
            var all = recoverAll(store);
            assertThat(all).extracting(s -> s.key() + "#" + s.message().sequence()).containsExactly(RESULTS + "#6");
            assertThat(all.get(0).message().redeliveryCount()).isEqualTo(2);
        }
    }

    @Test
    void shouldPutAGroupThatDoesNotFitWhollyInTheNextSegmentAndCompactGroupedAdds() throws Exception {
        List<Long> kept = new ArrayList<>();
        Path first;
        try (JournalMessageStore store = JournalMessageStore.open(config(true))) {
            first = store.segmentFiles().get(0);
            List<CompletableFuture<Void>> writes = new ArrayList<>();
            for (long g = 0; g < 40; g++) {
                long base = g * 10;
                store.atomically(() -> {
                    for (long s = base + 1; s <= base + 10; s++) {
                        String key = s % 10 == 0 ? "/queue/slow" : "/queue/fast";
                        writes.add(store.add(key, message(s, key)));
                    }
                });
                kept.add(base + 10);
            }
            CompletableFuture.allOf(writes.toArray(CompletableFuture[]::new)).join();
            assertThat(store.segmentFiles()).hasSizeGreaterThan(3);
            for (Path segment : store.segmentFiles()) {
                List<Scanned> records = scan(segment);
                // groups are never split: every segment holds whole groups of ten (the head may still be filling)
                assertThat(records.size() % 10).as("records in %s", segment).isZero();
            }
            CompletableFuture.allOf(LongStream.rangeClosed(1, 400).filter(s -> s % 10 != 0)
                    .mapToObj(s -> store.remove("/queue/fast", s)).toArray(CompletableFuture[]::new)).join();
            // the slow messages' ADDs, read back from inside their groups, are rewritten at the head
            await("sparse segments are compacted away").atMost(Duration.ofSeconds(10))
                    .until(() -> !Files.exists(first) && store.segmentFiles().size() <= 2);
        }
        try (JournalMessageStore store = JournalMessageStore.open(config(true))) {
            assertThat(recoverAll(store)).extracting(s -> s.message().sequence()).containsExactlyElementsOf(kept);
        }
    }
}
