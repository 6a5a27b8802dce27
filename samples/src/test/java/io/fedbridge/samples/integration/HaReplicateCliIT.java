package io.fedbridge.samples.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.fedbridge.broker.Broker;
import io.fedbridge.broker.BrokerConfig;
import io.fedbridge.core.Message;
import io.fedbridge.core.StompConnection;
import io.fedbridge.samples.CliRun;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code fedbridge ha replicate} against two real brokers over TCP: start, status, refused and accepted promotion, bad input. */
class HaReplicateCliIT {

    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    private static Broker broker(String name, Path data) {
        return Broker.start(BrokerConfig.builder(name).listen("tcp://127.0.0.1:0").dataDirectory(data).build());
    }

    @Test
    void shouldReplicateAQueueAndPromoteItOnceTheSourceIsGone() throws Exception {
        String q = "/queue/cli";
        Broker source = broker("cli-S", dir.resolve("S"));
        try (Broker local = broker("cli-L", dir.resolve("L"))) {
            String from = source.connectUris().get(0);
            String url = local.connectUris().get(0);
            try (StompConnection s = StompConnection.connect(from)) {
                for (int i = 0; i < 20; i++) {
                    s.send(Message.builder(q).persistent(true).body("m" + i).build()).get(10, TimeUnit.SECONDS);
                }
            }

            CliRun started = CliRun.of("ha", "replicate", "--url", url, "--queue", q, "--from", from);
            assertThat(started.exitCode()).as(started.toString()).isZero();
            assertThat(started.out()).startsWith("replica " + q + " on " + url + " of " + from + ": ");

            await("the replica is ready with 20 messages").atMost(WAIT).until(() -> {
                CliRun status = CliRun.of("ha", "replicate", "--url", url, "--status", "--json");
                var r = JSON.readTree(status.out()).path(0);
                return status.exitCode() == 0 && r.path("state").asText().equals("ready") && r.path("messages").asInt() == 20;
            });
            CliRun status = CliRun.of("ha", "replicate", "--url", url, "--status");
            assertThat(status.out()).isEqualTo("replica " + q + " on " + url + " of " + from + ": ready, 20 message(s)\n");

            CliRun refused = CliRun.of("ha", "replicate", "--url", url, "--queue", q, "--promote");
            assertThat(refused.exitCode()).as(refused.toString()).isEqualTo(1);
            assertThat(refused.err()).contains("replica " + q + " on broker cli-L still follows the live queue on " + from)
                    .contains("use --force");

            source.close();
            CliRun promoted = CliRun.of("ha", "replicate", "--url", url, "--queue", q, "--promote");
            assertThat(promoted.exitCode()).as(promoted.toString()).isZero();
            assertThat(promoted.out()).startsWith("promoted " + q + " on " + url + " to an ordinary queue with 20 message(s)");
            assertThat(local.queue(q).pending()).isEqualTo(20);
        } finally {
            source.close();
        }
    }

    @Test
    void shouldNameTheProblemWithAnExitCode() {
        try (Broker local = broker("cli-L2", dir.resolve("L2"))) {
            String url = local.connectUris().get(0);

            CliRun topic = CliRun.of("ha", "replicate", "--url", url, "--queue", "/topic/x", "--from", url);
            assertThat(topic.exitCode()).isEqualTo(1);
            assertThat(topic.err()).contains("queue must be a queue such as /queue/orders, but was '/topic/x'");

            CliRun unreachable = CliRun.of("ha", "replicate", "--url", url, "--queue", "/queue/x", "--from", "tcp://127.0.0.1:1");
            assertThat(unreachable.exitCode()).isEqualTo(1);
            assertThat(unreachable.err()).contains("cannot replicate /queue/x from tcp://127.0.0.1:1 on broker cli-L2");

            CliRun notReplica = CliRun.of("ha", "replicate", "--url", url, "--queue", "/queue/x", "--promote");
            assertThat(notReplica.exitCode()).isEqualTo(1);
            assertThat(notReplica.err()).contains("queue /queue/x on broker cli-L2 is not a replica");

            CliRun neither = CliRun.of("ha", "replicate", "--url", url, "--queue", "/queue/x");
            assertThat(neither.exitCode()).isEqualTo(2);
            assertThat(neither.err()).contains("Missing required argument (specify one of these): (--from=REMOTE | --promote | --status)");

            CliRun noQueue = CliRun.of("ha", "replicate", "--url", url, "--promote");
            assertThat(noQueue.exitCode()).isEqualTo(1); // found once connected, as every admin command's argument checks
            assertThat(noQueue.err()).contains("--queue must be set with --promote");
        }
        CliRun down = CliRun.of("ha", "replicate", "--url", "tcp://127.0.0.1:1", "--status", "--timeout", "2s");
        assertThat(down.exitCode()).isEqualTo(3);
    }
}
