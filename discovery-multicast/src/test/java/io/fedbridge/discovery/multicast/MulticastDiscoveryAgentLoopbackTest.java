package io.fedbridge.discovery.multicast;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fedbridge.core.discovery.DiscoveryContext;
import io.fedbridge.core.discovery.PeerInfo;
import io.fedbridge.discovery.multicast.internal.Announcement;
import io.fedbridge.discovery.multicast.internal.AnnouncementCodec;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.nio.channels.DatagramChannel;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Agents on a real multicast socket, on the loopback interface: two or three per test, in this JVM. */
class MulticastDiscoveryAgentLoopbackTest {

    private static final Duration WAIT = Duration.ofSeconds(10);

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

    /** A started agent for broker {@code name} advertising {@code tcp://127.0.0.1:port}. */
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

    private Started agent(String name, int port) {
        return agent(name, port, net.config().build());
    }

    private record Started(MulticastDiscoveryAgent agent, RecordingListener listener, PeerInfo self) {
    }

    @Test
    void shouldFindEachOtherOnLoopback() {
        Started a = agent("a", 1001);
        Started b = agent("b", 1002);
        Started c = agent("c", 1003);

        await("every agent discovers the two others").atMost(WAIT).until(() ->
                a.listener().peers().size() == 2 && b.listener().peers().size() == 2 && c.listener().peers().size() == 2);
        assertThat(a.listener().peers()).containsExactlyInAnyOrder(b.self(), c.self());
        assertThat(b.listener().peers()).containsExactlyInAnyOrder(a.self(), c.self());
        assertThat(a.agent().stats().ownDatagrams()).as("its own announcements come back and are ignored").isPositive();
        assertThat(a.agent().stats().malformedDatagrams()).isZero();
    }

    @Test
    void shouldDropADepartedPeerAtOnceEvenWithALongExpiry() {
        MulticastDiscoveryConfig slowExpiry = net.config().expiry(100).build(); // 10 s
        Started a = agent("a", 1001, slowExpiry);
        Started b = agent("b", 1002, slowExpiry);
        await().atMost(WAIT).until(() -> a.listener().peers().size() == 1);

        long closedAt = System.nanoTime();
        b.agent().close();

        await("a loses b on its departure, long before b would expire").atMost(Duration.ofSeconds(2))
                .until(() -> a.listener().events().contains("lost " + b.self().uri()));
        assertThat(Duration.ofNanos(System.nanoTime() - closedAt)).isLessThan(Duration.ofSeconds(2));
        assertThat(a.agent().peers()).isEmpty();
    }

    @Test
    void shouldExpireAPeerThatFallsSilentWithoutDeparting() throws Exception {
        Started a = agent("a", 1001);
        Announcement crashed = new Announcement(Announcement.Type.ALIVE, net.group, "id-crashed", "crashed",
                Duration.ofMillis(100), List.of("tcp://127.0.0.1:1009"));
        // Timed from the send: the peer's expiry counts from its announcement's arrival, which the await below may
        // notice up to a poll interval late (timing from there once measured 201 ms for a 300 ms expiry).
        long silentFrom = System.nanoTime();
        net.send(new AnnouncementCodec(null).encode(crashed, null));
        await().atMost(WAIT).until(() -> a.listener().events().contains("discovered tcp://127.0.0.1:1009"));

        await("expired after 3 missed heartbeats of 100 ms").atMost(WAIT)
                .until(() -> a.listener().events().contains("lost tcp://127.0.0.1:1009"));

        assertThat(Duration.ofNanos(System.nanoTime() - silentFrom)).isGreaterThanOrEqualTo(Duration.ofMillis(250));
    }

    @Test
    void shouldKeepTwoGroupsOnTheSameAddressApart() {
        Started a1 = agent("a1", 1001);
        Started a2 = agent("a2", 1002);
        MulticastDiscoveryConfig other = net.config().group(net.group + "-other").build();
        Started b1 = agent("b1", 2001, other);
        Started b2 = agent("b2", 2002, other);

        await().atMost(WAIT).until(() -> a1.listener().peers().size() == 1 && b1.listener().peers().size() == 1);
        await("each hears the other group, and ignores it").atMost(WAIT)
                .until(() -> a1.agent().stats().otherGroupDatagrams() > 5 && b1.agent().stats().otherGroupDatagrams() > 5);
        assertThat(a1.listener().peers()).containsExactly(a2.self());
        assertThat(b1.listener().peers()).containsExactly(b2.self());
        assertThat(a2.listener().peers()).containsExactly(a1.self());
        assertThat(b2.listener().peers()).containsExactly(b1.self());
    }

    @Test
    void shouldIgnoreAndCountGarbageDatagrams() throws Exception {
        Started a = agent("a", 1001);
        Started b = agent("b", 1002);
        await().atMost(WAIT).until(() -> a.listener().peers().size() == 1);
        Random random = new Random(7);

        net.send(new byte[0]);
        net.send("hello".getBytes(StandardCharsets.UTF_8));
        net.send("default.ActiveMQ-4.alive.%localhost%tcp://127.0.0.1:61616".getBytes(StandardCharsets.UTF_8));
        net.send(("FEDBRIDGE3 ALIVE " + net.group + " x y 100 tcp://127.0.0.1:1").getBytes(StandardCharsets.UTF_8));
        net.send(("FEDBRIDGE1 ALIVE " + net.group + " x y 100").getBytes(StandardCharsets.UTF_8));
        net.send(new byte[8000]);
        for (int i = 0; i < 94; i++) {
            byte[] noise = new byte[1 + random.nextInt(1500)];
            random.nextBytes(noise);
            net.send(noise);
        }

        await("all 100 counted").atMost(WAIT).until(() -> a.agent().stats().malformedDatagrams() == 100);
        await().atMost(WAIT).until(() -> b.agent().stats().malformedDatagrams() == 100);
        assertThat(a.listener().events()).containsExactly("discovered " + b.self().uri());
        assertThat(b.listener().events()).containsExactly("discovered " + a.self().uri());
        assertThat(a.agent().peers()).containsExactly(b.self());
    }

    @Test
    void shouldFindPeersWithoutBeingFoundWhenNotAdvertising() {
        Started listening = agent("quiet", 1001, net.config().advertise(false).build());
        Started announcing = agent("loud", 1002, net.config().discover(false).build());

        await().atMost(WAIT).until(() -> listening.listener().peers().size() == 1);
        assertThat(listening.listener().peers()).containsExactly(announcing.self());
        assertThat(listening.agent().stats().announcementsSent()).isZero();
        assertThat(announcing.listener().events()).isEmpty();
        assertThat(announcing.agent().stats().datagramsReceived()).as("a sender only does not even listen").isZero();
    }

    @Test
    void shouldFailFastAndClearlyWhenThePortCannotBeBound() throws Exception {
        try (DatagramChannel squatter = DatagramChannel.open(StandardProtocolFamily.INET)) {
            squatter.setOption(StandardSocketOptions.SO_REUSEADDR, false);
            squatter.bind(new InetSocketAddress(InetAddress.getByName("0.0.0.0"), 0));
            int taken = ((InetSocketAddress) squatter.getLocalAddress()).getPort();
            MulticastDiscoveryAgent agent = MulticastDiscoveryAgent.of(net.config().port(taken).build(),
                    new DiscoveryContext("id", "a", List.of("tcp://127.0.0.1:1"), Executors.newSingleThreadScheduledExecutor(),
                            Clock.systemUTC()));
            resources.add(agent);

            long start = System.nanoTime();
            assertThatThrownBy(() -> agent.start(new RecordingListener()))
                    .isInstanceOf(MulticastDiscoveryException.class)
                    .hasMessageContaining("multicast discovery of group '" + net.group + "' on " + net.address + ":" + taken
                            + " cannot start: cannot bind UDP")
                    .hasMessageContaining("(interface lo)");
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
        }
    }

    @Test
    void shouldNameTheInterfacesThereAreWhenTheChosenOneDoesNotExist() {
        MulticastDiscoveryAgent agent = MulticastDiscoveryAgent.of(net.config().networkInterface("nosuch0").build(),
                new DiscoveryContext("id", "a", List.of("tcp://127.0.0.1:1"), Executors.newSingleThreadScheduledExecutor(),
                        Clock.systemUTC()));

        assertThatThrownBy(() -> agent.start(new RecordingListener())).isInstanceOf(MulticastDiscoveryException.class)
                .hasMessageContaining("no network interface 'nosuch0'; interfaces are [").hasMessageContaining("lo");
    }

    @Test
    void shouldUseTheLoopbackInterfaceWhenNoneIsGiven() {
        MulticastDiscoveryConfig noInterface = net.config().networkInterface(null).build();
        Started a = agent("a", 1001, noInterface);
        Started b = agent("b", 1002);

        await().atMost(WAIT).until(() -> a.listener().peers().size() == 1 && b.listener().peers().size() == 1);
    }
}
