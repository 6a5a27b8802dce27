package io.fedbridge.discovery.multicast;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.fedbridge.core.bridge.FederationBridge;
import io.fedbridge.core.bridge.NetworkConnector;
import io.fedbridge.core.discovery.DiscoveryContext;
import io.fedbridge.core.discovery.PeerInfo;
import io.fedbridge.core.tls.TlsConfig;
import io.fedbridge.discovery.multicast.internal.Announcement;
import io.fedbridge.discovery.multicast.internal.AnnouncementCodec;
import io.fedbridge.discovery.multicast.internal.MulticastEndpoint;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.ServerSocket;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Signed multicast discovery on a real socket, on the loopback interface only (as {@link Loopback} arranges): agents
 * sharing a secret find each other; forged, stale and replayed datagrams sent by the test change nothing and are
 * counted. The one test about another interface never opens a socket on it.
 */
class SignedMulticastDiscoveryLoopbackTest {

    private static final Duration WAIT = Duration.ofSeconds(10);
    private static final String SECRET_TEXT = "loopback-test-secret-0123";
    private static final MulticastSecret SECRET = MulticastSecret.of(SECRET_TEXT);
    private static final AnnouncementCodec SIGNED = new AnnouncementCodec(SECRET);

    private final List<AutoCloseable> resources = new ArrayList<>();
    private Loopback net;

    @BeforeEach
    void pickAGroup() throws Exception {
        net = Loopback.random();
        resources.add(net);
    }

    @AfterEach
    void closeEverything() throws Exception {
        for (int i = resources.size() - 1; i >= 0; i--) {
            resources.get(i).close();
        }
    }

    private record Started(MulticastDiscoveryAgent agent, RecordingListener listener, PeerInfo self) {
    }

    private Started agent(String name, int port, MulticastDiscoveryConfig config) {
        ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
        resources.add(scheduler::shutdownNow);
        String id = UUID.randomUUID().toString();
        MulticastDiscoveryAgent agent = MulticastDiscoveryAgent.of(config, new DiscoveryContext(id, name,
                List.of("tcp://127.0.0.1:" + port), scheduler, Clock.systemUTC()));
        RecordingListener listener = new RecordingListener();
        resources.add(agent);
        agent.start(listener);
        return new Started(agent, listener, new PeerInfo("tcp://127.0.0.1:" + port, id, name));
    }

    private Started signed(String name, int port) {
        return agent(name, port, net.config().secret(SECRET).build());
    }

    private static Announcement alive(String group, String id, String uri) {
        return new Announcement(Announcement.Type.ALIVE, group, id, "forged-" + id, Duration.ofMillis(100), List.of(uri));
    }

    private static AnnouncementCodec.Seal sealAt(long millis, long sequence) {
        return new AnnouncementCodec.Seal(millis, 0x5eed, sequence);
    }

    @Test
    void shouldFindEachOtherWithTheSameSecret() {
        Started a = signed("a", 1001);
        Started b = signed("b", 1002);

        await("each discovers the other").atMost(WAIT)
                .until(() -> a.listener().peers().size() == 1 && b.listener().peers().size() == 1);
        assertThat(a.listener().peers()).containsExactly(b.self());
        assertThat(b.listener().peers()).containsExactly(a.self());
        await("own signed announcements come back and are ignored").atMost(WAIT)
                .until(() -> a.agent().stats().ownDatagrams() > 0);
        assertThat(a.agent().stats().rejectedDatagrams()).isZero();
        assertThat(a.agent().stats().replayedDatagrams()).isZero();
    }

    @Test
    void shouldNotFindAgentsWithAnotherSecretOrNone() {
        Started a = signed("a", 1001);
        Started other = agent("other", 1002, net.config().secret("another-secret-entirely").build());
        Started unsigned = agent("unsigned", 1003, net.config().build());

        await("each hears the others and counts them").atMost(WAIT).until(() ->
                a.agent().stats().badSignatureDatagrams() > 3 && a.agent().stats().unsignedDatagrams() > 3
                        && unsigned.agent().stats().badSignatureDatagrams() > 3
                        && other.agent().stats().unsignedDatagrams() > 3);
        assertThat(a.listener().events()).isEmpty();
        assertThat(other.listener().events()).isEmpty();
        assertThat(unsigned.listener().events()).isEmpty();
    }

    @Test
    void shouldIgnoreAndCountForgedStaleAndReplayedDatagrams() throws Exception {
        Started a = signed("a", 1001);
        AnnouncementCodec wrongSecret = new AnnouncementCodec(MulticastSecret.of("loopback-test-secret-0124"));
        long now = System.currentTimeMillis();

        net.send(new AnnouncementCodec(null).encode(alive(net.group, "unsigned", "tcp://127.0.0.1:2001"), null));
        net.send(wrongSecret.encode(alive(net.group, "wrong", "tcp://127.0.0.1:2002"), sealAt(now, 1)));
        net.send(SIGNED.encode(alive(net.group, "stale", "tcp://127.0.0.1:2003"), sealAt(now - 120_000, 1)));
        net.send(SIGNED.encode(alive(net.group, "future", "tcp://127.0.0.1:2004"), sealAt(now + 120_000, 1)));
        byte[] recorded = SIGNED.encode(alive(net.group, "recorded", "tcp://127.0.0.1:2005"), sealAt(now, 1));
        net.send(recorded);
        await("the genuine datagram is taken").atMost(WAIT)
                .until(() -> a.listener().events().contains("discovered tcp://127.0.0.1:2005"));
        net.send(SIGNED.encode(alive(net.group, "recorded", "tcp://127.0.0.1:2005").withType(Announcement.Type.DEAD),
                sealAt(now, 2)));
        await().atMost(WAIT).until(() -> a.listener().events().contains("lost tcp://127.0.0.1:2005"));

        net.send(recorded);   // a recorded heartbeat, replayed to bring the departed broker back

        await("every forgery counted").atMost(WAIT).until(() -> a.agent().stats().replayedDatagrams() == 1);
        MulticastDiscoveryStats stats = a.agent().stats();
        assertThat(stats.unsignedDatagrams()).isEqualTo(1);
        assertThat(stats.badSignatureDatagrams()).isEqualTo(1);
        assertThat(stats.staleDatagrams()).isEqualTo(2);
        assertThat(a.listener().events()).containsExactly("discovered tcp://127.0.0.1:2005", "lost tcp://127.0.0.1:2005");
        assertThat(a.agent().peers()).isEmpty();
    }

    @Test
    void shouldTakeOnAtMostMaxPeers() {
        Started capped = agent("capped", 1001, net.config().secret(SECRET).maxPeers(1).build());
        signed("b", 1002);
        signed("c", 1003);

        await("the others keep announcing and are turned away").atMost(WAIT)
                .until(() -> capped.agent().stats().overMaxPeersDatagrams() > 5);
        assertThat(capped.agent().peers()).hasSize(1);
        assertThat(capped.listener().events()).hasSize(1);
    }

    @Test
    void shouldBridgeToAnAnnouncedSslUriWithTheConnectorsTlsSettingsNotTheAnnouncedOnes() throws Exception {
        // Both ends accept connections and never answer, so the bridge stays CONNECTING long enough to look at.
        try (ServerSocket local = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
             ServerSocket peer = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            String connectorUri = net.uri() + "&secret=" + SECRET_TEXT + "&verifyHostName=true&enabledProtocols=TLSv1.3";
            NetworkConnector nc = NetworkConnector.start(connectorUri, NetworkConnector.Local.of(
                    "tcp://127.0.0.1:" + local.getLocalPort(), UUID.randomUUID().toString(), "tls-a", List.of()));
            resources.add(nc);
            TlsConfig connectorTls = TlsConfig.builder().verifyHostName(true).enabledProtocols(List.of("TLSv1.3")).build();
            String announced = "ssl://127.0.0.1:" + peer.getLocalPort()
                    + "?verifyHostName=false&enabledProtocols=TLSv1.2&trustStoreType=JKS";

            net.send(SIGNED.encode(alive(net.group, "tls-b", announced), sealAt(System.currentTimeMillis(), 1)));

            await("a bridge to the announced peer").atMost(WAIT).until(() -> !nc.bridges().isEmpty());
            FederationBridge bridge = nc.bridges().get(0);
            assertThat(bridge.config().remoteUri()).isEqualTo("ssl://127.0.0.1:" + peer.getLocalPort());
            assertThat(bridge.config().tls()).isEqualTo(connectorTls);
            assertThat(nc.uri().toString()).as("the secret is masked where the URI is shown")
                    .doesNotContain(SECRET_TEXT).contains("secret=*****");
        }
    }

    @Test
    void shouldRefuseAnotherInterfaceWithoutASecretBeforeOpeningAnything() throws Exception {
        NetworkInterface nic = firstNonLoopbackInterface();
        assumeTrue(nic != null, "no interface other than loopback with an IPv4 address is up here");
        // Were the check missing, nothing could leave this machine anyway: TTL 0, not joining (no IGMP), not announcing
        // to anyone but this host.
        MulticastDiscoveryConfig.Builder onNic = net.config().timeToLive(0).discover(false);
        for (String spec : List.of(nic.getName(), MulticastEndpoint.ipv4Address(nic).getHostAddress())) {
            MulticastDiscoveryAgent agent = MulticastDiscoveryAgent.of(onNic.networkInterface(spec).build(),
                    new DiscoveryContext("id", "a", List.of("tcp://127.0.0.1:1"), Executors.newSingleThreadScheduledExecutor(),
                            Clock.systemUTC()));
            resources.add(agent);

            assertThatThrownBy(() -> agent.start(new RecordingListener())).isInstanceOf(MulticastDiscoveryException.class)
                    .hasMessageContaining("cannot start: multicast discovery on interface " + nic.getName()
                            + " needs secret= or secretFile=: without one, anyone on that network can make this broker "
                            + "bridge to a URI of their choice");
            assertThat(agent.stats().announcementsSent()).isZero();
        }
    }

    private static NetworkInterface firstNonLoopbackInterface() throws Exception {
        for (NetworkInterface nic : Collections.list(NetworkInterface.getNetworkInterfaces())) {
            if (nic.isUp() && !nic.isLoopback() && MulticastEndpoint.ipv4Address(nic) != null) {
                return nic;
            }
        }
        return null;
    }

    @Test
    void shouldKeepWorkingWithoutASecretOnLoopback() {
        Started a = agent("a", 1001, net.config().build());
        Started b = agent("b", 1002, net.config().networkInterface("127.0.0.1").build());

        await().atMost(WAIT).until(() -> a.listener().peers().size() == 1 && b.listener().peers().size() == 1);
    }
}
