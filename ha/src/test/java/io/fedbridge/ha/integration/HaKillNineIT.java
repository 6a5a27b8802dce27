package io.fedbridge.ha.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fedbridge.core.AckMode;
import io.fedbridge.core.Message;
import io.fedbridge.core.SubscriptionRequest;
import io.fedbridge.failover.FailoverClient;
import io.fedbridge.failover.FailoverConfig;
import io.fedbridge.failover.FailoverEvent;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A group of three members in child JVMs, ZooKeeper deciding who is primary, a failover client producing persistent
 * receipted messages and another consuming them, and the primary killed with SIGKILL five times in a row (restarted
 * as a backup each time). Every receipted message is delivered exactly once, in the order it was sent; the time from
 * each kill to the first message the new primary delivers goes to stdout and {@code target/ha-kill9.txt}.
 */
class HaKillNineIT {

    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final String QUEUE = "/queue/ha-kill9";
    private static final int KILLS = 5;
    private static final int PER_ROUND = 300;
    private static final int WINDOW = 100;
    /** ZooKeeper's session: a killed primary's lease ends this long after its death. */
    private static final int SESSION_MS = 3000;
    private static final byte[] BODY = new byte[256];
    /**
     * The producer's pace: a fixed load, about what an unpaced producer reaches here when the group keeps up (9,000 to
     * 16,000 messages in a 28 s run). Unpaced, its rate depends on the machine: once, while both backups were still
     * catching up after a kill (the primary receipts without a backup that is not READY), it ran at three times that,
     * the consumer fell 80,000 messages behind, and the test timed out delivering them rather than finding a loss.
     */
    private static final long NANOS_PER_SEND = TimeUnit.SECONDS.toNanos(1) / 600;

    /** The members' logs, kept for a post-mortem (a failure message shows their tails). */
    private static final Path LOGS = Path.of("target", "ha-logs", "kill9");

    @TempDir
    Path tmp;

    private final Deque<AutoCloseable> resources = new ArrayDeque<>();
    private final ExecutorService producing = Executors.newSingleThreadExecutor();

    @AfterEach
    void closeResources() throws Exception {
        producing.shutdownNow();
        while (!resources.isEmpty()) {
            resources.pop().close();
        }
    }

    private <T extends AutoCloseable> T track(T resource) {
        resources.push(resource);
        return resource;
    }

    @Test
    void everyReceiptedMessageIsDeliveredOnceAndInOrderThroughFivePrimaryKills() throws Exception {
        if (Files.exists(LOGS)) {
            try (var old = Files.list(LOGS)) {
                for (Path f : old.toList()) {
                    Files.delete(f);
                }
            }
        }
        TestingServer zk = track(new TestingServer(new InstanceSpec(tmp.resolve("zk").toFile(), -1, -1, -1, true, -1, 250, -1), true));
        HaGroupConfigs group = new HaGroupConfigs("k9", 3, tmp, zk.getConnectString(), b -> { });
        List<ChildMember> members = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            members.add(track(ChildMember.start(args(group, i, zk), LOGS.resolve("m" + (i + 1) + ".log"))));
        }
        ChildMember primary = awaitPrimaryAndReadyBackup(members);

        String failover = group.failoverUri() + "?randomize=false&initialReconnectDelay=10&maxReconnectDelay=200&timeout=60000"
                + "&heartBeatSend=1000&heartBeatReceive=1000";
        Set<Long> receipted = ConcurrentHashMap.newKeySet();
        List<Long> deliveries = new CopyOnWriteArrayList<>();
        ConcurrentLinkedQueue<long[]> deliveryTimes = new ConcurrentLinkedQueue<>();
        List<Throwable> failures = new CopyOnWriteArrayList<>();
        ConcurrentLinkedQueue<Long> consumerReconnects = new ConcurrentLinkedQueue<>();
        FailoverClient consumer = track(FailoverClient.connect(FailoverConfig.fromUri(failover), event -> {
            if (event instanceof FailoverEvent.Connected connected && connected.reconnect()) {
                consumerReconnects.add(System.nanoTime());
            }
        }));
        consumer.subscribe(SubscriptionRequest.builder(QUEUE).ackMode(AckMode.CLIENT_INDIVIDUAL).build(), m -> {
            long seq = Long.parseLong(m.header("seq"));
            deliveries.add(seq);
            deliveryTimes.add(new long[] {System.nanoTime(), seq});
            m.ack();
        });
        FailoverClient producer = track(FailoverClient.connect(failover));
        Semaphore window = new Semaphore(WINDOW);
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong lastSeq = new AtomicLong();
        Future<?> production = producing.submit(() -> {
            try {
                long next = System.nanoTime();
                while (!stop.get()) {
                    next += NANOS_PER_SEND;
                    java.util.concurrent.locks.LockSupport.parkNanos(next - System.nanoTime()); // pacing, not waiting for an outcome
                    if (!window.tryAcquire(WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
                        failures.add(new AssertionError("no receipt within " + WAIT));
                        return;
                    }
                    long seq = lastSeq.incrementAndGet();
                    producer.sendAsync(Message.builder(QUEUE).persistent(true).header("seq", Long.toString(seq)).body(BODY).build())
                            .whenComplete((r, e) -> {
                                if (e == null) {
                                    receipted.add(seq);
                                } else {
                                    failures.add(e);
                                }
                                window.release();
                            });
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });

        List<String> report = new ArrayList<>();
        List<Long> firstMessageMillis = new ArrayList<>();
        for (int kill = 1; kill <= KILLS; kill++) {
            int target = kill * PER_ROUND;
            await("receipts flowing before kill " + kill).atMost(WAIT).until(() -> receipted.size() >= target);
            ChildMember victim = primary;
            long killedAt = System.nanoTime();
            victim.killAndReap();
            members.set(members.indexOf(victim), track(victim.restart()));
            Set<Long> mustArrive = Set.copyOf(receipted);
            try {
                await("everything receipted before kill " + kill + " delivered").atMost(WAIT)
                        .until(() -> deliveries.containsAll(mustArrive));
            } catch (org.awaitility.core.ConditionTimeoutException e) {
                TreeSet<Long> missing = new TreeSet<>(mustArrive);
                missing.removeAll(deliveries);
                throw new AssertionError("kill " + kill + ": " + missing.size() + " receipted messages missing, from "
                        + missing.first() + "; members " + members + logs(members), e);
            }
            // The first message the new primary delivers: the first delivery after the consumer reconnected.
            await("the consumer reconnected and got a message from the new primary").atMost(WAIT).until(() ->
                    consumerReconnects.stream().anyMatch(r -> r > killedAt && deliveryTimes.stream().anyMatch(d -> d[0] > r)));
            long reconnected = consumerReconnects.stream().filter(r -> r > killedAt).min(Long::compare).orElseThrow();
            long first = deliveryTimes.stream().filter(d -> d[0] > reconnected).mapToLong(d -> d[0] - killedAt).min().orElseThrow();
            firstMessageMillis.add(TimeUnit.NANOSECONDS.toMillis(first));
            primary = awaitPrimaryAndReadyBackup(members);
            report.add("kill " + kill + " of " + victim.name() + ": first message from the new primary " + primary.name()
                    + " after " + firstMessageMillis.get(kill - 1) + " ms");
            System.out.println("HA-KILL-9 " + report.get(report.size() - 1));
        }
        stop.set(true);
        production.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        assertThat(window.tryAcquire(WINDOW, WAIT.toMillis(), TimeUnit.MILLISECONDS)).as("every send completed").isTrue();
        await("every receipted message delivered").atMost(WAIT).until(() -> deliveries.containsAll(receipted));
        List<Long> sorted = new ArrayList<>(firstMessageMillis);
        sorted.sort(null);
        report.add("sent " + lastSeq.get() + ", receipted " + receipted.size() + ", delivered " + deliveries.size()
                + "; kill -9 of the primary to first message from the new primary: p50 " + sorted.get(sorted.size() / 2)
                + " ms, max " + sorted.get(sorted.size() - 1) + " ms (ZooKeeper session " + SESSION_MS + " ms)");
        report.forEach(line -> System.out.println("HA-KILL-9 " + line));
        Files.createDirectories(Path.of("target"));
        Files.write(Path.of("target", "ha-kill9.txt"), report, StandardCharsets.UTF_8);

        assertThat(failures).as("sends that failed").isEmpty();
        assertThat(deliveries).as("deliveries, duplicates included").doesNotHaveDuplicates();
        assertThat(deliveries).as("delivered in the order sent").isSorted();
        assertThat(receipted).hasSize((int) lastSeq.get());
    }

    private static List<String> args(HaGroupConfigs group, int i, TestingServer zk) {
        return List.of("k9-" + (i + 1), group.uris.get(i), group.configs.get(i).dataDirectory().toString(), "k9",
                String.join(",", group.uris), zk.getConnectString(), Integer.toString(SESSION_MS));
    }

    private static ChildMember awaitPrimaryAndReadyBackup(List<ChildMember> members) {
        try {
            await("a primary and a READY backup").atMost(WAIT).until(() ->
                    members.stream().filter(ChildMember::isPrimary).count() == 1
                            && members.stream().anyMatch(ChildMember::isReadyBackup));
        } catch (org.awaitility.core.ConditionTimeoutException e) {
            throw new AssertionError("members: " + members + logs(members), e);
        }
        return members.stream().filter(ChildMember::isPrimary).findFirst().orElseThrow();
    }

    private static String logs(List<ChildMember> members) {
        StringBuilder s = new StringBuilder();
        for (ChildMember m : members) {
            s.append("\n--- ").append(m).append(":\n").append(m.logTail(5000));
        }
        return s.toString();
    }
}
