package io.fedbridge.broker.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fedbridge.broker.Broker;
import io.fedbridge.broker.BrokerConfig;
import io.fedbridge.broker.DestinationStats;
import io.fedbridge.core.ClientConfig;
import io.fedbridge.core.FederationHeaders;
import io.fedbridge.core.Message;
import io.fedbridge.core.ReceivedMessage;
import io.fedbridge.core.StompConnection;
import io.fedbridge.core.Subscription;
import io.fedbridge.core.SubscriptionRequest;
import io.fedbridge.core.bridge.BridgeState;
import io.fedbridge.core.bridge.BridgeStats;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * tempDestinationReconnectGrace: a temporary queue of a client that may reconnect (it proves a producer secret, as the
 * failover client does) outlives its owner's broker and connection on the brokers that hold it, with the replies sent
 * to it; the client gets the same name back wherever it reconnects; after the grace it goes everywhere.
 */
class TempQueueReconnectGraceIT extends BrokerTestSupport {

    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final String FAST = "initialReconnectDelay=50&maxReconnectDelay=500";
    private static final String SECRET = "0123456789abcdef-the-requester";

    private StompConnection client(Broker broker, String secret) {
        return connect(ClientConfig.builder(uri(broker, "tcp")).heartBeats(Duration.ZERO)
                .connectHeader(FederationHeaders.PRODUCER_SECRET, secret).build());
    }

    private static int networkSubs(Broker b) {
        return b.bridges().stream().mapToInt(BridgeStats::networkSubscriptions).sum();
    }

    private static int consumers(Broker b, String queue) {
        DestinationStats s = b.queue(queue);
        return s == null ? -1 : s.consumers();
    }

    @Test
    void shouldHoldTheReplyOnTheRespondersBrokerAndGiveTheReconnectingOwnerTheSameName() throws Exception {
        Broker b = startBroker(BrokerConfig.builder("tq-B"));
        Broker a = startBroker(BrokerConfig.builder("tq-A"));
        a.addNetworkConnector("static:(" + uri(b, "tcp") + ")?duplex=true&" + FAST);
        await("link up").atMost(WAIT).until(() -> a.bridges().stream().anyMatch(s -> s.state() == BridgeState.UP));
        CompletableFuture<ReceivedMessage> request = new CompletableFuture<>();
        StompConnection responder = connect(b, "tcp");
        responder.subscribeAndWait(SubscriptionRequest.of("/queue/svc"), request::complete, WAIT);
        await("service demand reaches A").atMost(WAIT).until(() -> networkSubs(a) >= 1);

        StompConnection requester = client(a, SECRET);
        assertThat(requester.connectedHeaders().get(FederationHeaders.TEMP_RECONNECT_GRACE)).isEqualTo("30000");
        requester.subscribeAndWait(SubscriptionRequest.of("/temp-queue/replies"), m -> { }, WAIT);
        requester.send(Message.builder("/queue/svc").body("ping").header("reply-to", "/temp-queue/replies").build()).get();
        String name = request.get(WAIT.toMillis(), TimeUnit.MILLISECONDS).header("reply-to");
        assertThat(name).matches("/temp-queue/@r[0-9a-f]{20}@replies");
        await("B holds a copy of the reply queue toward A").atMost(WAIT).until(() -> consumers(b, name) == 1);

        a.close(); // the owner's broker is gone, and the bridge's consumer on B with it
        await("B keeps its copy without consumers").atMost(WAIT).until(() -> consumers(b, name) == 0);
        responder.send(Message.builder(name).body("pong").build()).get();

        Subscription again = client(b, SECRET).subscribeAndWait(SubscriptionRequest.of("/temp-queue/replies"), null, WAIT);
        ReceivedMessage reply = again.receive(WAIT);
        assertThat(reply.bodyAsString()).isEqualTo("pong");
        assertThat(reply.destination()).as("the same temporary queue").isEqualTo(name);
    }

    @Test
    void shouldDeleteTheQueueEverywhereAfterTheGraceAndAtOnceOnDisconnect() throws Exception {
        Duration grace = Duration.ofSeconds(2);
        Broker b = startBroker(BrokerConfig.builder("tg-B").tempDestinationReconnectGrace(grace));
        Broker a = startBroker(BrokerConfig.builder("tg-A").tempDestinationReconnectGrace(grace));
        a.addNetworkConnector("static:(" + uri(b, "tcp") + ")?duplex=true&" + FAST);
        await("link up").atMost(WAIT).until(() -> a.bridges().stream().anyMatch(s -> s.state() == BridgeState.UP));

        // A connection that dies without DISCONNECT: its queue waits on A, and B's copy too.
        RawStomp raw = raw(a);
        raw.write("CONNECT\naccept-version:1.2\nhost:localhost\nheart-beat:0,0\n" + FederationHeaders.PRODUCER_SECRET
                + ":" + SECRET + "\n\n\0");
        assertThat(raw.read().command()).isEqualTo("CONNECTED");
        raw.write("SUBSCRIBE\nid:1\ndestination:/temp-queue/lost\nreceipt:s\n\n\0");
        assertThat(raw.read().command()).isEqualTo("RECEIPT");
        String name = a.queues().stream().map(DestinationStats::name).filter(n -> n.endsWith("@lost")).findFirst().orElseThrow();
        await("B holds a copy").atMost(WAIT).until(() -> consumers(b, name) == 1);
        assertThatThrownBy(() -> client(b, "another-secret-of-16-chars").subscribeAndWait(SubscriptionRequest.of(name), null, WAIT))
                .as("another client cannot read it").hasMessageContaining("temporary destination of another connection");
        raw.close();
        await("the owner's consumer is gone").atMost(WAIT).until(() -> consumers(a, name) == 0 && consumers(b, name) == 0);
        await("both kept for a while").during(grace.dividedBy(2)).atMost(WAIT).until(() -> a.queue(name) != null && b.queue(name) != null);
        await("then deleted on both brokers").atMost(WAIT).until(() -> a.queue(name) == null && b.queue(name) == null);

        // An owner that says DISCONNECT takes its empty queue with it at once.
        StompConnection polite = client(a, SECRET);
        polite.subscribeAndWait(SubscriptionRequest.of("/temp-queue/polite"), m -> { }, WAIT);
        String politeName = name.replace("@lost", "@polite");
        assertThat(a.queue(politeName)).isNotNull();
        polite.close();
        await("deleted at once").atMost(grace.dividedBy(2)).until(() -> a.queue(politeName) == null);
    }

    @Test
    void shouldKeepPerConnectionNamesForClientsWithoutASecretOrWithAZeroGrace() throws Exception {
        Broker a = startBroker(BrokerConfig.builder("tz-A"));
        Broker z = startBroker(BrokerConfig.builder("tz-Z").tempDestinationReconnectGrace(Duration.ZERO));
        StompConnection plain = connect(a, "tcp");
        assertThat(plain.connectedHeaders().get(FederationHeaders.TEMP_RECONNECT_GRACE)).isNull();
        StompConnection noGrace = client(z, SECRET);
        assertThat(noGrace.connectedHeaders().get(FederationHeaders.TEMP_RECONNECT_GRACE)).isNull();
        plain.subscribeAndWait(SubscriptionRequest.of("/temp-queue/x"), m -> { }, WAIT);
        noGrace.subscribeAndWait(SubscriptionRequest.of("/temp-queue/x"), m -> { }, WAIT);
        assertThat(a.queues()).extracting(DestinationStats::name).anyMatch(n -> n.matches("/temp-queue/@[0-9a-f]{8}-\\d+@x"));
        assertThat(z.queues()).extracting(DestinationStats::name).anyMatch(n -> n.matches("/temp-queue/@[0-9a-f]{8}-\\d+@x"));
        noGrace.close();
        await("a zero grace deletes at once").atMost(WAIT).until(() -> z.queues().stream().noneMatch(s -> s.name().endsWith("@x")));
    }
}
