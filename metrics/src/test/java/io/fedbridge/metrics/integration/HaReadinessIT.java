package io.fedbridge.metrics.integration;

import static org.assertj.core.api.Assertions.assertThat;

import io.fedbridge.broker.BrokerConfig;
import io.fedbridge.ha.HaMember;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A load balancer asks /readyz where to send clients: an HA backup is not ready (it refuses them), a primary is. */
class HaReadinessIT extends MetricsTestSupport {

    @TempDir
    Path dir;

    @Test
    void aBackupIsNotReadyAndThePrimaryIs() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        String uri = "tcp://127.0.0.1:" + port;
        BrokerConfig config = BrokerConfig.builder("ready-1").listen(uri).dataDirectory(dir.resolve("m1"))
                .metrics("http://127.0.0.1:0").ha(h -> h.group("rz").brokers(List.of(uri))).build();
        try (HaMember member = HaMember.start(config)) {
            HttpResponse<String> backup = get(endpoint(member.broker(), "/readyz"));
            assertThat(backup.statusCode()).isEqualTo(503);
            assertThat(backup.body()).contains("\"name\":\"ha\",\"status\":\"DOWN\"")
                    .contains("backup (joining) of HA group rz");

            member.promote(true);
            assertThat(member.awaitPrimary(Duration.ofSeconds(30))).isTrue();
            HttpResponse<String> primary = get(endpoint(member.broker(), "/readyz"));
            assertThat(primary.statusCode()).as(primary.body()).isEqualTo(200);
            assertThat(primary.body()).contains("\"name\":\"ha\",\"status\":\"UP\"").contains("primary of HA group rz, epoch 1");
        }
    }
}
