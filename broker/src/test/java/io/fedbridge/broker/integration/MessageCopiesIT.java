package io.fedbridge.broker.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fedbridge.broker.Broker;
import io.fedbridge.broker.BrokerConfig;
import io.fedbridge.core.AckMode;
import io.fedbridge.core.FederationHeaders;
import io.fedbridge.core.Message;
import io.fedbridge.core.ReceivedMessage;
import io.fedbridge.core.StompCommand;
import io.fedbridge.core.StompConnection;
import io.fedbridge.core.StompFrame;
import io.fedbridge.core.StompHeaders;
import io.fedbridge.core.Subscription;
import io.fedbridge.core.SubscriptionRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two copies of one message can exist in a federation: a bridge's forward whose receipt died with the link (the
 * peer stored it, the source still holds it), or a producer's resend after failover. Replays carry a replay count
 * that makes their dedupe key new, so the broker must still recognise a copy of a message a local consumer already
 * took, and must not hand an unreceipted forward to anyone but its peer while that peer may hold a copy.
 */
class MessageCopiesIT extends BrokerTestSupport {

    private static final Duration WAIT = Duration.ofSeconds(10);

    private static StompFrame replay(String destination, String fedId, int replays) {
        return new StompFrame(StompCommand.SEND, StompHeaders.of(StompHeaders.DESTINATION, destination,
                StompHeaders.PERSISTENT, "true", FederationHeaders.BROKER_PATH, "me,peer",
                FederationHeaders.FEDERATION_ID, fedId, FederationHeaders.REPLAYS, Integer.toString(replays)),
                ("copy of " + fedId).getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void shouldDropAReplayOfAMessageALocalConsumerAlreadyTook() throws Exception {
        Broker b = startBroker(BrokerConfig.builder("copies-replay"));
        StompConnection producer = link(b);
        producer.send(Message.builder("/queue/once").header(FederationHeaders.FEDERATION_ID, "producer-1:7").body("m7").build()).get();
        StompConnection consumer = link(b);
        Subscription sub = consumer.subscribeAndWait(SubscriptionRequest.builder("/queue/once")
                .ackMode(AckMode.CLIENT_INDIVIDUAL).build(), null, WAIT);
        ReceivedMessage first = sub.receive(WAIT);
        assertThat(first.bodyAsString()).isEqualTo("m7");
        first.ack();
        await("the ack is taken").atMost(WAIT).until(() -> b.queue("/queue/once").inflight() == 0);

        // Another broker held a copy (say, a forward whose receipt was lost) and replays it here.
        StompFrame receipt = link(b).sendForReceipt(replay("/queue/once", "producer-1:7", 1)).get(10, TimeUnit.SECONDS);
        assertThat(receipt.header(FederationHeaders.DUPLICATES)).isEqualTo("1");
        producer.send(Message.of("/queue/once", "fence")).get();
        assertThat(sub.receive(WAIT).bodyAsString()).as("the copy is never delivered").isEqualTo("fence");
        assertThat(b.duplicatesDropped()).isEqualTo(1);
    }

    @Test
    void shouldNotDeliverASecondCopyOnceTheFirstWasConsumedHere() throws Exception {
        Broker b = startBroker(BrokerConfig.builder("copies-queued"));
        StompConnection peer = link(b);
        // Two replays of one message (different counts: each is new to the dedupe) wait on the same queue.
        peer.sendForReceipt(replay("/queue/two", "producer-1:9", 1)).get(10, TimeUnit.SECONDS);
        peer.sendForReceipt(replay("/queue/two", "producer-1:9", 2)).get(10, TimeUnit.SECONDS);
        assertThat(b.queue("/queue/two").pending()).isEqualTo(2);

        assertOnlyOneCopyDelivered(b, "/queue/two", "copy of producer-1:9");
    }

    /** A consumer of {@code queue}, where two copies of one message wait, gets {@code body} once, and nothing else. */
    private void assertOnlyOneCopyDelivered(Broker b, String queue, String body) throws Exception {
        List<String> got = new CopyOnWriteArrayList<>();
        Subscription sub = link(b).subscribeAndWait(SubscriptionRequest.builder(queue)
                .ackMode(AckMode.CLIENT_INDIVIDUAL).prefetch(1).build(), null, WAIT);
        ReceivedMessage m = sub.receive(WAIT);
        got.add(m.bodyAsString());
        m.ack();
        await("the second copy is dropped, not delivered").atMost(WAIT).until(() -> b.queue(queue).pending() == 0
                && b.queue(queue).inflight() == 0);
        assertThat(sub.receive(Duration.ofMillis(300))).isNull();
        assertThat(got).containsExactly(body);
    }

    @Test
    void shouldNotDeliverASecondRecoveredCopyOnceTheFirstWasConsumedAfterARestart(@TempDir Path data) throws Exception {
        // The two copies wait in the journal; after the restart no replay has been claimed yet, but they are there.
        Broker before = Broker.start(BrokerConfig.builder("copies-restart").listen("tcp://127.0.0.1:0").dataDirectory(data).build());
        StompConnection peer = StompConnection.connect(io.fedbridge.core.ClientConfig.builder(before.connectUris().get(0))
                .connectHeader(FederationHeaders.FEDERATE, "true").build());
        peer.sendForReceipt(replay("/queue/two", "producer-1:11", 1)).get(10, TimeUnit.SECONDS);
        peer.sendForReceipt(replay("/queue/two", "producer-1:11", 2)).get(10, TimeUnit.SECONDS);
        peer.close();
        before.close();

        Broker b = startBroker(BrokerConfig.builder("copies-restart").dataDirectory(data));
        assertThat(b.queue("/queue/two").pending()).isEqualTo(2);
        assertOnlyOneCopyDelivered(b, "/queue/two", "copy of producer-1:11");
    }

    @Test
    void shouldKeepAnUnreceiptedForwardForItsPeerForAWhile() throws Exception {
        Broker b = startBroker(BrokerConfig.builder("copies-doubt").inDoubtHold(Duration.ofSeconds(3)));
        link(b).send(Message.builder("/queue/doubt").persistent(true).body("m1").build()).get();
        SubscriptionRequest toPeerX = SubscriptionRequest.builder("/queue/doubt").ackMode(AckMode.CLIENT_INDIVIDUAL)
                .header(FederationHeaders.NETWORK_CONSUMER, "true").header(FederationHeaders.EXCLUDE_BROKER, "peer-x").build();
        StompConnection bridge = link(b);
        Subscription forwarding = bridge.subscribeAndWait(toPeerX, null, WAIT);
        assertThat(forwarding.receive(WAIT).bodyAsString()).isEqualTo("m1");
        bridge.close(); // the link died before peer-x's receipt came back: peer-x may have stored m1

        List<String> local = new CopyOnWriteArrayList<>();
        link(b).subscribeAndWait(SubscriptionRequest.of("/queue/doubt"), msg -> local.add(msg.bodyAsString()), WAIT);
        await("a local consumer does not get it while peer-x may hold it").during(Duration.ofMillis(500)).atMost(WAIT)
                .until(local::isEmpty);
        Subscription toOtherPeer = link(b).subscribeAndWait(toPeerX.toBuilder()
                .header(FederationHeaders.EXCLUDE_BROKER, "peer-y").build(), null, WAIT);
        assertThat(toOtherPeer.receive(Duration.ofMillis(300))).as("nor does a bridge to another peer").isNull();
        toOtherPeer.unsubscribe();

        StompConnection bridgeAgain = link(b);
        Subscription again = bridgeAgain.subscribeAndWait(toPeerX, null, WAIT);
        ReceivedMessage resend = again.receive(WAIT);
        assertThat(resend.bodyAsString()).as("it goes back to peer-x at once, whose dedupe settles it").isEqualTo("m1");
        bridgeAgain.close(); // and that link dies too

        await("once the hold is over anyone may have it").atMost(Duration.ofSeconds(30)).until(() -> local.contains("m1"));
    }

    @Test
    void shouldHandAnUnreceiptedForwardToAnyoneAtOnceWithoutAHold() throws Exception {
        Broker b = startBroker(BrokerConfig.builder("copies-no-hold").inDoubtHold(Duration.ZERO));
        link(b).send(Message.builder("/queue/nohold").persistent(true).body("m1").build()).get();
        StompConnection bridge = link(b);
        Subscription forwarding = bridge.subscribeAndWait(SubscriptionRequest.builder("/queue/nohold")
                .ackMode(AckMode.CLIENT_INDIVIDUAL).header(FederationHeaders.NETWORK_CONSUMER, "true")
                .header(FederationHeaders.EXCLUDE_BROKER, "peer-x").build(), null, WAIT);
        assertThat(forwarding.receive(WAIT).bodyAsString()).isEqualTo("m1");
        bridge.close();

        List<String> local = new CopyOnWriteArrayList<>();
        link(b).subscribeAndWait(SubscriptionRequest.of("/queue/nohold"), msg -> local.add(msg.bodyAsString()), WAIT);
        await("inDoubtHold=0: a local consumer gets it as soon as the link is gone").atMost(Duration.ofSeconds(2))
                .until(() -> local.contains("m1"));
    }

    /**
     * Speaks for an earlier link of peer {@code a}'s bridge: takes the next message of {@code queue} on {@code b} as a
     * network subscription for {@code a}, and dies without acknowledging it; with {@code storeOnPeer} it first hands
     * the message to {@code a} as the bridge would (same federation id), where a consumer takes it.
     *
     * @return the message's id on {@code b}
     */
    private String forwardAndDie(Broker b, Broker a, String queue, boolean storeOnPeer) throws Exception {
        StompConnection earlierLink = link(b);
        Subscription forwarding = earlierLink.subscribeAndWait(SubscriptionRequest.builder(queue).ackMode(AckMode.CLIENT_INDIVIDUAL)
                .header(FederationHeaders.NETWORK_CONSUMER, "true").header(FederationHeaders.EXCLUDE_BROKER, a.id()).build(), null, WAIT);
        ReceivedMessage m = forwarding.receive(WAIT);
        if (storeOnPeer) {
            StompFrame forward = new StompFrame(StompCommand.SEND, StompHeaders.of(StompHeaders.DESTINATION, queue,
                    StompHeaders.PERSISTENT, "true", FederationHeaders.BROKER_PATH, b.id(),
                    FederationHeaders.FEDERATION_ID, b.id() + ":" + m.messageId()), m.body());
            link(a).sendForReceipt(forward).get(10, TimeUnit.SECONDS);
            StompConnection consumerOnA = connect(a, "tcp");
            assertThat(consumerOnA.subscribeAndWait(SubscriptionRequest.of(queue), null, WAIT).receive(WAIT).bodyAsString())
                    .isEqualTo(m.bodyAsString());
            consumerOnA.close(); // consumed on a, and a has no consumer of the queue any more
        }
        earlierLink.close(); // the link dies before the forward's acknowledgement reached b
        return m.messageId();
    }

    @Test
    void shouldDropACopyInDoubtOnceThePeerSaysItHasIt() throws Exception {
        Broker b = startBroker(BrokerConfig.builder("settle-B").inDoubtHold(Duration.ofSeconds(2)));
        Broker a = startBroker(BrokerConfig.builder("settle-A"));
        link(b).send(Message.builder("/queue/settle").persistent(true).body("m1").build()).get();
        forwardAndDie(b, a, "/queue/settle", true);

        List<String> local = new CopyOnWriteArrayList<>();
        connect(b, "tcp").subscribeAndWait(SubscriptionRequest.of("/queue/settle"), msg -> local.add(msg.bodyAsString()), WAIT);
        // a's bridge comes back; a has no consumer of /queue/settle, so it never subscribes there.
        a.addNetworkConnector("static:(" + uri(b, "tcp") + ")?duplex=true&initialReconnectDelay=50");
        await("b drops its copy: a has the message (and delivered it)").atMost(WAIT)
                .until(() -> b.queue("/queue/settle").pending() == 0 && b.queue("/queue/settle").inflight() == 0);
        await("and never delivers it again, though the 2 s hold is over").during(Duration.ofSeconds(3)).atMost(WAIT)
                .until(local::isEmpty);
        assertThat(b.queue("/queue/settle").dequeued()).isEqualTo(1);
    }

    @Test
    void shouldStillDropACopyWhoseHoldEndedWhileNoConsumerHadRoomForIt() throws Exception {
        Broker b = startBroker(BrokerConfig.builder("late-B").inDoubtHold(Duration.ofMillis(500)));
        Broker a = startBroker(BrokerConfig.builder("late-A"));
        link(b).send(Message.builder("/queue/late").persistent(true).body("m1").build()).get();
        forwardAndDie(b, a, "/queue/late", true);

        // A local consumer whose one slot is taken by a later message: when the hold ends it has no room for m1.
        List<ReceivedMessage> local = new CopyOnWriteArrayList<>();
        connect(b, "tcp").subscribeAndWait(SubscriptionRequest.builder("/queue/late").ackMode(AckMode.CLIENT_INDIVIDUAL)
                .prefetch(1).build(), local::add, WAIT);
        link(b).send(Message.builder("/queue/late").persistent(true).body("blocker").build()).get();
        await("the blocker is delivered past m1, which is held").atMost(WAIT).until(() -> local.size() == 1);
        assertThat(local.get(0).bodyAsString()).isEqualTo("blocker");
        await("the hold ends with m1 still waiting").pollDelay(Duration.ofSeconds(1)).atMost(WAIT)
                .until(() -> b.queue("/queue/late").pending() == 1);

        a.addNetworkConnector("static:(" + uri(b, "tcp") + ")?duplex=true&initialReconnectDelay=50");
        await("b drops m1 all the same: a has it").atMost(WAIT).until(() -> b.queue("/queue/late").pending() == 0);
        local.get(0).ack();
        await("the consumer's slot is free, and nothing comes").during(Duration.ofSeconds(1)).atMost(WAIT)
                .until(() -> local.size() == 1);
    }

    @Test
    void shouldReleaseACopyInDoubtAtOnceWhenThePeerNeverHadIt() throws Exception {
        Broker b = startBroker(BrokerConfig.builder("release-B").inDoubtHold(Duration.ofMinutes(5)));
        Broker a = startBroker(BrokerConfig.builder("release-A"));
        link(b).send(Message.builder("/queue/release").persistent(true).body("m2").build()).get();
        String id = forwardAndDie(b, a, "/queue/release", false);

        List<String> local = new CopyOnWriteArrayList<>();
        connect(b, "tcp").subscribeAndWait(SubscriptionRequest.of("/queue/release"), msg -> local.add(msg.bodyAsString()), WAIT);
        // Settling is the federation's: an ordinary client's claim is only a message (its federation headers dropped).
        connect(b, "tcp").sendFrame(new StompFrame(StompCommand.SEND, StompHeaders.of(StompHeaders.DESTINATION, "/queue/release",
                FederationHeaders.IN_DOUBT_SETTLE, FederationHeaders.IN_DOUBT_ABSENT, FederationHeaders.IN_DOUBT_MESSAGE, id,
                FederationHeaders.EXCLUDE_BROKER, a.id()), "forged".getBytes(StandardCharsets.UTF_8)), true).get(10, TimeUnit.SECONDS);
        await("the forged settle is delivered as a message").atMost(WAIT).until(() -> local.contains("forged"));
        StompFrame probeReceipt = connect(b, "tcp").sendForReceipt(new StompFrame(StompCommand.SEND, StompHeaders.of(
                StompHeaders.DESTINATION, "/queue/probed", FederationHeaders.IN_DOUBT_PROBE, "true",
                FederationHeaders.FEDERATION_ID, b.id() + ":" + id))).get(10, TimeUnit.SECONDS);
        assertThat(probeReceipt.header(FederationHeaders.IN_DOUBT_STATE)).as("an ordinary client learns nothing by probing").isNull();
        List<String> snapshot = new CopyOnWriteArrayList<>();
        connect(b, "tcp").subscribeAndWait(SubscriptionRequest.of(FederationHeaders.IN_DOUBT_TOPIC), msg -> snapshot.add(msg.messageId()), WAIT);
        await("m2 is still held for a, and an ordinary subscriber to the in-doubt topic is told nothing").during(Duration.ofMillis(500))
                .atMost(WAIT).until(() -> local.equals(List.of("forged")) && snapshot.isEmpty());

        a.addNetworkConnector("static:(" + uri(b, "tcp") + ")?duplex=true&initialReconnectDelay=50");
        await("a never had it: b's consumer gets it long before the 5-minute hold ends").atMost(WAIT)
                .until(() -> local.equals(List.of("forged", "m2")));
    }
}
