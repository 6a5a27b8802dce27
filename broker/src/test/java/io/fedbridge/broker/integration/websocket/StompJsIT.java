package io.fedbridge.broker.integration.websocket;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.fedbridge.broker.Broker;
import io.fedbridge.broker.BrokerConfig;
import io.fedbridge.broker.integration.security.TestCertificates;
import io.fedbridge.broker.integration.websocket.JsTools.JsProcess;
import io.fedbridge.broker.security.SecurityConfig;
import io.fedbridge.core.Message;
import io.fedbridge.core.StompConnection;
import io.fedbridge.core.bridge.BridgeState;
import io.fedbridge.core.bridge.BridgeStats;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URISyntaxException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The clients STOMP over WebSocket is for: {@code @stomp/stompjs} in Node and in headless Chromium subscribes on broker
 * B and receives what a Java producer sends on broker A, bridged A to B. Heart-beats run every 200 ms both ways, and
 * each client checks it is still connected some periods after its last message.
 */
class StompJsIT extends WebSocketTestSupport {

    private static final Duration JS_WAIT = Duration.ofSeconds(40);
    private static final List<String> BODIES = List.of("hello from A", "grüße, 日本", "{\"json\":true}");
    private static final int DWELL_MILLIS = 1500;

    @TempDir
    Path tmp;

    /** Broker B with {@code listener} (and tcp:// for the bridge), and broker A bridged to it. */
    private Broker[] bridgedPair(String listener, SecurityConfig security) {
        BrokerConfig.Builder b = BrokerConfig.builder(uniqueName("js-B")).listen("tcp://127.0.0.1:0").listen(listener)
                .heartBeat(Duration.ofMillis(200));
        Broker brokerB = start(security == null ? b : b.security(security));
        Broker brokerA = start(BrokerConfig.builder(uniqueName("js-A")).listen("tcp://127.0.0.1:0")
                .networkConnector("static:(" + uri(brokerB, "tcp") + ")?initialReconnectDelay=50&maxReconnectDelay=500"));
        await("bridge A->B up").atMost(WAIT)
                .until(() -> brokerA.bridges().stream().anyMatch(s -> s.state() == BridgeState.UP));
        return new Broker[] {brokerA, brokerB};
    }

    /** Once the JS client's demand reached A over the bridge, sends the test messages on A. */
    private void produceOnA(Broker a, String destination) throws Exception {
        await("the subscriber's demand reaches A").atMost(WAIT)
                .until(() -> a.bridges().stream().mapToInt(BridgeStats::networkSubscriptions).sum() >= 1);
        StompConnection producer = connect(client(a.connectUris().get(0)).build());
        for (String body : BODIES) {
            producer.send(Message.of(destination, body)).get();
        }
    }

    private static Path resource(String name) throws URISyntaxException {
        return Path.of(StompJsIT.class.getResource("/websocket/" + name).toURI());
    }

    @Test
    void shouldDeliverToStompJsInNodeOverWsWhatAJavaProducerSendsOnABridgedBroker() throws Exception {
        Path modules = JsTools.nodeModules();
        Broker[] pair = bridgedPair("ws://127.0.0.1:0/stomp", null);
        String destination = "/queue/node";

        try (JsProcess node = JsProcess.start(List.of("node", resource("stompjs-subscribe.js").toString(),
                modules.toString(), uri(pair[1], "ws"), destination, Integer.toString(BODIES.size()),
                Integer.toString(DWELL_MILLIS)))) {
            assertThat(node.awaitLine("SUBSCRIBED", JS_WAIT)).as("node: %s", node.output()).isNotNull();
            produceOnA(pair[0], destination);

            assertThat(node.awaitExit(JS_WAIT)).as("node's exit code; it printed: %s", node.output()).isEqualTo(0);
            List<String> expected = new ArrayList<>(BODIES.stream().map(b -> "MESSAGE " + b).toList());
            expected.add("DONE");
            assertThat(node.output().lines()).as(node.output()).containsSubsequence(expected);
        }
    }

    @Test
    void shouldDeliverToStompJsInHeadlessChromiumOverWss() throws Exception {
        Path modules = JsTools.nodeModules();
        String chromium = JsTools.chromium();
        TestCertificates certs = TestCertificates.get();
        Broker[] pair = bridgedPair("wss://127.0.0.1:0/stomp", SecurityConfig.builder().tls(certs.serverTls()).build());
        String destination = "/topic/browser";

        BlockingQueue<String> reports = new LinkedBlockingQueue<>();
        HttpServer web = pageServer(modules.resolve("@stomp/stompjs/bundles/stomp.umd.min.js"), reports);
        resources.add(0, () -> web.stop(0));
        String page = "http://127.0.0.1:" + web.getAddress().getPort() + "/stompjs-page.html#" + URLEncoder.encode(
                uri(pair[1], "wss") + " " + destination + " " + BODIES.size() + " " + DWELL_MILLIS, StandardCharsets.UTF_8)
                .replace("+", "%20");

        // --ignore-certificate-errors: the broker's certificate is the test CA's, which this browser does not trust.
        try (JsProcess browser = JsProcess.start(List.of(chromium, "--headless=new", "--no-sandbox", "--disable-gpu",
                "--disable-dev-shm-usage", "--no-first-run", "--ignore-certificate-errors",
                "--user-data-dir=" + tmp.resolve("chromium-profile"), page))) {
            assertThat(awaitReport(reports, "SUBSCRIBED")).as("the page's reports; chromium printed: %s", browser.output())
                    .isNotNull();
            produceOnA(pair[0], destination);
            List<String> got = new ArrayList<>();
            String r;
            while ((r = reports.poll(JS_WAIT.toSeconds(), TimeUnit.SECONDS)) != null && !r.equals("DONE")) {
                got.add(r);
                assertThat(r).as("reports so far: %s", got).doesNotStartWith("ERROR").doesNotStartWith("CLOSED")
                        .isNotEqualTo("DISCONNECTED");
            }
            assertThat(r).as("after %s; chromium printed: %s", got, browser.output()).isEqualTo("DONE");
            assertThat(got).containsExactlyInAnyOrderElementsOf(BODIES.stream().map(b -> "MESSAGE " + b).toList());
        }
    }

    private static String awaitReport(BlockingQueue<String> reports, String wanted) throws InterruptedException {
        long deadline = System.nanoTime() + JS_WAIT.toNanos();
        for (long left; (left = deadline - System.nanoTime()) > 0; ) {
            String r = reports.poll(left, TimeUnit.NANOSECONDS);
            if (wanted.equals(r)) {
                return r;
            }
        }
        return null;
    }

    /** Serves the page and the stompjs bundle, and takes the page's reports. */
    private static HttpServer pageServer(Path bundle, BlockingQueue<String> reports) throws Exception {
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/stompjs-page.html", ex -> reply(ex, "text/html; charset=utf-8",
                readResource("stompjs-page.html")));
        server.createContext("/stomp.umd.min.js", ex -> reply(ex, "text/javascript", Files.readAllBytes(bundle)));
        server.createContext("/report", ex -> {
            reports.add(new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
            reply(ex, "text/plain", new byte[0]);
        });
        server.createContext("/", ex -> {
            ex.sendResponseHeaders(404, -1);
            ex.close();
        });
        server.start();
        return server;
    }

    private static byte[] readResource(String name) throws IOException {
        try {
            return Files.readAllBytes(resource(name));
        } catch (URISyntaxException e) {
            throw new IOException(e);
        }
    }

    private static void reply(HttpExchange ex, String type, byte[] body) throws IOException {
        ex.getResponseHeaders().set("Content-Type", type);
        ex.sendResponseHeaders(200, body.length == 0 ? -1 : body.length);
        try (OutputStream out = ex.getResponseBody()) {
            out.write(body);
        }
    }
}
