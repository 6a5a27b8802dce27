package io.fedbridge.broker.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.fedbridge.broker.BrokerConfig;
import io.fedbridge.broker.store.InMemoryMessageStore;
import io.fedbridge.core.StompHeaders;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A send or a subscription that looked a queue up just before auto-deletion removed it: the queue comes back, so the
 * message is not lost and the consumer not stranded on a queue nobody routes to.
 */
class QueueRemovalRaceTest {

    private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
    private final BrokerCore core = new BrokerCore(BrokerConfig.ofDefaults("race"), "race-id", new InMemoryMessageStore(),
            Clock.systemUTC(), null, List.of(), scheduler);
    private final ClusterCore cluster = new ClusterCore(core);

    @AfterEach
    void stop() {
        scheduler.shutdownNow();
        core.close();
    }

    @Test
    void shouldBringARemovedQueueBackForAMessageThatFoundItBeforeTheRemoval() {
        QueueDestination found = core.queue("/queue/raced");
        assertThat(cluster.removeIfIdle("/queue/raced")).isTrue();
        assertThat(core.queues).doesNotContainKey("/queue/raced");

        found.enqueue(new QueueEntry(core.newMessage("/queue/raced", new StompHeaders(), "m".getBytes(StandardCharsets.UTF_8)),
                found.storeKey, 0));

        assertThat(core.queues.get("/queue/raced")).isSameAs(found);
        assertThat(found.snapshot().pending()).isEqualTo(1);
        assertThat(cluster.idleAutoCreatedQueues()).doesNotContain("/queue/raced");
    }

    @Test
    void shouldLeaveTheNewQueueAloneWhenOneTookTheNameAndStillDropTemporaryQueues() {
        QueueDestination found = core.queue("/queue/raced");
        cluster.removeIfIdle("/queue/raced");
        QueueDestination fresh = core.queue("/queue/raced");
        found.enqueue(new QueueEntry(core.newMessage("/queue/raced", new StompHeaders(), new byte[0]), found.storeKey, 0));
        assertThat(core.queues.get("/queue/raced")).isSameAs(fresh);

        QueueDestination temp = core.queue("/temp-queue/@x@1");
        core.deleteTemp("/temp-queue/@x@1");
        temp.enqueue(new QueueEntry(core.newMessage("/temp-queue/@x@1", new StompHeaders(), new byte[0]), temp.storeKey, 0));
        assertThat(core.queues).doesNotContainKey("/temp-queue/@x@1");
    }
}
