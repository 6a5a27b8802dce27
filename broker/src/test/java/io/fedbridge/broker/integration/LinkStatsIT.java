package io.fedbridge.broker.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fedbridge.broker.Broker;
import io.fedbridge.broker.BrokerConfig;
import io.fedbridge.core.Message;
import io.fedbridge.core.StompConnection;
import io.fedbridge.core.SubscriptionRequest;
import io.fedbridge.core.bridge.BridgeState;
import io.fedbridge.core.bridge.LinkStats;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** {@link Broker#links()}: one entry per peer whose counters, name and state time outlive each bridge. */
class LinkStatsIT extends BrokerTestSupport {

    private static final Duration WAIT = Duration.ofSeconds(15);

    @Test
    void shouldKeepCountingAcrossAReconnectAndTellTheDownTimeAndThePeersName() throws Exception {
        Broker b = startBroker(BrokerConfig.builder("lsB"));
        Broker a = startBroker(BrokerConfig.builder("lsA")
                .networkConnector("static:(vm://lsB)?initialReconnectDelay=100&maxReconnectDelay=200"));
        await("up").atMost(WAIT).until(() -> state(a) == BridgeState.UP);
        assertThat(onlyLink(a).peerName()).isEqualTo("lsB");
        assertThat(onlyLink(a).reconnects()).isZero();
        forward(a, b, 5);
        await().atMost(WAIT).until(() -> onlyLink(a).forwarded() == 5);

        b.close();
        await("down").atMost(WAIT).until(() -> state(a) == BridgeState.DOWN);
        await("down time grows").atMost(WAIT).until(() -> onlyLink(a).timeInState().toMillis() >= 300);
        LinkStats down = onlyLink(a);
        assertThat(down.peerName()).as("remembered while down").isEqualTo("lsB");
        assertThat(down.forwarded()).isEqualTo(5);
        assertThat(down.bridge().lastError()).isNotNull();

        Broker b2 = startBroker(BrokerConfig.builder("lsB"));
        await("up again").atMost(WAIT).until(() -> state(a) == BridgeState.UP);
        assertThat(onlyLink(a).timeInState()).as("counts from the new state").isLessThan(down.timeInState().plusSeconds(5));
        forward(a, b2, 3);
        await().atMost(WAIT).until(() -> onlyLink(a).forwarded() == 8);
        assertThat(onlyLink(a).bridge().forwarded()).as("the current bridge's own count").isEqualTo(3);
        assertThat(onlyLink(a).reconnects()).isPositive();
        assertThat(onlyLink(a).receiptLag()).isEqualTo(Duration.ZERO);
    }

    private void forward(Broker from, Broker to, int n) throws Exception {
        AtomicInteger got = new AtomicInteger();
        StompConnection consumer = connect(to, "vm");
        consumer.subscribe(SubscriptionRequest.of("/queue/ls"), m -> got.incrementAndGet());
        StompConnection p = connect(from, "vm");
        for (int i = 0; i < n; i++) {
            p.send(Message.of("/queue/ls", "m" + i)).get();
        }
        await("forwarded").atMost(WAIT).until(() -> got.get() == n);
        consumer.close();
    }

    private static LinkStats onlyLink(Broker a) {
        assertThat(a.links()).hasSize(1);
        return a.links().get(0);
    }

    private static BridgeState state(Broker a) {
        return a.links().isEmpty() ? null : a.links().get(0).state();
    }
}
