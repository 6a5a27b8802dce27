package io.fedbridge.metrics.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fedbridge.broker.Broker;
import io.fedbridge.broker.BrokerConfig;
import io.fedbridge.broker.BrokerException;
import io.fedbridge.core.Message;
import io.fedbridge.core.StompConnection;
import io.fedbridge.core.SubscriptionRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The metrics listener of a running broker: Prometheus scrapes, health and readiness, its errors. */
class MetricsEndpointIT extends MetricsTestSupport {

    @TempDir
    Path data;

    @Test
    void shouldServeAScrapeThePrometheusParserReadsWithValuesThatMoveAsMessagesFlow() throws Exception {
        Broker b = startBroker(BrokerConfig.builder("mB").metrics("http://127.0.0.1:0"));
        Broker a = startBroker(BrokerConfig.builder("mA").dataDirectory(data.resolve("A")).metrics("http://127.0.0.1:0")
                .networkConnector("static:(" + b.vmUri() + ")"));
        await("link up").atMost(WAIT).until(() -> scrape(a, "fedbridge_link_state", "peer", b.vmUri(), "state", "UP") == 1);

        List<Sample> before = parse(get(endpoint(a, "/metrics")).body());
        assertThat(value(before, "fedbridge_link_state", "broker", "mA", "peer", b.vmUri(), "state", "DOWN")).isZero();
        assertThat(value(before, "fedbridge_link_info", "peer", b.vmUri(), "peer_name", "mB")).isEqualTo(1);
        assertThat(value(before, "fedbridge_memory_limit_bytes", "broker", "mA")).isEqualTo(a.config().memoryLimit());
        assertThat(value(before, "jvm_memory_used_bytes", "area", "heap", "id", "G1 Eden Space", "broker", "mA"))
                .as("JVM metrics carry no broker label").isNaN();
        assertThat(before).anyMatch(s -> s.name().equals("jvm_memory_used_bytes"));
        assertThat(before).anyMatch(s -> s.name().equals("fedbridge_journal_sync_seconds_bucket"));
        double syncsBefore = value(before, "fedbridge_journal_sync_seconds_count", "broker", "mA");

        StompConnection producer = connect(a);
        for (int i = 0; i < 10; i++) {
            producer.send(Message.builder("/queue/metered").body("m" + i).persistent(true).build()).get();
        }
        List<Sample> queued = parse(get(endpoint(a, "/metrics")).body());
        assertThat(value(queued, "fedbridge_queue_messages_enqueued_total", "destination", "/queue/metered")).isEqualTo(10);
        assertThat(value(queued, "fedbridge_queue_messages_pending", "destination", "/queue/metered")).isEqualTo(10);
        assertThat(value(queued, "fedbridge_queue_held_bytes", "destination", "/queue/metered")).isPositive();
        assertThat(value(queued, "fedbridge_journal_sync_seconds_count", "broker", "mA")).isGreaterThan(syncsBefore);
        assertThat(value(queued, "fedbridge_journal_records_per_sync_sum", "broker", "mA")).isGreaterThanOrEqualTo(10);
        assertThat(value(queued, "fedbridge_journal_written_bytes_total", "broker", "mA")).isPositive();
        assertThat(value(queued, "fedbridge_journal_segments", "broker", "mA")).isGreaterThanOrEqualTo(1);

        AtomicInteger got = new AtomicInteger();
        connect(b).subscribe(SubscriptionRequest.of("/queue/metered"), m -> got.incrementAndGet());
        await("forwarded to B").atMost(WAIT).until(() -> got.get() == 10);
        await("counters move").atMost(WAIT).untilAsserted(() -> {
            List<Sample> after = parse(get(endpoint(a, "/metrics")).body());
            assertThat(value(after, "fedbridge_queue_messages_pending", "destination", "/queue/metered")).isZero();
            assertThat(value(after, "fedbridge_queue_messages_dequeued_total", "destination", "/queue/metered")).isEqualTo(10);
            assertThat(value(after, "fedbridge_link_messages_forwarded_total", "peer", b.vmUri())).isEqualTo(10);
            assertThat(value(after, "fedbridge_queue_latency_seconds_count", "broker", "mA", "consumer", "bridge"))
                    .isEqualTo(10);
            assertThat(value(after, "fedbridge_queue_latency_seconds_bucket", "consumer", "bridge", "le", "+Inf"))
                    .isEqualTo(10);
        });
        assertThat(scrape(b, "fedbridge_queue_messages_enqueued_total", "broker", "mB", "destination", "/queue/metered"))
                .isEqualTo(10);
        assertThat(scrape(b, "fedbridge_connections", "broker", "mB")).isGreaterThanOrEqualTo(2);
    }

    @Test
    void shouldReportNotReadyWhileAConfiguredLinkIsDownPastItsGraceAndReadyOnceItIsUp() throws Exception {
        Broker a = startBroker(BrokerConfig.builder("rA").metrics("http://127.0.0.1:0?linkGrace=1s")
                .networkConnector("static:(vm://rB)?initialReconnectDelay=100&maxReconnectDelay=200"));
        assertThat(get(endpoint(a, "/healthz")).statusCode()).isEqualTo(200);
        await("not ready once the grace is over").atMost(WAIT).untilAsserted(() -> {
            HttpResponse<String> r = get(endpoint(a, "/readyz"));
            assertThat(r.statusCode()).isEqualTo(503);
            assertThat(r.body()).contains("\"status\":\"DOWN\"").contains("link vm://rB").contains("longer than linkGrace 1 s");
        });
        assertThat(get(endpoint(a, "/healthz")).statusCode()).as("alive all the same").isEqualTo(200);

        startBroker(BrokerConfig.builder("rB"));
        await("ready once the link is up").atMost(WAIT).untilAsserted(() -> {
            HttpResponse<String> r = get(endpoint(a, "/readyz"));
            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(r.body()).contains("\"status\":\"UP\"").contains("UP for");
        });
        assertThat(scrape(a, "fedbridge_link_reconnects_total", "peer", "vm://rB")).isPositive();
    }

    @Test
    void shouldBeReadyWithinTheGraceOfALinkThatIsNotUpYet() throws Exception {
        Broker a = startBroker(BrokerConfig.builder("gA").metrics("http://127.0.0.1:0?linkGrace=1h")
                .networkConnector("static:(vm://nowhere)"));
        HttpResponse<String> r = get(endpoint(a, "/readyz"));
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).contains("\"name\":\"disk\",\"status\":\"UP\"").contains("link vm://nowhere");
    }

    @Test
    void shouldAnswerUnknownPathsAndMethodsWithErrors() throws Exception {
        Broker a = startBroker(BrokerConfig.builder("eA").metrics("http://127.0.0.1:0"));
        HttpResponse<String> missing = get(endpoint(a, "/nothing"));
        assertThat(missing.statusCode()).isEqualTo(404);
        assertThat(missing.body()).contains("/metrics");
        assertThat(request(endpoint(a, "/metrics"), "POST").statusCode()).isEqualTo(405);
        HttpResponse<String> console = get(endpoint(a, "/"));
        assertThat(console.statusCode()).isEqualTo(200);
        assertThat(console.headers().firstValue("Content-Type")).hasValueSatisfying(t -> assertThat(t).startsWith("text/html"));
        assertThat(get(endpoint(a, "/api/state")).body()).startsWith("{\"broker\":\"eA\"");
    }

    @Test
    void shouldRefuseBadMetricsUrisNamingTheProblem() {
        assertThatThrownBy(() -> BrokerConfig.builder("x").metrics("tcp://127.0.0.1:9404").build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("metrics must be a URI http://HOST:PORT");
        assertThatThrownBy(() -> BrokerConfig.builder("x").metrics("http://127.0.0.1").build())
                .hasMessageContaining("but was 'http://127.0.0.1'");
        assertThatThrownBy(() -> Broker.start(BrokerConfig.builder("badOpt").metrics("http://127.0.0.1:0?grace=1s").build()))
                .isInstanceOf(BrokerException.class).hasMessageContaining("grace").hasMessageContaining("linkGrace");
    }

    @Test
    void shouldFailToStartWhenTheMetricsPortIsTaken() throws Exception {
        Broker a = startBroker(BrokerConfig.builder("pA").metrics("http://127.0.0.1:0"));
        int port = endpoint(a, "/").getPort();
        assertThatThrownBy(() -> startBroker(BrokerConfig.builder("pB").metrics("http://127.0.0.1:" + port)))
                .isInstanceOf(BrokerException.class).hasMessageContaining("cannot listen on metrics URI");
    }

    @Test
    void shouldCountProducersPausedByTheMemoryLimitAndShowThemWhilePaused() throws Exception {
        Broker b = startBroker(BrokerConfig.builder("mFull").memoryLimit(64 * 1024).metrics("http://127.0.0.1:0"));
        assertThat(scrape(b, "fedbridge_memory_limit_reached_total", "broker", "mFull")).isZero();
        StompConnection producer = connect(b);
        byte[] body = new byte[1024];
        java.util.concurrent.CompletableFuture<Void> producing = java.util.concurrent.CompletableFuture.runAsync(() -> {
            for (int i = 0; i < 5000; i++) {
                producer.sendWithoutReceipt(Message.builder("/queue/backlog").body(body).build());
            }
        });
        await("the producer waits for memory").atMost(WAIT)
                .until(() -> scrape(b, "fedbridge_memory_paused_connections", "broker", "mFull") == 1);
        assertThat(scrape(b, "fedbridge_memory_limit_reached_total", "broker", "mFull")).isEqualTo(1);

        connect(b).subscribe(SubscriptionRequest.of("/queue/backlog"), m -> { });
        producing.get(WAIT.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
        await("nobody waits once the queue drains").atMost(WAIT)
                .until(() -> scrape(b, "fedbridge_memory_paused_connections", "broker", "mFull") == 0
                        && b.queue("/queue/backlog").pending() == 0);
        assertThat(scrape(b, "fedbridge_memory_limit_reached_total", "broker", "mFull")).isGreaterThanOrEqualTo(1);
    }
}
