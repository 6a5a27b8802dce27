package io.fedbridge.broker.store;

import static io.fedbridge.broker.store.TestMessages.message;
import static io.fedbridge.broker.store.TestMessages.recoverAll;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.fedbridge.broker.MessageStore.DurableSubscriptionInfo;
import io.fedbridge.broker.StoredMessage;
import io.fedbridge.broker.store.TestMessages.Stored;
import io.fedbridge.broker.store.internal.JournalFormat;
import io.fedbridge.broker.store.internal.SegmentScanner;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class JournalMessageStoreTest {

    private static final long SMALL_SEGMENT = StoreConfig.MIN_SEGMENT_SIZE;

    @TempDir
    Path dir;

    private StoreConfig small() {
        return StoreConfig.builder().directory(dir).segmentSize(SMALL_SEGMENT).build();
    }

    private static void addAll(JournalMessageStore store, String key, long from, long to) {
        CompletableFuture.allOf(LongStream.rangeClosed(from, to)
                .mapToObj(s -> store.add(key, message(s, key)))
                .toArray(CompletableFuture[]::new)).join();
    }

    private static void removeAll(JournalMessageStore store, String key, long from, long to) {
        CompletableFuture.allOf(LongStream.rangeClosed(from, to)
                .mapToObj(s -> store.remove(key, s))
                .toArray(CompletableFuture[]::new)).join();
    }

    private static void assertSameMessage(StoredMessage actual, StoredMessage expected) {
        assertThat(actual.sequence()).isEqualTo(expected.sequence());
        assertThat(actual.messageId()).isEqualTo(expected.messageId());
        assertThat(actual.destination()).isEqualTo(expected.destination());
        assertThat(actual.headers()).containsExactlyEntriesOf(expected.headers());
        assertThat(actual.body()).isEqualTo(expected.body());
    }

    // ------------------------------------------------------------------ add, remove, recover

    @Test
    void shouldRecoverAddedAndNotRemovedMessagesAfterReopen() {
        try (JournalMessageStore store = JournalMessageStore.open(StoreConfig.ofDefaults(dir))) {
            assertThat(recoverAll(store)).isEmpty();
            assertThat(store.lastSequence()).isZero();
            assertThat(store.isPersistent()).isTrue();
            store.add("/queue/a", message(1, "/queue/a")).join();
            store.add("/queue/b", message(2, "/queue/b")).join();
            store.add("/queue/a", message(3, "/queue/a")).join();
            store.remove("/queue/a", 1).join();
        }
        try (JournalMessageStore store = JournalMessageStore.open(StoreConfig.ofDefaults(dir))) {
            List<Stored> recovered = recoverAll(store);
            assertThat(recovered).extracting(Stored::key).containsExactly("/queue/b", "/queue/a");
            assertSameMessage(recovered.get(0).message(), message(2, "/queue/b"));
            assertSameMessage(recovered.get(1).message(), message(3, "/queue/a"));
            assertThat(store.lastSequence()).isEqualTo(3);
        }
    }

    @Test
    void shouldRecoverEachKeyInSequenceOrderWhateverTheOrderOfAdds() {
        try (JournalMessageStore store = JournalMessageStore.open(StoreConfig.ofDefaults(dir))) {
            for (long s : new long[] {5, 3, 9, 1, 7}) {
                store.add("/queue/a", message(s, "/queue/a"));
                store.add("/queue/b", message(s + 100, "/queue/b"));
            }
            store.remove("/queue/a", 9).join();
        }
        try (JournalMessageStore store = JournalMessageStore.open(StoreConfig.ofDefaults(dir))) {
            Map<String, List<Long>> byKey = recoverAll(store).stream().collect(Collectors.groupingBy(Stored::key,
                    Collectors.mapping(s -> s.message().sequence(), Collectors.toList())));
            assertThat(byKey.get("/queue/a")).containsExactly(1L, 3L, 5L, 7L);
            assertThat(byKey.get("/queue/b")).containsExactly(101L, 103L, 105L, 107L, 109L);
            assertThat(store.lastSequence()).isEqualTo(109);
        }
    }

    @Test
    void shouldMakeAnEventualRemovalDurableWithLaterWrites() {
        try (JournalMessageStore store = JournalMessageStore.open(StoreConfig.ofDefaults(dir))) {
            addAll(store, "/queue/a", 1, 3);
            store.removeEventually("/queue/a", 2); // an ACK nobody waits for: no force of its own
            store.add("/queue/a", message(4, "/queue/a")).join(); // the next forced batch carries it
        }
        try (JournalMessageStore store = JournalMessageStore.open(StoreConfig.ofDefaults(dir))) {
            assertThat(recoverAll(store)).extracting(s -> s.message().sequence()).containsExactly(1L, 3L, 4L);
        }
    }

    @Test
    void shouldRecoverTheLatestRedeliveryCount() {
        try (JournalMessageStore store = JournalMessageStore.open(StoreConfig.ofDefaults(dir))) {
            addAll(store, "/queue/a", 1, 2);
            store.updateRedeliveryCount("/queue/a", 1, 1);
            store.updateRedeliveryCount("/queue/a", 1, 2);
            store.updateRedeliveryCount("/queue/a", 1, 3);
            store.updateRedeliveryCount("/queue/a", 42, 5); // not stored: ignored
        }
        try (JournalMessageStore store = JournalMessageStore.open(StoreConfig.ofDefaults(dir))) {
            assertThat(recoverAll(store)).extracting(s -> s.message().redeliveryCount()).containsExactly(3, 0);
        }
    }

    @Test
    void shouldThrowWhenRecoverIsCalledTwice() {
        try (JournalMessageStore store = JournalMessageStore.open(StoreConfig.ofDefaults(dir))) {
            store.recover((k, m) -> { });
            assertThatThrownBy(() -> store.recover((k, m) -> { }))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("once");
        }
    }

    @Test
    void shouldRecoverWhatAsyncDurabilityWrote() {
        StoreConfig async = StoreConfig.ofDefaults(dir).toBuilder()
                .durability(Durability.ASYNC).asyncFlushInterval(Duration.ofMillis(20)).build();
        try (JournalMessageStore store = JournalMessageStore.open(async)) {
            addAll(store, "/queue/a", 1, 200);
            removeAll(store, "/queue/a", 1, 100);
        }
        try (JournalMessageStore store = JournalMessageStore.open(async)) {
            assertThat(recoverAll(store)).extracting(s -> s.message().sequence())
                    .containsExactlyElementsOf(LongStream.rangeClosed(101, 200).boxed().toList());
        }
    }

    @Test
    void shouldPreallocateTheNextSegmentInForcedChunksSoThatNoSyncWaitsBehindAWholeSegment() {
        // A new segment's zeros used to go to the disk in one burst that the journal's own syncs waited behind.
        long segment = 2L * 1024 * 1024;
        java.util.List<Long> writtenAtForce = new java.util.concurrent.CopyOnWriteArrayList<>();
        StoreConfig config = StoreConfig.builder().directory(dir).segmentSize(segment).preallocate(true).build();
        try (JournalMessageStore store = JournalMessageStore.open(config, (path, options) -> {
            FileChannel ch = FileChannel.open(path, options);
            if (!path.getFileName().toString().endsWith(".tmp")) {
                return ch;
            }
            return new FailingChannel(ch, new AtomicBoolean(), () -> writtenAtForce.add(ch.size()));
        })) {
            await("the next segment is prepared").atMost(Duration.ofSeconds(10))
                    .until(() -> writtenAtForce.contains(segment));
            long before = 0;
            for (long size : writtenAtForce) {
                assertThat(size - before).as("bytes forced at once").isLessThanOrEqualTo(256 * 1024);
                before = size;
            }
            assertThat(writtenAtForce).hasSizeGreaterThanOrEqualTo(8);
        }
    }

    /** Opens a store whose forces block, while {@code gate} holds a latch, until it is counted down. */
    private JournalMessageStore openWithForceGate(StoreConfig config, AtomicReference<CountDownLatch> gate,
                                                  CountDownLatch forcing) {
        return JournalMessageStore.open(config, (path, options) -> new FailingChannel(FileChannel.open(path, options),
                new AtomicBoolean(), () -> {
                    CountDownLatch g = gate.get();
                    if (g != null) {
                        forcing.countDown();
                        try {
                            g.await();
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                    }
                }));
    }

    @Test
    void shouldCompleteASyncAddOnlyAfterItsForce() throws Exception {
        AtomicReference<CountDownLatch> gate = new AtomicReference<>();
        CountDownLatch forcing = new CountDownLatch(1);
        try (JournalMessageStore store = openWithForceGate(StoreConfig.ofDefaults(dir), gate, forcing)) {
            CountDownLatch release = new CountDownLatch(1);
            gate.set(release);
            CompletableFuture<Void> add = store.add("/queue/a", message(1, "/queue/a"));
            assertThat(forcing.await(10, TimeUnit.SECONDS)).as("the writer forces").isTrue();
            assertThat(add).as("complete while the force is under way").isNotDone();
            gate.set(null);
            release.countDown();
            add.get(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void shouldCompleteAnAsyncAddWithoutWaitingForAForce() throws Exception {
        AtomicReference<CountDownLatch> gate = new AtomicReference<>();
        CountDownLatch forcing = new CountDownLatch(1);
        StoreConfig async = StoreConfig.ofDefaults(dir).toBuilder().durability(Durability.ASYNC).build();
        CountDownLatch release = new CountDownLatch(1);
        try (JournalMessageStore store = openWithForceGate(async, gate, forcing)) {
            gate.set(release);
            store.add("/queue/a", message(1, "/queue/a")).get(10, TimeUnit.SECONDS);
            // and the data is forced within asyncFlushInterval all the same
            assertThat(forcing.await(10, TimeUnit.SECONDS)).as("a force follows").isTrue();
            gate.set(null);
            release.countDown();
        } finally {
            release.countDown();
        }
    }

    @Test
    void shouldRecoverEveryMessageAddedConcurrentlyByManyThreads() throws Exception {
        int threads = 8;
        int perThread = 500;
        AtomicLong sequence = new AtomicLong();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try (JournalMessageStore store = JournalMessageStore.open(small())) {
            CountDownLatch start = new CountDownLatch(1);
            List<java.util.concurrent.Future<List<CompletableFuture<Void>>>> results = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                results.add(pool.submit(() -> {
                    start.await();
                    List<CompletableFuture<Void>> fs = new ArrayList<>();
                    for (int i = 0; i < perThread; i++) {
                        long s = sequence.incrementAndGet();
                        String key = "/queue/k" + (s % 4);
                        fs.add(store.add(key, message(s, key)));
                    }
                    return fs;
                }));
            }
            start.countDown();
            for (var r : results) {
                CompletableFuture.allOf(r.get(30, TimeUnit.SECONDS).toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
            }
            assertThat(store.segmentFiles()).hasSizeGreaterThan(1);
        } finally {
            pool.shutdownNow();
        }
        try (JournalMessageStore store = JournalMessageStore.open(small())) {
            List<Stored> recovered = recoverAll(store);
            assertThat(recovered).hasSize(threads * perThread);
            assertThat(recovered).extracting(s -> s.message().sequence()).doesNotHaveDuplicates();
            for (Stored s : recovered) {
                assertThat(s.key()).isEqualTo("/queue/k" + (s.message().sequence() % 4));
                assertSameMessage(s.message(), message(s.message().sequence(), s.key()));
            }
            assertPerKeyOrder(recovered);
            assertThat(store.lastSequence()).isEqualTo(threads * perThread);
        }
    }

    static void assertPerKeyOrder(List<Stored> recovered) {
        Map<String, Long> last = new HashMap<>();
        for (Stored s : recovered) {
            Long previous = last.put(s.key(), s.message().sequence());
            if (previous != null) {
                assertThat(s.message().sequence()).as("order under %s", s.key()).isGreaterThan(previous);
            }
        }
    }

    // ------------------------------------------------------------------ durable subscriptions

    @Test
    void shouldKeepDurableSubscriptionsAndForgetMessagesOfRemovedOnes() {
        DurableSubscriptionInfo a = new DurableSubscriptionInfo("durable:c1:a", "c1", "a", "/topic/t", null);
        DurableSubscriptionInfo b = new DurableSubscriptionInfo("durable:c1:b", "c1", "b", "/topic/t.>", "x > 1");
        try (JournalMessageStore store = JournalMessageStore.open(StoreConfig.ofDefaults(dir))) {
            store.saveDurableSubscription(a);
            store.saveDurableSubscription(b);
            store.saveDurableSubscription(b); // idempotent
            addAll(store, a.key(), 1, 3);
            addAll(store, b.key(), 4, 6);
            store.removeDurableSubscription(a.key());
            assertThat(store.durableSubscriptions()).containsExactly(b);
        }
        try (JournalMessageStore store = JournalMessageStore.open(StoreConfig.ofDefaults(dir))) {
            assertThat(store.durableSubscriptions()).containsExactly(b);
            assertThat(recoverAll(store)).extracting(Stored::key).containsOnly(b.key()).hasSize(3);
            // the same name again: a new subscription, only its new messages belong to it
            store.saveDurableSubscription(a);
            addAll(store, a.key(), 7, 8);
        }
        try (JournalMessageStore store = JournalMessageStore.open(StoreConfig.ofDefaults(dir))) {
            assertThat(store.durableSubscriptions()).containsExactlyInAnyOrder(a, b);
            assertThat(recoverAll(store)).extracting(s -> s.key() + "#" + s.message().sequence())
                    .containsExactly(b.key() + "#4", b.key() + "#5", b.key() + "#6", a.key() + "#7", a.key() + "#8");
        }
    }

    @Test
    void shouldKeepTheLatestDefinitionOfADurableSubscription() {
        DurableSubscriptionInfo v1 = new DurableSubscriptionInfo("durable:c:s", "c", "s", "/topic/t", "a = 1");
        DurableSubscriptionInfo v2 = new DurableSubscriptionInfo("durable:c:s", "c", "s", "/topic/u", "a = 2");
        try (JournalMessageStore store = JournalMessageStore.open(StoreConfig.ofDefaults(dir))) {
            store.saveDurableSubscription(v1);
            store.saveDurableSubscription(v2);
        }
        try (JournalMessageStore store = JournalMessageStore.open(StoreConfig.ofDefaults(dir))) {
            assertThat(store.durableSubscriptions()).containsExactly(v2);
        }
    }

    @Test
    void shouldNotDeadlockWhenASubscriptionIsSavedFromAFutureCallback() {
        DurableSubscriptionInfo s = new DurableSubscriptionInfo("durable:c:s", "c", "s", "/topic/t", null);
        try (JournalMessageStore store = JournalMessageStore.open(StoreConfig.ofDefaults(dir))) {
            store.add("/queue/a", message(1, "/queue/a"))
                    .thenRun(() -> store.saveDurableSubscription(s))
                    .get(10, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
        try (JournalMessageStore store = JournalMessageStore.open(StoreConfig.ofDefaults(dir))) {
            assertThat(store.durableSubscriptions()).containsExactly(s);
        }
    }

    // ------------------------------------------------------------------ segments: rollover, deletion, compaction

    @Test
    void shouldRollOverSegmentsAndDeleteThemWhenAllTheirMessagesAreRemoved() {
        try (JournalMessageStore store = JournalMessageStore.open(small())) {
            addAll(store, "/queue/a", 1, 600);
            assertThat(store.segmentFiles()).hasSizeGreaterThan(4);
            removeAll(store, "/queue/a", 1, 600);
            await("segments holding only removed messages are deleted").atMost(Duration.ofSeconds(10))
                    .until(() -> store.segmentFiles().size() == 1);
        }
        try (JournalMessageStore store = JournalMessageStore.open(small())) {
            assertThat(recoverAll(store)).isEmpty();
            // the highest sequence survives even though every record naming it is gone
            assertThat(store.lastSequence()).isEqualTo(600);
        }
    }

    // ------------------------------------------------------------------ history of removed messages

    private static StoredMessage federated(long sequence, String destination) {
        StoredMessage m = message(sequence, destination);
        Map<String, String> h = new java.util.LinkedHashMap<>(m.headers());
        h.put(io.fedbridge.core.FederationHeaders.FEDERATION_ID, "origin:" + sequence);
        return new StoredMessage(m.sequence(), m.messageId(), m.destination(), h, m.body(), 0);
    }

    private static List<String> history(JournalMessageStore store) {
        List<String> h = new ArrayList<>();
        store.recoverHistory((id, consumedHere) -> h.add(id + (consumedHere ? " consumed" : " handed on")));
        return h;
    }

    @Test
    void shouldReportTheFederationIdsOfRemovedMessagesAndWhoTookThemAfterReopen() {
        try (JournalMessageStore store = JournalMessageStore.open(StoreConfig.ofDefaults(dir))) {
            for (long s = 1; s <= 4; s++) {
                store.add("/queue/a", federated(s, "/queue/a")).join();
            }
            store.add("/queue/a", message(5, "/queue/a")).join(); // no federation id
            store.remove("/queue/a", 3, true).join();
            store.remove("/queue/a", 1, false).join();
            store.removeEventually("/queue/a", 2, true);
            store.remove("/queue/a", 5, true).join();
        }
        try (JournalMessageStore store = JournalMessageStore.open(StoreConfig.ofDefaults(dir))) {
            assertThat(recoverAll(store)).extracting(r -> r.message().sequence()).containsExactly(4L);
            assertThat(history(store)).containsExactly("origin:3 consumed", "origin:1 handed on", "origin:2 consumed");
            assertThat(history(store)).as("a second call").isEmpty();
        }
    }

    @Test
    void shouldDeleteNoSegmentBeforeTheHistoryGuardRanAndKeepThemWhileItFails() {
        AtomicBoolean failing = new AtomicBoolean(true);
        List<Integer> segmentsWhenGuarded = new java.util.concurrent.CopyOnWriteArrayList<>();
        try (JournalMessageStore store = JournalMessageStore.open(small())) {
            store.beforeDiscardingHistory(() -> {
                segmentsWhenGuarded.add(store.segmentFiles().size());
                if (failing.get()) {
                    throw new IllegalStateException("dedupe log not writable");
                }
            });
            for (long s = 1; s <= 600; s++) {
                store.add("/queue/a", federated(s, "/queue/a")).join();
            }
            int before = store.segmentFiles().size();
            assertThat(before).isGreaterThan(4);
            removeAll(store, "/queue/a", 1, 600);
            await("the guard is asked").atMost(Duration.ofSeconds(10)).until(() -> !segmentsWhenGuarded.isEmpty());
            store.add("/queue/b", message(601, "/queue/b")).join(); // another batch, another maintenance pass
            assertThat(store.segmentFiles()).as("segments kept while the guard fails").hasSize(before);

            failing.set(false);
            store.add("/queue/b", message(602, "/queue/b")).join();
            await("segments deleted once the guard succeeds").atMost(Duration.ofSeconds(10))
                    .until(() -> store.segmentFiles().size() == 1);
            assertThat(segmentsWhenGuarded).as("segment files each time the guard ran").allMatch(n -> n == before);
        }
        try (JournalMessageStore store = JournalMessageStore.open(small())) {
            recoverAll(store);
            // what the deleted segments held was the guard's to keep; the head segment's records remain
            assertThat(history(store)).hasSizeLessThan(100).doesNotContain("origin:1 handed on")
                    .contains("origin:600 handed on");
        }
    }

    @Test
    void shouldKeepASegmentWhileALaterSegmentCancelsRecordsInIt() {
        try (JournalMessageStore store = JournalMessageStore.open(small())) {
            addAll(store, "/queue/a", 1, 300);
            // remove all but the first message: the oldest segment stays (it holds message 1) and so must the
            // segments holding the REMOVE records of its other messages, or those would come back at replay
            removeAll(store, "/queue/a", 2, 300);
        }
        try (JournalMessageStore store = JournalMessageStore.open(small())) {
            assertThat(recoverAll(store)).extracting(s -> s.message().sequence()).containsExactly(1L);
        }
    }

    @Test
    void shouldKeepASegmentOfRemovalsUntilTheSegmentTheyCancelIsGone() {
        StoreConfig config = small().toBuilder().compactionThreshold(0.01).build();
        long seq = 0;
        Path second;
        try (JournalMessageStore store = JournalMessageStore.open(config)) {
            // segment 1: mostly long-lived messages (too live to compact), plus some soon removed
            for (int i = 0; i < 20; i++) {
                store.add("/queue/keep", message(++seq, "/queue/keep", 2000));
            }
            long firstDrop = seq + 1;
            for (int i = 0; i < 40; i++) {
                store.add("/queue/drop", message(++seq, "/queue/drop", 100));
            }
            long lastDrop = seq;
            List<Long> fillers = new ArrayList<>();
            while (store.segmentFiles().size() < 2) {
                store.add("/queue/fill", message(++seq, "/queue/fill", 1000)).join();
                fillers.add(seq);
            }
            second = store.segmentFiles().get(1);
            // segment 2: the removals of segment 1's dropped messages, among fillers
            removeAll(store, "/queue/drop", firstDrop, lastDrop);
            while (store.segmentFiles().size() < 3) {
                store.add("/queue/fill", message(++seq, "/queue/fill", 1000)).join();
                fillers.add(seq);
            }
            // segment 2 now holds nothing live, but its removals still cancel adds in segment 1
            CompletableFuture.allOf(fillers.stream().map(s -> store.remove("/queue/fill", s))
                    .toArray(CompletableFuture[]::new)).join();
            store.add("/queue/fill", message(++seq, "/queue/fill", 10)).join(); // a batch after the removals' force
        }
        assertThat(second).as("segment holding removals of a live segment's records").exists();
        try (JournalMessageStore store = JournalMessageStore.open(config)) {
            assertThat(recoverAll(store)).extracting(Stored::key).containsOnly("/queue/keep", "/queue/fill")
                    .filteredOn("/queue/keep"::equals).hasSize(20);
            removeAll(store, "/queue/keep", 1, 20);
            await("every segment but the head is deleted").atMost(Duration.ofSeconds(10))
                    .until(() -> store.segmentFiles().size() == 1);
        }
    }

    @Test
    void shouldMoveAMostlyLiveOldSegmentForwardWhenItPinsManyDeadOnes() {
        long seq = 0;
        try (JournalMessageStore store = JournalMessageStore.open(small())) {
            // segment 1: a backlog nobody consumes (too live to be compacted on its own merits)
            for (int i = 0; i < 20; i++) {
                store.add("/queue/backlog", message(++seq, "/queue/backlog", 2000));
            }
            // then fast traffic, each message consumed shortly after: every segment's removals cancel adds in the
            // segment before it, a chain that reaches back to segment 1
            for (int i = 0; i < 1500; i++) {
                store.add("/queue/fast", message(++seq, "/queue/fast", 500));
                if (i >= 5) {
                    store.remove("/queue/fast", seq - 5);
                }
            }
            removeAll(store, "/queue/fast", seq - 4, seq);
            store.add("/queue/fast", message(++seq, "/queue/fast", 10)).join();
            await("the backlog is moved forward and the dead segments behind it deleted")
                    .atMost(Duration.ofSeconds(10))
                    .until(() -> store.segmentFiles().size() <= 3);
        }
        try (JournalMessageStore store = JournalMessageStore.open(small())) {
            List<Stored> recovered = recoverAll(store);
            assertThat(recovered).extracting(Stored::key).filteredOn("/queue/backlog"::equals).hasSize(20);
            assertThat(recovered).extracting(s -> s.message().sequence()).last().isEqualTo(seq);
            assertThat(recovered).hasSize(21);
        }
    }

    @Test
    void shouldCompactASegmentHoldingFewLiveMessagesAmongManyRemovedOnes() throws IOException {
        Path firstSegment;
        List<Long> kept = new ArrayList<>();
        try (JournalMessageStore store = JournalMessageStore.open(small())) {
            firstSegment = store.segmentFiles().get(0);
            for (long s = 1; s <= 400; s++) {
                String key = s % 20 == 0 ? "/queue/slow" : "/queue/fast";
                store.add(key, message(s, key));
                if (s % 20 == 0) {
                    kept.add(s);
                }
            }
            store.updateRedeliveryCount("/queue/slow", 20, 4);
            store.add("/queue/fast", message(401, "/queue/fast")).join();
            int before = store.segmentFiles().size();
            assertThat(before).isGreaterThan(4);
            removeAll(store, "/queue/fast", 1, 401);
            // every old segment is now ~5% live: each is compacted (its slow messages rewritten at the head) and deleted
            await("sparse segments are compacted away").atMost(Duration.ofSeconds(10))
                    .until(() -> !Files.exists(firstSegment) && store.segmentFiles().size() <= 2);
        }
        try (JournalMessageStore store = JournalMessageStore.open(small())) {
            List<Stored> recovered = recoverAll(store);
            assertThat(recovered).extracting(s -> s.message().sequence()).containsExactlyElementsOf(kept);
            for (Stored s : recovered) {
                assertSameMessage(s.message(), message(s.message().sequence(), "/queue/slow"));
                assertThat(s.message().redeliveryCount()).isEqualTo(s.message().sequence() == 20 ? 4 : 0);
            }
        }
    }

    @Test
    void shouldStoreARecordLargerThanASegment() {
        StoredMessage big = message(1, "/queue/big", (int) SMALL_SEGMENT * 3);
        try (JournalMessageStore store = JournalMessageStore.open(small())) {
            store.add("/queue/big", big).join();
            addAll(store, "/queue/a", 2, 5);
        }
        try (JournalMessageStore store = JournalMessageStore.open(small())) {
            List<Stored> recovered = recoverAll(store);
            assertThat(recovered).hasSize(5);
            assertSameMessage(recovered.get(0).message(), big);
        }
    }

    // ------------------------------------------------------------------ crashes and damage

    /** Offsets and sizes of the records in a segment. */
    private static List<long[]> records(Path segment) throws Exception {
        List<long[]> out = new ArrayList<>();
        try (FileChannel ch = FileChannel.open(segment, StandardOpenOption.READ)) {
            SegmentScanner.scan(ch, JournalFormat.segmentId(segment.getFileName().toString()),
                    (r, offset, size) -> out.add(new long[] {offset, size}));
        }
        return out;
    }

    private static void overwrite(Path file, long offset, byte[] bytes) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
            ch.write(ByteBuffer.wrap(bytes), offset);
        }
    }

    @ParameterizedTest(name = "preallocate={0}")
    @ValueSource(booleans = {true, false})
    void shouldDropATornRecordAtTheEndOfTheLastSegment(boolean preallocate) throws Exception {
        StoreConfig config = small().toBuilder().preallocate(preallocate).build();
        Path segment;
        try (JournalMessageStore store = JournalMessageStore.open(config)) {
            addAll(store, "/queue/a", 1, 10);
            segment = store.segmentFiles().get(0);
        }
        long[] last = records(segment).get(9);
        if (preallocate) {
            byte[] garbage = new byte[7];
            Arrays.fill(garbage, (byte) 0x5A);
            overwrite(segment, last[0] + last[1] - garbage.length, garbage); // a write that reached the disk in part
        } else {
            try (FileChannel ch = FileChannel.open(segment, StandardOpenOption.WRITE)) {
                ch.truncate(last[0] + last[1] / 2); // a write cut short
            }
        }
        try (JournalMessageStore store = JournalMessageStore.open(config)) {
            assertThat(recoverAll(store)).extracting(s -> s.message().sequence())
                    .containsExactlyElementsOf(LongStream.rangeClosed(1, 9).boxed().toList());
            addAll(store, "/queue/a", 11, 11); // short: must not leave the torn record's remains readable after it
        }
        try (JournalMessageStore store = JournalMessageStore.open(config)) {
            assertThat(recoverAll(store)).extracting(s -> s.message().sequence())
                    .containsExactly(1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L, 11L);
        }
    }

    @Test
    void shouldDropStrayBytesAfterTheLastRecord() throws Exception {
        Path segment;
        try (JournalMessageStore store = JournalMessageStore.open(small())) {
            addAll(store, "/queue/a", 1, 3);
            segment = store.segmentFiles().get(0);
        }
        long[] last = records(segment).get(2);
        // a later record of a torn batch reached the disk, an earlier part of it did not
        overwrite(segment, last[0] + last[1] + 100, new byte[] {0, 0, 0, 4, 1, 2, 3, 4, 2, 9, 9, 9, 9});
        try (JournalMessageStore store = JournalMessageStore.open(small())) {
            assertThat(recoverAll(store)).hasSize(3);
            addAll(store, "/queue/a", 4, 4);
        }
        try (JournalMessageStore store = JournalMessageStore.open(small())) {
            assertThat(recoverAll(store)).hasSize(4);
        }
    }

    @Test
    void shouldRefuseToOpenWhenARecordInAnOlderSegmentIsCorrupt() throws Exception {
        Path first;
        try (JournalMessageStore store = JournalMessageStore.open(small())) {
            addAll(store, "/queue/a", 1, 300);
            assertThat(store.segmentFiles()).hasSizeGreaterThan(2);
            first = store.segmentFiles().get(0);
        }
        long[] middle = records(first).get(10);
        overwrite(first, middle[0] + middle[1] - 20, new byte[] {(byte) 0xFF, 0x00, (byte) 0xFF});
        assertThatThrownBy(() -> JournalMessageStore.open(small()))
                .isInstanceOf(StoreException.class)
                .hasMessageContaining(first.toString())
                .hasMessageContaining("corrupt at offset " + middle[0])
                .hasMessageContaining("CRC mismatch");
        // the failed open left the directory unlocked
        Files.delete(first);
        try (JournalMessageStore store = JournalMessageStore.open(small())) {
            assertThat(recoverAll(store)).isNotEmpty();
        }
    }

    @Test
    void shouldRefuseASegmentFileThatIsNotOurs() throws IOException {
        try (JournalMessageStore store = JournalMessageStore.open(small())) {
            addAll(store, "/queue/a", 1, 3);
        }
        Path impostor = dir.resolve(JournalFormat.segmentName(7));
        Files.writeString(impostor, "this is not a journal segment, but it is long enough to hold a header. ".repeat(3));
        assertThatThrownBy(() -> JournalMessageStore.open(small()))
                .isInstanceOf(StoreException.class)
                .hasMessageContaining(impostor.toString())
                .hasMessageContaining("at offset 0")
                .hasMessageContaining("bad magic");
    }

    @Test
    void shouldRefuseADirectoryHoldingForeignFiles() throws IOException {
        Files.writeString(dir.resolve("notes.txt"), "mine");
        assertThatThrownBy(() -> JournalMessageStore.open(StoreConfig.ofDefaults(dir)))
                .isInstanceOf(StoreException.class)
                .hasMessageContaining(dir.resolve("notes.txt").toString())
                .hasMessageContaining("not a fedbridge store file");
    }

    @Test
    void shouldAcceptADedupeLogBesideTheJournal() {
        try (DedupeLog log = DedupeLog.open(dir.resolve("dedupe.db"), 100, Duration.ofHours(1), Clock.systemUTC())) {
            log.append(new long[] {1}, new long[] {2}, new boolean[] {false}, 1);
            log.commit();
        }
        try (JournalMessageStore store = JournalMessageStore.open(StoreConfig.ofDefaults(dir))) {
            store.add("/queue/a", message(1, "/queue/a")).join();
        }
    }

    @Test
    void shouldRefuseADirectoryThatIsNotWritable() throws IOException {
        Path readOnly = Files.createDirectory(dir.resolve("read-only"));
        Files.setPosixFilePermissions(readOnly, PosixFilePermissions.fromString("r-xr-xr-x"));
        try {
            Path target = readOnly;
            if (canCreateFileIn(readOnly)) {
                // running as root, which ignores permission bits: sysfs refuses new files even to root
                target = Path.of("/sys");
                assumeTrue(Files.isDirectory(target) && !canCreateFileIn(target), "no unwritable directory to test with");
            }
            Path unwritable = target;
            assertThatThrownBy(() -> JournalMessageStore.open(StoreConfig.ofDefaults(unwritable)))
                    .isInstanceOf(StoreException.class)
                    .hasMessageContaining(unwritable.toString())
                    .hasMessageContaining("not writable");
        } finally {
            Files.setPosixFilePermissions(readOnly, PosixFilePermissions.fromString("rwxr-xr-x"));
        }
    }

    @Test
    void shouldRefuseADirectoryPathThatIsAFile() throws IOException {
        Path file = Files.writeString(dir.resolve("plain-file"), "x");
        assertThatThrownBy(() -> JournalMessageStore.open(StoreConfig.ofDefaults(file)))
                .isInstanceOf(StoreException.class)
                .hasMessageContaining(file.toString())
                .hasMessageContaining("not a directory");
    }

    private static boolean canCreateFileIn(Path d) {
        try {
            Files.delete(Files.createTempFile(d, "probe", ".tmp"));
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    @Test
    void shouldRefuseADirectoryAlreadyInUse() {
        try (JournalMessageStore store = JournalMessageStore.open(StoreConfig.ofDefaults(dir))) {
            assertThatThrownBy(() -> JournalMessageStore.open(StoreConfig.ofDefaults(dir)))
                    .isInstanceOf(StoreException.class)
                    .hasMessageContaining(dir.toString())
                    .hasMessageContaining("in use by another broker");
            store.add("/queue/a", message(1, "/queue/a")).join();
        }
        try (JournalMessageStore store = JournalMessageStore.open(StoreConfig.ofDefaults(dir))) {
            assertThat(recoverAll(store)).hasSize(1);
        }
    }

    @Test
    void shouldFailTheBatchAndRefuseFurtherWritesWhenTheDiskIsFull() {
        AtomicBoolean full = new AtomicBoolean();
        StoreConfig config = StoreConfig.ofDefaults(dir);
        try (JournalMessageStore store = JournalMessageStore.open(config,
                (path, options) -> new FailingChannel(FileChannel.open(path, options), full))) {
            addAll(store, "/queue/a", 1, 5);
            full.set(true);
            CompletableFuture<Void> failed = store.add("/queue/a", message(6, "/queue/a"));
            assertThatThrownBy(failed::join)
                    .isInstanceOf(CompletionException.class)
                    .cause().isInstanceOf(StoreException.class)
                    .hasMessageContaining("No space left on device")
                    .hasMessageContaining(dir.toString());
            full.set(false);
            assertThatThrownBy(() -> store.remove("/queue/a", 1).join())
                    .cause().isInstanceOf(StoreException.class)
                    .hasMessageContaining("accepts no more writes")
                    .hasMessageContaining("reopen");
            assertThatThrownBy(() -> store.saveDurableSubscription(
                    new DurableSubscriptionInfo("durable:c:s", "c", "s", "/topic/t", null)))
                    .isInstanceOf(StoreException.class)
                    .hasMessageContaining("accepts no more writes");
        }
        try (JournalMessageStore store = JournalMessageStore.open(config)) {
            assertThat(recoverAll(store)).extracting(s -> s.message().sequence()).containsExactly(1L, 2L, 3L, 4L, 5L);
            store.add("/queue/a", message(7, "/queue/a")).join();
        }
    }

    @Test
    void shouldFailWritesAfterClose() {
        JournalMessageStore store = JournalMessageStore.open(StoreConfig.ofDefaults(dir));
        store.close();
        store.close();
        assertThatThrownBy(() -> store.add("/queue/a", message(1, "/queue/a")).join())
                .cause().isInstanceOf(StoreException.class).hasMessageContaining("closed");
    }

    // ------------------------------------------------------------------ configuration

    @Test
    void shouldValidateTheConfiguration() {
        StoreConfig.Builder b = StoreConfig.ofDefaults(dir).toBuilder();
        assertThat(b.build()).isEqualTo(StoreConfig.ofDefaults(dir));
        assertThat(StoreConfig.ofDefaults(dir).asyncFlushInterval()).isEqualTo(Duration.ofMillis(100));
        assertThat(StoreConfig.ofDefaults(dir).durability()).isEqualTo(Durability.SYNC);
        assertThatThrownBy(() -> StoreConfig.builder().build())
                .hasMessage("directory must be set, but was null");
        assertThatThrownBy(() -> b.segmentSize(100).build())
                .hasMessage("segmentSize must be between 65536 and 1073741824 bytes, but was 100");
        assertThatThrownBy(() -> StoreConfig.ofDefaults(dir).toBuilder().asyncFlushInterval(Duration.ZERO).build())
                .hasMessage("asyncFlushInterval must be positive, but was PT0S");
        assertThatThrownBy(() -> StoreConfig.ofDefaults(dir).toBuilder().maxBatch(0).build())
                .hasMessage("maxBatch must be between 1 and 65536, but was 0");
        assertThatThrownBy(() -> StoreConfig.ofDefaults(dir).toBuilder().compactionThreshold(1.5).build())
                .hasMessage("compactionThreshold must be > 0 and < 1, but was 1.5");
        assertThatThrownBy(() -> StoreConfig.ofDefaults(dir).toBuilder().durability(null).build())
                .hasMessage("durability must be SYNC or ASYNC, but was null");
    }
}
