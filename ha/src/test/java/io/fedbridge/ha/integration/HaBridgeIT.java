package io.fedbridge.ha.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fedbridge.broker.Broker;
import io.fedbridge.broker.BrokerConfig;
import io.fedbridge.core.AckMode;
import io.fedbridge.core.Message;
import io.fedbridge.core.StompConnection;
import io.fedbridge.core.SubscriptionRequest;
import io.fedbridge.failover.FailoverClient;
import io.fedbridge.ha.HaMember;
import io.fedbridge.ha.HaState;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A broker outside an HA group bridges to the group (a static list of its members): its bridge keeps forwarding
 * through a promotion, and a consumer of the group on a failover URI gets every receipted message once.
 */
class HaBridgeIT {

    @TempDir
    Path dir;

    @Test
    void aBridgeToTheGroupFollowsThePrimaryThroughAPromotion() throws Exception {
        HaGroupConfigs group = new HaGroupConfigs("hb", 2, dir, null, b -> { });
        HaMember m1 = HaMember.start(group.configs.get(0));
        try (HaMember m2 = HaMember.start(group.configs.get(1));
             Broker outside = Broker.start(BrokerConfig.builder("X").listen("tcp://127.0.0.1:0").dataDirectory(dir.resolve("X"))
                     .networkConnector("static:(" + String.join(",", group.uris) + ")?initialReconnectDelay=50&maxReconnectDelay=200")
                     .build())) {
            m1.promote(true);
            assertThat(m1.awaitPrimary(Duration.ofSeconds(30))).isTrue();
            await().atMost(Duration.ofSeconds(30)).until(() -> m2.state() == HaState.READY);

            Set<String> receipted = ConcurrentHashMap.newKeySet();
            List<String> delivered = new CopyOnWriteArrayList<>();
            try (FailoverClient consumer = FailoverClient.connect(group.failoverUri() + "?randomize=false&initialReconnectDelay=20"
                    + "&maxReconnectDelay=200");
                 StompConnection producer = StompConnection.connect(outside.connectUris().get(0))) {
                consumer.subscribe(SubscriptionRequest.builder("/queue/orders").ackMode(AckMode.CLIENT_INDIVIDUAL).build(), m -> {
                    delivered.add(m.bodyAsString());
                    m.ack();
                });
                for (int i = 0; i < 300; i++) {
                    String body = "before-" + i;
                    producer.send(Message.builder("/queue/orders").persistent(true).body(body).build()).get(20, TimeUnit.SECONDS);
                    receipted.add(body);
                }
                await("forwarded through m1").atMost(Duration.ofSeconds(30)).until(() -> delivered.containsAll(receipted));

                m1.close(); // the primary goes; the bridge and the consumer must follow the promotion
                for (int i = 0; i < 300; i++) {
                    String body = "during-" + i;
                    producer.send(Message.builder("/queue/orders").persistent(true).body(body).build()).get(20, TimeUnit.SECONDS);
                    receipted.add(body);
                }
                m2.promote(false);
                assertThat(m2.awaitPrimary(Duration.ofSeconds(30))).isTrue();
                for (int i = 0; i < 300; i++) {
                    String body = "after-" + i;
                    producer.send(Message.builder("/queue/orders").persistent(true).body(body).build()).get(20, TimeUnit.SECONDS);
                    receipted.add(body);
                }
                await("forwarded through m2").atMost(Duration.ofSeconds(60)).until(() -> delivered.containsAll(receipted));
                await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(5)).until(() -> delivered.size() == receipted.size());
                assertThat(delivered).doesNotHaveDuplicates().hasSize(900);
            }
        } finally {
            m1.close();
        }
    }
}
