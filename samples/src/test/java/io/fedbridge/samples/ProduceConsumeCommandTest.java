package io.fedbridge.samples;

import static org.assertj.core.api.Assertions.assertThat;

import io.fedbridge.broker.Broker;
import io.fedbridge.broker.BrokerConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** fedbridge produce / consume: numbered messages and the key=value summary lines scripts read. */
class ProduceConsumeCommandTest {

    private Broker broker;
    private String url;

    @BeforeEach
    void startBroker() {
        broker = Broker.start(BrokerConfig.builder("cli").listen("tcp://127.0.0.1:0").build());
        url = broker.connectUris().get(0);
    }

    @AfterEach
    void stopBroker() {
        broker.close();
    }

    @Test
    void shouldProduceAndConsumeEveryNumberedMessageOnceAndSayItInTheSummaries() {
        CliRun produce = CliRun.of("produce", "--url", url, "--destination", "/queue/cli", "--count", "500",
                "--size", "256", "--persistent");
        assertThat(produce.exitCode()).isZero();
        assertThat(produce.out()).contains("sent=500 failed=0 duplicates=0");
        assertThat(broker.queue("/queue/cli").pending()).isEqualTo(500);

        CliRun consume = CliRun.of("consume", "--url", "failover:(" + url + ")", "--destination", "/queue/cli",
                "--count", "500", "--timeout", "5s");
        assertThat(consume.exitCode()).isZero();
        assertThat(consume.out()).contains("received=500 missing=0 duplicates=0");
        assertThat(broker.queue("/queue/cli").pending()).isZero();
    }

    @Test
    void shouldReportMissingMessagesAndFailWhenFewerArrive() {
        assertThat(CliRun.of("produce", "--url", url, "--destination", "/queue/few", "--count", "20", "--rate", "1000")
                .out()).contains("sent=20 failed=0");
        CliRun consume = CliRun.of("consume", "--url", url, "--destination", "/queue/few", "--count", "30",
                "--timeout", "300ms", "--ack", "auto");
        assertThat(consume.exitCode()).isEqualTo(1);
        assertThat(consume.out()).contains("received=20 missing=10 duplicates=0");
    }

    @Test
    void shouldRejectBadFlagsNamingThem() {
        CliRun badAck = CliRun.of("consume", "--url", url, "--destination", "/queue/x", "--count", "1", "--ack", "sometimes");
        assertThat(badAck.exitCode()).isEqualTo(2);
        assertThat(badAck.err()).contains("--ack");
        CliRun badTimeout = CliRun.of("consume", "--url", url, "--destination", "/queue/x", "--count", "1", "--timeout", "soon");
        assertThat(badTimeout.exitCode()).isEqualTo(2);
        assertThat(badTimeout.err()).contains("--timeout").contains("soon");
        CliRun missing = CliRun.of("produce", "--url", url, "--count", "1");
        assertThat(missing.exitCode()).isEqualTo(2);
        assertThat(missing.err()).contains("--destination");
    }
}
