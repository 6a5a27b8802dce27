package io.fedbridge.ha.integration;

import static io.fedbridge.ha.integration.QueueReplicationIT.WAIT;
import static io.fedbridge.ha.integration.QueueReplicationIT.allReceipted;
import static io.fedbridge.ha.integration.QueueReplicationIT.awaitReplica;
import static io.fedbridge.ha.integration.QueueReplicationIT.consume;
import static io.fedbridge.ha.integration.QueueReplicationIT.send;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fedbridge.broker.Broker;
import io.fedbridge.core.Message;
import io.fedbridge.core.StompConnection;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The source of a replicated queue is killed with SIGKILL under load: the promoted replica has every receipted message. */
class QueueReplicaPromotionIT {

    @TempDir
    Path dir;

    @Test
    void shouldPromoteAReplicaWithEveryMessageTheKilledSourceReceiptedAndNobodyConsumed() throws Exception {
        String q = "/queue/payments";
        Set<String> receipted = ConcurrentHashMap.newKeySet();
        List<String> consumedAtSource = new ArrayList<>();
        int sent;
        try (ChildSource source = ChildSource.start("S", dir.resolve("S"), dir.resolve("S.log"));
             Broker local = QueueReplicationIT.broker("L", dir.resolve("L"))) {
            try (StompConnection producer = StompConnection.connect(source.uri())) {
                allReceipted(send(producer, q, 0, 200));
                for (int i = 0; i < 200; i++) {
                    receipted.add("m" + i);
                }
                local.management().replicateQueue(q, source.uri());
                awaitReplica(local, q, "ready", 200);
                consumedAtSource.addAll(consume(producer, q, 50));
                awaitReplica(local, q, "ready", 150);

                // Live load, receipts counted as they come; the source dies in the middle of it.
                AtomicInteger receipts = new AtomicInteger();
                for (sent = 200; sent < 5000 && receipts.get() < 600; sent++) {
                    String body = "m" + sent;
                    producer.send(Message.builder(q).persistent(true).body(body).build()).whenComplete((v, e) -> {
                        if (e == null) {
                            receipted.add(body);
                            receipts.incrementAndGet();
                        }
                    });
                    if (sent % 100 == 0) {
                        int target = sent - 400;
                        await("receipts for the sends before " + sent).atMost(WAIT).until(() -> receipts.get() >= target);
                    }
                }
                source.kill();
            }
            Set<String> mustHave = new HashSet<>(receipted);
            consumedAtSource.forEach(mustHave::remove);
            assertThat(mustHave).as("receipted by the source and not consumed there").hasSizeGreaterThan(600);

            await("replica sees its source gone").atMost(WAIT)
                    .until(() -> Boolean.FALSE.equals(QueueReplicationIT.replica(local, q).get("connected")));
            Map<String, Object> promoted = local.management().promoteReplica(q, false);
            assertThat(promoted).containsEntry("was", "ready").doesNotContainKey("warning");

            try (StompConnection c = StompConnection.connect(local.connectUris().get(0))) {
                int held = (Integer) promoted.get("messages");
                List<String> got = consume(c, q, held);
                assertThat(got).doesNotHaveDuplicates().containsAll(mustHave).doesNotContainAnyElementsOf(consumedAtSource);
                List<String> sentBodies = new ArrayList<>();
                for (int i = 0; i < sent; i++) {
                    sentBodies.add("m" + i);
                }
                assertThat(sentBodies).as("every message on the replica was sent").containsAll(got);
            }
        }
    }
}
