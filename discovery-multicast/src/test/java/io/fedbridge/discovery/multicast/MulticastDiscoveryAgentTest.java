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
import java.util.function.Supplier;
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
        public void send(Supplier<byte[]> sealer) {
            sent.add(new String(sealer.get(), StandardCharsets.UTF_8));
        }

        @Override
        public void sendAndWait(Supplier<byte[]> sealer) {
            send(sealer);
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
    // Signing, replays, the peer cap, announced options

    private static final MulticastSecret SECRET = MulticastSecret.of("s3cret-shared-by-the-group");
    private static final AnnouncementCodec SIGNED = new AnnouncementCodec(SECRET);
    private static final long B_SESSION = 0xb0b0b0b0L;

    private MulticastDiscoveryConfig signedFast() {
        return FAST.toBuilder().secret(SECRET).build();
    }

    /** Hands the agent a datagram made by {@code codec} (null: unsigned), sealed at {@code at} as {@code sequence}. */
    private void hearSealed(AnnouncementCodec codec, Announcement a, java.time.Instant at, long session, long sequence) {
        hearBytes(codec.encode(a, new AnnouncementCodec.Seal(at.toEpochMilli(), session, sequence)));
    }

    private void hearBytes(byte[] datagram) {
        network.sink.received(ByteBuffer.wrap(datagram), FROM_B);
        scheduler.runDue();
    }

    private void hearSignedB(long sequence) {
        hearSealed(SIGNED, alive("g", "id-b", B_URI, 100), scheduler.clock().instant(), B_SESSION, sequence);
    }

    @Test
    void shouldSignEveryDatagramWithATimestampASessionAndARisingSequence() {
        MulticastDiscoveryAgent agent = started(signedFast());
        scheduler.advance(Duration.ofMillis(100));
        agent.close();

        assertThat(network.sent).hasSize(4).allMatch(d -> d.startsWith("FEDBRIDGE2 "));
        List<AnnouncementCodec.Seal> seals = network.sent.stream()
                .map(d -> (AnnouncementCodec.Valid) SIGNED.decode(d.getBytes(StandardCharsets.UTF_8)))
                .map(AnnouncementCodec.Valid::seal).toList();
        assertThat(seals).extracting(AnnouncementCodec.Seal::sequence).containsExactly(1L, 2L, 3L, 4L);
        assertThat(seals).extracting(AnnouncementCodec.Seal::session).containsOnly(seals.get(0).session());
        assertThat(seals.get(1).timestampMillis()).isEqualTo(scheduler.clock().millis());
        assertThat(new AnnouncementCodec(null).decode(network.sent.get(0).getBytes(StandardCharsets.UTF_8)))
                .as("an agent without the secret cannot use it").isInstanceOf(AnnouncementCodec.Invalid.class);
    }

    @Test
    void shouldDiscoverAPeerSigningWithTheSameSecret() {
        MulticastDiscoveryAgent agent = started(signedFast());

        hearSignedB(1);
        scheduler.advance(Duration.ofMillis(100));
        hearSignedB(2);

        assertThat(listener.events()).containsExactly("discovered " + B_URI);
        assertThat(agent.stats().rejectedDatagrams()).isZero();
    }

    @Test
    void shouldIgnoreAndCountUnsignedAndBadlySignedDatagrams() {
        MulticastDiscoveryAgent agent = started(signedFast());
        AnnouncementCodec otherSecret = new AnnouncementCodec(MulticastSecret.of("s3cret-shared-by-the-grouP"));
        java.time.Instant now = scheduler.clock().instant();

        hear(alive("g", "id-b", B_URI, 100));                                        // unsigned (FEDBRIDGE1)
        hearSealed(otherSecret, alive("g", "id-c", "tcp://10.0.0.3:1", 100), now, 1, 1);
        String forged = new String(SIGNED.encode(alive("g", "id-d", "tcp://10.0.0.4:1", 100),
                new AnnouncementCodec.Seal(now.toEpochMilli(), 1, 1)), StandardCharsets.UTF_8);
        hearBytes(forged.replace("tcp://10.0.0.4:1", "tcp://10.6.6.6:1").getBytes(StandardCharsets.UTF_8));

        assertThat(listener.events()).isEmpty();
        assertThat(agent.peers()).isEmpty();
        MulticastDiscoveryStats stats = agent.stats();
        assertThat(stats.unsignedDatagrams()).isEqualTo(1);
        assertThat(stats.badSignatureDatagrams()).isEqualTo(2);
        assertThat(stats.datagramsReceived()).isEqualTo(3);
        assertThat(network.sentOfType("ALIVE")).as("nothing answered").isZero();
    }

    @Test
    void shouldIgnoreAndCountStaleDatagramsEitherSideOfTheClockSkew() {
        MulticastDiscoveryAgent agent = started(signedFast().toBuilder().maxClockSkew(Duration.ofSeconds(30)).build());
        java.time.Instant now = scheduler.clock().instant();
        Announcement b = alive("g", "id-b", B_URI, 100);

        hearSealed(SIGNED, b, now.minusSeconds(31), B_SESSION, 1);
        hearSealed(SIGNED, b, now.plusSeconds(31), B_SESSION, 2);
        assertThat(listener.events()).isEmpty();
        assertThat(agent.stats().staleDatagrams()).isEqualTo(2);

        hearSealed(SIGNED, b, now.minusSeconds(29), B_SESSION, 3);
        assertThat(listener.events()).as("within the skew").containsExactly("discovered " + B_URI);
    }

    @Test
    void shouldIgnoreAndCountReplayedDatagrams() {
        MulticastDiscoveryAgent agent = started(signedFast());
        byte[] departure = SIGNED.encode(alive("g", "id-b", B_URI, 100).withType(Announcement.Type.DEAD),
                new AnnouncementCodec.Seal(scheduler.clock().millis(), B_SESSION, 2));
        byte[] first = SIGNED.encode(alive("g", "id-b", B_URI, 100),
                new AnnouncementCodec.Seal(scheduler.clock().millis(), B_SESSION, 1));
        hearBytes(first);
        hearBytes(departure);
        assertThat(listener.events()).containsExactly("discovered " + B_URI, "lost " + B_URI);

        scheduler.advance(Duration.ofSeconds(5));
        hearBytes(first);                 // a recorded heartbeat, sent again to bring the departed broker back
        hearBytes(departure);

        assertThat(listener.events()).hasSize(2);
        assertThat(agent.stats().replayedDatagrams()).isEqualTo(2);
        assertThat(agent.peers()).isEmpty();
    }

    @Test
    void shouldTakeARestartedPeersNewSessionButNotReplaysOfItsOldOne() {
        MulticastDiscoveryAgent agent = started(signedFast());
        Announcement b = alive("g", "id-b", B_URI, 100);
        byte[] oldSession = SIGNED.encode(b, new AnnouncementCodec.Seal(scheduler.clock().millis(), B_SESSION, 41));
        hearBytes(oldSession);
        hearSealed(SIGNED, b.withType(Announcement.Type.DEAD), scheduler.clock().instant(), B_SESSION, 42);

        scheduler.advance(Duration.ofSeconds(2));
        hearSealed(SIGNED, b, scheduler.clock().instant(), B_SESSION + 1, 1);   // restarted: a new session from 1
        hearBytes(oldSession);

        assertThat(listener.events()).containsExactly("discovered " + B_URI, "lost " + B_URI, "discovered " + B_URI);
        assertThat(agent.stats().replayedDatagrams()).isEqualTo(1);
    }

    @Test
    void shouldIgnoreSignedDatagramsWithoutASecretAsItCannotCheckThem() {
        MulticastDiscoveryAgent agent = started(FAST);

        hearSignedB(1);

        assertThat(listener.events()).isEmpty();
        assertThat(agent.stats().badSignatureDatagrams()).isEqualTo(1);
    }

    @Test
    void shouldCountAnotherGroupsDatagramsAsOtherGroupWhateverItsSecret() {
        MulticastDiscoveryAgent agent = started(signedFast());
        AnnouncementCodec theirs = new AnnouncementCodec(MulticastSecret.of("another group, another secret"));

        hearSealed(theirs, alive("other", "id-b", B_URI, 100), scheduler.clock().instant(), 1, 1);
        hear(alive("other", "id-c", "tcp://10.0.0.3:1", 100));

        assertThat(agent.stats().otherGroupDatagrams()).isEqualTo(2);
        assertThat(agent.stats().rejectedDatagrams()).isZero();
    }

    @Test
    void shouldTakeOnNoMoreThanMaxPeersUntilOneLeaves() {
        MulticastDiscoveryAgent agent = started(FAST.toBuilder().maxPeers(2).build());
        hear(alive("g", "id-1", "tcp://10.0.0.11:1", 100));
        hear(alive("g", "id-2", "tcp://10.0.0.12:1", 100));
        network.sent.clear();

        hear(alive("g", "id-3", "tcp://10.0.0.13:1", 100));
        hear(alive("g", "id-3", "tcp://10.0.0.13:1", 100));
        hear(alive("g", "id-2", "tcp://10.0.0.12:1", 100));   // a known peer is still heard

        assertThat(agent.peers()).extracting(PeerInfo::brokerId).containsExactly("id-1", "id-2");
        assertThat(agent.stats().overMaxPeersDatagrams()).isEqualTo(2);
        assertThat(network.sentOfType("ALIVE")).as("a peer turned away is not answered").isZero();

        hear(alive("g", "id-1", "tcp://10.0.0.11:1", 100).withType(Announcement.Type.DEAD));
        hear(alive("g", "id-3", "tcp://10.0.0.13:1", 100));
        assertThat(agent.peers()).extracting(PeerInfo::brokerId).containsExactly("id-2", "id-3");
    }

    @Test
    void shouldUseAnAnnouncedUriWithoutItsOptionsSoThatTheConnectorsTlsSettingsApply() {
        MulticastDiscoveryAgent agent = started(signedFast());

        hearSealed(SIGNED, alive("g", "id-b", "ssl://10.0.0.2:61614?trustStore=/evil.p12&verifyHostName=false", 100),
                scheduler.clock().instant(), B_SESSION, 1);

        assertThat(listener.events()).containsExactly("discovered ssl://10.0.0.2:61614");
        assertThat(agent.peers()).extracting(PeerInfo::uri).containsExactly("ssl://10.0.0.2:61614");
    }

    @Test
    void shouldAnnounceItsOwnUrisWithoutTheirOptions() {
        MulticastDiscoveryAgent agent = MulticastDiscoveryAgent.create(FAST, new DiscoveryContext(SELF_ID, "self",
                List.of("ssl://10.0.0.1:61614?keyStore=/k.p12&keyStorePassword=hunter2"), scheduler, scheduler.clock()),
                network);
        agent.start(listener);
        scheduler.runDue();

        assertThat(network.sent).containsExactly("FEDBRIDGE1 ALIVE g id-self self 100 ssl://10.0.0.1:61614");
        hear(alive("g", SELF_ID, "ssl://10.0.0.1:61614", 100));
        assertThat(agent.stats().ownDatagrams()).isEqualTo(1);
    }

    @Test
    void shouldRefuseAnInterfaceOtherThanLoopbackWithoutASecretSayingWhyAndHowToFixIt() {
        assertThatThrownBy(() -> NettyTransports.requireSecretOffLoopback("eth0", false, null))
                .isInstanceOf(MulticastDiscoveryException.class)
                .hasMessageStartingWith("multicast discovery on interface eth0 needs secret= or secretFile=: without "
                        + "one, anyone on that network can make this broker bridge to a URI of their choice");
        NettyTransports.requireSecretOffLoopback("eth0", false, SECRET);
        NettyTransports.requireSecretOffLoopback("lo", true, null);
    }

    @Test
    void shouldNeverShowTheSecret() {
        MulticastDiscoveryAgent agent = started(signedFast());
        assertThat(agent.config().toString()).doesNotContain("s3cret").contains("secret=*****");
        assertThat(agent.toString()).doesNotContain("s3cret");
        assertThat(SECRET).hasToString("*****");
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
