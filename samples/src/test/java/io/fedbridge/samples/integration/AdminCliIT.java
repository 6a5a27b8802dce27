package io.fedbridge.samples.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fedbridge.broker.Broker;
import io.fedbridge.broker.BrokerConfig;
import io.fedbridge.broker.management.ManagementDestinations;
import io.fedbridge.core.Message;
import io.fedbridge.core.StompConnection;
import io.fedbridge.core.Subscription;
import io.fedbridge.core.SubscriptionRequest;
import io.fedbridge.core.bridge.BridgeState;
import io.fedbridge.samples.CliRun;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Every admin command of {@code fedbridge} against a federation of three brokers in this JVM over TCP (A bridged to B
 * and C), as people read it and as scripts parse it ({@code --json}), with bad names and a broker that is down.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class AdminCliIT {

    private static final Duration WAIT = Duration.ofSeconds(15);
    private static final ObjectMapper JSON = new ObjectMapper();
    private Broker a;
    private Broker b;
    private Broker c;
    private String url;

    @BeforeAll
    void federation() {
        a = Broker.start(BrokerConfig.builder("cli-A").listen("tcp://127.0.0.1:0").build());
        b = Broker.start(BrokerConfig.builder("cli-B").listen("tcp://127.0.0.1:0").build());
        c = Broker.start(BrokerConfig.builder("cli-C").listen("tcp://127.0.0.1:0").build());
        a.addNetworkConnector("static:(" + b.connectUris().get(0) + "," + c.connectUris().get(0)
                + ")?duplex=true&initialReconnectDelay=50&maxReconnectDelay=200");
        await("A's two links up").atMost(WAIT).until(() -> a.bridges().stream().filter(s -> s.state() == BridgeState.UP).count() == 2);
        url = a.connectUris().get(0);
    }

    @AfterAll
    void stop() {
        for (Broker x : List.of(a, b, c)) {
            x.close();
        }
    }

    private static CliRun ok(String... args) {
        CliRun r = CliRun.of(args);
        assertThat(r.exitCode()).as(r.toString()).isZero();
        assertThat(r.err()).as(r.toString()).isEmpty();
        return r;
    }

    private static JsonNode json(String... args) throws Exception {
        return JSON.readTree(ok(args).out());
    }

    private void send(String destination, int n) throws Exception {
        try (StompConnection s = StompConnection.connect(url)) {
            for (int i = 1; i <= n; i++) {
                s.send(Message.builder(destination).header("seq", Integer.toString(i)).body("body-" + i).build())
                        .get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
            }
        }
    }

    @Test
    void shouldShowOneScreenOfStatAndTheWholeSnapshotAsJson() throws Exception {
        send("/queue/stat", 2);
        CliRun human = ok("stat", "--url", url);
        assertThat(human.out()).contains("broker cli-A").contains("security open").contains("durability MEMORY")
                .contains("QUEUE").contains("/queue/stat").contains("PEER").contains(b.connectUris().get(0)).contains("UP");
        JsonNode snapshot = json("stat", "--url", url, "--json");
        assertThat(snapshot.path("broker").path("name").asText()).isEqualTo("cli-A");
        assertThat(snapshot.path("bridges").size()).isEqualTo(2);
        assertThat(snapshot.path("queues").findValuesAsText("destination")).contains("/queue/stat");
    }

    @Test
    void shouldListQueuesForPeopleAndScripts() throws Exception {
        send("/queue/listed", 3);
        CliRun human = ok("queues", "--url", url);
        assertThat(human.outLines().get(0)).startsWith("DESTINATION").contains("PENDING").contains("CONSUMERS");
        assertThat(human.outLines()).anyMatch(l -> l.startsWith("/queue/listed") && l.matches(".*\\s3\\s.*"));
        assertThat(human.out()).doesNotContain("/temp-queue/");
        JsonNode queues = json("queues", "--url", url, "--json");
        assertThat(queues.isArray()).isTrue();
        JsonNode q = null;
        for (JsonNode n : queues) {
            if (n.path("destination").asText().equals("/queue/listed")) {
                q = n;
            }
        }
        assertThat(q).isNotNull();
        for (String field : List.of("destination", "pending", "consumers", "enqueued", "dequeued")) {
            assertThat(q.has(field)).as(field).isTrue();
        }
        assertThat(q.path("pending").asInt()).isEqualTo(3);
        assertThat(q.path("enqueued").asLong()).isEqualTo(3);
    }

    @Test
    void shouldListTopicsConnectionsAndConsumers() throws Exception {
        try (StompConnection app = StompConnection.connect(url)) {
            app.subscribeAndWait(SubscriptionRequest.of("/topic/cli.news"), null, WAIT);
            assertThat(ok("topics", "--url", url).out()).contains("/topic/cli.news");
            assertThat(json("topics", "--url", url, "--json").findValuesAsText("destination")).contains("/topic/cli.news");
            CliRun connections = ok("connections", "--url", url);
            assertThat(connections.out()).contains("ID").contains(app.sessionId()).contains("anonymous");
            JsonNode cs = json("connections", "--url", url, "--json");
            assertThat(cs.findValuesAsText("id")).contains(app.sessionId());
            assertThat(ok("consumers", "--url", url).out()).contains("/topic/cli.news").contains(app.sessionId());
            JsonNode consumers = json("consumers", "--url", url, "--json");
            assertThat(consumers.findValuesAsText("destination")).contains("/topic/cli.news");
        }
    }

    @Test
    void shouldCreatePurgeBrowseMoveAndDeleteAQueueAndNameAQueueThatIsNotThere() throws Exception {
        assertThat(ok("queue", "create", "--url", url, "--destination", "/queue/ops").out())
                .contains("created /queue/ops on " + url);
        send("/queue/ops", 5);
        CliRun browse = ok("queue", "browse", "--url", url, "--destination", "/queue/ops", "--count", "2");
        assertThat(browse.out()).contains("#1 ").contains("seq: 1").contains("body-1").contains("#2 ").doesNotContain("body-3");
        JsonNode browsed = json("queue", "browse", "--url", url, "--destination", "/queue/ops", "--count", "3", "--json");
        assertThat(browsed.path("messages").size()).isEqualTo(3);
        assertThat(browsed.path("messages").get(2).path("headers").path("seq").asText()).isEqualTo("3");
        assertThat(ok("queue", "move", "--url", url, "--destination", "/queue/ops", "--to", "/queue/ops.retry", "--count", "2").out())
                .contains("moved 2 message(s) from /queue/ops to /queue/ops.retry");
        try (StompConnection app = StompConnection.connect(url)) {
            Subscription retry = app.subscribeAndWait(SubscriptionRequest.of("/queue/ops.retry"), null, WAIT);
            assertThat(retry.receive(WAIT).header("seq")).isEqualTo("1");
            assertThat(retry.receive(WAIT).header("seq")).isEqualTo("2");
        }
        JsonNode purged = json("queue", "purge", "--url", url, "--destination", "/queue/ops", "--json");
        assertThat(purged.path("purged").asInt()).isEqualTo(3);
        assertThat(a.queue("/queue/ops").pending()).isZero();
        assertThat(ok("queue", "delete", "--url", url, "--destination", "/queue/ops").out()).contains("deleted /queue/ops");
        assertThat(a.queue("/queue/ops")).isNull();

        for (String method : List.of("purge", "browse", "delete")) {
            CliRun missing = CliRun.of("queue", method, "--url", url, "--destination", "/queue/missing");
            assertThat(missing.exitCode()).as(missing.toString()).isEqualTo(1);
            assertThat(missing.errLines()).containsExactly("fedbridge queue " + method + ": no queue /queue/missing on broker cli-A");
        }
        CliRun badName = CliRun.of("queue", "create", "--url", url, "--destination", "orders");
        assertThat(badName.exitCode()).isEqualTo(1);
        assertThat(badName.err()).contains("destination must be a queue such as /queue/orders, but was 'orders'");
        CliRun usage = CliRun.of("queue", "purge", "--url", url);
        assertThat(usage.exitCode()).isEqualTo(2);
        assertThat(usage.err()).contains("--destination");
    }

    @Test
    void shouldDefineADestinationForTheWholeFederationListItAndDeleteIt() throws Exception {
        assertThat(ok("destination", "define", "--url", url, "--destination", "/queue/cli.defined", "--set", "maxNumMsgs=5",
                "--set", "limitBehavior=REMOVE_OLDEST").out()).contains("defined /queue/cli.defined (version 1:" + a.id() + ")");
        for (Broker x : List.of(b, c)) {
            await("the definition reaches " + x.name()).atMost(WAIT).until(() -> x.queue("/queue/cli.defined") != null
                    && x.cluster().definition("/queue/cli.defined").map(d -> d.policy().maxNumMsgs() == 5).orElse(false));
        }
        assertThat(ok("destination", "list", "--url", b.connectUris().get(0)).out()).contains("/queue/cli.defined")
                .contains("maxNumMsgs=5").contains("limitBehavior=REMOVE_OLDEST");
        JsonNode listed = json("destination", "list", "--url", c.connectUris().get(0), "--json");
        assertThat(listed.get(0).path("policy").path("maxNumMsgs").asInt()).isEqualTo(5);
        assertThat(listed.get(0).path("version").asText()).isEqualTo("1:" + a.id());

        CliRun badKey = CliRun.of("destination", "define", "--url", url, "--destination", "/queue/cli.bad", "--set", "maxMsgs=5");
        assertThat(badKey.exitCode()).isEqualTo(1);
        assertThat(badKey.err()).contains("unknown policy key 'maxMsgs'; valid keys are [maxNumMsgs,");
        CliRun wildcard = CliRun.of("destination", "define", "--url", url, "--destination", "/queue/cli.>");
        assertThat(wildcard.exitCode()).isEqualTo(1);
        assertThat(wildcard.err()).contains("destination must be a queue or topic name without wildcards");

        assertThat(ok("destination", "delete", "--url", b.connectUris().get(0), "--destination", "/queue/cli.defined").out())
                .contains("deleted /queue/cli.defined");
        for (Broker x : List.of(a, b, c)) {
            await("the deletion reaches " + x.name()).atMost(WAIT).until(() -> x.queue("/queue/cli.defined") == null);
        }
        assertThat(json("destination", "list", "--url", url, "--json").size()).isZero();
    }

    @Test
    void shouldListBridgesAndOnlyTheDownOnesWithTheirErrorAndSinceWhen() throws Exception {
        CliRun human = ok("bridges", "--url", url);
        assertThat(human.outLines().get(0)).startsWith("PEER").contains("STATE").contains("LAST ERROR");
        JsonNode bridges = json("bridges", "--url", url, "--json");
        assertThat(bridges.size()).isEqualTo(2);
        for (String field : List.of("peer", "state", "forwarded", "pending", "lastError", "since")) {
            assertThat(bridges.get(0).has(field)).as(field).isTrue();
        }
        assertThat(ok("bridges", "--url", url, "--only-down").out()).contains("every link is UP");

        Broker d = Broker.start(BrokerConfig.builder("cli-D").listen("tcp://127.0.0.1:0").build());
        String peer = d.connectUris().get(0);
        String connector = "static:(" + peer + ")?initialReconnectDelay=50&maxReconnectDelay=200";
        assertThat(ok("connector", "add", "--url", url, "--uri", connector).out()).contains("added network connector");
        await("link to D up").atMost(WAIT).until(() -> a.bridges().stream().filter(s -> s.state() == BridgeState.UP).count() == 3);
        d.close();
        await("link to D down").atMost(WAIT).until(() -> a.bridges().stream().anyMatch(s -> s.state() == BridgeState.DOWN));
        CliRun down = ok("bridges", "--url", url, "--only-down");
        assertThat(down.outLines()).hasSize(2);
        assertThat(down.outLines().get(1)).startsWith(peer).contains("DOWN").contains(" ago)");
        JsonNode downJson = json("bridges", "--url", url, "--only-down", "--json");
        assertThat(downJson.size()).isEqualTo(1);
        assertThat(downJson.get(0).path("peer").asText()).isEqualTo(peer);
        assertThat(downJson.get(0).path("lastError").asText()).isNotBlank();
        assertThat(ok("connector", "remove", "--url", url, "--uri", connector).out()).contains("removed network connector");
        assertThat(json("bridges", "--url", url, "--json").size()).isEqualTo(2);
        CliRun again = CliRun.of("connector", "remove", "--url", url, "--uri", connector);
        assertThat(again.exitCode()).isEqualTo(1);
        assertThat(again.err()).contains("no network connector " + connector + " on broker cli-A");
    }

    @Test
    void shouldCloseAConnectionItsClientThenSeesClosed() {
        StompConnection victim = StompConnection.connect(url);
        assertThat(ok("connection", "close", "--url", url, "--id", victim.sessionId()).out()).contains("closed connection " + victim.sessionId());
        await("closed").atMost(WAIT).until(() -> !victim.isConnected());
        CliRun again = CliRun.of("connection", "close", "--url", url, "--id", victim.sessionId());
        assertThat(again.exitCode()).isEqualTo(1);
        assertThat(again.err()).contains("no connection " + victim.sessionId() + " on broker cli-A");
    }

    @Test
    void shouldFollowEventsUntilCountForPeopleAndScripts() throws Exception {
        CompletableFuture<CliRun> human = CompletableFuture.supplyAsync(() -> CliRun.of("events", "--url", url, "--count", "1",
                "--type", "destination-created", "--timeout", "15s"));
        awaitEventsSubscriber();
        a.management().createQueue("/queue/evented-1");
        CliRun r = human.get(WAIT.toSeconds(), TimeUnit.SECONDS);
        assertThat(r.exitCode()).as(r.toString()).isZero();
        assertThat(r.out()).contains("cli-A destination-created destination=/queue/evented-1");

        CompletableFuture<CliRun> script = CompletableFuture.supplyAsync(() -> CliRun.of("events", "--url", url, "--count", "1",
                "--type", "destination-created", "--json", "--timeout", "15s"));
        awaitEventsSubscriber();
        a.management().createQueue("/queue/evented-2");
        JsonNode e = JSON.readTree(script.get(WAIT.toSeconds(), TimeUnit.SECONDS).out());
        assertThat(e.path("type").asText()).isEqualTo("destination-created");
        assertThat(e.path("data").path("destination").asText()).isEqualTo("/queue/evented-2");

        CliRun quiet = CliRun.of("events", "--url", url, "--timeout", "300ms");
        assertThat(quiet.exitCode()).as("a timeout ends the following, not in failure").isZero();
    }

    private void awaitEventsSubscriber() {
        await("events subscriber").atMost(WAIT).until(() -> a.management().consumers().stream()
                .anyMatch(x -> x.destination().equals(ManagementDestinations.EVENTS)));
    }

    @Test
    void shouldSayInOneLineThatABrokerIsDownAndExitWithThree() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        String down = "tcp://127.0.0.1:" + port;
        for (String[] args : List.of(new String[] {"queues", "--url", down}, new String[] {"stat", "--url", down, "--json"},
                new String[] {"queue", "purge", "--url", down, "--destination", "/queue/x"},
                new String[] {"events", "--url", down, "--count", "1"},
                new String[] {"bridges", "--url", "failover:(" + down + ")?maxReconnectAttempts=0", "--timeout", "500ms"})) {
            CliRun r = CliRun.of(args);
            assertThat(r.exitCode()).as(r.toString()).isEqualTo(3);
            assertThat(r.errLines()).as(r.toString()).hasSize(1);
            assertThat(r.err()).contains("cannot reach broker at ").contains("127.0.0.1:" + port).doesNotContain("\tat ");
            assertThat(r.out()).isEmpty();
        }
        CliRun badUrl = CliRun.of("queues", "--url", "carrier-pigeon://x");
        assertThat(badUrl.exitCode()).isEqualTo(2);
        assertThat(badUrl.err()).contains("--url");
    }

    @Test
    void shouldReachTheBrokerThroughAFailoverUrl() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        JsonNode queues = json("queues", "--url", "failover:(tcp://127.0.0.1:" + port + "," + url + ")?randomize=false", "--json");
        assertThat(queues.isArray()).isTrue();
    }
}
