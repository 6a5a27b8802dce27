package io.fedbridge.samples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fedbridge.broker.Broker;
import io.fedbridge.broker.BrokerConfig;
import io.fedbridge.broker.BrokerConfigFile;
import io.fedbridge.core.Message;
import io.fedbridge.core.ReceivedMessage;
import io.fedbridge.core.StompConnection;
import io.fedbridge.core.Subscription;
import io.fedbridge.core.SubscriptionRequest;
import io.fedbridge.core.bridge.BridgeState;
import io.fedbridge.core.bridge.BridgeStats;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The 3-node example of {@code samples/config} forms a working federation: the three nodes start in this JVM from
 * those files, with their bridges and policies, and messages go around the ring.
 *
 * <p>The files name fixed ports (61613-61615), which may be taken where tests run. So each node listens on a free
 * port instead, starts without its {@code network} lines, and then gets each of them with the file's ports replaced by
 * the real ones: every other setting, bridge options included, is the file's.
 */
@Timeout(120)
class SampleConfigFederationTest {

    private static final Path CONFIG_DIR = Path.of("config");
    private static final List<String> NODES = List.of("A", "B", "C");
    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final Pattern NETWORK_LINE = Pattern.compile("(?m)^\\s*network\\s*=.*$");

    /** Closed last-in first-out after each test: clients before the brokers they talk to. */
    private final Deque<AutoCloseable> resources = new ArrayDeque<>();
    private final Map<String, Broker> brokers = new LinkedHashMap<>();

    @BeforeEach
    void startTheThreeNodesFromTheirFiles() throws IOException {
        Map<String, BrokerConfig> files = new LinkedHashMap<>();
        Map<String, String> realUris = new LinkedHashMap<>();
        for (String node : NODES) {
            Path file = file(node);
            files.put(node, BrokerConfigFile.load(file).build());
            String withoutBridges = NETWORK_LINE.matcher(Files.readString(file)).replaceAll("");
            BrokerConfig config = BrokerConfigFile.parse(withoutBridges, file.toString(), CONFIG_DIR)
                    .listeners(List.of("tcp://127.0.0.1:0")).build();
            Broker broker = track(Broker.start(config));
            brokers.put(node, broker);
            realUris.put(files.get(node).listeners().get(0), broker.connectUris().get(0));
        }
        for (String node : NODES) {
            for (String connector : files.get(node).networkConnectors()) {
                String real = connector;
                for (Map.Entry<String, String> e : realUris.entrySet()) {
                    real = real.replace(e.getKey(), e.getValue());
                }
                assertThat(real).as("%s's bridge points at a node of the example", node).isNotEqualTo(connector);
                brokers.get(node).addNetworkConnector(real);
            }
        }
        await("every bridge of the ring is up").atMost(WAIT).untilAsserted(() -> assertThat(bridges())
                .hasSize(NODES.size()).allSatisfy(b -> assertThat(b.state()).isEqualTo(BridgeState.UP)));
    }

    @AfterEach
    void closeResources() throws Exception {
        Exception first = null;
        while (!resources.isEmpty()) {
            try {
                resources.pop().close();
            } catch (Exception e) {
                first = first == null ? e : first;
            }
        }
        if (first != null) {
            throw first;
        }
    }

    @Test
    void shouldCarryAMessageTwoBridgesAroundTheRingFromEveryNode() throws InterruptedException {
        for (int i = 0; i < NODES.size(); i++) {
            String from = NODES.get(i);
            String to = NODES.get((i + 2) % NODES.size());
            String queue = "/queue/work.from-" + from;
            Subscription consumer = connect(to).subscribe(SubscriptionRequest.of(queue));
            connect(from).send(Message.builder(queue).body("hello from " + from).persistent(true).build()).join();

            ReceivedMessage m = consumer.receive(WAIT);

            assertThat(m).as("%s's message at %s, two bridges on; bridges: %s", from, to, bridges()).isNotNull();
            assertThat(m.bodyAsString()).isEqualTo("hello from " + from);
        }
    }

    @Test
    void shouldKeepLocalOnlyQueuesOnTheirNodeAsTheFilesSay() throws InterruptedException {
        Subscription atB = connect("B").subscribe(SubscriptionRequest.of("/queue/local.housekeeping"));
        connect("A").send(Message.builder("/queue/local.housekeeping").body("stay").build()).join();
        // A positive control in the same direction: a queue without the policy crosses A -> B meanwhile.
        Subscription controlAtB = connect("B").subscribe(SubscriptionRequest.of("/queue/work.control"));
        connect("A").send(Message.builder("/queue/work.control").body("go").build()).join();

        assertThat(controlAtB.receive(WAIT)).as("the control message crosses A -> B").isNotNull();
        assertThat(atB.receive(Duration.ofMillis(500))).as("isLocalOnly message at B").isNull();
        assertThat(brokers.get("A").queue("/queue/local.housekeeping").pending()).isEqualTo(1);
    }

    private StompConnection connect(String node) {
        return track(StompConnection.connect(brokers.get(node).connectUris().get(0)));
    }

    private List<BridgeStats> bridges() {
        return brokers.values().stream().flatMap(b -> b.bridges().stream()).collect(Collectors.toList());
    }

    private static Path file(String node) {
        return CONFIG_DIR.resolve("three-node-" + node + ".conf");
    }

    private <T extends AutoCloseable> T track(T resource) {
        resources.push(resource);
        return resource;
    }
}
