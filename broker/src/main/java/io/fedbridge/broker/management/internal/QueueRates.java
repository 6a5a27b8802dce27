package io.fedbridge.broker.management.internal;

import io.fedbridge.broker.DestinationStats;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Enqueue and dequeue rates of each queue, in messages per second, from its counters sampled about once a second and
 * smoothed (each sample weighs half), so a burst shows at once and fades over a few seconds.
 */
public final class QueueRates {

    private static final double WEIGHT = 0.5;
    private static final double[] NONE = {0, 0};

    private record Sample(long enqueued, long dequeued, long nanos, double enqueueRate, double dequeueRate) {
    }

    private final Map<String, Sample> samples = new ConcurrentHashMap<>();

    /** {enqueueRate, dequeueRate} of a queue; zeros before two samples. */
    public double[] of(String queue) {
        Sample s = samples.get(queue);
        return s == null ? NONE : new double[] {round(s.enqueueRate()), round(s.dequeueRate())};
    }

    private static double round(double rate) {
        return Math.round(rate * 10) / 10.0;
    }

    public void update(Map<String, DestinationStats> queues, long nanos) {
        samples.keySet().retainAll(queues.keySet());
        for (DestinationStats q : queues.values()) {
            Sample last = samples.get(q.name());
            if (last == null && q.enqueued() == 0 && q.dequeued() == 0) {
                continue; // no traffic yet, a rate of zero: no sample for each of ten thousand idle queues
            }
            if (last == null) {
                samples.put(q.name(), new Sample(q.enqueued(), q.dequeued(), nanos, 0, 0));
                continue;
            }
            double seconds = (nanos - last.nanos()) / 1e9;
            if (seconds <= 0.05) {
                continue;
            }
            double enq = (q.enqueued() - last.enqueued()) / seconds;
            double deq = (q.dequeued() - last.dequeued()) / seconds;
            samples.put(q.name(), new Sample(q.enqueued(), q.dequeued(), nanos,
                    WEIGHT * enq + (1 - WEIGHT) * last.enqueueRate(), WEIGHT * deq + (1 - WEIGHT) * last.dequeueRate()));
        }
    }
}
