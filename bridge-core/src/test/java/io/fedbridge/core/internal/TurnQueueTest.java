package io.fedbridge.core.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class TurnQueueTest {

    private static final int BURST = 10_000;
    private static final int PER_TURN = TurnBudget.FRAMES_PER_TURN;

    @Test
    void shouldTakeABurstInAtMostPerTurnItemsATurnInOrder() {
        ArrayDeque<Runnable> scheduled = new ArrayDeque<>();
        List<Integer> taken = new ArrayList<>();
        TurnQueue<Integer> q = new TurnQueue<>(next -> new TurnBudget(PER_TURN, Long.MAX_VALUE, () -> 0L, scheduled::add, next), taken::add);

        for (int i = 0; i < BURST; i++) {
            q.offer(i);
        }
        assertThat(taken).hasSize(PER_TURN);
        assertThat(q.waiting()).isEqualTo(BURST - PER_TURN);

        int turns = 0;
        while (!scheduled.isEmpty()) {
            int before = taken.size();
            scheduled.poll().run();
            assertThat(taken.size() - before).isBetween(0, PER_TURN);
            turns++;
        }

        assertThat(turns).as("turns after the first, and one that finds nothing waiting")
                .isEqualTo((BURST - 1) / PER_TURN + 1);
        assertThat(taken).hasSize(BURST).isSorted();
        assertThat(q.waiting()).isZero();
    }

    /**
     * On a real event loop: a task queued while a burst of 10,000 is being taken in (a forward written from another
     * loop, say) runs after the first slice, not after the whole burst.
     */
    @Test
    void shouldRunATaskQueuedDuringABurstBeforeTheBurstIsTakenIn() throws Exception {
        EventLoopGroup group = Transports.newEventLoopGroup(1, new DefaultThreadFactory("turn-queue-test", true));
        try {
            EventLoop loop = group.next();
            int[] taken = new int[1];
            CompletableFuture<Integer> takenWhenTheTaskRan = new CompletableFuture<>();
            CompletableFuture<Integer> takenInAll = new CompletableFuture<>();
            loop.execute(() -> {
                TurnQueue<Integer> q = TurnQueue.of(loop, PER_TURN, i -> {
                    if (++taken[0] == BURST) {
                        takenInAll.complete(taken[0]);
                    }
                });
                for (int i = 0; i < BURST; i++) {
                    q.offer(i);
                }
                loop.execute(() -> takenWhenTheTaskRan.complete(taken[0]));
            });

            // PER_TURN, or fewer if the slice took over TurnBudget.NANOS_PER_TURN (a loaded machine): never the whole burst
            assertThat(takenWhenTheTaskRan.get(10, TimeUnit.SECONDS)).isBetween(1, PER_TURN);
            assertThat(takenInAll.get(10, TimeUnit.SECONDS)).isEqualTo(BURST);
        } finally {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }
}
