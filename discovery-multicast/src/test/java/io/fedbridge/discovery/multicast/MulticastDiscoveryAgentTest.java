package io.fedbridge.discovery.multicast;

import io.fedbridge.core.testing.ManualScheduler;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fedbridge.core.ReconnectConfig;
import io.fedbridge.core.discovery.DiscoveryContext;
import io.fedbridge.core.discovery.PeerInfo;
import io.fedbridge.discovery.multicast.internal.Announcement;
import io.fedbridge.discovery.multicast.internal.AnnouncementCodec;
import io.fedbridge.discovery.multicast.internal.AnnouncementHandler;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/** The agent's logic on a fake network and a test-driven clock: every step is deterministic. */
class MulticastDiscoveryAgentTest {

    private static final String SELF_ID = "id-self";
    private static final InetSocketAddress FROM_B = new InetSocketAddress("10.0.0.2", 6155);
    private static final String B_URI = "tcp://10.0.0.2:61613";
    private static final Exception REFUSED = new ConnectException("Connection refused");

    /** Heartbeat 100 ms, expiry 3; reconnect after 100, 200, 400, 800, 1000 ms; a link must last 5 s to be healthy. */
    private static final MulticastDiscoveryConfig FAST = MulticastDiscoveryConfig.builder()
            .group("g").heartbeatInterval(Duration.ofMillis(100)).expiry(3)
            .reconnect(ReconnectConfig.builder().initialReconnectDelay(Duration.ofMillis(100))
                    .maxReconnectDelay(Duration.ofSeconds(1)).minConnectTime(Duration.ofSeconds(5)).build())
            .build();

    private final ManualScheduler scheduler = new ManualScheduler();
    private final RecordingListener listener = new RecordingListener();
    private final FakeTransport network = new FakeTransport();

    /** Records what the agent sends; {@link #sink} feeds it datagrams. */
    private static final class FakeTransport implements MulticastDiscoveryAgent.TransportFactory, MulticastDiscoveryAgent.Transport {
        final List<String> sent = new CopyOnWriteArrayList<>();
        volatile AnnouncementHandler.Sink sink;
        volatile boolean closed;
        volatile IOException failure;

        @Override
        public MulticastDiscoveryAgent.Transport open(AnnouncementHandler.Sink s) throws IOException {
            if (failure != null) {
                throw failure;
            }
            sink = s;
            return this;
        }

        @Override
        public void send(byte[] datagram) {
            sent.add(new String(datagram, StandardCharsets.UTF_8));
        }

        @Override
        public void sendAndWait(byte[] datagram) {
            send(datagram);
        }

        @Override
        public void close() {
            closed = true;
        }

        long sentOfType(String type) {
            return sent.stream().filter(s -> s.startsWith("FEDBRIDGE1 " + type + " ")).count();
        }
    }

    private DiscoveryContext context() {
        return new DiscoveryContext(SELF_ID, "self", List.of("tcp://10.0.0.1:61613"), scheduler, scheduler.clock());
    }

    private MulticastDiscoveryAgent started(MulticastDiscoveryConfig config) {
        MulticastDiscoveryAgent agent = MulticastDiscoveryAgent.create(config, context(), network);
        agent.start(listener);
        scheduler.runDue();
        return agent;
    }

    private static Announcement alive(String group, String id, String uri, long heartbeatMillis) {
        return new Announcement(Announcement.Type.ALIVE, group, id, "broker-" + id, Duration.ofMillis(heartbeatMillis),
                List.of(uri));
    }

    /** Hands {@code a} to the agent as an unsigned datagram from B, and runs what it scheduled. */
    private void hear(Announcement a) {
        receive(a);
        scheduler.runDue();
    }

    private void receive(Announcement a) {
        network.sink.received(ByteBuffer.wrap(new AnnouncementCodec(null).encode(a, null)), FROM_B);
    }

    private void hearB() {
        hear(alive("g", "id-b", B_URI, 100));
    }

    private PeerInfo peerB() {
        return new PeerInfo(B_URI, "id-b", "broker-id-b");
    }

    // ---------------------------------------------------------------------------------------------
    // Announcing

    @Test
    void shouldAnnounceAtStartAndThenEveryHeartbeatInterval() {
        started(FAST);
        assertThat(network.sent).containsExactly("FEDBRIDGE1 ALIVE g id-self self 100 tcp://10.0.0.1:61613");

        scheduler.advance(Duration.ofMillis(350));

        assertThat(network.sentOfType("ALIVE")).isEqualTo(4);
    }

    @Test
    void shouldAnnounceDepartureOnCloseAndNothingAfter() {
        MulticastDiscoveryAgent agent = started(FAST);
        hearB();
        listener.clear();
        network.sent.clear();

        agent.close();
        scheduler.advance(Duration.ofSeconds(5));
        receive(alive("g", "id-c", "tcp://10.0.0.3:1", 100));
        scheduler.runDue();

        assertThat(network.sent).containsOnly("FEDBRIDGE1 DEAD g id-self self 100 tcp://10.0.0.1:61613");
        assertThat(network.closed).isTrue();
        assertThat(listener.events()).as("no listener call after close, not even a loss").isEmpty();
        agent.close(); // idempotent
    }

    @Test
    void shouldAnswerANewPeerAtOnceSoThatANewcomerNeedNotWaitAHeartbeat() {
        started(FAST);
        network.sent.clear();

        hearB();
        assertThat(network.sentOfType("ALIVE")).isEqualTo(1);
        hearB();
        assertThat(network.sentOfType("ALIVE")).as("a known peer is not answered").isEqualTo(1);
    }

    @Test
    void shouldNotAnnounceWithAdvertiseOff() {
        started(FAST.toBuilder().advertise(false).build());
        hearB();
        scheduler.advance(Duration.ofSeconds(1));

        assertThat(network.sent).isEmpty();
        assertThat(listener.events()).containsExactly("discovered " + B_URI, "lost " + B_URI);
    }

    @Test
    void shouldAnnounceButNotDiscoverWithDiscoverOff() {
        MulticastDiscoveryAgent agent = started(FAST.toBuilder().discover(false).build());
        hearB();

        assertThat(listener.events()).isEmpty();
        assertThat(agent.peers()).isEmpty();
        assertThat(network.sentOfType("ALIVE")).isEqualTo(1);
    }

    @Test
    void shouldAnnounceOnlyTcpAndSslUris() {
        MulticastDiscoveryAgent agent = MulticastDiscoveryAgent.create(FAST, new DiscoveryContext(SELF_ID, "self",
                List.of("vm://self", "tcp://10.0.0.1:61613", "ssl://10.0.0.1:61614"), scheduler, scheduler.clock()), network);
        agent.start(listener);
        scheduler.runDue();

        assertThat(network.sent).containsExactly(
                "FEDBRIDGE1 ALIVE g id-self self 100 tcp://10.0.0.1:61613,ssl://10.0.0.1:61614");
    }

    // ---------------------------------------------------------------------------------------------
    // Discovering

    @Test
    void shouldDiscoverAPeerOnceWithItsIdAndName() {
        MulticastDiscoveryAgent agent = started(FAST);

        hearB();
        hearB();
        scheduler.advance(Duration.ofMillis(250));
        hearB();

        assertThat(listener.events()).containsExactly("discovered " + B_URI);
        assertThat(listener.peers()).containsExactly(peerB());
        assertThat(agent.peers()).containsExactly(peerB());
        assertThat(agent.stats().peers()).isEqualTo(1);
    }

    @Test
    void shouldIgnoreItsOwnAnnouncementsAndOtherGroups() {
        MulticastDiscoveryAgent agent = started(FAST);

        hear(alive("g", SELF_ID, "tcp://10.0.0.1:61613", 100));
        hear(alive("g", SELF_ID, "tcp://10.0.0.9:61613", 100)); // a copy of this broker's id elsewhere: warned, ignored
        hear(alive("other", "id-b", B_URI, 100));
        hear(alive("G", "id-b", B_URI, 100));

        assertThat(listener.events()).isEmpty();
        MulticastDiscoveryStats stats = agent.stats();
        assertThat(stats.ownDatagrams()).isEqualTo(2);
        assertThat(stats.otherGroupDatagrams()).isEqualTo(2);
        assertThat(stats.datagramsReceived()).isEqualTo(4);
        assertThat(stats.peers()).isZero();
    }

    @Test
    void shouldCountMalformedDatagramsAndCarryOn() {
        MulticastDiscoveryAgent agent = started(FAST);
        hearB();

        for (int i = 0; i < 5; i++) {
            network.sink.received(ByteBuffer.wrap("not a fedbridge announcement".getBytes(StandardCharsets.UTF_8)), FROM_B);
        }
        scheduler.advance(Duration.ofMillis(200));
        hearB();

        assertThat(agent.stats().malformedDatagrams()).isEqualTo(5);
        assertThat(agent.stats().datagramsReceived()).isEqualTo(7);
        assertThat(listener.events()).containsExactly("discovered " + B_URI);
    }

    @Test
    void shouldLoseAPeerAtOnceWhenItDeparts() {
        MulticastDiscoveryAgent agent = started(FAST);
        hearB();

        hear(alive("g", "id-b", B_URI, 100).withType(Announcement.Type.DEAD));

        assertThat(listener.events()).containsExactly("discovered " + B_URI, "lost " + B_URI);
        assertThat(agent.peers()).isEmpty();
    }

    @Test
    void shouldRediscoverADepartedPeerThatComesBack() {
        started(FAST);
        hearB();
        hear(alive("g", "id-b", B_URI, 100).withType(Announcement.Type.DEAD));

        hearB();

        assertThat(listener.events()).containsExactly("discovered " + B_URI, "lost " + B_URI, "discovered " + B_URI);
    }

    @Test
    void shouldExpireAPeerAfterExpiryOfItsOwnHeartbeatIntervals() {
        started(FAST.toBuilder().heartbeatInterval(Duration.ofMillis(50)).build());
        hear(alive("g", "id-b", B_URI, 200)); // B announces every 200 ms: expires after 3 x 200 ms of silence

        scheduler.advance(Duration.ofMillis(590));
        assertThat(listener.events()).containsExactly("discovered " + B_URI);
        hear(alive("g", "id-b", B_URI, 200));
        scheduler.advance(Duration.ofMillis(590));
        assertThat(listener.events()).as("an announcement restarts the count").containsExactly("discovered " + B_URI);

        scheduler.advance(Duration.ofMillis(60));
        assertThat(listener.events()).containsExactly("discovered " + B_URI, "lost " + B_URI);
    }

    @Test
    void shouldNotHurryAReconnectWhenThePeerKeepsAnnouncing() {
        MulticastDiscoveryAgent agent = started(FAST);
        hearB();
        listener.clear();

        agent.peerFailed(peerB(), REFUSED);
        scheduler.runDue();
        scheduler.advance(Duration.ofMillis(90));
        hearB();
        assertThat(listener.events()).isEmpty();

        scheduler.advance(Duration.ofMillis(10));
        assertThat(listener.events()).containsExactly("discovered " + B_URI);

        agent.peerFailed(peerB(), REFUSED);
        scheduler.advance(Duration.ofMillis(199));
        hearB();
        assertThat(listener.count("discovered " + B_URI)).as("second retry after 200 ms").isEqualTo(1);
        scheduler.advance(Duration.ofMillis(1));
        assertThat(listener.count("discovered " + B_URI)).isEqualTo(2);
    }

    @Test
    void shouldStartBackOffAfreshAfterAHealthyLinkWentDown() {
        MulticastDiscoveryAgent agent = started(FAST);
        hearB();
        agent.peerFailed(peerB(), REFUSED);
        scheduler.advance(Duration.ofMillis(100));
        agent.peerFailed(peerB(), REFUSED);
        scheduler.advance(Duration.ofMillis(200));
        agent.peerConnected(peerB());
        for (int i = 0; i < 60; i++) {
            scheduler.advance(Duration.ofMillis(100));
            hearB();
        }
        listener.clear();

        agent.peerFailed(peerB(), REFUSED);
        scheduler.advance(Duration.ofMillis(100));

        assertThat(listener.events()).containsExactly("discovered " + B_URI);
    }

    @Test
    void shouldIgnoreADuplicateFailureReport() {
        MulticastDiscoveryAgent agent = started(FAST);
        hearB();
        listener.clear();

        agent.peerFailed(peerB(), REFUSED);
        agent.peerFailed(peerB(), REFUSED);
        scheduler.advance(Duration.ofMillis(100));

        assertThat(listener.events()).containsExactly("discovered " + B_URI);
    }

    @Test
    void shouldGiveUpAfterMaxReconnectAttemptsUntilThePeerAnnouncesItselfAnew() {
        MulticastDiscoveryAgent agent = started(FAST.toBuilder()
                .reconnect(FAST.reconnect().toBuilder().maxReconnectAttempts(2).build()).build());
        hearB();
        agent.peerFailed(peerB(), REFUSED);
        scheduler.advance(Duration.ofMillis(100));
        agent.peerFailed(peerB(), REFUSED);
        scheduler.runDue();
        assertThat(listener.events()).containsExactly("discovered " + B_URI, "discovered " + B_URI, "lost " + B_URI);

        for (int i = 0; i < 20; i++) {
            scheduler.advance(Duration.ofMillis(100));
            hearB();
        }
        assertThat(listener.events()).as("given up while it keeps announcing").hasSize(3);

        hear(alive("g", "id-b", B_URI, 100).withType(Announcement.Type.DEAD));
        assertThat(listener.events()).as("no second loss").hasSize(3);
        hearB();
        assertThat(listener.events()).last().isEqualTo("discovered " + B_URI);
    }

    @Test
    void shouldCancelARetryWhenThePeerDeparts() {
        MulticastDiscoveryAgent agent = started(FAST);
        hearB();
        agent.peerFailed(peerB(), REFUSED);

        hear(alive("g", "id-b", B_URI, 100).withType(Announcement.Type.DEAD));
        scheduler.advance(Duration.ofSeconds(2));

        assertThat(listener.events()).containsExactly("discovered " + B_URI, "lost " + B_URI);
    }

    @Test
    void shouldReplaceAPeerRestartedUnderANewIdOnTheSameUriLossFirst() {
        MulticastDiscoveryAgent agent = started(FAST);
        hearB();

        hear(alive("g", "id-b2", B_URI, 100));

        assertThat(listener.events()).containsExactly("discovered " + B_URI, "lost " + B_URI, "discovered " + B_URI);
        assertThat(listener.peers().get(1).brokerId()).isEqualTo("id-b");
        assertThat(listener.peers().get(2).brokerId()).isEqualTo("id-b2");
        agent.peerFailed(peerB(), REFUSED); // about the old incarnation: ignored
        scheduler.advance(Duration.ofMillis(250));
        assertThat(listener.events()).hasSize(3);
    }

    @Test
    void shouldReplaceAPeerThatAnnouncesAnotherUri() {
        started(FAST);
        hearB();

        hear(alive("g", "id-b", "tcp://10.0.0.2:7000", 100));

        assertThat(listener.events()).containsExactly("discovered " + B_URI, "lost " + B_URI,
                "discovered tcp://10.0.0.2:7000");
    }

    @Test
    void shouldReachAWildcardUriAtTheSendersAddress() {
        started(FAST);

        hear(alive("g", "id-b", "tcp://0.0.0.0:61613", 100));

        assertThat(listener.events()).containsExactly("discovered tcp://10.0.0.2:61613");
        assertThat(MulticastDiscoveryAgent.reachable("ssl://[::]:1", FROM_B)).isEqualTo("ssl://10.0.0.2:1");
        assertThat(MulticastDiscoveryAgent.reachable("tcp://10.9.9.9:1", FROM_B)).isEqualTo("tcp://10.9.9.9:1");
    }

    @Test
    void shouldNeverTryAPeerReportedAsSelfAgain() {
        MulticastDiscoveryAgent agent = started(FAST);
        hearB();
        agent.peerIsSelf(peerB());
        agent.peerFailed(peerB(), REFUSED);
        scheduler.advance(Duration.ofSeconds(1));
        hearB();
        hear(alive("g", "id-b", B_URI, 100).withType(Announcement.Type.DEAD));
        hearB();

        assertThat(listener.events()).containsExactly("discovered " + B_URI);
        assertThat(agent.peers()).isEmpty();
    }

    @Test
    void shouldRetryAsAfterAFailedConnectWhenTheListenerThrows() {
        MulticastDiscoveryAgent agent = MulticastDiscoveryAgent.create(FAST, context(), network);
        List<String> calls = new CopyOnWriteArrayList<>();
        agent.start(new io.fedbridge.core.discovery.DiscoveryListener() {
            @Override
            public void peerDiscovered(PeerInfo peer) {
                calls.add("discovered");
                if (calls.size() == 1) {
                    throw new IllegalStateException("boom");
                }
            }

            @Override
            public void peerLost(PeerInfo peer) {
                calls.add("lost");
            }
        });
        scheduler.runDue();
        hearB();
        scheduler.advance(Duration.ofMillis(100));

        assertThat(calls).containsExactly("discovered", "discovered");
    }

    // ---------------------------------------------------------------------------------------------
    // Lifecycle

    @Test
    void shouldFailToStartWithAClearMessageAndStayClosed() {
        network.failure = new IOException("cannot bind UDP 239.255.2.3:6155: Address already in use");
        MulticastDiscoveryAgent agent = MulticastDiscoveryAgent.create(FAST, context(), network);

        assertThatThrownBy(() -> agent.start(listener)).isInstanceOf(MulticastDiscoveryException.class)
                .hasMessage("multicast discovery of group 'g' on 239.255.2.3:6155 cannot start: "
                        + "cannot bind UDP 239.255.2.3:6155: Address already in use")
                .hasCause(network.failure);
        assertThatThrownBy(() -> agent.start(listener)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("is closed");
    }

    @Test
    void shouldRejectASecondStartAndReportsBeforeStart() {
        MulticastDiscoveryAgent agent = MulticastDiscoveryAgent.create(FAST, context(), network);
        assertThatThrownBy(() -> agent.peerFailed(peerB(), REFUSED)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("is not started");
        agent.start(listener);
        assertThatThrownBy(() -> agent.start(listener)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("already started");
    }

    @Test
    void shouldLetTheListenerCloseTheAgentFromInsideACall() {
        MulticastDiscoveryAgent agent = MulticastDiscoveryAgent.create(FAST, context(), network);
        List<String> calls = new CopyOnWriteArrayList<>();
        agent.start(new io.fedbridge.core.discovery.DiscoveryListener() {
            @Override
            public void peerDiscovered(PeerInfo peer) {
                calls.add("discovered " + peer.uri());
                agent.close();
            }

            @Override
            public void peerLost(PeerInfo peer) {
                calls.add("lost " + peer.uri());
            }
        });
        scheduler.runDue();
        receive(alive("g", "id-b", B_URI, 100));
        receive(alive("g", "id-c", "tcp://10.0.0.3:1", 100));
        scheduler.advance(Duration.ofSeconds(1));

        assertThat(calls).containsExactly("discovered " + B_URI);
        assertThat(network.closed).isTrue();
    }

    @Test
    void shouldRefuseToAnnounceAUriTooLongForADatagram() {
        DiscoveryContext huge = new DiscoveryContext(SELF_ID, "self",
                List.of("tcp://" + "a".repeat(2000) + ":61613"), scheduler, scheduler.clock());

        assertThatThrownBy(() -> MulticastDiscoveryAgent.create(FAST, huge, network))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("is too long to announce");
    }
}
