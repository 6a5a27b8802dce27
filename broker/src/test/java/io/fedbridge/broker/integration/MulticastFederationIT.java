package io.fedbridge.broker.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fedbridge.broker.Broker;
import io.fedbridge.broker.BrokerConfig;
import io.fedbridge.core.Message;
import io.fedbridge.core.StompConnection;
import io.fedbridge.core.SubscriptionRequest;
import io.fedbridge.core.bridge.BridgeState;
import io.fedbridge.core.bridge.BridgeStats;
import io.fedbridge.discovery.multicast.MulticastDiscoveryException;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.ServerSocket;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import io.fedbridge.broker.testing.ChildBroker;

/**
 * Brokers that find each other by {@code multicast://} discovery, with no list of peers, on the loopback interface
 * only ({@code interface=lo}): each test picks a random group address, port and group name, so that tests running at
 * the same time never hear each other, and nothing leaves the machine.
 */
class MulticastFederationIT extends BrokerTestSupport {

    private static final Duration WAIT = Duration.ofSeconds(20);
    /** Heartbeats every 100 ms, expiry after 3 missed; bridges retried after 50 ms, at most every 500 ms. */
    private static final String FAST = "interface=lo&heartbeatInterval=100&expiry=3&initialReconnectDelay=50"
            + "&maxReconnectDelay=500&heartBeat=1000";

    @TempDir
    Path tmp;

    private String address;
    private int port;
    private String group;

    @BeforeEach
    void pickAGroup() {
        ThreadLocalRandom r = ThreadLocalRandom.current();
        address = "239.255." + r.nextInt(1, 255) + "." + r.nextInt(1, 255);
        port = r.nextInt(20000, 40000);
        group = "it-" + Long.toString(r.nextLong() & Long.MAX_VALUE, 36);
    }

    private String multicast(String group, String options) {
        return "multicast://" + address + ":" + port + "?group=" + group + "&" + options;
    }

    private String multicast() {
        return multicast(group, FAST);
    }

    /** A broker with a multicast network connector; a port that cannot be bound fails here, with the reason. */
    private Broker broker(String name, String discoveryUri) {
        return startBroker(BrokerConfig.builder(name).networkConnector(discoveryUri));
    }

    private static String tcp(Broker b) {
        return b.connectUris().get(0);
    }

    /** The URIs {@code b} has a bridge UP to. */
    private static Set<String> bridgedTo(Broker b) {
        return b.bridges().stream().filter(s -> s.state() == BridgeState.UP).map(MulticastFederationIT::target)
                .collect(Collectors.toSet());
    }

    /** The URIs {@code b} has a bridge to, in any state. */
    private static Set<String> anyBridgeTo(Broker b) {
        return b.bridges().stream().map(MulticastFederationIT::target).collect(Collectors.toSet());
    }

    private static String target(BridgeStats s) {
        return s.name().substring(s.name().indexOf("->") + 2);
    }

    private static void awaitMesh(Broker... brokers) {
        for (Broker b : brokers) {
            Set<String> others = java.util.Arrays.stream(brokers).filter(o -> o != b).map(MulticastFederationIT::tcp)
                    .collect(Collectors.toSet());
            await(b.name() + " bridges up to " + others).atMost(WAIT).until(() -> bridgedTo(b).equals(others));
        }
    }

    private void awaitDelivery(Broker from, Broker to, String queue, int count) {
        Set<String> seen = ConcurrentHashMap.newKeySet();
        connect(to, "tcp").subscribeAndWait(SubscriptionRequest.of(queue), m -> seen.add(m.bodyAsString()), WAIT);
        await("demand for " + queue + " reaches " + from.name()).atMost(WAIT)
                .until(() -> from.bridges().stream().mapToInt(BridgeStats::networkSubscriptions).sum() >= 1);
        StompConnection producer = connect(from, "tcp");
        for (int i = 0; i < count; i++) {
            producer.send(Message.builder(queue).body("m" + i).persistent(true).build()).join();
        }
        await(count + " messages from " + from.name() + " reach " + to.name()).atMost(WAIT).until(() -> seen.size() == count);
    }

    @Test
    void shouldFormAFullMeshOfThreeAndDeliverAcrossIt() {
        Broker a = broker("mc-A", multicast());
        Broker b = broker("mc-B", multicast());
        long thirdStarted = System.nanoTime();
        Broker c = broker("mc-C", multicast());

        await("a full mesh: 6 bridges up").atMost(WAIT).pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(2))
                .until(() -> bridgedTo(a).size() == 2 && bridgedTo(b).size() == 2 && bridgedTo(c).size() == 2);
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - thirdStarted);
        System.out.println("multicast discovery (heartbeatInterval=100ms, in-JVM brokers): start of the third broker to "
                + "all 6 bridges up: " + millis + " ms");
        awaitMesh(a, b, c);

        awaitDelivery(a, c, "/queue/mc.a-to-c", 100);
        awaitDelivery(b, a, "/queue/mc.b-to-a", 100);
    }

    @Test
    void shouldDropADepartedBrokerAtOnceAndTakeItBackWhenItRestarts() throws Exception {
        // Expiry after 100 heartbeats (10 s): only the departure announcement can drop a bridge within 2 s.
        String slowExpiry = multicast(group, FAST.replace("expiry=3", "expiry=100"));
        Broker a = broker("dep-A", slowExpiry);
        Broker b = broker("dep-B", slowExpiry);
        BrokerConfig.Builder cConfig = BrokerConfig.builder("dep-C").dataDirectory(tmp.resolve("c")).networkConnector(slowExpiry);
        Broker c = startBroker(cConfig);
        awaitMesh(a, b, c);
        String oldC = tcp(c);
        String cId = c.id();

        c.close();

        try (ServerSocket squatter = squat(oldC)) {
            assertThat(squatter.isBound()).isTrue();
            for (Broker survivor : List.of(a, b)) {
                await(survivor.name() + " drops its bridge to the departed broker at once").atMost(Duration.ofSeconds(2))
                        .until(() -> !anyBridgeTo(survivor).contains(oldC));
                await(survivor.name() + " does not try it again").during(Duration.ofSeconds(1)).atMost(WAIT)
                        .until(() -> anyBridgeTo(survivor).equals(Set.of(tcp(survivor == a ? b : a))));
            }
        }

        Broker restarted = startBroker(cConfig);
        assertThat(restarted.id()).as("same data directory, same broker id").isEqualTo(cId);
        assertThat(tcp(restarted)).as("a new port").isNotEqualTo(oldC);
        awaitMesh(a, b, restarted);
        awaitDelivery(a, restarted, "/queue/mc.rejoined", 50);
    }

    @Test
    void shouldDropACrashedBrokerAfterItsExpiry() throws Exception {
        Broker a = broker("crash-A", multicast());
        Broker b = broker("crash-B", multicast());
        try (Child child = Child.start(multicast(), tmp.resolve("child.log"))) {
            String childUri = child.uri;
            for (Broker survivor : List.of(a, b)) {
                await(survivor.name() + " bridges to the child broker").atMost(WAIT)
                        .until(() -> bridgedTo(survivor).contains(childUri));
            }

            child.killAndReap();
            long killed = System.nanoTime();
            try (ServerSocket squatter = squat(childUri)) {
                assertThat(squatter.isBound()).isTrue();
                for (Broker survivor : List.of(a, b)) {
                    await(survivor.name() + " drops the crashed broker once it has missed 3 heartbeats").atMost(WAIT)
                            .until(() -> !anyBridgeTo(survivor).contains(childUri));
                }
                System.out.println("multicast discovery: crashed broker dropped "
                        + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killed) + " ms after kill -9 (expiry 3 x 100 ms)");
                for (Broker survivor : List.of(a, b)) {
                    await(survivor.name() + " does not try it again").during(Duration.ofSeconds(1)).atMost(WAIT)
                            .until(() -> !anyBridgeTo(survivor).contains(childUri));
                }
            }
            awaitMesh(a, b);
        }
    }

    /**
     * Holds a stopped broker's port, accepting connections and never answering them: a bridge that still tries to
     * reach the broker then stays CONNECTING, so {@code bridges()} shows every attempt, not just the ones that a poll
     * happens to catch between "connection refused" and the next retry.
     */
    private static ServerSocket squat(String tcpUri) throws IOException {
        ServerSocket squatter = new ServerSocket();
        squatter.setReuseAddress(true);
        squatter.bind(new InetSocketAddress("127.0.0.1", Integer.parseInt(tcpUri.substring(tcpUri.lastIndexOf(':') + 1))));
        return squatter;
    }

    @Test
    void shouldKeepTwoGroupsOnTheSameAddressApart() {
        Broker a1 = broker("grp-A1", multicast());
        Broker a2 = broker("grp-A2", multicast());
        Broker b1 = broker("grp-B1", multicast(group + "-other", FAST));
        Broker b2 = broker("grp-B2", multicast(group + "-other", FAST));

        awaitMesh(a1, a2);
        awaitMesh(b1, b2);
        await("no bridge across the groups").during(Duration.ofSeconds(1)).atMost(WAIT).until(() ->
                anyBridgeTo(a1).equals(Set.of(tcp(a2))) && anyBridgeTo(a2).equals(Set.of(tcp(a1)))
                        && anyBridgeTo(b1).equals(Set.of(tcp(b2))) && anyBridgeTo(b2).equals(Set.of(tcp(b1))));
    }

    @Test
    void shouldChangeNothingWhenGarbageArrivesOnTheGroup() throws Exception {
        Broker a = broker("junk-A", multicast());
        Broker b = broker("junk-B", multicast());
        Broker c = broker("junk-C", multicast());
        awaitMesh(a, b, c);

        try (DatagramChannel sender = DatagramChannel.open(StandardProtocolFamily.INET)) {
            sender.setOption(StandardSocketOptions.IP_MULTICAST_IF, NetworkInterface.getByName("lo"));
            sender.setOption(StandardSocketOptions.IP_MULTICAST_TTL, 0);
            InetSocketAddress to = new InetSocketAddress(InetAddress.getByName(address), port);
            Random random = new Random(11);
            String valid = "FEDBRIDGE1 ALIVE " + group + " junk-id junk 100 tcp://127.0.0.1:1";
            for (int i = 0; i < 300; i++) {
                byte[] datagram = switch (i % 6) {
                    case 0 -> new byte[random.nextInt(1500)];
                    case 1 -> valid.substring(0, random.nextInt(valid.length() - 25)).getBytes(StandardCharsets.UTF_8);
                    case 2 -> valid.replace("FEDBRIDGE1", "FEDBRIDGE9").getBytes(StandardCharsets.UTF_8);
                    case 3 -> ("default.ActiveMQ-4.alive.%localhost%tcp://127.0.0.1:" + i).getBytes(StandardCharsets.UTF_8);
                    case 4 -> new byte[9000];
                    default -> {
                        byte[] noise = new byte[1 + random.nextInt(1400)];
                        random.nextBytes(noise);
                        yield noise;
                    }
                };
                if (i % 6 == 0) {
                    random.nextBytes(datagram);
                }
                sender.send(ByteBuffer.wrap(datagram), to);
            }
        }

        await("the mesh stays as it was").during(Duration.ofSeconds(1)).atMost(WAIT).until(() ->
                anyBridgeTo(a).equals(Set.of(tcp(b), tcp(c))) && anyBridgeTo(b).equals(Set.of(tcp(a), tcp(c)))
                        && anyBridgeTo(c).equals(Set.of(tcp(a), tcp(b))));
        awaitMesh(a, b, c);
        awaitDelivery(c, a, "/queue/mc.after-junk", 20);
    }

    @Test
    void shouldFailWithTheReasonWhenTheMulticastPortCannotBeBound() throws Exception {
        Broker a = startBroker(BrokerConfig.builder("bind-A"));
        try (DatagramChannel squatter = DatagramChannel.open(StandardProtocolFamily.INET)) {
            squatter.setOption(StandardSocketOptions.SO_REUSEADDR, false);
            squatter.bind(new InetSocketAddress(InetAddress.getByName("0.0.0.0"), 0));
            int taken = ((InetSocketAddress) squatter.getLocalAddress()).getPort();
            String uri = "multicast://" + address + ":" + taken + "?group=" + group + "&" + FAST;

            long start = System.nanoTime();
            assertThatThrownBy(() -> a.addNetworkConnector(uri)).isInstanceOf(MulticastDiscoveryException.class)
                    .hasMessageContaining("multicast discovery of group '" + group + "' on " + address + ":" + taken
                            + " cannot start: cannot bind UDP");
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(6));
            assertThat(a.networkConnectors()).isEmpty();
        }
    }

    // ---------------------------------------------------------------------------------------------

    /** A broker with a multicast connector in a child JVM, to be killed with SIGKILL; close() always reaps it. */
    private static final class Child implements AutoCloseable {
        private final Process process;
        private final Path log;
        final String uri;

        private Child(Process process, Path log, String uri) {
            this.process = process;
            this.log = log;
            this.uri = uri;
        }

        static Child start(String discoveryUri, Path log) throws IOException, InterruptedException {
            String java = ProcessHandle.current().info().command()
                    .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
            Process p = new ProcessBuilder(java, "-Xmx256m", "-XX:+UseSerialGC", "-Dio.netty.leakDetection.level=paranoid",
                    "-cp", System.getProperty("java.class.path"),
                    MulticastBrokerMain.class.getName(), discoveryUri)
                    .redirectError(log.toFile()).start();
            CompletableFuture<String> ready = CompletableFuture.supplyAsync(() -> {
                try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                    for (String line = r.readLine(); line != null; line = r.readLine()) {
                        if (line.startsWith("READY ")) {
                            return line.substring("READY ".length()).trim();
                        }
                    }
                } catch (IOException e) {
                    // the pipe breaks when the child dies
                }
                throw new IllegalStateException("child broker exited before it was ready");
            });
            try {
                return new Child(p, log, ready.get(30, TimeUnit.SECONDS));
            } catch (Exception e) {
                p.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
                throw new AssertionError("child broker not ready: " + e + "; its stderr:\n" + ChildBroker.read(log), e);
            }
        }

        void killAndReap() {
            process.destroyForcibly();
            try {
                assertThat(process.waitFor(30, TimeUnit.SECONDS)).as("child broker reaped").isTrue();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted while reaping the child broker", e);
            }
        }

        /** Kills the child if it still runs, reaps it, and checks it logged no Netty buffer leak. */
        @Override
        public void close() {
            killAndReap();
            assertThat(ChildBroker.read(log)).as("child broker stderr (%s)", log).doesNotContain("LEAK:");
        }
    }

    /**
     * Run in a child JVM by {@link Child}: starts a broker on {@code tcp://127.0.0.1:0} with the network connector
     * {@code args[0]}, prints {@code READY <uri>} and runs until killed, or until its standard input closes (the test
     * JVM is gone).
     */
    public static final class MulticastBrokerMain {
        private MulticastBrokerMain() {
        }

        public static void main(String[] args) throws IOException {
            Broker broker = Broker.start(BrokerConfig.builder("crash-child").listen("tcp://127.0.0.1:0")
                    .networkConnector(args[0]).build());
            System.out.println("READY " + broker.connectUris().get(0));
            System.out.flush();
            while (System.in.read() != -1) {
                // nothing is ever written: this only waits for the parent to go away
            }
            Runtime.getRuntime().halt(2);
        }
    }
}
