package io.fedbridge.broker.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.greaterThanOrEqualTo;

import io.fedbridge.core.MessageListener;
import io.fedbridge.core.ReceivedMessage;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/** Counts deliveries per body, to check that each message arrives exactly once. Thread-safe. */
final class Deliveries {
    private final Duration wait;
    private final Map<String, AtomicInteger> counts = new ConcurrentHashMap<>();
    private final Map<String, ReceivedMessage> lastByBody = new ConcurrentHashMap<>();

    Deliveries(Duration wait) {
        this.wait = wait;
    }

    MessageListener auto() {
        return this::record;
    }

    MessageListener acking() {
        return m -> {
            record(m);
            m.ack();
        };
    }

    private void record(ReceivedMessage m) {
        counts.computeIfAbsent(m.bodyAsString(), k -> new AtomicInteger()).incrementAndGet();
        lastByBody.put(m.bodyAsString(), m);
    }

    ReceivedMessage last(String body) {
        return lastByBody.get(body);
    }

    /** Waits for {@code n} deliveries of bodies {@code prefix0..}, then checks none is late, missing or doubled. */
    void awaitExactlyOnce(String prefix, int n) {
        String what = n == 1 ? prefix : prefix + "0.." + prefix + (n - 1);
        await(what + " delivered").atMost(wait).until(() -> deliveries(prefix), greaterThanOrEqualTo(n));
        await(what + " not delivered again").during(Duration.ofMillis(500)).atMost(wait).until(() -> deliveries(prefix), equalTo(n));
        for (int i = 0; i < n; i++) {
            String body = n == 1 ? prefix : prefix + i;
            AtomicInteger c = counts.get(body);
            assertThat(c == null ? 0 : c.get()).as("deliveries of %s", body).isEqualTo(1);
        }
    }

    /**
     * Waits until each of {@code prefix0..prefix(n-1)} arrived at least once (nothing lost) and returns how many
     * deliveries were repeats: for a broker that cannot drop what a bridge resends after a restart.
     */
    int awaitAtLeastOnce(String prefix, int n) {
        try {
            await(prefix + "0.." + prefix + (n - 1) + " delivered at least once").atMost(wait).until(() -> missing(prefix, n) == 0);
        } catch (org.awaitility.core.ConditionTimeoutException e) {
            throw new AssertionError(missing(prefix, n) + " of " + prefix + "0.." + prefix + (n - 1) + " not delivered after "
                    + wait + " (" + deliveries(prefix) + " deliveries; missing: " + missingRanges(prefix, n) + ")", e);
        }
        return deliveries(prefix) - n;
    }

    /** The missing ones as ranges of their numbers, e.g. {@code 0-249, 612}. */
    private String missingRanges(String prefix, int n) {
        StringBuilder sb = new StringBuilder();
        int from = -1;
        for (int i = 0; i <= n; i++) {
            boolean gone = i < n && !counts.containsKey(prefix + i);
            if (gone && from < 0) {
                from = i;
            } else if (!gone && from >= 0) {
                sb.append(sb.length() == 0 ? "" : ", ").append(from == i - 1 ? "" + from : from + "-" + (i - 1));
                from = -1;
            }
        }
        return sb.toString();
    }

    private int missing(String prefix, int n) {
        int missing = 0;
        for (int i = 0; i < n; i++) {
            missing += counts.containsKey(prefix + i) ? 0 : 1;
        }
        return missing;
    }

    /** Deliveries so far of bodies starting with {@code prefix}, repeats included. */
    int deliveries(String prefix) {
        int sum = 0;
        for (Map.Entry<String, AtomicInteger> e : counts.entrySet()) {
            if (e.getKey().startsWith(prefix)) {
                sum += e.getValue().get();
            }
        }
        return sum;
    }
}
