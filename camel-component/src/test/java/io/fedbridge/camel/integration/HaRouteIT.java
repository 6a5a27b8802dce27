package io.fedbridge.camel.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fedbridge.broker.BrokerConfig;
import io.fedbridge.ha.HaMember;
import io.fedbridge.ha.HaState;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.apache.camel.builder.RouteBuilder;
import org.junit.jupiter.api.Test;

/**
 * Routes on an HA group's failover URI: a producing route and a consuming route keep going through a promotion, the
 * sends in flight are resent to the new primary and dropped there as duplicates if they had arrived.
 */
class HaRouteIT extends FedbridgeTestSupport {

    private List<String> uris;
    private HaMember m1;
    private HaMember m2;

    @Override
    protected void startBrokers() throws Exception {
        uris = List.of("tcp://127.0.0.1:" + freePort(), "tcp://127.0.0.1:" + freePort());
        Path dir = Files.createTempDirectory("ha-route");
        m1 = track(HaMember.start(member("route-1", dir, 0)));
        m2 = track(HaMember.start(member("route-2", dir, 1)));
        m1.promote(true);
        assertThat(m1.awaitPrimary(Duration.ofSeconds(30))).isTrue();
        await().atMost(Duration.ofSeconds(30)).until(() -> m2.state() == HaState.READY);
    }

    private BrokerConfig member(String name, Path dir, int i) {
        return BrokerConfig.builder(name).listen(uris.get(i)).dataDirectory(dir.resolve(name))
                .ha(h -> h.group("routes").brokers(uris)).build();
    }

    @Test
    void routesFollowThePrimaryThroughAPromotionWithEveryMessageOnce() throws Exception {
        String failover = "RAW(failover:(" + String.join(",", uris) + ")?randomize=false&initialReconnectDelay=10"
                + "&maxReconnectDelay=200)";
        List<String> received = new CopyOnWriteArrayList<>();
        addRoutes(new RouteBuilder() {
            @Override
            public void configure() {
                from("fedbridge:queue:ha-orders?brokerUrl=" + failover).routeId("consumer")
                        .convertBodyTo(String.class).process(e -> received.add(e.getIn().getBody(String.class)));
            }
        });
        String producer = "fedbridge:queue:ha-orders?brokerUrl=" + failover;
        for (int i = 0; i < 200; i++) {
            template.sendBody(producer, "m" + i);
        }
        m1.close();
        // Sent while no member serves: the producer's failover client waits, tries the backup (refused, it names the
        // primary) and sends once the backup is promoted.
        CompletableFuture<Void> sending = CompletableFuture.runAsync(() -> {
            for (int i = 200; i < 400; i++) {
                template.sendBody(producer, "m" + i); // waits for the receipt, resent by the failover client if it was lost
            }
        });
        // The backup refuses while its replication link has not yet seen the primary go (close() returns first).
        await("the backup sees the primary gone and is promoted").atMost(Duration.ofSeconds(15))
                .ignoreException(IllegalStateException.class).until(() -> {
                    m2.promote(false);
                    return true;
                });
        assertThat(m2.awaitPrimary(Duration.ofSeconds(30))).isTrue();
        sending.get(60, TimeUnit.SECONDS);
        await("every message through the promotion").atMost(Duration.ofSeconds(60)).until(() -> received.size() >= 400);
        await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(5)).until(() -> received.size() == 400);
        assertThat(received).doesNotHaveDuplicates().hasSize(400);
    }

    private static int freePort() throws java.io.IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }
}
