package io.fedbridge.failover;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fedbridge.core.ClientConfig;
import io.fedbridge.core.uri.CompositeUri;
import java.time.Duration;
import java.util.List;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

class FailoverConfigTest {

    private static final String AB = "failover:(tcp://a:61613,tcp://b:61613)";

    @Test
    void shouldUseActiveMqDefaultsExceptForAFiniteTimeout() {
        FailoverConfig c = FailoverConfig.fromUri(AB);

        assertThat(c.uris()).extracting(CompositeUri::toString).containsExactly("tcp://a:61613", "tcp://b:61613");
        assertThat(c.randomize()).isTrue();
        assertThat(c.reconnect().initialReconnectDelay()).isEqualTo(Duration.ofMillis(10));
        assertThat(c.reconnect().maxReconnectDelay()).isEqualTo(Duration.ofSeconds(30));
        assertThat(c.reconnect().useExponentialBackOff()).isTrue();
        assertThat(c.reconnect().reconnectDelayExponent()).isEqualTo(2.0);
        assertThat(c.reconnect().maxReconnectAttempts()).isEqualTo(-1);
        assertThat(c.reconnect().startupMaxReconnectAttempts()).isEqualTo(-1);
        assertThat(c.timeout()).as("never block forever unless asked").isEqualTo(Duration.ofSeconds(30));
        assertThat(c.waitsForever()).isFalse();
        assertThat(c.maxCacheSize()).isEqualTo(4L * 1024 * 1024);
        assertThat(c.priorityBackup()).isFalse();
        assertThat(c.priorityURIs()).isEmpty();
        assertThat(c.backup()).isFalse();
        assertThat(c.backupPoolSize()).isEqualTo(1);
        assertThat(c.updateURIsSupported()).isTrue();
        assertThat(c.rebalanceUpdateURIs()).isTrue();
        assertThat(c.cluster().updateURIsAllowed()).as("no restriction").isEmpty();
        assertThat(c.cluster().updateURIsCredentials()).isFalse();
        assertThat(c.heartBeatSend()).isEqualTo(Duration.ofSeconds(10));
        assertThat(c.heartBeatReceive()).isEqualTo(Duration.ofSeconds(10));
        assertThat(c.clientId()).isNull();
        assertThat(c.auditDepth()).isEqualTo(10_000);
        assertThat(c.nested()).isEmpty();
    }

    @Test
    void shouldBindEveryOptionToItsBuilderMethod() {
        FailoverConfig c = FailoverConfig.fromUri(AB + "?randomize=false&initialReconnectDelay=100&maxReconnectDelay=5s"
                + "&useExponentialBackOff=false&reconnectDelayExponent=1.5&maxReconnectAttempts=7&startupMaxReconnectAttempts=3"
                + "&timeout=-1&maxCacheSize=65536&priorityBackup=true&priorityURIs=tcp://b:61613&backup=true&backupPoolSize=2"
                + "&updateURIsSupported=false&rebalanceUpdateURIs=false&updateURIsAllowed=*.prod.example.com:*,127.0.0.1:61613"
                + "&updateURIsCredentials=true&heartBeatSend=1000&heartBeatReceive=2s&clientId=app-1"
                + "&auditDepth=500&nested.login=app&nested.connectTimeout=2s");

        FailoverConfig expected = FailoverConfig.builder().uri("tcp://a:61613").uri("tcp://b:61613").randomize(false)
                .initialReconnectDelay(Duration.ofMillis(100)).maxReconnectDelay(Duration.ofSeconds(5))
                .useExponentialBackOff(false).reconnectDelayExponent(1.5).maxReconnectAttempts(7).startupMaxReconnectAttempts(3)
                .timeout(FailoverConfig.NO_TIMEOUT).maxCacheSize(65536).priorityBackup(true).priorityURIs(List.of("tcp://b:61613"))
                .backup(true).backupPoolSize(2).updateURIsSupported(false).rebalanceUpdateURIs(false)
                .updateURIsAllowed(List.of("*.prod.example.com:*", "127.0.0.1:61613")).updateURIsCredentials(true)
                .heartBeatSend(Duration.ofSeconds(1)).heartBeatReceive(Duration.ofSeconds(2)).clientId("app-1").auditDepth(500)
                .nested("login", "app").nested("connectTimeout", "2s").build();
        assertThat(c).isEqualTo(expected);
        assertThat(c.waitsForever()).isTrue();
        assertThat(c.toBuilder().build()).isEqualTo(c);
    }

    @Test
    void shouldRejectAnUnknownOptionListingTheValidOnes() {
        assertThatThrownBy(() -> FailoverConfig.fromUri(AB + "?maxReconectAttempts=3"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("unknown option 'maxReconectAttempts'")
                .hasMessageContaining("did you mean 'maxReconnectAttempts'?")
                .hasMessageContaining("valid options are: ")
                .hasMessageContaining("priorityBackup").hasMessageContaining("nested.*");
        assertThatThrownBy(() -> FailoverConfig.fromUri(AB + "?trackMessages=true"))
                .hasMessageContaining("unknown option 'trackMessages'");
        assertThat(FailoverConfig.optionNames()).contains("randomize", "initialReconnectDelay", "maxReconnectDelay",
                "useExponentialBackOff", "reconnectDelayExponent", "maxReconnectAttempts", "startupMaxReconnectAttempts",
                "timeout", "priorityBackup", "priorityURIs", "backup", "updateURIsSupported", "heartBeatSend", "nested.*");
    }

    @Test
    void shouldValidateNestedAndPerBrokerOptionsLikeAPlainClientUri() {
        assertThatThrownBy(() -> FailoverConfig.fromUri(AB + "?nested.logn=x"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("unknown option 'logn'").hasMessageContaining("login");
        assertThatThrownBy(() -> FailoverConfig.fromUri("failover:(tcp://a:61613?connectTimeout=soon)"))
                .hasMessageContaining("connectTimeout").hasMessageContaining("must be a duration");
        assertThatThrownBy(() -> FailoverConfig.fromUri(AB + "?nested.heartBeatSend=5000"))
                .hasMessageContaining("'heartBeatSend' is a failover option");
        assertThatThrownBy(() -> FailoverConfig.fromUri("failover:(tcp://a:61613?clientId=x)"))
                .hasMessageContaining("'clientId' is a failover option");
    }

    @Test
    void shouldMergeNestedOptionsUnderEachBrokersOwn() {
        FailoverConfig c = FailoverConfig.fromUri("failover:(tcp://a:61613?login=special,tcp://b:61613)"
                + "?nested.login=app&nested.passcode=secret&heartBeatSend=0&clientId=c1");

        ClientConfig a = c.clientConfig(c.uris().get(0));
        ClientConfig b = c.clientConfig(c.uris().get(1));
        assertThat(a.login()).isEqualTo("special");
        assertThat(b.login()).isEqualTo("app");
        assertThat(a.passcode()).isEqualTo("secret");
        assertThat(b.heartBeatSend()).isZero();
        assertThat(b.clientId()).isEqualTo("c1");
        assertThat(c.clientConfig(CompositeUri.parse("tcp://learned:61613")).login()).as("learned brokers too").isEqualTo("app");
        assertThat(c.toString()).doesNotContain("secret");
    }

    @Test
    void shouldTreatAPlainUriAsOneBrokerWithoutFailover() {
        FailoverConfig c = FailoverConfig.fromUri("tcp://a:61613?login=app");

        assertThat(c.uris()).hasSize(1);
        assertThat(c.clientConfig(c.uris().get(0)).login()).isEqualTo("app");
        assertThat(c.reconnect().maxReconnectAttempts()).isZero();
        assertThat(c.reconnect().startupMaxReconnectAttempts()).isZero();
        assertThatThrownBy(() -> FailoverConfig.fromUri("tcp://a:61613?randomize=false"))
                .hasMessageContaining("unknown option 'randomize'")
                .hasMessageContaining("failover options go on a failover URI, e.g. failover:(tcp://a:61613)?randomize=false");
        assertThatThrownBy(() -> FailoverConfig.fromUri("static:(tcp://a:61613)"))
                .hasMessageContaining("unsupported scheme 'static'");
    }

    @Test
    void shouldRejectConflictingOrInvalidValuesAtBuild() {
        assertThatThrownBy(() -> FailoverConfig.fromUri(AB + "?priorityURIs=tcp://b:61613"))
                .hasMessageContaining("need priorityBackup=true");
        assertThatThrownBy(() -> FailoverConfig.fromUri(AB + "?priorityBackup=true&priorityURIs=tcp://c:61613"))
                .hasMessageContaining("must each be one of the brokers");
        assertThatThrownBy(() -> FailoverConfig.fromUri(AB + "?initialReconnectDelay=5000&maxReconnectDelay=1000"))
                .hasMessageContaining("maxReconnectDelay must be >= initialReconnectDelay");
        assertThatThrownBy(() -> FailoverConfig.fromUri(AB + "?reconnectDelayExponent=0.5"))
                .hasMessageContaining("reconnectDelayExponent must be >= 1, but was 0.5");
        assertThatThrownBy(() -> FailoverConfig.fromUri(AB + "?maxReconnectAttempts=-2"))
                .hasMessageContaining("maxReconnectAttempts must be >= -1");
        assertThatThrownBy(() -> FailoverConfig.fromUri(AB + "?maxCacheSize=0")).hasMessageContaining("maxCacheSize must be >= 1");
        assertThatThrownBy(() -> FailoverConfig.fromUri(AB + "?backupPoolSize=0")).hasMessageContaining("backupPoolSize must be >= 1");
        assertThatThrownBy(() -> FailoverConfig.fromUri(AB + "?auditDepth=0")).hasMessageContaining("auditDepth must be >= 1");
        assertThatThrownBy(() -> FailoverConfig.fromUri(AB + "?randomize=maybe"))
                .hasMessageContaining("option 'randomize'").hasMessageContaining("must be 'true' or 'false'");
        assertThatThrownBy(() -> FailoverConfig.fromUri("failover:(tcp://a:61613,tcp://a:61613)"))
                .hasMessageContaining("must be distinct");
        assertThatThrownBy(() -> FailoverConfig.fromUri("failover:(udp://a:61613)"))
                .hasMessageContaining("unsupported transport scheme 'udp'");
        assertThatThrownBy(() -> FailoverConfig.builder().build()).hasMessageContaining("at least one broker");
    }

    @Test
    void shouldNormaliseAnyNegativeTimeoutToWaitingForever() {
        FailoverConfig c = FailoverConfig.builder().uri("tcp://a:1").timeout(Duration.ofSeconds(-5)).build();
        assertThat(c.timeout()).isEqualTo(FailoverConfig.NO_TIMEOUT);
        assertThat(c.waitsForever()).isTrue();
    }

    @Test
    void shouldBackOffThroughAResilience4jIntervalFunction() {
        FailoverReconnectConfig exponential = FailoverConfig.fromUri(AB + "?initialReconnectDelay=10&maxReconnectDelay=100").reconnect();
        assertThat(LongStream.rangeClosed(1, 6).map(n -> exponential.intervalFunction().apply((int) n)).toArray())
                .containsExactly(10, 20, 40, 80, 100, 100);
        FailoverReconnectConfig cubic = exponential.toBuilder().reconnectDelayExponent(3).maxReconnectDelay(Duration.ofSeconds(10)).build();
        assertThat(LongStream.rangeClosed(1, 4).map(n -> cubic.intervalFunction().apply((int) n)).toArray())
                .containsExactly(10, 30, 90, 270);
        FailoverReconnectConfig constant = exponential.toBuilder().useExponentialBackOff(false).build();
        assertThat(LongStream.rangeClosed(1, 4).map(n -> constant.intervalFunction().apply((int) n)).toArray())
                .containsExactly(10, 10, 10, 10);
    }

    @Test
    void shouldGiveUpAfterTheConfiguredRoundsWithActiveMqsMeaningOfMinusOneAndZero() {
        FailoverReconnectConfig forever = FailoverReconnectConfig.ofDefaults();
        assertThat(forever.isExhausted(1_000_000, false)).isFalse();
        assertThat(forever.isExhausted(1_000_000, true)).isFalse();

        FailoverReconnectConfig once = forever.toBuilder().maxReconnectAttempts(0).build();
        assertThat(once.isExhausted(1, false)).as("0 = one round, no retry").isTrue();

        FailoverReconnectConfig three = forever.toBuilder().maxReconnectAttempts(3).build();
        assertThat(three.isExhausted(2, false)).isFalse();
        assertThat(three.isExhausted(3, false)).isTrue();
        assertThat(three.isExhausted(3, true)).as("startup -1 = as maxReconnectAttempts").isTrue();

        FailoverReconnectConfig startup = three.toBuilder().startupMaxReconnectAttempts(1).build();
        assertThat(startup.isExhausted(1, true)).isTrue();
        assertThat(startup.isExhausted(1, false)).isFalse();
    }
}
