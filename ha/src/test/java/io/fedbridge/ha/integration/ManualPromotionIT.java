package io.fedbridge.ha.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fedbridge.core.AckMode;
import io.fedbridge.core.Message;
import io.fedbridge.core.ReceivedMessage;
import io.fedbridge.core.StompConnection;
import io.fedbridge.core.StompErrorException;
import io.fedbridge.core.SubscriptionRequest;
import io.fedbridge.ha.HaMember;
import io.fedbridge.ha.HaRole;
import io.fedbridge.ha.HaState;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A group without ZooKeeper: every member starts as a backup, one is promoted by hand, the others copy it. */
class ManualPromotionIT {

    @TempDir
    Path dir;

    @Test
    void backupsRefuseClientsNamingThePrimaryAndAPromotedBackupHasEveryReceiptedMessage() throws Exception {
        HaGroupConfigs group = new HaGroupConfigs("g1", 2, dir, null, b -> { });
        try (HaMember a = HaMember.start(group.configs.get(0)); HaMember b = HaMember.start(group.configs.get(1))) {
            assertThat(a.role()).isEqualTo(HaRole.BACKUP);
            assertThatThrownBy(() -> StompConnection.connect(group.uris.get(0)))
                    .hasMessageContaining("is a backup of HA group g1");

            assertThatThrownBy(() -> b.promote(false)).hasMessageContaining("not ready");
            // An administrator may connect to a backup, and follow its state on the management events.
            StompConnection admin = StompConnection.connect(io.fedbridge.core.ClientConfig.builder(group.uris.get(1))
                    .connectHeader("fedbridge-ha-admin", "true").build());
            LinkedBlockingQueue<ReceivedMessage> events = new LinkedBlockingQueue<>();
            admin.subscribe(SubscriptionRequest.of("/topic/fedbridge.management.events"), events::add);
            StompConnection other = StompConnection.connect(io.fedbridge.core.ClientConfig.builder(group.uris.get(1))
                    .connectHeader("fedbridge-ha-admin", "true").build());
            assertThatThrownBy(() -> other.send(Message.builder("/queue/orders").body("x").build()).get(10, TimeUnit.SECONDS))
                    .hasMessageContaining("is an HA backup; an administrator's connection may only send to /queue/fedbridge.management");
            a.promote(true);
            assertThat(a.awaitPrimary(Duration.ofSeconds(20))).isTrue();
            await().atMost(Duration.ofSeconds(20)).until(() -> b.state() == HaState.READY);
            List<String> seen = new ArrayList<>();
            List<String> all = new ArrayList<>();
            await("ha-state events of the backup, among " + all).atMost(Duration.ofSeconds(10)).until(() -> {
                for (ReceivedMessage e; (e = events.poll()) != null; ) {
                    all.add(e.bodyAsString());
                    if (e.bodyAsString().contains("\"type\":\"ha-state\"")) {
                        seen.add(e.bodyAsString().replaceAll(".*\"state\":\"([a-z]+)\".*", "$1"));
                    }
                }
                return seen.contains("ready");
            });
            assertThat(seen).containsSubsequence("catchup", "ready");

            // A client of the backup is refused with the primary's URI.
            assertThatThrownBy(() -> StompConnection.connect(group.uris.get(1)))
                    .isInstanceOf(StompErrorException.class)
                    .satisfies(e -> assertThat(((StompErrorException) e).frame().header("fedbridge-ha-primary"))
                            .isEqualTo(group.uris.get(0)));

            try (StompConnection producer = StompConnection.connect(group.uris.get(0))) {
                List<CompletableFuture<Void>> receipts = new ArrayList<>();
                for (int i = 0; i < 500; i++) {
                    receipts.add(producer.send(Message.builder("/queue/orders").persistent(true).body("m" + i).build()));
                }
                CompletableFuture.allOf(receipts.toArray(CompletableFuture[]::new)).get(20, TimeUnit.SECONDS);
                // Consume (and acknowledge) the first 100 on the primary: their removal is replicated too.
                LinkedBlockingQueue<ReceivedMessage> got = new LinkedBlockingQueue<>();
                var sub = producer.subscribe(SubscriptionRequest.builder("/queue/orders").ackMode(AckMode.CLIENT_INDIVIDUAL)
                        .prefetch(100).build(), got::add);
                for (int i = 0; i < 100; i++) {
                    ReceivedMessage m = got.poll(10, TimeUnit.SECONDS);
                    assertThat(m).isNotNull();
                    assertThat(m.bodyAsString()).isEqualTo("m" + i);
                    m.ack();
                }
                sub.close();
                // A receipted send after the acks: the backup stores records in order, so it has the removals too.
                producer.send(Message.builder("/queue/other").persistent(true).body("after").build()).get(10, TimeUnit.SECONDS);
            }
            assertThatThrownBy(() -> b.promote(false)).hasMessageContaining("still follows the live primary");
            a.close(); // the primary goes

            await().atMost(Duration.ofSeconds(10)).until(() -> b.state() == HaState.READY && b.primaryUri() != null);
            b.promote(false);
            assertThat(b.awaitPrimary(Duration.ofSeconds(20))).isTrue();
            assertThat(b.epoch()).isEqualTo(2);
            try (StompConnection consumer = StompConnection.connect(group.uris.get(1))) {
                LinkedBlockingQueue<ReceivedMessage> got = new LinkedBlockingQueue<>();
                consumer.subscribe(SubscriptionRequest.builder("/queue/orders").build(), got::add);
                for (int i = 100; i < 500; i++) {
                    ReceivedMessage m = got.poll(10, TimeUnit.SECONDS);
                    assertThat(m).as("message m%d on the promoted backup", i).isNotNull();
                    assertThat(m.bodyAsString()).isEqualTo("m" + i);
                }
                assertThat(got.poll(300, TimeUnit.MILLISECONDS)).as("nothing consumed before comes back").isNull();
            }
        }
    }
}
