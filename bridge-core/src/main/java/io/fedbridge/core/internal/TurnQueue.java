package io.fedbridge.core.internal;

import io.netty.util.concurrent.EventExecutor;
import java.util.ArrayDeque;
import java.util.function.Consumer;

/**
 * Items taken in at most a {@link TurnBudget}'s worth per event-loop turn, in the order offered; the rest of a burst
 * waits here for the next turns. For work that arrives in bursts and must not hold the loop: a bridge taking in the
 * advisories of 10,000 consumers that arrived at once.
 *
 * <p>Confined to the loop's thread.
 */
public final class TurnQueue<T> {

    private final ArrayDeque<T> waiting = new ArrayDeque<>();
    private final Consumer<T> taker;
    private final TurnBudget budget;

    /** {@code taker} takes each item in, on {@code loop}, at most {@code perTurn} per turn. */
    public static <T> TurnQueue<T> of(EventExecutor loop, int perTurn, Consumer<T> taker) {
        return new TurnQueue<>(b -> TurnBudget.of(loop, perTurn, b), taker);
    }

    /** A queue whose budget {@code budget} makes, given what to run at the next turn (tests pass their own turns). */
    public TurnQueue(java.util.function.Function<Runnable, TurnBudget> budget, Consumer<T> taker) {
        this.taker = taker;
        this.budget = budget.apply(this::nextTurn);
    }

    /** Takes {@code item} in now if this turn's budget lasts and nothing waits; else it waits its turn. */
    public void offer(T item) {
        if (waiting.isEmpty() && budget.tryTake()) {
            taker.accept(item);
        } else {
            waiting.addLast(item);
        }
    }

    /** Items waiting for a later turn. */
    public int waiting() {
        return waiting.size();
    }

    private void nextTurn() {
        while (!waiting.isEmpty() && budget.tryTake()) {
            taker.accept(waiting.pollFirst());
        }
    }
}
