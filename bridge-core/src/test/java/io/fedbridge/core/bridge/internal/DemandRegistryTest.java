package io.fedbridge.core.bridge.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class DemandRegistryTest {

    private final DemandRegistry registry = new DemandRegistry();

    /** A route that subscribes while it is the registry's choice, as Direction does, and can be held up once. */
    private final class TestRoute implements DemandRegistry.Route {
        final String target;
        volatile boolean subscribed;
        volatile CountDownLatch holdNext;
        final CountDownLatch reached = new CountDownLatch(1);

        TestRoute(String target) {
            this.target = target;
        }

        @Override
        public void reconcile(String originId) {
            CountDownLatch hold = holdNext;
            if (hold != null) {
                holdNext = null;
                reached.countDown();
                try {
                    hold.await(10, TimeUnit.SECONDS); // the bridge's thread is descheduled here
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            synchronized (this) {
                subscribed = registry.isBest("A", originId, this);
            }
        }

        @Override
        public String targetId() {
            return target;
        }
    }

    @Test
    void shouldLeaveOnlyTheShortestRouteSubscribedWhenALongerRoutesNewsIsActedOnLast() throws Exception {
        TestRoute viaC = new TestRoute("C"); // consumer on B seen through C: path of 2
        TestRoute direct = new TestRoute("B"); // the same consumer seen directly: path of 1
        CountDownLatch release = new CountDownLatch(1);
        viaC.holdNext = release;

        CompletableFuture<Void> late = CompletableFuture.runAsync(() -> registry.offer("A", "consumer-1", viaC, 2));
        assertThat(viaC.reached.await(10, TimeUnit.SECONDS)).isTrue();
        registry.offer("A", "consumer-1", direct, 1); // meanwhile, on another bridge's thread
        release.countDown();
        late.get(10, TimeUnit.SECONDS);

        assertThat(direct.subscribed).as("the direct route").isTrue();
        assertThat(viaC.subscribed).as("the route through C, whose news was acted on last").isFalse();
    }

    @Test
    void shouldHandTheDemandToTheNextBestRouteWhenTheBestOneGoes() {
        TestRoute viaC = new TestRoute("C");
        TestRoute direct = new TestRoute("B");
        registry.offer("A", "consumer-1", viaC, 2);
        registry.offer("A", "consumer-1", direct, 1);
        assertThat(direct.subscribed).isTrue();
        assertThat(viaC.subscribed).isFalse();

        registry.withdraw("A", "consumer-1", direct);

        assertThat(direct.subscribed).isFalse();
        assertThat(viaC.subscribed).isTrue();
        registry.withdraw("A", "consumer-1", viaC);
        assertThat(viaC.subscribed).isFalse();
    }

    @Test
    void shouldBreakATieBetweenEquallyShortRoutesByTheSmallerTargetId() {
        TestRoute viaD = new TestRoute("D");
        TestRoute viaC = new TestRoute("C");
        registry.offer("A", "consumer-1", viaD, 2);
        registry.offer("A", "consumer-1", viaC, 2);

        assertThat(viaC.subscribed).isTrue();
        assertThat(viaD.subscribed).isFalse();
    }
}
