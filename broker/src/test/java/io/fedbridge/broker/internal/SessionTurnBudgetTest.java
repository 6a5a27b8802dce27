package io.fedbridge.broker.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.fedbridge.broker.BrokerConfig;
import io.fedbridge.broker.store.InMemoryMessageStore;
import io.fedbridge.core.StompCommand;
import io.fedbridge.core.StompFrame;
import io.fedbridge.core.StompHeaders;
import io.fedbridge.core.internal.TurnBudget;
import io.netty.channel.embedded.EmbeddedChannel;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A connection's burst of frames is taken in at most {@link TurnBudget#FRAMES_PER_TURN} per event-loop turn, the rest in
 * later turns, so the other connections on the loop (a bridge's forwards among them) are served between slices. Turns
 * are counted, not timed: each {@code runScheduledPendingTasks} of the embedded loop is one turn's end.
 */
class SessionTurnBudgetTest {

    private static final int BURST = 10_000;

    private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
    private final BrokerCore core = new BrokerCore(BrokerConfig.ofDefaults("turns"), "turns-id", new InMemoryMessageStore(),
            Clock.systemUTC(), null, List.of(), scheduler);

    @AfterEach
    void stop() {
        scheduler.shutdownNow();
        core.close();
    }

    /** Subscriptions taken in so far: each of the burst's is on a queue of its own. */
    private long consumers() {
        return core.queues.keySet().stream().filter(q -> q.startsWith("/queue/burst.")).count();
    }

    private static StompFrame frame(StompCommand command, String... headers) {
        StompHeaders h = new StompHeaders();
        for (int i = 0; i < headers.length; i += 2) {
            h.add(headers[i], headers[i + 1]);
        }
        return new StompFrame(command, h);
    }

    @Test
    void shouldTakeInABurstOfTenThousandSubscriptionsAFixedNumberPerEventLoopTurn() {
        EmbeddedChannel ch = new EmbeddedChannel(new ServerSession(core));
        ch.pipeline().fireChannelRead(frame(StompCommand.CONNECT, StompHeaders.ACCEPT_VERSION, "1.2", StompHeaders.HEART_BEAT, "0,0"));
        ch.pipeline().fireChannelReadComplete();
        ch.runPendingTasks();
        assertThat(ch.<StompFrame>readOutbound().command()).isEqualTo(StompCommand.CONNECTED);

        // One read that brings the whole burst, and a SEND behind it
        for (int i = 0; i < BURST; i++) {
            ch.pipeline().fireChannelRead(frame(StompCommand.SUBSCRIBE, StompHeaders.ID, "s" + i,
                    StompHeaders.DESTINATION, "/queue/burst." + i));
        }
        ch.pipeline().fireChannelRead(frame(StompCommand.SEND, StompHeaders.DESTINATION, "/queue/after"));
        ch.pipeline().fireChannelReadComplete();

        // FRAMES_PER_TURN, or fewer where they took over TurnBudget.NANOS_PER_TURN (a cold broker, a loaded machine)
        assertThat(consumers()).as("taken in during the turn that read the burst").isBetween(1L, (long) TurnBudget.FRAMES_PER_TURN);
        assertThat(ch.config().isAutoRead()).as("reading stops while a burst waits").isFalse();

        List<Long> perTurn = new ArrayList<>();
        long before = consumers();
        while (consumers() < BURST && perTurn.size() < BURST) {
            assertThat(core.queues).as("the SEND waits its turn, behind the burst").doesNotContainKey("/queue/after");
            ch.runScheduledPendingTasks();
            long now = consumers();
            perTurn.add(now - before);
            before = now;
        }

        assertThat(perTurn).as("subscriptions taken in per later turn").allMatch(n -> n > 0 && n <= TurnBudget.FRAMES_PER_TURN)
                .hasSizeGreaterThanOrEqualTo((BURST - 1) / TurnBudget.FRAMES_PER_TURN); // the rest after the first turn, rounded up
        assertThat(core.queues.get("/queue/after").snapshot().pending()).isEqualTo(1);
        assertThat(core.queues.values().stream().mapToLong(q -> q.snapshot().consumers()).sum()).isEqualTo(BURST);
        assertThat(ch.config().isAutoRead()).as("reading again once nothing waits").isTrue();
        ch.finishAndReleaseAll();
    }
}
