package io.fedbridge.core.internal;

import io.netty.util.concurrent.EventExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * At most so many pieces of work, and so much time, per event-loop turn for one source of work (a connection's frames, a bridge's demand):
 * the rest waits for the next turn, so one connection's burst (10,000 SUBSCRIBEs, 10,000 advisories) shares the loop
 * with every other connection on it instead of holding it for a second. The caller keeps what it could not do in a
 * queue of its own and drains it from {@code nextTurn}, taking from this budget again.
 *
 * <p>A turn ends with a task scheduled with no delay on the loop: Netty runs it after the I/O of the turn it was
 * scheduled in ({@code SingleThreadIoEventLoop} fetches due scheduled tasks only when it starts running tasks, after
 * its I/O), and after the tasks already queued, such as a forward written from another loop. So between two slices
 * of a burst the loop reads every other connection once and runs what was queued meanwhile.
 *
 * <p>Confined to the loop's thread. Tests pass a {@code scheduler} of their own to run turns one at a time.
 */
public final class TurnBudget {

    /** Frames of one connection handled per turn before the rest waits: about 1–2 ms of SUBSCRIBEs on a warm broker. */
    public static final int FRAMES_PER_TURN = 64;

    /**
     * Time one source of work may hold the loop per turn, whatever its count: a cold broker (its code not yet
     * compiled) or a starved CPU takes ten times longer per SUBSCRIBE, and a turn is this times the connections in a
     * burst.
     */
    public static final long NANOS_PER_TURN = TimeUnit.MILLISECONDS.toNanos(1);

    private final int perTurn;
    private final long nanosPerTurn;
    private final LongSupplier nanoTime;
    private final Consumer<Runnable> scheduler;
    private final Runnable nextTurn;
    private int used;
    private long turnStarted;
    private boolean armed;
    private boolean exhausted;

    /**
     * A budget of {@code perTurn} pieces and {@link #NANOS_PER_TURN} per turn of {@code loop}; {@code nextTurn} runs in
     * a turn after one that ran out.
     */
    public static TurnBudget of(EventExecutor loop, int perTurn, Runnable nextTurn) {
        return new TurnBudget(perTurn, NANOS_PER_TURN, System::nanoTime, r -> loop.schedule(r, 0, TimeUnit.NANOSECONDS),
                nextTurn);
    }

    /**
     * @param nanosPerTurn after this long since the turn's first piece, the turn's budget is spent whatever the count
     * @param nanoTime     the clock {@code nanosPerTurn} is measured with
     * @param scheduler    runs what it is given at the start of the next turn (after pending I/O and queued tasks)
     */
    public TurnBudget(int perTurn, long nanosPerTurn, LongSupplier nanoTime, Consumer<Runnable> scheduler, Runnable nextTurn) {
        if (perTurn < 1) {
            throw new IllegalArgumentException("perTurn must be at least 1, but was " + perTurn);
        }
        if (nanosPerTurn < 1) {
            throw new IllegalArgumentException("nanosPerTurn must be at least 1, but was " + nanosPerTurn);
        }
        this.perTurn = perTurn;
        this.nanosPerTurn = nanosPerTurn;
        this.nanoTime = nanoTime;
        this.scheduler = scheduler;
        this.nextTurn = nextTurn;
    }

    /**
     * Takes one piece of this turn's budget. False once the turn's is spent: the caller keeps the work for
     * {@code nextTurn}, which then runs in a later turn.
     */
    public boolean tryTake() {
        if (!armed) {
            armed = true;
            scheduler.accept(this::turn);
        }
        if (used == 0) {
            turnStarted = nanoTime.getAsLong();
        } else if (used >= perTurn || nanoTime.getAsLong() - turnStarted >= nanosPerTurn) {
            exhausted = true;
            return false;
        }
        used++;
        return true;
    }

    /** Whether this turn's budget ran out (work is waiting for {@code nextTurn}). */
    public boolean isExhausted() {
        return exhausted;
    }

    private void turn() {
        armed = false;
        used = 0;
        if (exhausted) {
            exhausted = false;
            nextTurn.run();
        }
    }
}
