package io.fedbridge.broker.integration.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fedbridge.core.ClientConfig;
import io.fedbridge.core.StompConnection;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import io.fedbridge.broker.testing.ChildBroker;

/**
 * A chain of three brokers in child JVMs, A → B → C (networkTTL=2), a producer on A and a consumer on C. The middle
 * broker B is killed with SIGKILL while persistent messages stream through it and restarted on the same data
 * directory and port; A's bridge reconnects to it, B's own bridge to C comes back, and what B held when it died is
 * forwarded after its restart. The federation's promise (DESIGN §9): every receipted message reaches the consuming
 * application exactly once.
 */
class ChainKillIT {

    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final String QUEUE = "/queue/chain.kill";
    private static final int TOTAL = 3_000;
    private static final int WARM_UP = 20;
    /** Sends awaiting their receipt at once. */
    private static final int WINDOW = 100;
    private static final String LINK = "?networkTTL=2&initialReconnectDelay=100&maxReconnectDelay=1000&heartBeat=1000";

    @TempDir
    Path tmp;

    /** Closed last-in first-out after each test: clients before the brokers they talk to. */
    private final Deque<AutoCloseable> resources = new ArrayDeque<>();

    @AfterEach
    void closeResources() throws Exception {
        Exception first = null;
        while (!resources.isEmpty()) {
            try {
                resources.pop().close();
            } catch (Exception e) {
                first = first == null ? e : first;
            }
        }
        if (first != null) {
            throw first;
        }
    }

    private <T extends AutoCloseable> T track(T resource) {
        resources.push(resource);
        return resource;
    }

    private StompConnection connect(ChildBroker broker) {
        return track(StompConnection.connect(ClientConfig.builder(broker.uri()).heartBeats(Duration.ZERO).build()));
    }

    @Test
    void shouldDeliverEveryReceiptedMessageExactlyOnceWhenTheMiddleBrokerIsKilledAndRestarted() throws Exception {
        long started = System.nanoTime();
        Path logs = tmp.resolve("logs");
        ChildBroker c = track(ChildBroker.start("C", tmp.resolve("C"), 0, null, logs));
        ChildBroker b = track(ChildBroker.start("B", tmp.resolve("B"), 0, "static:(" + c.uri() + ")" + LINK, logs));
        ChildBroker a = track(ChildBroker.start("A", tmp.resolve("A"), 0, "static:(" + b.uri() + ")" + LINK, logs));
        log("3 brokers started in %d ms", millisSince(started));

        SeqLedger ledger = new SeqLedger(QUEUE, 256);
        ledger.consume(connect(c), WAIT);
        StompConnection producer = connect(a);
        Semaphore window = new Semaphore(WINDOW);

        // Demand has crossed both bridges once messages from A reach C.
        ledger.send(producer, 1, WARM_UP, window, WAIT);
        await("the chain A -> B -> C carries messages").atMost(WAIT).until(() -> ledger.distinctDelivered() == WARM_UP);

        // Killed while messages stream from A through B to C: producing goes on meanwhile, and while B restarts.
        CompletableFuture<Void> producing = CompletableFuture.runAsync(() -> {
            try {
                ledger.send(producer, WARM_UP + 1, 2 * TOTAL / 3, window, WAIT);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        });
        await("C has a sixth of the messages").atMost(WAIT).pollInterval(Duration.ofMillis(5))
                .until(() -> ledger.distinctDelivered() >= TOTAL / 6);
        int sentAtKill = ledger.sentCount();
        int receiptedAtKill = ledger.receiptedCount();
        int deliveredAtKill = ledger.distinctDelivered();
        long killedAt = System.nanoTime();
        b.killAndReap();
        log("B killed: %d sent, %d receipted by A, %d delivered at C", sentAtKill, receiptedAtKill, deliveredAtKill);

        ChildBroker b2 = track(b.restart());
        log("B restarted on %s after %d ms; %d sent, %d delivered at C so far", b2.uri(), millisSince(killedAt),
                ledger.sentCount(), ledger.distinctDelivered());
        assertThat(b2.port()).as("B restarted on its port").isEqualTo(b.port());
        long readyAt = System.nanoTime();
        await("A's bridge to B is UP again").atMost(WAIT).pollInterval(Duration.ofMillis(20))
                .until(() -> a.stats().contains("UP/"));
        long aUpMillis = millisSince(readyAt);
        await("B's bridge to C is UP again").atMost(WAIT).pollInterval(Duration.ofMillis(20))
                .until(() -> b2.stats().contains("UP/"));
        log("after B's restart: A's bridge UP within %d ms, B's bridge UP within %d ms", aUpMillis, millisSince(readyAt));

        producing.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        ledger.send(producer, 2 * TOTAL / 3 + 1, TOTAL, window, WAIT);
        assertThat(window.tryAcquire(WINDOW, WAIT.toMillis(), TimeUnit.MILLISECONDS)).as("every send receipted by A").isTrue();
        await("every receipted message reaches C").atMost(WAIT).until(ledger::allReceiptedDelivered);
        long drainedAt = System.nanoTime();
        await("no late duplicate arrives").during(Duration.ofMillis(500)).atMost(WAIT)
                .until(() -> ledger.deliveries() == ledger.distinctDelivered());
        log("all %d delivered at C %d ms after the kill; %s; test took %d ms", ledger.receiptedCount(),
                (drainedAt - killedAt) / 1_000_000, ledger, millisSince(started));

        log("A: %s", a.stats());
        log("B: %s", b2.stats());
        log("C: %s", c.stats());
        assertThat(ledger.receiptedCount()).as("receipted sends").isEqualTo(TOTAL);
        ledger.assertEveryReceiptedSendDeliveredExactlyOnce();
        assertThat(a.isAlive()).isTrue();
        assertThat(c.isAlive()).isTrue();
    }

    private static long millisSince(long nanos) {
        return (System.nanoTime() - nanos) / 1_000_000;
    }

    private static void log(String format, Object... args) {
        System.out.printf("[ChainKillIT] " + format + "%n", args);
    }
}
