package io.fedbridge.failover.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fedbridge.broker.Broker;
import io.fedbridge.core.Message;
import io.fedbridge.core.SubscriptionRequest;
import io.fedbridge.failover.FailoverClient;
import io.fedbridge.failover.FailoverConfig;
import io.fedbridge.failover.FailoverEvent;
import io.fedbridge.failover.FailoverException;
import io.fedbridge.failover.FailoverSubscription;
import io.fedbridge.failover.SendReceipt;
import io.fedbridge.failover.internal.DefaultFailoverClient;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.Test;

/** The effect of each failover option, observed on real connections. */
class FailoverOptionsIT extends FailoverTestSupport {

    // ---------------------------------------------------------------- randomize

    @Test
    void shouldConnectToTheFirstBrokerWithoutRandomizeAndToAShuffledOneWithIt() throws Exception {
        List<String> uris = List.of(fake().uri(), fake().uri(), fake().uri());
        Set<String> firstChoices = new HashSet<>();
        for (long seed = 0; seed < 8; seed++) {
            DefaultFailoverClient.Environment env = new DefaultFailoverClient.Environment(null, Clock.systemUTC(), new Random(seed));
            try (FailoverClient fixed = DefaultFailoverClient.connect(ordered(uris.toArray(String[]::new)).build(), null, env)) {
                assertThat(fixed.connectedUri()).isEqualTo(uris.get(0));
            }
            env = new DefaultFailoverClient.Environment(null, Clock.systemUTC(), new Random(seed));
            try (FailoverClient shuffled = DefaultFailoverClient.connect(
                    ordered(uris.toArray(String[]::new)).randomize(true).build(), null, env)) {
                List<String> expected = new ArrayList<>(uris);
                Collections.shuffle(expected, new Random(seed));
                assertThat(shuffled.connectedUri()).isEqualTo(expected.get(0));
                firstChoices.add(shuffled.connectedUri());
            }
        }
        assertThat(firstChoices).as("randomize spreads clients").hasSizeGreaterThan(1);
    }

    // ---------------------------------------------------------------- back-off and give-up

    @Test
    void shouldBackOffExponentiallyUpToMaxReconnectDelayThenGiveUpAfterStartupMaxReconnectAttempts() throws Exception {
        assertThat(roundDelays("initialReconnectDelay=10&maxReconnectDelay=50&startupMaxReconnectAttempts=5"))
                .containsExactly(10L, 20L, 40L, 50L);
    }

    @Test
    void shouldGrowTheDelayByReconnectDelayExponent() throws Exception {
        assertThat(roundDelays("initialReconnectDelay=10&maxReconnectDelay=1000&reconnectDelayExponent=3&startupMaxReconnectAttempts=5"))
                .containsExactly(10L, 30L, 90L, 270L);
    }

    @Test
    void shouldKeepTheDelayConstantWithoutExponentialBackOff() throws Exception {
        assertThat(roundDelays("initialReconnectDelay=15&useExponentialBackOff=false&startupMaxReconnectAttempts=4"))
                .containsExactly(15L, 15L, 15L);
    }

    @Test
    void shouldApplyMaxReconnectAttemptsAtStartupWhenStartupMaxReconnectAttemptsIsUnset() throws Exception {
        assertThat(roundDelays("initialReconnectDelay=10&maxReconnectAttempts=2")).containsExactly(10L);
    }

    /** Connects to a dead port with {@code options}; returns the delays of the ReconnectScheduled events before giving up. */
    private List<Long> roundDelays(String options) throws Exception {
        String uri = refusingUri();
        Events events = new Events();
        long start = System.nanoTime();
        assertThatThrownBy(() -> connect(FailoverConfig.fromUri("failover:(" + uri + ")?" + options), events))
                .isInstanceOf(FailoverException.class).hasMessageContaining("gave up after")
                .hasMessageContaining("Connection refused");
        events.await(FailoverEvent.GaveUp.class, e -> true);
        List<Long> delays = events.of(FailoverEvent.ReconnectScheduled.class).stream().map(e -> e.delay().toMillis()).toList();
        assertThat(Duration.ofNanos(System.nanoTime() - start).toMillis()).as("the delays were waited")
                .isGreaterThanOrEqualTo(delays.stream().mapToLong(Long::longValue).sum());
        return delays;
    }

    @Test
    void shouldGiveUpAfterMaxReconnectAttemptsAndFailWhatIsPending() throws Exception {
        Broker a = startBroker();
        Events events = new Events();
        FailoverClient client = connect(ordered(uri(a)).maxReconnectAttempts(3).timeout(WAIT)
                .initialReconnectDelay(Duration.ofSeconds(1)).maxReconnectDelay(Duration.ofSeconds(1)).build(), events);
        a.close();
        await("disconnected").atMost(WAIT).until(() -> !client.isConnected());
        CompletableFuture<SendReceipt> pending = client.sendAsync(persistent("/queue/x", "never"));

        FailoverEvent.GaveUp gaveUp = events.await(FailoverEvent.GaveUp.class, e -> true);

        assertThat(gaveUp.failedRounds()).isEqualTo(3);
        assertThat(events.of(FailoverEvent.ReconnectScheduled.class)).hasSize(2);
        assertThat(pending).failsWithin(WAIT).withThrowableOfType(ExecutionException.class)
                .havingCause().isInstanceOf(FailoverException.class)
                .withMessageContaining("gave up after 3").withMessageContaining("maxReconnectAttempts=3")
                .withMessageContaining("never sent");
    }

    @Test
    void shouldBackOffFromABrokerThatDropsClientsRightAfterTheyConnect() throws Exception {
        FakeStompServer f = fake();
        Events events = new Events();
        FailoverClient client = connect(ordered(f.uri()).maxReconnectDelay(Duration.ofSeconds(10)).build(), events);
        f.dropOn = frame -> frame.command().equals("SUBSCRIBE"); // as a broker refusing a durable subscription would
        client.subscribe(SubscriptionRequest.of("/topic/refused"), m -> { });

        await("5 rounds").atMost(WAIT).until(() -> events.of(FailoverEvent.ReconnectScheduled.class).size() >= 5);
        assertThat(events.of(FailoverEvent.ReconnectScheduled.class).stream().limit(5).map(e -> e.delay().toMillis()))
                .as("backed off, not hammered").containsExactly(10L, 20L, 40L, 80L, 160L);
        assertThat(f.acceptedConnections()).isLessThan(10);
    }

    @Test
    void shouldRetryForeverByDefault() throws Exception {
        Broker a = startBroker();
        Events events = new Events();
        FailoverClient client = connect(ordered(uri(a)).maxReconnectDelay(Duration.ofMillis(20)).build(), events);
        a.close();
        await("20 failed rounds").atMost(WAIT).until(() -> events.of(FailoverEvent.ReconnectScheduled.class).size() >= 20);
        assertThat(events.of(FailoverEvent.GaveUp.class)).isEmpty();
        restart(a);
        await("reconnected").atMost(WAIT).until(client::isConnected);
    }

    // ---------------------------------------------------------------- priorityBackup, priorityURIs

    @Test
    void shouldMoveBackToThePriorityBrokerWhenItReturns() throws Exception {
        Broker a = startBroker();
        Broker b = startBroker();
        a.close();
        Events events = new Events();
        FailoverClient client = connect(ordered(uri(a), uri(b)).priorityBackup(true).build(), events);
        FailoverSubscription s = client.subscribe(SubscriptionRequest.of("/queue/prio"));
        assertThat(client.connectedUri()).isEqualTo(uri(b));

        Broker again = restart(a);

        FailoverEvent.Switched switched = events.await(FailoverEvent.Switched.class, e -> true);
        assertThat(switched.from()).isEqualTo(uri(b));
        assertThat(switched.to()).isEqualTo(uri(a));
        assertThat(switched.reason()).contains("priority");
        assertThat(client.connectedUri()).isEqualTo(uri(a));
        plain(again).send(Message.of("/queue/prio", "on A")).join();
        assertThat(s.receive(WAIT).bodyAsString()).as("subscription moved along").isEqualTo("on A");
        assertThat(client.send(persistent("/queue/prio.out", "x")).brokerUri()).isEqualTo(uri(a));
    }

    @Test
    void shouldPreferThePriorityUrisOverTheListOrder() throws Exception {
        Broker a = startBroker();
        Broker b = startBroker();
        FailoverClient client = connect(ordered(uri(a), uri(b)).priorityBackup(true).priorityURIs(List.of(uri(b))).build());
        assertThat(client.connectedUri()).as("B is the priority broker").isEqualTo(uri(b));

        b.close();
        await("on A while B is down").atMost(WAIT).until(() -> uri(a).equals(client.connectedUri()));
        restart(b);
        await("back on B").atMost(WAIT).until(() -> uri(b).equals(client.connectedUri()));
    }

    @Test
    void shouldStayOnTheBrokerItFailedOverToWithoutPriorityBackup() throws Exception {
        Broker a = startBroker();
        Broker b = startBroker();
        a.close();
        Events events = new Events();
        FailoverClient client = connect(ordered(uri(a), uri(b)).build(), events);
        restart(a);
        await("stays on B").during(Duration.ofMillis(500)).atMost(WAIT).until(() -> uri(b).equals(client.connectedUri()));
        assertThat(events.of(FailoverEvent.Switched.class)).isEmpty();
    }

    // ---------------------------------------------------------------- backup

    @Test
    void shouldFailOverToAReadyBackupConnectionWithoutConnectingAgain() throws Exception {
        FakeStompServer a = fake();
        FakeStompServer b = fake();
        Events events = new Events();
        DefaultFailoverClient client = connect(ordered(a.uri(), b.uri()).backup(true).build(), events,
                DefaultFailoverClient.Environment.system());
        await("backup to B ready").atMost(WAIT).until(() -> client.hasBackup(b.uri()));
        assertThat(b.acceptedConnections()).isEqualTo(1);

        a.close();

        FailoverEvent.Connected onB = events.await(FailoverEvent.Connected.class, FailoverEvent.Connected::reconnect);
        assertThat(onB.uri()).isEqualTo(b.uri());
        assertThat(b.acceptedConnections()).as("the backup connection was used").isEqualTo(1);
        assertThat(client.send(Message.of("/queue/b", "x")).brokerUri()).isEqualTo(b.uri());
    }

    @Test
    void shouldKeepBackupPoolSizeBackupConnections() throws Exception {
        FakeStompServer a = fake();
        FakeStompServer b = fake();
        FakeStompServer c = fake();
        FakeStompServer d = fake();
        DefaultFailoverClient client = connect(ordered(a.uri(), b.uri(), c.uri(), d.uri()).backup(true).backupPoolSize(2).build(),
                null, DefaultFailoverClient.Environment.system());

        await("two backups").atMost(WAIT).until(() -> client.hasBackup(b.uri()) && client.hasBackup(c.uri()));
        assertThat(d.acceptedConnections()).as("no more than backupPoolSize").isZero();

        b.close();
        await("the lost backup replaced by one to D").atMost(WAIT).until(() -> client.hasBackup(d.uri()));
        assertThat(client.hasBackup(c.uri())).isTrue();
        assertThat(client.connectedUri()).isEqualTo(a.uri());
    }

    @Test
    void shouldOpenNoBackupConnectionByDefault() throws Exception {
        FakeStompServer a = fake();
        FakeStompServer b = fake();
        FailoverClient client = connect(ordered(a.uri(), b.uri()).build());
        client.send(Message.of("/queue/a", "x"));
        await("no connection to B").during(Duration.ofMillis(300)).atMost(WAIT).until(() -> b.acceptedConnections() == 0);
    }

    // ---------------------------------------------------------------- auditDepth

    @Test
    void shouldDropACopyOfAProducersNumberedMessageWhateverTheAuditDepth() throws Exception {
        Map<String, String> vouched = Map.of(io.fedbridge.core.FederationHeaders.VOUCHED_IDS, "true");
        assertThat(handedCopies(vouched, FailoverConfig.DEFAULT_AUDIT_DEPTH, "p:1", "p:2")).containsExactly("m1", "m2");
        assertThat(handedCopies(vouched, 1, "p:1", "p:2")).as("p:1 and p:2 are one range: the copy of m1 dropped")
                .containsExactly("m1", "m2");
        assertThat(handedCopies(vouched, 1, "p:1", "q:1")).as("two streams, one range remembered: m1 forgotten")
                .containsExactly("m1", "m2", "m1");
    }

    @Test
    void shouldFallBackToTheLastAuditDepthMessageIdsOnABrokerThatDoesNotVouchForIds() throws Exception {
        // A foreign broker: ids of one connection, remembered one by one, the last auditDepth of them.
        assertThat(handedCopies(Map.of(), FailoverConfig.DEFAULT_AUDIT_DEPTH, "id-1", "id-2")).containsExactly("m1", "m2");
        assertThat(handedCopies(Map.of(), 1, "id-1", "id-2")).as("m1 forgotten after m2: its copy handed out")
                .containsExactly("m1", "m2", "m1");
    }

    /**
     * Delivers m1, m2, then m1 again over one connection, each acknowledged and confirmed; with vouched ids the
     * messages carry {@code fedbridge-id}s {@code id1}, {@code id2}, else {@code message-id}s; returns what was handed.
     */
    private List<String> handedCopies(Map<String, String> connected, int auditDepth, String id1, String id2) throws Exception {
        FakeStompServer f = fake();
        f.connectedHeaders = connected;
        FailoverClient client = connect(ordered(f.uri()).auditDepth(auditDepth).build());
        List<String> handed = new java.util.concurrent.CopyOnWriteArrayList<>();
        client.subscribe(SubscriptionRequest.builder("/queue/audit").ackMode(io.fedbridge.core.AckMode.CLIENT_INDIVIDUAL).build(), m -> {
            handed.add(m.bodyAsString());
            m.ack();
        });
        FakeStompServer.Frame sub = f.next("SUBSCRIBE", WAIT);
        String idHeader = connected.isEmpty() ? "message-id" : io.fedbridge.core.FederationHeaders.FEDERATION_ID;
        for (String[] m : new String[][] {{id1, "m1"}, {id2, "m2"}, {id1, "m1"}}) {
            sub.session().message(sub.header("id"), "/queue/audit", Map.of(idHeader, m[0]), m[1]);
            assertThat(f.next("ACK", WAIT)).as("acknowledged").isNotNull();
            // A fence: the broker answers in order, so once this send is receipted the ACK's receipt was processed too
            // (an id whose ACK is not confirmed yet is kept whatever the depth).
            client.send(Message.of("/queue/fence", "x"));
        }
        client.close();
        return handed;
    }

    // ---------------------------------------------------------------- heart-beats

    @Test
    void shouldDropABrokerThatStopsHeartBeatingAndFailOver() throws Exception {
        FakeStompServer mute = fake();
        mute.connectedHeaders = Map.of("heart-beat", "100,0"); // promises a beat every 100 ms, never sends one
        FakeStompServer b = fake();
        Events events = new Events();
        FailoverClient client = connect(FailoverConfig.fromUri("failover:(" + mute.uri() + "," + b.uri()
                + ")?randomize=false&heartBeatSend=0&heartBeatReceive=100"), events);

        FailoverEvent.ConnectionLost lost = events.await(FailoverEvent.ConnectionLost.class, e -> true);
        assertThat(lost.uri()).isEqualTo(mute.uri());
        assertThat(lost.cause()).hasMessageContaining("heart-beat");
        await("on B").atMost(WAIT).until(() -> b.uri().equals(client.connectedUri()));
    }

    @Test
    void shouldNotWatchHeartBeatsWhenTurnedOff() throws Exception {
        FakeStompServer mute = fake();
        mute.connectedHeaders = Map.of("heart-beat", "100,0");
        FailoverClient client = connect(FailoverConfig.fromUri("failover:(" + mute.uri() + ")?heartBeatSend=0&heartBeatReceive=0"));
        await("still connected").during(Duration.ofMillis(600)).atMost(WAIT).until(client::isConnected);
    }

    // ---------------------------------------------------------------- nested and per-broker options

    @Test
    void shouldApplyNestedOptionsToEveryBrokerAndLetABrokerUriOverrideThem() throws Exception {
        FakeStompServer a = fake();
        FakeStompServer b = fake();
        FailoverClient client = connect(FailoverConfig.fromUri("failover:(" + a.uri() + "?login=special," + b.uri()
                + ")?randomize=false&nested.login=app&nested.passcode=secret&nested.host=vhost&clientId=c7"
                + "&heartBeatSend=0&heartBeatReceive=0&initialReconnectDelay=10"));
        assertThat(client.config().toString()).doesNotContain("secret");
        Map<String, String> onA = a.sessions().get(0).connectHeaders;
        assertThat(onA).containsEntry("login", "special").containsEntry("passcode", "secret").containsEntry("host", "vhost")
                .containsEntry("client-id", "c7");

        a.close();
        await("on B").atMost(WAIT).until(() -> b.uri().equals(client.connectedUri()));
        Map<String, String> onB = b.sessions().get(0).connectHeaders;
        assertThat(onB).containsEntry("login", "app").containsEntry("passcode", "secret").containsEntry("client-id", "c7");
    }
}
