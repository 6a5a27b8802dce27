package io.fedbridge.broker.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fedbridge.broker.Broker;
import io.fedbridge.broker.BrokerConfig;
import io.fedbridge.broker.DestinationPolicy;
import io.fedbridge.broker.cluster.DestinationDefinition;
import io.fedbridge.core.Message;
import io.fedbridge.core.StompConnection;
import io.fedbridge.core.bridge.BridgeState;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Destinations defined federation-wide on a ring of four brokers over TCP, each with its data directory: a definition
 * made on one reaches all four with its policy, survives restarts, is deleted everywhere, reaches a broker that was
 * down, and conflicting changes end at the documented winner on every broker.
 */
class ClusterDestinationsIT {

    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final String FAST = "initialReconnectDelay=50&maxReconnectDelay=300&heartBeat=1000";

    @TempDir
    Path dir;

    private final Broker[] ring = new Broker[4];
    private final int[] ports = new int[4];

    @AfterEach
    void stopAll() {
        for (Broker b : ring) {
            if (b != null) {
                b.close();
            }
        }
    }

    private Broker start(int i, boolean linked) {
        BrokerConfig.Builder c = BrokerConfig.builder("ring" + i).dataDirectory(dir.resolve("ring" + i)).ioThreads(1)
                .listen("tcp://127.0.0.1:" + ports[i]);
        if (linked) {
            c.networkConnector(connector(i));
        }
        Broker b = Broker.start(c.build());
        ports[i] = URI.create(b.connectUris().get(0)).getPort();
        ring[i] = b;
        return b;
    }

    /** Broker i links to broker i+1, both ways over one connection. */
    private String connector(int i) {
        return "static:(tcp://127.0.0.1:" + ports[(i + 1) % 4] + ")?duplex=true&" + FAST;
    }

    /** Starts four brokers, then links them into a ring (ports are known only once each has bound port 0). */
    private void startRing() {
        for (int i = 0; i < 4; i++) {
            start(i, false);
        }
        link();
    }

    private void link() {
        for (int i = 0; i < 4; i++) {
            ring[i].addNetworkConnector(connector(i));
        }
        awaitRingUp();
    }

    private void awaitRingUp() {
        for (Broker b : ring) {
            await(b.name() + " has its bridge up").atMost(WAIT)
                    .until(() -> b.bridges().stream().filter(s -> s.state() == BridgeState.UP).count() == 1);
        }
    }

    private void restart(int i) {
        ring[i].close();
        start(i, true);
    }

    private static DestinationPolicy policy(String name, long maxNumMsgs) {
        return DestinationPolicy.builder(name).maxNumMsgs(maxNumMsgs).maxNumActiveConsumers(1).consumerFlowLimit(50).build();
    }

    private void awaitDefinedEverywhere(DestinationPolicy p) {
        for (Broker b : ring) {
            await(p.pattern() + " defined on " + b.name() + " as " + p).atMost(WAIT).until(() -> b.cluster()
                    .definition(p.pattern()).filter(DestinationDefinition::isDefined).map(DestinationDefinition::policy)
                    .filter(p::equals).isPresent());
            if (p.pattern().startsWith("/queue/")) {
                await(p.pattern() + " exists on " + b.name()).atMost(WAIT).until(() -> b.queue(p.pattern()) != null);
            }
        }
    }

    private void awaitDeletedEverywhere(String name) {
        for (Broker b : ring) {
            await(name + " deleted on " + b.name()).atMost(WAIT).until(() -> b.cluster().definition(name)
                    .map(DestinationDefinition::deleted).orElse(false) && b.queue(name) == null);
        }
    }

    /** Sends {@code n} persistent messages to {@code queue} on {@code b}; how many the broker refused. */
    private static int refusedOf(Broker b, String queue, int n) throws Exception {
        int refused = 0;
        try (StompConnection c = StompConnection.connect(b.connectUris().get(0))) {
            for (int i = 0; i < n; i++) {
                try {
                    c.send(Message.builder(queue).body("m" + i).persistent(true).build()).get();
                } catch (ExecutionException e) {
                    refused++;
                    break; // an ERROR closes the connection
                }
            }
        }
        return refused;
    }

    @Test
    void shouldDefineOnOneBrokerOfARingAndHaveItWithItsPolicyOnAllFourAcrossRestartsUntilDeleted() throws Exception {
        startRing();
        DestinationPolicy p = policy("/queue/cluster.orders", 3);
        ring[0].cluster().define(p);
        awaitDefinedEverywhere(p);
        // The policy holds on a broker that never saw the management call: the 4th message is refused there.
        assertThat(refusedOf(ring[2], p.pattern(), 4)).isEqualTo(1);
        assertThat(ring[2].queue(p.pattern()).pending()).isEqualTo(3);

        for (int i = 0; i < 4; i++) {
            restart(i);
        }
        awaitRingUp();
        awaitDefinedEverywhere(p);
        assertThat(ring[2].queue(p.pattern()).pending()).as("messages kept across the restart").isEqualTo(3);

        assertThat(ring[1].cluster().delete(p.pattern())).isTrue();
        awaitDeletedEverywhere(p.pattern());
        restart(3);
        awaitRingUp();
        assertThat(ring[3].cluster().definition(p.pattern()).orElseThrow().deleted()).as("the deletion survives a restart").isTrue();
        assertThat(ring[3].queue(p.pattern())).isNull();
    }

    @Test
    void shouldBringABrokerThatWasDownDuringTheChangesUpToDate() {
        startRing();
        DestinationPolicy gone = policy("/queue/cluster.gone", 10);
        ring[0].cluster().define(gone);
        awaitDefinedEverywhere(gone);

        ring[2].close();
        DestinationPolicy created = policy("/queue/cluster.created", 20);
        ring[0].cluster().define(created);
        ring[3].cluster().delete(gone.pattern());
        DestinationPolicy topic = DestinationPolicy.builder("/topic/cluster.prices").consumerFlowLimit(10).build();
        ring[1].cluster().define(topic);
        for (int i : new int[] {0, 1, 3}) {
            int n = i;
            await("broker " + n + " has the changes").atMost(WAIT).until(() -> ring[n].cluster().definition(created.pattern()).isPresent()
                    && ring[n].cluster().definition(gone.pattern()).orElseThrow().deleted()
                    && ring[n].cluster().definition(topic.pattern()).isPresent());
        }

        start(2, true);
        awaitRingUp();
        Broker back = ring[2];
        await("the broker that was down gets the definition made meanwhile").atMost(WAIT)
                .until(() -> back.cluster().definition(created.pattern()).filter(DestinationDefinition::isDefined).isPresent());
        assertThat(back.cluster().definition(created.pattern()).orElseThrow().policy()).isEqualTo(created);
        assertThat(back.queue(created.pattern())).isNotNull();
        await("and the deletion").atMost(WAIT).until(() -> back.cluster().definition(gone.pattern()).orElseThrow().deleted());
        assertThat(back.queue(gone.pattern())).isNull();
        await("and the topic's").atMost(WAIT).until(() -> back.cluster().definition(topic.pattern()).isPresent());
    }

    @Test
    void shouldSettleConcurrentConflictingChangesOnTheDocumentedWinnerEverywhere() {
        for (int i = 0; i < 4; i++) {
            start(i, false); // four brokers that cannot see each other: every change below is concurrent with the others
        }
        // /queue/tie: defined on 0 and on 2 with counter 1 each: the greater broker id wins.
        DestinationPolicy on0 = policy("/queue/cluster.tie", 100);
        DestinationPolicy on2 = policy("/queue/cluster.tie", 200);
        DestinationDefinition d0 = ring[0].cluster().define(on0);
        DestinationDefinition d2 = ring[2].cluster().define(on2);
        assertThat(d0.version().counter()).isEqualTo(d2.version().counter());
        DestinationPolicy tieWinner = ring[0].id().compareTo(ring[2].id()) > 0 ? on0 : on2;
        // /queue/later: defined on 3 once, on 1 twice (counter 2): 1's second definition wins whatever the ids.
        ring[3].cluster().define(policy("/queue/cluster.later", 300));
        ring[1].cluster().define(policy("/queue/cluster.later", 400));
        DestinationPolicy laterWinner = policy("/queue/cluster.later", 401);
        ring[1].cluster().define(laterWinner);
        // /queue/undone: defined on 0, defined and deleted on 3 (counter 2): deleted wins.
        ring[0].cluster().define(policy("/queue/cluster.undone", 500));
        ring[3].cluster().define(policy("/queue/cluster.undone", 600));
        ring[3].cluster().delete("/queue/cluster.undone");

        link();
        awaitDefinedEverywhere(tieWinner);
        awaitDefinedEverywhere(laterWinner);
        awaitDeletedEverywhere("/queue/cluster.undone");
        for (Broker b : ring) {
            assertThat(b.cluster().definition(tieWinner.pattern()).map(DestinationDefinition::version))
                    .isEqualTo(Optional.of((tieWinner == on0 ? d0 : d2).version()));
        }
    }

    @Test
    void shouldLetTheFederationsDefinitionBeatAConfigurationFileAndWarnNamingBoth() throws Exception {
        DestinationPolicy inFile = policy("/queue/cluster.configured", 5);
        Broker x = Broker.start(BrokerConfig.builder("cfg-X").listen("tcp://127.0.0.1:0").ioThreads(1).build());
        ring[0] = x;
        DestinationPolicy federation = policy("/queue/cluster.configured", 9);
        x.cluster().define(federation);
        java.io.ByteArrayOutputStream err = new java.io.ByteArrayOutputStream();
        java.io.PrintStream saved = System.err;
        System.setErr(new java.io.PrintStream(err, true, java.nio.charset.StandardCharsets.UTF_8));
        try {
            Broker y = Broker.start(BrokerConfig.builder("cfg-Y").listen("tcp://127.0.0.1:0").ioThreads(1).destination(inFile)
                    .networkConnector("static:(" + x.connectUris().get(0) + ")?duplex=true&" + FAST).build());
            ring[1] = y;
            await("the federation's definition wins on Y").atMost(WAIT).until(() -> y.cluster().definition(inFile.pattern())
                    .map(d -> d.policy().equals(federation)).orElse(false));
            try {
                await("Y says so").atMost(WAIT).until(() -> err.toString(java.nio.charset.StandardCharsets.UTF_8)
                        .contains("broker cfg-Y: its configuration's [destination /queue/cluster.configured] says maxNumMsgs=5, but the "
                                + "federation's definition of /queue/cluster.configured (version 1:" + x.id() + ") says maxNumMsgs=9"));
            } catch (org.awaitility.core.ConditionTimeoutException e) {
                throw new AssertionError("Y's log:\n" + err.toString(java.nio.charset.StandardCharsets.UTF_8), e);
            }
        } finally {
            System.setErr(saved);
        }
        assertThat(x.cluster().definition(inFile.pattern()).orElseThrow().policy()).isEqualTo(federation);
    }

    @Test
    void shouldRefuseDefinitionsFromOrdinaryClientsAndBadNames() throws Exception {
        start(0, false);
        try (RawStomp client = RawStomp.connectTo(ring[0].connectUris().get(0))) {
            client.handshake();
            client.write("SEND\ndestination:/topic/fedbridge.advisory.definitions\nfedbridge-definition:/queue/forged\n"
                    + "fedbridge-definition-version:99:ffffffff-ffff-ffff-ffff-ffffffffffff\n\nmaxNumMsgs=1\n\0");
            RawStomp.Frame f = client.read();
            assertThat(f.command()).isEqualTo("ERROR");
            assertThat(f.header("message")).contains("advisory topics are written by the federation's brokers");
        }
        assertThat(ring[0].cluster().definition("/queue/forged")).isEmpty();
        assertThatThrownBy(() -> ring[0].cluster().define(DestinationPolicy.builder("/queue/orders.>").build()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("destination must be a queue or topic name without wildcards");
    }
}
