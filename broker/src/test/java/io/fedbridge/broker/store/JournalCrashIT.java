package io.fedbridge.broker.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fedbridge.broker.StoredMessage;
import io.fedbridge.broker.store.TestMessages.Stored;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Kills (SIGKILL) a child JVM that is adding messages with SYNC durability, three times on the same directory,
 * then checks that every add the child saw acknowledged is recovered exactly once, in order per key, and that no
 * acknowledged removal comes back.
 */
class JournalCrashIT {

    private static final int ROUNDS = 3;
    private static final int THREADS = 8;

    @TempDir
    Path tmp;

    /** What one child acknowledged. */
    private static final class Acks {
        final Map<Long, String> added = new ConcurrentHashMap<>();
        final Set<Long> removed = ConcurrentHashMap.newKeySet();
        final AtomicInteger count = new AtomicInteger();
        volatile long readyAt = -1;
    }

    @Test
    void shouldRecoverEveryAcknowledgedMessageAfterRepeatedKill9() throws Exception {
        Path dir = tmp.resolve("store");
        Map<Long, String> added = new HashMap<>();
        Set<Long> removed = new HashSet<>();
        for (int round = 1; round <= ROUNDS; round++) {
            int target = ThreadLocalRandom.current().nextInt(500, 6000);
            Acks acks = runChildUntil(dir, target, round == 1, tmp.resolve("child-" + round + ".log"));
            added.putAll(acks.added);
            removed.addAll(acks.removed);
        }
        assertThat(added).hasSizeGreaterThan(ROUNDS * 250);

        try (JournalMessageStore store = JournalMessageStore.open(JournalCrashChild.config(dir))) {
            List<Stored> recovered = TestMessages.recoverAll(store);
            Map<Long, Stored> bySequence = new HashMap<>();
            for (Stored s : recovered) {
                assertThat(bySequence.put(s.message().sequence(), s)).as("duplicate %s", s.message().sequence()).isNull();
                assertThat(s.key()).isEqualTo(JournalCrashChild.key(s.message().sequence()));
                StoredMessage expected = TestMessages.randomSized(s.message().sequence(), s.key());
                assertThat(s.message().body()).as("body of %s", s.message().sequence()).isEqualTo(expected.body());
                assertThat(s.message().headers()).isEqualTo(expected.headers());
            }
            // the child removes most messages as soon as their add is acknowledged: a removal under way at the
            // kill (at most one per thread and round) may or may not have happened
            Set<Long> inDoubt = new HashSet<>();
            for (long s : added.keySet()) {
                if (JournalCrashChild.removes(s) && !removed.contains(s)) {
                    inDoubt.add(s);
                }
            }
            assertThat(inDoubt.size()).isLessThanOrEqualTo(THREADS * ROUNDS);
            for (var a : added.entrySet()) {
                if (!removed.contains(a.getKey()) && !inDoubt.contains(a.getKey())) {
                    assertThat(bySequence).as("acknowledged message %s", a.getKey()).containsKey(a.getKey());
                    assertThat(bySequence.get(a.getKey()).key()).isEqualTo(a.getValue());
                }
            }
            assertThat(bySequence.keySet()).as("acknowledged removals").doesNotContainAnyElementsOf(removed);
            JournalMessageStoreTest.assertPerKeyOrder(recovered);
            long maxAcked = added.keySet().stream().mapToLong(Long::longValue).max().orElseThrow();
            assertThat(store.lastSequence()).isGreaterThanOrEqualTo(maxAcked);
        }
    }

    private Acks runChildUntil(Path dir, int target, boolean checkLock, Path stderr) throws Exception {
        String java = ProcessHandle.current().info().command().orElse(
                Path.of(System.getProperty("java.home"), "bin", "java").toString());
        ProcessBuilder pb = new ProcessBuilder(java, "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                "-cp", System.getProperty("java.class.path"),
                JournalCrashChild.class.getName(), dir.toString(), Integer.toString(THREADS))
                .redirectError(stderr.toFile());
        Process child = pb.start();
        Acks acks = new Acks();
        Thread reader = new Thread(() -> read(child, acks), "child-stdout");
        reader.setDaemon(true);
        reader.start();
        try {
            await("child ready (stderr in " + stderr + ")").atMost(Duration.ofSeconds(60))
                    .until(() -> acks.readyAt >= 0 || !child.isAlive());
            assertThat(child.isAlive()).as("child died: %s", readQuietly(stderr)).isTrue();
            if (checkLock) {
                assertThatThrownBy(() -> JournalMessageStore.open(JournalCrashChild.config(dir)))
                        .isInstanceOf(StoreException.class)
                        .hasMessageContaining("in use by another broker");
            }
            await("child acknowledges " + target + " writes").atMost(Duration.ofSeconds(120))
                    .until(() -> acks.count.get() >= target || !child.isAlive());
            assertThat(child.isAlive()).as("child died: %s", readQuietly(stderr)).isTrue();
        } finally {
            child.destroyForcibly();
            assertThat(child.waitFor(30, TimeUnit.SECONDS)).as("child reaped").isTrue();
            reader.join(TimeUnit.SECONDS.toMillis(30));
        }
        return acks;
    }

    private static void read(Process child, Acks acks) {
        try (BufferedReader r = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = r.readLine()) != null) {
                String[] f = line.split(" ");
                if (f.length < 2 || !f[f.length - 1].equals("$")) {
                    continue; // the last line, cut short by the kill
                }
                try {
                    if (f.length == 3 && f[0].equals("READY")) {
                        acks.readyAt = Long.parseLong(f[1]);
                    } else if (f.length == 4 && f[0].equals("A")) {
                        acks.added.put(Long.parseLong(f[2]), f[1]);
                        acks.count.incrementAndGet();
                    } else if (f.length == 4 && f[0].equals("R")) {
                        acks.removed.add(Long.parseLong(f[2]));
                        acks.count.incrementAndGet();
                    }
                } catch (NumberFormatException e) {
                    throw new IllegalStateException("unexpected line from the child: " + line, e);
                }
            }
        } catch (IOException e) {
            // the pipe closes when the child dies
        }
    }

    private static String readQuietly(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            return "(no stderr: " + e.getMessage() + ")";
        }
    }
}
