package io.fedbridge.core.discovery;

import static org.assertj.core.api.Assertions.assertThat;

import io.fedbridge.core.ReconnectConfig;
import io.fedbridge.core.testing.ManualScheduler;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

class PeerBackoffTest {

    private static final ReconnectConfig FAST = ReconnectConfig.builder()
            .initialReconnectDelay(Duration.ofMillis(100)).maxReconnectDelay(Duration.ofSeconds(1))
            .minConnectTime(Duration.ofSeconds(5)).build();

    private final ManualScheduler scheduler = new ManualScheduler();
    private final Object lock = new Object();
    private final AtomicInteger retries = new AtomicInteger();

    private PeerBackoff.Peer peer(ReconnectConfig config) {
        DiscoveryContext context = new DiscoveryContext("ID:b", "b", List.of(), scheduler, scheduler.clock());
        return new PeerBackoff(config, context, lock, LoggerFactory.getLogger(PeerBackoffTest.class), "test: ")
                .newPeer("tcp://peer:61613");
    }

    /** Reports a failure, as an agent does (under its lock), and runs what it scheduled. */
    private PeerBackoff.Outcome failAndRun(PeerBackoff.Peer peer) {
        PeerBackoff.Outcome outcome;
        synchronized (lock) {
            outcome = peer.failed("refused", retries::incrementAndGet);
        }
        scheduler.runNext();
        return outcome;
    }

    @Test
    void shouldDoubleTheDelayPerFailureInARowUpToTheMaximum() {
        PeerBackoff.Peer peer = peer(FAST);

        List<PeerBackoff.Outcome> outcomes = new ArrayList<>();
        for (int i = 0; i < 7; i++) {
            outcomes.add(failAndRun(peer));
        }

        assertThat(outcomes).containsOnly(PeerBackoff.Outcome.RETRYING);
        assertThat(scheduler.requestedDelaysMillis()).containsExactly(100L, 200L, 400L, 800L, 1000L, 1000L, 1000L);
        assertThat(retries).hasValue(7);
        assertThat(peer.failures()).isEqualTo(7);
    }

    @Test
    void shouldGiveUpAfterMaxReconnectAttemptsSchedulingNothing() {
        PeerBackoff.Peer peer = peer(FAST.toBuilder().maxReconnectAttempts(3).build());
        failAndRun(peer);
        failAndRun(peer);

        PeerBackoff.Outcome third;
        synchronized (lock) {
            third = peer.failed("refused", retries::incrementAndGet);
        }

        assertThat(third).isEqualTo(PeerBackoff.Outcome.GAVE_UP);
        assertThat(peer.failures()).isEqualTo(3);
        assertThat(peer.isPending()).isFalse();
        assertThat(scheduler.pendingTasks()).isZero();
    }

    @Test
    void shouldStartAfreshWhenALinkThatLastedMinConnectTimeGoesDown() {
        PeerBackoff.Peer peer = peer(FAST);
        failAndRun(peer);
        failAndRun(peer);
        failAndRun(peer);

        synchronized (lock) {
            peer.connected();
        }
        scheduler.advance(Duration.ofSeconds(5));
        failAndRun(peer);

        assertThat(peer.failures()).isZero();
        assertThat(scheduler.requestedDelaysMillis()).containsExactly(100L, 200L, 400L, 100L);
    }

    @Test
    void shouldCountALinkThatDiedBeforeMinConnectTimeAsAFailedConnect() {
        PeerBackoff.Peer peer = peer(FAST);
        failAndRun(peer);

        synchronized (lock) {
            peer.connected();
        }
        scheduler.advance(Duration.ofMillis(4_999));
        failAndRun(peer);

        assertThat(peer.failures()).isEqualTo(2);
        assertThat(scheduler.requestedDelaysMillis()).containsExactly(100L, 200L);
    }

    @Test
    void shouldIgnoreAFailureReportedWhileARetryIsPending() {
        PeerBackoff.Peer peer = peer(FAST);

        PeerBackoff.Outcome first;
        PeerBackoff.Outcome duplicate;
        synchronized (lock) {
            first = peer.failed("refused", retries::incrementAndGet);
            duplicate = peer.failed("refused again", retries::incrementAndGet);
        }
        scheduler.advance(Duration.ofMinutes(1));

        assertThat(first).isEqualTo(PeerBackoff.Outcome.RETRYING);
        assertThat(duplicate).isEqualTo(PeerBackoff.Outcome.IGNORED);
        assertThat(peer.failures()).isEqualTo(1);
        assertThat(retries).hasValue(1);
        assertThat(peer.isPending()).isFalse();
    }

    @Test
    void shouldNotRunATaskCancelledOrReplacedBeforeItsTime() {
        PeerBackoff.Peer peer = peer(FAST);
        AtomicInteger cancelled = new AtomicInteger();
        AtomicInteger replaced = new AtomicInteger();
        AtomicInteger kept = new AtomicInteger();

        synchronized (lock) {
            peer.schedule(Duration.ofMillis(10), cancelled::incrementAndGet);
            peer.cancelPending();
            peer.schedule(Duration.ofMillis(10), replaced::incrementAndGet);
            peer.schedule(Duration.ofMillis(10), kept::incrementAndGet);
        }
        scheduler.advance(Duration.ofSeconds(1));

        assertThat(cancelled).hasValue(0);
        assertThat(replaced).hasValue(0);
        assertThat(kept).hasValue(1);
    }

    @Test
    void shouldStayCheapForAPeerThatStaysDownForMonths() {
        PeerBackoff.Peer peer = peer(FAST);
        for (int i = 0; i < 100_000; i++) {
            synchronized (lock) {
                peer.failed("refused", () -> { });
                peer.cancelPending();
            }
        }

        assertThat(peer.failures()).isEqualTo(100_000);
        assertThat(scheduler.requestedDelaysMillis()).endsWith(1000L);
    }

    @Test
    void shouldLogAPeerThatStaysDownAtInfoOnlyOnItsFirstAndEveryTenthFailure() {
        assertThat(IntStream.rangeClosed(1, 40).filter(PeerBackoff::logsAtInfo).boxed().toList())
                .containsExactly(1, 10, 20, 30, 40);
    }
}
