package io.fedbridge.ha.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fedbridge.broker.integration.reliability.FaultProxy;
import io.fedbridge.core.AckMode;
import io.fedbridge.core.ClientConfig;
import io.fedbridge.core.Message;
import io.fedbridge.core.StompConnection;
import io.fedbridge.core.SubscriptionRequest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Split brain, prevented: the primary is cut from ZooKeeper and from its backups (TCP fault proxies) while a client
 * still reaches it directly and keeps sending. It must stop receipting before a backup is promoted, and every message
 * it did receipt must be on the new primary.
 */
class FencingIT {

    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final int SESSION_MS = 3000;
    private static final Path LOGS = Path.of("target", "ha-logs", "fencing");

    @TempDir
    Path tmp;

    private final Deque<AutoCloseable> resources = new ArrayDeque<>();

    @AfterEach
    void close() throws Exception {
        while (!resources.isEmpty()) {
            resources.pop().close();
        }
    }

    private <T extends AutoCloseable> T track(T r) {
        resources.push(r);
        return r;
    }

    @Test
    void aPrimaryCutFromZooKeeperAndItsPeersStopsReceiptingBeforeItsSuccessorServes() throws Exception {
        if (Files.exists(LOGS)) {
            try (var old = Files.list(LOGS)) {
                for (Path f : old.toList()) {
                    Files.delete(f);
                }
            }
        }
        TestingServer zk = track(new TestingServer(new InstanceSpec(tmp.resolve("zk").toFile(), -1, -1, -1, true, -1, 250, -1), true));
        List<String> direct = List.of("tcp://127.0.0.1:" + HaGroupConfigs.freePort(), "tcp://127.0.0.1:" + HaGroupConfigs.freePort(),
                "tcp://127.0.0.1:" + HaGroupConfigs.freePort());
        // The backups reach member 1 only through a proxy, and member 1 reaches ZooKeeper only through another.
        FaultProxy toPrimary = track(FaultProxy.start(direct.get(0)));
        FaultProxy toZooKeeper = track(FaultProxy.start("tcp://" + zk.getConnectString()));
        String members = String.join(",", toPrimary.uri(), direct.get(1), direct.get(2));
        String zkViaProxy = toZooKeeper.uri().substring("tcp://".length());

        ChildMember m1 = track(ChildMember.start(List.of("f-1", direct.get(0), tmp.resolve("m1").toString(), "f", members,
                zkViaProxy, Integer.toString(SESSION_MS)), LOGS.resolve("m1.log")));
        await("member 1 primary").atMost(WAIT).until(m1::isPrimary);
        List<ChildMember> backups = new ArrayList<>();
        for (int i = 1; i < 3; i++) {
            backups.add(track(ChildMember.start(List.of("f-" + (i + 1), direct.get(i), tmp.resolve("m" + (i + 1)).toString(), "f",
                    members, zk.getConnectString(), Integer.toString(SESSION_MS)), LOGS.resolve("m" + (i + 1) + ".log"))));
        }
        await("both backups READY").atMost(WAIT).until(() -> backups.stream().allMatch(ChildMember::isReadyBackup));

        // A client connected straight to member 1 keeps sending, receipt by receipt, through the cut.
        ConcurrentSkipListMap<Long, Long> receiptedAt = new ConcurrentSkipListMap<>();
        Set<Long> failed = ConcurrentHashMap.newKeySet();
        AtomicBoolean stop = new AtomicBoolean();
        StompConnection producer = track(StompConnection.connect(ClientConfig.builder(direct.get(0)).heartBeats(Duration.ZERO).build()));
        CompletableFuture<Void> production = CompletableFuture.runAsync(() -> {
            for (long seq = 1; !stop.get() && producer.isConnected(); seq++) {
                long s = seq;
                try {
                    // Stamped as the receipt arrives, on the connection's thread (wall clock: compared with the child's).
                    producer.send(Message.builder("/queue/fenced").persistent(true).header("seq", Long.toString(s)).body("m" + s).build())
                            .thenRun(() -> receiptedAt.put(s, System.currentTimeMillis())).get(30, TimeUnit.SECONDS);
                } catch (Exception e) {
                    failed.add(s);
                    return;
                }
            }
        });
        await("receipts flow").atMost(WAIT).until(() -> receiptedAt.size() >= 200);

        long cutAt = System.currentTimeMillis();
        toZooKeeper.cutAll();
        toZooKeeper.refuseNew(true);
        toPrimary.cutAll();
        toPrimary.refuseNew(true);

        await("a backup promoted").atMost(WAIT).until(() -> backups.stream().anyMatch(ChildMember::isPrimary));
        ChildMember successor = backups.stream().filter(ChildMember::isPrimary).findFirst().orElseThrow();
        long servingSince = successor.servingSince();
        stop.set(true);
        production.get(40, TimeUnit.SECONDS);
        long lastReceipt = receiptedAt.values().stream().mapToLong(Long::longValue).max().orElseThrow();
        assertThat(lastReceipt).as("the deposed primary's last receipt came before its successor served "
                + "(%d ms after the cut; successor serving %d ms after the cut)", lastReceipt - cutAt, servingSince - cutAt)
                .isLessThan(servingSince);
        System.out.println("HA-FENCING last receipt of the deposed primary " + (lastReceipt - cutAt) + " ms after the cut, "
                + "successor serving " + (servingSince - cutAt) + " ms after it");
        await("member 1 stops serving").atMost(WAIT).until(() -> !m1.isPrimary());

        // Every message member 1 receipted is on its successor.
        TreeSet<Long> got = new TreeSet<>();
        try (StompConnection consumer = StompConnection.connect(successor.uri())) {
            var sub = consumer.subscribe(SubscriptionRequest.builder("/queue/fenced").ackMode(AckMode.AUTO).build());
            for (var m = sub.receive(Duration.ofSeconds(10)); m != null; m = sub.receive(Duration.ofSeconds(2))) {
                got.add(Long.parseLong(m.header("seq")));
            }
        }
        TreeSet<Long> lost = new TreeSet<>(receiptedAt.keySet());
        lost.removeAll(got);
        assertThat(lost).as("messages the deposed primary receipted, missing on %s", successor).isEmpty();
    }

    /**
     * A primary whose backups are gone (none READY) loses ZooKeeper for longer than its session: it is deposed and
     * stops receipting. Nobody else holds its messages, and nobody was elected after it, so once ZooKeeper is back it
     * stands again and serves every message it receipted, without an operator.
     */
    @Test
    void aDeposedPrimaryWithNoReadyBackupStandsAgainOnceZooKeeperIsBack() throws Exception {
        TestingServer zk = track(new TestingServer(new InstanceSpec(tmp.resolve("zk").toFile(), -1, -1, -1, true, -1, 250, -1), true));
        List<String> direct = List.of("tcp://127.0.0.1:" + HaGroupConfigs.freePort(), "tcp://127.0.0.1:" + HaGroupConfigs.freePort());
        FaultProxy toZooKeeper = track(FaultProxy.start("tcp://" + zk.getConnectString()));
        String zkViaProxy = toZooKeeper.uri().substring("tcp://".length());
        ChildMember m1 = track(ChildMember.start(List.of("r-1", direct.get(0), tmp.resolve("m1").toString(), "r",
                String.join(",", direct), zkViaProxy, Integer.toString(SESSION_MS)), LOGS.resolve("alone-m1.log")));
        await("member 1 primary").atMost(WAIT).until(m1::isPrimary);
        try (StompConnection producer = StompConnection.connect(ClientConfig.builder(direct.get(0)).heartBeats(Duration.ZERO).build())) {
            for (int i = 1; i <= 100; i++) {
                producer.send(Message.builder("/queue/alone").persistent(true).header("seq", Integer.toString(i)).body("m" + i).build())
                        .get(30, TimeUnit.SECONDS);
            }
        }

        toZooKeeper.cutAll();
        toZooKeeper.refuseNew(true);
        await("member 1 deposed").atMost(WAIT).until(() -> !m1.isPrimary());
        toZooKeeper.refuseNew(false);
        await("member 1 primary again, with nobody else to take its place").atMost(WAIT).until(m1::isPrimary);

        TreeSet<Long> got = new TreeSet<>();
        try (StompConnection consumer = StompConnection.connect(direct.get(0))) {
            var sub = consumer.subscribe(SubscriptionRequest.builder("/queue/alone").ackMode(AckMode.AUTO).build());
            for (var m = sub.receive(Duration.ofSeconds(10)); m != null; m = sub.receive(Duration.ofSeconds(2))) {
                got.add(Long.parseLong(m.header("seq")));
            }
        }
        assertThat(got).as("every message it receipted before it was deposed").hasSize(100);
    }
}
