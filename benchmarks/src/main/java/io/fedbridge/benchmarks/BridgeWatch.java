package io.fedbridge.benchmarks;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.function.IntSupplier;

/**
 * Inside a broker child JVM: polls how many of the broker's bridges are up, every millisecond, and remembers when
 * that number last changed (wall clock, microseconds since the epoch, so that the parent can compare it with
 * another JVM's start time on the same machine). Used by the {@code discovery} benchmark only.
 */
final class BridgeWatch {

    private final IntSupplier bridgesUp;
    private volatile int up;
    private volatile long changedMicros;

    private BridgeWatch(IntSupplier bridgesUp) {
        this.bridgesUp = bridgesUp;
        this.changedMicros = nowMicros();
    }

    static BridgeWatch start(IntSupplier bridgesUp) {
        BridgeWatch w = new BridgeWatch(bridgesUp);
        Thread t = new Thread(w::poll, "bench-bridge-watch");
        t.setDaemon(true);
        t.start();
        return w;
    }

    static long nowMicros() {
        return ChronoUnit.MICROS.between(Instant.EPOCH, Instant.now());
    }

    private void poll() {
        while (true) {
            int n;
            try {
                n = bridgesUp.getAsInt();
            } catch (RuntimeException e) {
                n = up; // the broker is starting or stopping
            }
            if (n != up) {
                changedMicros = nowMicros();
                up = n;
            }
            try {
                Thread.sleep(1);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    /** {@code watchedUp=N upChangedMicros=T}. */
    String describe() {
        return "watchedUp=" + up + " upChangedMicros=" + changedMicros;
    }
}
