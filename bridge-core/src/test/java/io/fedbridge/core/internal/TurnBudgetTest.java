package io.fedbridge.core.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class TurnBudgetTest {

    /** Turns run by hand: what the budget scheduled runs when the test says a turn ends. */
    private final ArrayDeque<Runnable> scheduled = new ArrayDeque<>();

    private void endTurn() {
        List<Runnable> due = new ArrayList<>(scheduled);
        scheduled.clear();
        due.forEach(Runnable::run);
    }

    @Test
    void shouldTakeAtMostPerTurnAndGoOnInTheNextTurn() {
        ArrayDeque<Integer> work = new ArrayDeque<>();
        List<Integer> done = new ArrayList<>();
        List<Integer> perTurn = new ArrayList<>();
        TurnBudget[] budget = new TurnBudget[1];
        budget[0] = new TurnBudget(3, Long.MAX_VALUE, () -> 0L, scheduled::add, () -> {
            int before = done.size();
            while (!work.isEmpty() && budget[0].tryTake()) {
                done.add(work.poll());
            }
            perTurn.add(done.size() - before);
        });
        for (int i = 0; i < 10; i++) {
            if (work.isEmpty() && budget[0].tryTake()) {
                done.add(i);
            } else {
                work.add(i);
            }
        }
        assertThat(done).containsExactly(0, 1, 2);
        assertThat(budget[0].isExhausted()).isTrue();

        while (!scheduled.isEmpty()) {
            endTurn();
        }

        assertThat(perTurn).containsExactly(3, 3, 1);
        assertThat(done).containsExactly(0, 1, 2, 3, 4, 5, 6, 7, 8, 9);
        assertThat(budget[0].isExhausted()).isFalse();
    }

    @Test
    void shouldScheduleOneTurnEndPerTurnAndCallNextTurnOnlyAfterRunningOut() {
        int[] nextTurns = new int[1];
        TurnBudget budget = new TurnBudget(2, Long.MAX_VALUE, () -> 0L, scheduled::add, () -> nextTurns[0]++);

        assertThat(budget.tryTake()).isTrue();
        assertThat(budget.tryTake()).isTrue();
        assertThat(scheduled).hasSize(1);
        endTurn();
        assertThat(nextTurns[0]).as("the budget did not run out: nothing waits").isZero();

        assertThat(budget.tryTake()).as("a new turn, a new budget").isTrue();
        assertThat(budget.tryTake()).isTrue();
        assertThat(budget.tryTake()).isFalse();
        endTurn();
        assertThat(nextTurns[0]).isEqualTo(1);
        assertThat(scheduled).isEmpty();
    }

    @Test
    void shouldEndATurnThatTookTooLongWhateverTheCount() {
        long[] now = {0};
        TurnBudget budget = new TurnBudget(64, 1_000_000, () -> now[0], scheduled::add, () -> { });

        assertThat(budget.tryTake()).isTrue();
        now[0] += 400_000;
        assertThat(budget.tryTake()).isTrue();
        now[0] += 600_000;
        assertThat(budget.tryTake()).as("1 ms since the turn's first piece").isFalse();
        endTurn();
        assertThat(budget.tryTake()).as("the next turn starts its own clock").isTrue();
        assertThat(budget.tryTake()).isTrue();
    }

    @Test
    void shouldRefuseABudgetOfNothing() {
        assertThatThrownBy(() -> new TurnBudget(0, 1, () -> 0L, scheduled::add, () -> { }))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("perTurn must be at least 1, but was 0");
    }
}
