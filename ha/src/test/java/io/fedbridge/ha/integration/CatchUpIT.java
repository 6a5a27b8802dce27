package io.fedbridge.ha.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fedbridge.core.Message;
import io.fedbridge.core.StompConnection;
import io.fedbridge.core.SubscriptionRequest;
import io.fedbridge.ha.HaMember;
import io.fedbridge.ha.HaState;
import java.nio.file.Path;
import java.time.Duration;
import java.util.BitSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A backup joins a primary that holds a large backlog while a producer keeps sending: it reaches READY without
 * stalling the producer, and its copy is complete (promoted, it delivers every receipted message).
 */
class CatchUpIT {

    private static final int BACKLOG = Integer.getInteger("fedbridge.ha.backlog", 50_000);
    private static final byte[] BODY = new byte[512];

    @TempDir
    Path dir;

    @Test
    void aBackupCatchesUpWithALargeBacklogWhileProducersKeepSending() throws Exception {
        HaGroupConfigs group = new HaGroupConfigs("cu", 2, dir, null, b -> { });
        HaMember a = HaMember.start(group.configs.get(0));
        try {
            a.promote(true);
            assertThat(a.awaitPrimary(Duration.ofSeconds(30))).isTrue();
            AtomicLong seq = new AtomicLong();
            try (StompConnection producer = StompConnection.connect(group.uris.get(0))) {
                Semaphore window = new Semaphore(200);
                for (int i = 0; i < BACKLOG; i++) {
                    window.acquire();
                    producer.send(Message.builder("/queue/backlog").persistent(true).header("seq", Long.toString(seq.incrementAndGet()))
                            .body(BODY).build()).whenComplete((r, e) -> window.release());
                }
                assertThat(window.tryAcquire(200, 60, TimeUnit.SECONDS)).as("backlog receipted").isTrue();
                window.release(200);

                // The backup joins; the producer keeps going, each send receipted, until the backup is READY.
                AtomicBoolean stop = new AtomicBoolean();
                AtomicLong duringCatchUp = new AtomicLong();
                AtomicLong longestWaitMillis = new AtomicLong();
                CompletableFuture<Void> live = CompletableFuture.runAsync(() -> {
                    while (!stop.get()) {
                        long t0 = System.nanoTime();
                        try {
                            producer.send(Message.builder("/queue/backlog").persistent(true)
                                    .header("seq", Long.toString(seq.incrementAndGet())).body(BODY).build()).get(30, TimeUnit.SECONDS);
                        } catch (Exception e) {
                            throw new AssertionError(e);
                        }
                        longestWaitMillis.accumulateAndGet((System.nanoTime() - t0) / 1_000_000, Math::max);
                        duringCatchUp.incrementAndGet();
                    }
                });
                long joinedAt = System.nanoTime();
                try (HaMember b = HaMember.start(group.configs.get(1))) {
                    await("backup READY").atMost(Duration.ofSeconds(120)).until(() -> b.state() == HaState.READY);
                    long catchUpMillis = (System.nanoTime() - joinedAt) / 1_000_000;
                    stop.set(true);
                    live.get(30, TimeUnit.SECONDS);
                    System.out.println("HA-CATCHUP backlog " + BACKLOG + " messages of " + BODY.length + " B: READY after "
                            + catchUpMillis + " ms; " + duringCatchUp.get() + " receipted sends meanwhile, the slowest in "
                            + longestWaitMillis.get() + " ms");
                    assertThat(duringCatchUp.get()).as("the producer kept going during the catch-up").isGreaterThan(0);
                    // Receipts now wait for the READY backup too: one more, then the primary goes.
                    producer.send(Message.builder("/queue/backlog").persistent(true).header("seq", Long.toString(seq.incrementAndGet()))
                            .body(BODY).build()).get(30, TimeUnit.SECONDS);
                    producer.close();
                    a.close();
                    await().atMost(Duration.ofSeconds(10)).until(() -> b.state() == HaState.READY && !b.broker().isRunning()
                            || b.state() == HaState.READY);
                    b.promote(false);
                    assertThat(b.awaitPrimary(Duration.ofSeconds(60))).isTrue();
                    BitSet got = new BitSet();
                    try (StompConnection consumer = StompConnection.connect(group.uris.get(1))) {
                        var sub = consumer.subscribe(SubscriptionRequest.builder("/queue/backlog").prefetch(1000).build());
                        for (var m = sub.receive(Duration.ofSeconds(20)); m != null && got.cardinality() < seq.get();
                             m = sub.receive(Duration.ofSeconds(5))) {
                            got.set((int) Long.parseLong(m.header("seq")));
                        }
                    }
                    assertThat(got.cardinality()).as("messages on the promoted backup").isEqualTo((int) seq.get());
                }
            }
        } finally {
            a.close();
        }
    }
}
