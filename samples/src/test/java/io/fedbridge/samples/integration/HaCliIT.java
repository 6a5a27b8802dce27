package io.fedbridge.samples.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fedbridge.broker.BrokerConfig;
import io.fedbridge.ha.HaMember;
import io.fedbridge.ha.HaRole;
import io.fedbridge.ha.HaState;
import io.fedbridge.samples.CliRun;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code fedbridge ha status|promote} against a real group of two members (promotion by hand). */
class HaCliIT {

    @TempDir
    Path dir;

    @Test
    void statusShowsEveryMemberAndPromoteRefusesAnUnreadyBackupUnlessForced() throws Exception {
        List<String> uris = List.of("tcp://127.0.0.1:" + freePort(), "tcp://127.0.0.1:" + freePort());
        try (HaMember a = HaMember.start(config("cli-1", uris, 0)); HaMember b = HaMember.start(config("cli-2", uris, 1))) {
            CliRun status = CliRun.of("ha", "status", "--url", uris.get(0));
            assertThat(status.exitCode()).as(status.toString()).isZero();
            assertThat(status.out()).contains("HA group cli (promotion manual, replicate all)")
                    .containsPattern("cli-1 +" + uris.get(0).replace(".", "\\.") + " +backup +joining")
                    .containsPattern("cli-2 +" + uris.get(1).replace(".", "\\.") + " +backup +joining");

            CliRun refused = CliRun.of("ha", "promote", "--url", uris.get(0));
            assertThat(refused.exitCode()).as(refused.toString()).isEqualTo(1);
            assertThat(refused.err()).contains("is a backup in state joining, not ready").contains("--force");

            CliRun forced = CliRun.of("ha", "promote", "--url", uris.get(0), "--force", "--timeout", "30s");
            assertThat(forced.exitCode()).as(forced.toString()).isZero();
            assertThat(forced.out()).contains("WARNING: forced promotion of a backup in state joining")
                    .contains("promoted cli-1 to primary of HA group cli (epoch 1");
            assertThat(a.role()).isEqualTo(HaRole.PRIMARY);
            await().atMost(Duration.ofSeconds(30)).until(() -> b.state() == HaState.READY);

            CliRun after = CliRun.of("ha", "status", "--url", uris.get(1), "--json");
            assertThat(after.exitCode()).as(after.toString()).isZero();
            assertThat(after.out()).contains("\"role\" : \"primary\"").contains("\"state\" : \"ready\"");
            CliRun table = CliRun.of("ha", "status", "--url", uris.get(1));
            assertThat(table.out()).containsPattern("cli-1 .* primary +active +1 +0 +0")
                    .containsPattern("cli-2 .* backup +ready +1 +\\d+ +\\d+");

            CliRun again = CliRun.of("ha", "promote", "--url", uris.get(0));
            assertThat(again.exitCode()).isEqualTo(1);
            assertThat(again.err()).contains("cli-1 is already the primary of group cli");
        }
        CliRun down = CliRun.of("ha", "status", "--url", "tcp://127.0.0.1:" + freePort(), "--timeout", "2s");
        assertThat(down.exitCode()).as(down.toString()).isEqualTo(3);
        assertThat(down.err()).contains("cannot reach HA member at");
        CliRun usage = CliRun.of("ha", "status", "--url", "failover:(tcp://a:1,tcp://b:2)");
        assertThat(usage.exitCode()).isEqualTo(2);
        assertThat(usage.err()).contains("must be one member's URI");
    }

    private BrokerConfig config(String name, List<String> uris, int i) {
        return BrokerConfig.builder(name).listen(uris.get(i)).dataDirectory(dir.resolve(name))
                .ha(h -> h.group("cli").brokers(uris)).build();
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }
}
