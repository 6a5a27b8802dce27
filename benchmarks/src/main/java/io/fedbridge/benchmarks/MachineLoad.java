package io.fedbridge.benchmarks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * How busy the whole machine is, to tell how much CPU other processes took during a run: on a shared machine
 * that, not the target, may explain a slow run. Linux only ({@code /proc}); elsewhere every value is -1.
 */
final class MachineLoad {

    /** Linux reports /proc/stat in USER_HZ ticks, 100 per second on every mainstream architecture. */
    private static final long NANOS_PER_TICK = 10_000_000L;

    private MachineLoad() {
    }

    /** CPU time all processes have spent so far, all cores together (user, nice, system, irq, softirq, steal). */
    static long machineBusyNanos() {
        try {
            String first = Files.readAllLines(Path.of("/proc/stat")).get(0);
            String[] f = first.trim().split("\\s+");
            if (!f[0].equals("cpu") || f.length < 9) {
                return -1;
            }
            long ticks = 0;
            for (int i : new int[] {1, 2, 3, 6, 7, 8}) {
                ticks += Long.parseLong(f[i]);
            }
            return ticks * NANOS_PER_TICK;
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    /** The 1, 5 and 15 minute load averages, or "n/a". */
    static String loadAverage() {
        try {
            String[] parts = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
            return parts[0] + " " + parts[1] + " " + parts[2];
        } catch (IOException | RuntimeException e) {
            return "n/a";
        }
    }

    /** A snapshot to measure a run by. */
    record Mark(long wallNanos, long busyNanos, long ownNanos) {

        static Mark now(java.util.Collection<ChildJvm> own) {
            long sum = 0;
            for (ChildJvm c : own) {
                long n = c.cpuNanos();
                if (n < 0) {
                    sum = -1;
                    break;
                }
                sum += n;
            }
            long self = ProcessHandle.current().info().totalCpuDuration().map(java.time.Duration::toNanos).orElse(-1L);
            return new Mark(System.nanoTime(), machineBusyNanos(), sum < 0 || self < 0 ? -1 : sum + self);
        }

        /** Cores' worth of CPU that processes other than ours used since this mark; NaN if unknown. */
        double otherCoresSince(Mark start) {
            if (busyNanos < 0 || start.busyNanos < 0 || ownNanos < 0 || start.ownNanos < 0 || wallNanos <= start.wallNanos) {
                return Double.NaN;
            }
            long other = (busyNanos - start.busyNanos) - (ownNanos - start.ownNanos);
            return Math.max(0, other) / (double) (wallNanos - start.wallNanos);
        }
    }
}
