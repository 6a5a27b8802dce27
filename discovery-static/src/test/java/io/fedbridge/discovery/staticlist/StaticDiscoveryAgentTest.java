package io.fedbridge.discovery.staticlist;

import io.fedbridge.core.testing.ManualScheduler;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fedbridge.core.ReconnectConfig;
import io.fedbridge.core.discovery.DiscoveryContext;
import io.fedbridge.core.discovery.PeerInfo;
import io.fedbridge.core.uri.CompositeUri;
import io.github.resilience4j.core.IntervalFunction;
import java.net.ConnectException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class StaticDiscoveryAgentTest {

    private static final PeerInfo A = PeerInfo.of("tcp://a:61613");
    private static final PeerInfo B = PeerInfo.of("tcp://b:61613");
    private static final String DISCOVERED_A = "discovered tcp://a:61613";
    private static final String DISCOVERED_B = "discovered tcp://b:61613";
    private static final String LOST_A = "lost tcp://a:61613";
    private static final Exception REFUSED = new ConnectException("Connection refused");

    /** 100, 200, 400, 800, 1000, 1000, ... ms; a link must stay up 5 s to count as healthy. */
    private static final ReconnectConfig FAST = ReconnectConfig.builder()
            .initialReconnectDelay(Duration.ofMillis(100))
            .maxReconnectDelay(Duration.ofSeconds(1))
            .minConnectTime(Duration.ofSeconds(5))
            .build();

    private final ManualScheduler scheduler = new ManualScheduler();
    private final RecordingListener listener = new RecordingListener();
    private final List<ScheduledExecutorService> realSchedulers = new ArrayList<>();

    @AfterEach
    void shutDownRealSchedulers() {
        realSchedulers.forEach(ScheduledExecutorService::shutdownNow);
    }

    // ---------------------------------------------------------------------------------------------
    // Discovery

    @Test
    void shouldDiscoverEveryListedPeerOnTheSchedulerOnceStarted() {
        StaticDiscoveryAgent agent = agent(FAST, A, B);

        agent.start(listener);
        assertThat(listener.events()).as("nothing on the caller's thread").isEmpty();
        scheduler.runDue();

        assertThat(listener.events()).containsExactly(DISCOVERED_A, DISCOVERED_B);
        assertThat(scheduler.requestedDelaysMillis()).containsExactly(0L, 0L);
    }

    @Test
    void shouldCallTheListenerFromTheSchedulersThreadNotTheCallers() {
        ScheduledExecutorService real = realScheduler();
        StaticDiscoveryAgent agent = StaticDiscoveryAgent.of(List.of(A, B), FAST, context(real, Clock.systemUTC()));

        agent.start(listener);

        await("both peers discovered").atMost(Duration.ofSeconds(5))
                .until(() -> listener.events().size() == 2);
        assertThat(listener.events()).containsExactlyInAnyOrder(DISCOVERED_A, DISCOVERED_B);
        assertThat(listener.threads()).allSatisfy(thread -> {
            assertThat(thread).isNotSameAs(Thread.currentThread());
            assertThat(thread.getName()).startsWith("static-discovery-test");
        });
    }

    @Test
    void shouldCollapseDuplicatePeers() {
        StaticDiscoveryAgent agent = agent(FAST, A, B, A, PeerInfo.of(B.uri()));

        agent.start(listener);
        scheduler.runDue();

        assertThat(agent.peers()).containsExactly(A, B);
        assertThat(listener.events()).containsExactly(DISCOVERED_A, DISCOVERED_B);
    }

    @Test
    void shouldRejectAnEmptyPeerList() {
        assertThatThrownBy(() -> StaticDiscoveryAgent.of(List.of(), FAST, context(scheduler, scheduler.clock())))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("peers must not be empty, but was []");
    }

    @Test
    void shouldRejectStartingTwiceAndReportsBeforeStart() {
        StaticDiscoveryAgent agent = agent(FAST, A);

        assertThatThrownBy(() -> agent.peerFailed(A, REFUSED))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("not started");
        agent.start(listener);
        assertThatThrownBy(() -> agent.start(new RecordingListener()))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("already started");
    }

    // ---------------------------------------------------------------------------------------------
    // Back-off

    @Test
    void shouldRediscoverAFailedPeerAfterTheDelayAndNotBefore() {
        StaticDiscoveryAgent agent = started(FAST, A, B);

        agent.peerFailed(A, REFUSED);
        scheduler.advance(Duration.ofMillis(99));
        assertThat(listener.events()).isEmpty();
        scheduler.advance(Duration.ofMillis(1));

        assertThat(listener.events()).containsExactly(DISCOVERED_A);
    }

    @Test
    void shouldBackOffAsTheIntervalFunctionSays() {
        StaticDiscoveryAgent agent = started(FAST, A);

        failAndRetry(agent, A, 8);

        IntervalFunction expected = FAST.intervalFunction();
        assertThat(scheduler.backOffDelaysMillis())
                .containsExactlyElementsOf(IntStream.rangeClosed(1, 8).mapToObj(expected::apply).toList())
                .containsExactly(100L, 200L, 400L, 800L, 1000L, 1000L, 1000L, 1000L);
        assertThat(listener.count(DISCOVERED_A)).isEqualTo(8);
    }

    @Test
    void shouldRetryAtTheInitialDelayWithoutExponentialBackOff() {
        StaticDiscoveryAgent agent = started(FAST.toBuilder().useExponentialBackOff(false).build(), A);

        failAndRetry(agent, A, 5);

        assertThat(scheduler.backOffDelaysMillis()).containsExactly(100L, 100L, 100L, 100L, 100L);
    }

    @Test
    void shouldBackOffEachPeerOnItsOwn() {
        StaticDiscoveryAgent agent = started(FAST, A, B);

        failAndRetry(agent, A, 3);
        agent.peerFailed(B, REFUSED);

        assertThat(scheduler.backOffDelaysMillis()).containsExactly(100L, 200L, 400L, 100L);
    }

    @Test
    void shouldIgnoreADuplicateFailureReportWhileARetryIsScheduled() {
        StaticDiscoveryAgent agent = started(FAST, A);

        agent.peerFailed(A, REFUSED);
        agent.peerFailed(A, REFUSED);
        scheduler.runNext();
        agent.peerFailed(A, REFUSED);

        assertThat(scheduler.backOffDelaysMillis()).containsExactly(100L, 200L);
        assertThat(listener.count(DISCOVERED_A)).isEqualTo(1);
    }

    @Test
    void shouldMatchReportsByUriWhateverTheBrokerIdentityAttached() {
        StaticDiscoveryAgent agent = started(FAST, A);

        agent.peerFailed(new PeerInfo(A.uri(), "ID:broker-a-1", "broker-a"), REFUSED);
        agent.peerFailed(PeerInfo.of("tcp://not-listed:61613"), REFUSED);
        scheduler.runNext();

        assertThat(scheduler.backOffDelaysMillis()).containsExactly(100L);
        assertThat(listener.events()).containsExactly(DISCOVERED_A);
    }

    @Test
    void shouldTreatAListenerThatThrowsAsAFailedConnect() {
        AtomicBoolean thrown = new AtomicBoolean();
        listener.onDiscovered(peer -> {
            if (thrown.compareAndSet(false, true)) {
                throw new IllegalStateException("connector bug");
            }
        });
        agent(FAST, A).start(listener);

        scheduler.runDue();
        scheduler.runNext();

        assertThat(listener.events()).containsExactly(DISCOVERED_A, DISCOVERED_A);
        assertThat(scheduler.backOffDelaysMillis()).containsExactly(100L);
    }

    // ---------------------------------------------------------------------------------------------
    // Giving up

    @Test
    void shouldGiveUpAfterMaxReconnectAttempts() {
        StaticDiscoveryAgent agent = started(FAST.toBuilder().maxReconnectAttempts(3).build(), A, B);

        failAndRetry(agent, A, 2);
        agent.peerFailed(A, REFUSED);
        assertThat(listener.events()).as("peerLost comes from the scheduler").doesNotContain(LOST_A);
        scheduler.runDue();

        assertThat(listener.events()).containsExactly(DISCOVERED_A, DISCOVERED_A, LOST_A);
        agent.peerFailed(A, REFUSED);
        scheduler.advance(Duration.ofMinutes(10));
        assertThat(listener.events()).containsExactly(DISCOVERED_A, DISCOVERED_A, LOST_A);
        assertThat(scheduler.pendingTasks()).isZero();

        agent.peerFailed(B, REFUSED);
        scheduler.runNext();
        assertThat(listener.events()).endsWith(DISCOVERED_B);
    }

    @Test
    void shouldNeverGiveUpWithZeroMaxReconnectAttempts() {
        StaticDiscoveryAgent agent = started(FAST.toBuilder().maxReconnectAttempts(0).build(), A);

        failAndRetry(agent, A, 2_000);

        assertThat(listener.count(DISCOVERED_A)).isEqualTo(2_000);
        assertThat(listener.events()).doesNotContain(LOST_A);
        List<Long> delays = scheduler.backOffDelaysMillis();
        assertThat(delays).hasSize(2_000);
        assertThat(delays.get(delays.size() - 1)).isEqualTo(1000L);
    }

    // ---------------------------------------------------------------------------------------------
    // minConnectTime

    @Test
    void shouldCountALinkThatDiesBeforeMinConnectTimeAsAFailedConnect() {
        StaticDiscoveryAgent agent = started(FAST.toBuilder().maxReconnectAttempts(4).build(), A);
        failAndRetry(agent, A, 2);

        agent.peerConnected(A);
        scheduler.advance(Duration.ofMillis(4_999));
        agent.peerFailed(A, REFUSED);
        scheduler.runNext();
        agent.peerConnected(A);
        agent.peerFailed(A, REFUSED);
        scheduler.runDue();

        assertThat(scheduler.backOffDelaysMillis()).containsExactly(100L, 200L, 400L);
        assertThat(listener.events()).endsWith(DISCOVERED_A, LOST_A);
    }

    @Test
    void shouldStartAfreshWhenTheLinkStayedUpForMinConnectTime() {
        StaticDiscoveryAgent agent = started(FAST.toBuilder().maxReconnectAttempts(3).build(), A);
        failAndRetry(agent, A, 2);

        agent.peerConnected(A);
        scheduler.advance(Duration.ofSeconds(5));
        agent.peerFailed(A, new ConnectException("Connection reset"));
        scheduler.runNext();
        assertThat(listener.events()).doesNotContain(LOST_A);

        failAndRetry(agent, A, 2);
        agent.peerFailed(A, REFUSED);
        scheduler.runDue();

        assertThat(scheduler.backOffDelaysMillis()).containsExactly(100L, 200L, 100L, 100L, 200L);
        assertThat(listener.events()).endsWith(LOST_A);
    }

    @Test
    void shouldMeasureMinConnectTimeWithTheInjectedClock() {
        ManualScheduler.MutableClock clock = new ManualScheduler.MutableClock(Instant.EPOCH);
        StaticDiscoveryAgent agent = StaticDiscoveryAgent.of(List.of(A), FAST, context(scheduler, clock));
        agent.start(listener);
        scheduler.runDue();
        failAndRetry(agent, A, 3);

        agent.peerConnected(A);
        scheduler.advance(Duration.ofMinutes(1)); // the scheduler's clock, not the agent's
        agent.peerFailed(A, REFUSED);
        scheduler.runNext();
        agent.peerConnected(A);
        clock.set(Instant.EPOCH.plusSeconds(5));
        agent.peerFailed(A, REFUSED);

        assertThat(scheduler.backOffDelaysMillis()).containsExactly(100L, 200L, 400L, 800L, 100L);
    }

    // ---------------------------------------------------------------------------------------------
    // Self

    @Test
    void shouldNeverRetryAPeerThatIsThisBroker() {
        StaticDiscoveryAgent agent = started(FAST, A, B);

        agent.peerFailed(A, REFUSED);
        agent.peerIsSelf(A);
        agent.peerIsSelf(A);
        scheduler.advance(Duration.ofMinutes(10));
        agent.peerFailed(A, REFUSED);
        agent.peerFailed(B, REFUSED);
        scheduler.advance(Duration.ofMinutes(10));

        assertThat(listener.events()).containsExactly(DISCOVERED_B).doesNotContain(LOST_A);
        assertThat(scheduler.pendingTasks()).isZero();
    }

    @Test
    void shouldNotDiscoverASelfPeerWhoseFirstDiscoveryIsStillQueued() {
        StaticDiscoveryAgent agent = agent(FAST, A, B);
        agent.start(listener);

        agent.peerIsSelf(A);
        scheduler.runDue();

        assertThat(listener.events()).containsExactly(DISCOVERED_B);
    }

    // ---------------------------------------------------------------------------------------------
    // Close

    @Test
    void shouldStopEverythingOnClose() {
        StaticDiscoveryAgent agent = started(FAST, A, B);
        agent.peerFailed(A, REFUSED);
        agent.peerFailed(B, REFUSED);

        agent.close();
        int requested = scheduler.requestedDelaysMillis().size();
        scheduler.advance(Duration.ofMinutes(10));
        agent.peerConnected(A);
        agent.peerFailed(A, REFUSED);
        agent.peerIsSelf(B);
        agent.close();

        assertThat(listener.events()).isEmpty();
        assertThat(scheduler.pendingTasks()).isZero();
        assertThat(scheduler.requestedDelaysMillis()).hasSize(requested);
        assertThatThrownBy(() -> agent.start(listener))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("closed");
    }

    @Test
    void shouldMakeNoListenerCallForTasksThatRunAfterClose() {
        List<Runnable> tasks = Collections.synchronizedList(new ArrayList<>());
        ScheduledExecutorService uncancellable = new ManualScheduler() {
            @Override
            public synchronized ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
                tasks.add(command);
                return super.schedule(() -> { }, delay, unit);
            }
        };
        StaticDiscoveryAgent agent = StaticDiscoveryAgent.of(List.of(A, B), FAST, context(uncancellable, Clock.systemUTC()));
        agent.start(listener);

        agent.close();
        tasks.forEach(Runnable::run);

        assertThat(tasks).hasSize(2);
        assertThat(listener.events()).isEmpty();
    }

    @Test
    void shouldAllowCloseFromInsideTheListener() {
        AtomicReference<StaticDiscoveryAgent> self = new AtomicReference<>();
        listener.onDiscovered(peer -> self.get().close());
        StaticDiscoveryAgent agent = agent(FAST, A, B);
        self.set(agent);

        agent.start(listener);
        scheduler.runDue();

        assertThat(listener.events()).containsExactly(DISCOVERED_A);
    }

    @Test
    void shouldWaitInCloseForAListenerCallInProgress() throws InterruptedException {
        CountDownLatch inside = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        listener.onDiscovered(peer -> {
            inside.countDown();
            awaitUninterruptibly(release);
        });
        StaticDiscoveryAgent agent = StaticDiscoveryAgent.of(List.of(A), FAST, context(realScheduler(), Clock.systemUTC()));
        agent.start(listener);
        assertThat(inside.await(5, TimeUnit.SECONDS)).as("listener entered").isTrue();

        Thread closer = new Thread(agent::close, "closer");
        closer.start();
        await("close() blocked on the call in progress").atMost(Duration.ofSeconds(5))
                .until(() -> closer.getState() == Thread.State.WAITING);
        assertThat(closer.isAlive()).isTrue();
        release.countDown();
        closer.join(5_000);

        assertThat(closer.isAlive()).as("close() returned").isFalse();
        assertThat(listener.events()).containsExactly(DISCOVERED_A);
    }

    // ---------------------------------------------------------------------------------------------
    // With a real scheduler

    @Test
    void shouldKeepReconnectingOnARealSchedulerWhenConnectsFailInsideTheCallback() {
        AtomicInteger attempts = new AtomicInteger();
        AtomicReference<StaticDiscoveryAgent> self = new AtomicReference<>();
        listener.onDiscovered(peer -> {
            if (attempts.incrementAndGet() <= 3) {
                self.get().peerFailed(peer, REFUSED);
            } else {
                self.get().peerConnected(peer);
            }
        });
        ReconnectConfig tiny = ReconnectConfig.builder()
                .initialReconnectDelay(Duration.ofMillis(5)).maxReconnectDelay(Duration.ofMillis(20)).build();
        StaticDiscoveryAgent agent = StaticDiscoveryAgent.of(List.of(A), tiny, context(realScheduler(), Clock.systemUTC()));
        self.set(agent);

        agent.start(listener);

        await("connected on the 4th attempt").atMost(Duration.ofSeconds(5)).until(() -> attempts.get() == 4);
        agent.close();
        assertThat(listener.events()).containsExactly(DISCOVERED_A, DISCOVERED_A, DISCOVERED_A, DISCOVERED_A);
    }

    // ---------------------------------------------------------------------------------------------
    // Logging

    @Test
    void shouldNotExposePeerSecretsInMessages() {
        PeerInfo secret = PeerInfo.of("tcp://a:1?passcode=s3cret");
        StaticDiscoveryAgent agent = agent(FAST, secret);

        assertThat(agent.toString()).contains("passcode=" + CompositeUri.MASK).doesNotContain("s3cret");
        assertThatThrownBy(() -> agent.peerFailed(secret, REFUSED))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageNotContaining("s3cret");
    }

    // ---------------------------------------------------------------------------------------------

    private StaticDiscoveryAgent agent(ReconnectConfig config, PeerInfo... peers) {
        return StaticDiscoveryAgent.of(List.of(peers), config, context(scheduler, scheduler.clock()));
    }

    /** Started, with the first discoveries delivered and then forgotten. */
    private StaticDiscoveryAgent started(ReconnectConfig config, PeerInfo... peers) {
        StaticDiscoveryAgent agent = agent(config, peers);
        agent.start(listener);
        scheduler.runDue();
        listener.clear();
        return agent;
    }

    /** {@code times} failed connects of {@code peer}, each followed by the retry. */
    private void failAndRetry(StaticDiscoveryAgent agent, PeerInfo peer, int times) {
        for (int i = 0; i < times; i++) {
            agent.peerFailed(peer, REFUSED);
            scheduler.runNext();
        }
    }

    private ScheduledExecutorService realScheduler() {
        AtomicInteger n = new AtomicInteger();
        ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(2, r -> {
            Thread t = new Thread(r, "static-discovery-test-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        executor.setRemoveOnCancelPolicy(true);
        realSchedulers.add(executor);
        return executor;
    }

    private static DiscoveryContext context(ScheduledExecutorService scheduler, Clock clock) {
        return new DiscoveryContext("ID:broker-1", "broker-1", List.of("tcp://127.0.0.1:61613"), scheduler, clock);
    }

    private static void awaitUninterruptibly(CountDownLatch latch) {
        try {
            latch.await(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
