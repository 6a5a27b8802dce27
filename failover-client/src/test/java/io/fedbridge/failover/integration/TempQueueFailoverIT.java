package io.fedbridge.failover.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fedbridge.broker.Broker;
import io.fedbridge.broker.BrokerConfig;
import io.fedbridge.broker.DestinationStats;
import io.fedbridge.broker.testing.ChildBroker;
import io.fedbridge.core.Message;
import io.fedbridge.core.ReceivedMessage;
import io.fedbridge.core.StompConnection;
import io.fedbridge.core.SubscriptionRequest;
import io.fedbridge.failover.FailoverClient;
import io.fedbridge.failover.FailoverEvent;
import io.fedbridge.failover.FailoverMessage;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A request-reply client on a failover URI keeps its temporary reply queue when its broker dies with SIGKILL between
 * request and reply (B links to A, duplex): the responder's broker holds the reply (tempDestinationReconnectGrace, 30 s by default) and the
 * client, reconnected there, gets it on the same temporary queue name.
 */
class TempQueueFailoverIT extends FailoverTestSupport {

    @Test
    void shouldReceiveTheReplyOnTheSameTempQueueAfterItsBrokerWasKilled() throws Exception {
        Broker b = startBroker(BrokerConfig.builder("tq-B").listen("tcp://127.0.0.1:0").heartBeat(Duration.ofMillis(500)));
        ChildBroker a = track(ChildBroker.start("tq-A", tmp.resolve("A"), 0, null, tmp.resolve("logs")));
        b.addNetworkConnector("static:(" + a.uri() + ")?duplex=true&initialReconnectDelay=50&maxReconnectDelay=500&heartBeat=1000");
        CompletableFuture<ReceivedMessage> request = new CompletableFuture<>();
        StompConnection responder = plain(b);
        responder.subscribeAndWait(SubscriptionRequest.of("/queue/svc"), request::complete, WAIT);
        await("the bridge subscribes to the service on A").atMost(WAIT).until(() -> networkSubs(b) == 1);

        Events events = new Events();
        FailoverClient requester = connect(ordered(a.uri(), uri(b)).build(), events);
        assertThat(requester.connectedUri()).isEqualTo(a.uri());
        CopyOnWriteArrayList<FailoverMessage> replies = new CopyOnWriteArrayList<>();
        requester.subscribe(SubscriptionRequest.of("/temp-queue/replies"), replies::add);
        requester.send(Message.builder("/queue/svc").body("ping").header("reply-to", "/temp-queue/replies").build());
        String name = request.get(WAIT.toMillis(), TimeUnit.MILLISECONDS).header("reply-to");
        assertThat(name).startsWith("/temp-queue/@r").endsWith("@replies");
        await("B holds a copy of the reply queue toward A").atMost(WAIT).until(() -> consumers(b, name) == 1);
        assertThat(requester.tempDestinationReconnectGrace()).isEqualTo(Duration.ofSeconds(30));

        a.killAndReap();
        // The requester may be back on B already (its own consumer) or not yet (the reply waits there without one).
        await("B's link to A is down").atMost(WAIT).until(() -> networkSubs(b) == 0);
        responder.send(Message.builder(name).body("pong").persistent(true).build()).get();

        await("the reply reaches the requester, reconnected to B").atMost(WAIT).until(() -> !replies.isEmpty());
        assertThat(requester.connectedUri()).isEqualTo(uri(b));
        assertThat(events.of(FailoverEvent.Connected.class)).anyMatch(FailoverEvent.Connected::reconnect);
        assertThat(replies).singleElement().satisfies(r -> {
            assertThat(r.bodyAsString()).isEqualTo("pong");
            assertThat(r.destination()).as("the same temporary queue").isEqualTo(name);
        });
    }

    private static int networkSubs(Broker b) {
        return b.bridges().stream().mapToInt(io.fedbridge.core.bridge.BridgeStats::networkSubscriptions).sum();
    }

    private static int consumers(Broker b, String queue) {
        DestinationStats s = b.queue(queue);
        return s == null ? -1 : s.consumers();
    }
}
