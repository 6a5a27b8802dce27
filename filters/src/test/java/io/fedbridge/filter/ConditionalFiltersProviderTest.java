package io.fedbridge.filter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fedbridge.core.FederationHeaders;
import io.fedbridge.core.StompCommand;
import io.fedbridge.core.StompFrame;
import io.fedbridge.core.bridge.BridgeFilter;
import io.fedbridge.core.bridge.BridgeFilterProvider;
import io.fedbridge.core.bridge.RemoteConsumer;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import org.junit.jupiter.api.Test;

class ConditionalFiltersProviderTest {

    private final ConditionalFiltersProvider provider = new ConditionalFiltersProvider();

    private static RemoteConsumer consumer(String dest, String... path) {
        return new RemoteConsumer("c1", dest, null, List.of(path));
    }

    @Test
    void shouldBeFoundThroughServiceLoader() {
        assertThat(ServiceLoader.load(BridgeFilterProvider.class).stream().map(ServiceLoader.Provider::type))
                .contains(ConditionalFiltersProvider.class);
    }

    @Test
    void shouldReplayByDefaultAndCreateEachFilterFromItsOptions() {
        assertThat(provider.create(Map.of(), "ctx")).as("replay is on unless switched off")
                .containsExactly(new ReplayWhenNoConsumers(Duration.ofMillis(500), false));
        assertThat(provider.create(Map.of("replayWhenNoConsumers", "false"), "ctx")).isEmpty();
        List<BridgeFilter> all = provider.create(Map.of("replayWhenNoConsumers", "true", "replayDelay", "250ms",
                "selectorAware", "true", "rateLimit", "100", "rateDuration", "2s", "forwardOnlyWhenIdle", "true",
                "idleMaxPending", "3"), "ctx");
        assertThat(all).hasSize(3);
        assertThat(all.get(0)).isEqualTo(new ReplayWhenNoConsumers(Duration.ofMillis(250), true));
        assertThat(((RateLimit) all.get(1)).rateLimit()).isEqualTo(100);
        assertThat(((RateLimit) all.get(1)).rateDuration()).isEqualTo(Duration.ofSeconds(2));
        assertThat(all.get(2)).isEqualTo(new ForwardOnlyWhenIdle(3, Duration.ofMillis(200)));
    }

    @Test
    void shouldRejectBadValuesNamingTheOption() {
        assertThatThrownBy(() -> provider.create(Map.of("replayWhenNoConsumers", "yes"), "network connector URI 'x'"))
                .hasMessageContaining("replayWhenNoConsumers").hasMessageContaining("'yes'");
        assertThatThrownBy(() -> provider.create(Map.of("rateLimit", "-5"), "ctx")).hasMessageContaining("option 'rateLimit' in ctx must be >= 0");
        assertThatThrownBy(() -> provider.create(Map.of("rateLimit", "5", "rateDuration", "0"), "ctx"))
                .hasMessageContaining("rateDuration must be > 0");
    }

    @Test
    void shouldMarkOnlyQueueSubscriptionsOfConsumersLocalToThePeerForReplay() {
        ReplayWhenNoConsumers r = new ReplayWhenNoConsumers(Duration.ofMillis(100), false);
        Map<String, String> h = new HashMap<>();
        r.configureSubscription(consumer("/queue/a", "B"), h);
        assertThat(h).containsEntry(FederationHeaders.REPLAY_DELAY, "100").containsEntry(FederationHeaders.REPLAY_SELECTOR_AWARE, "false");
        Map<String, String> relayed = new HashMap<>();
        r.configureSubscription(consumer("/queue/a", "C", "B"), relayed);
        assertThat(relayed).as("relayed demand never pulls replays: no ping-pong through a chain").isEmpty();
        Map<String, String> topic = new HashMap<>();
        r.configureSubscription(consumer("/topic/a", "B"), topic);
        assertThat(topic).as("topics are never replayed").isEmpty();
    }

    @Test
    void shouldHoldBackOnlyWhenThePeersQueueHasMoreWaitingThanAllowed() {
        ForwardOnlyWhenIdle f = new ForwardOnlyWhenIdle(2, Duration.ofMillis(50));
        RemoteConsumer q = consumer("/queue/a", "B");
        assertThat(f.afterReceipt(q, receipt("2"))).isTrue();
        assertThat(f.afterReceipt(q, receipt("3"))).isFalse();
        assertThat(f.afterReceipt(q, StompFrame.of(StompCommand.RECEIPT))).as("a peer that does not say").isTrue();
        assertThat(f.afterReceipt(consumer("/topic/a", "B"), receipt("99"))).isTrue();
        assertThat(f.holdTime()).isEqualTo(Duration.ofMillis(50));
    }

    private static StompFrame receipt(String pending) {
        return StompFrame.of(StompCommand.RECEIPT, FederationHeaders.QUEUE_PENDING, pending);
    }
}
