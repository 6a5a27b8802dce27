package io.fedbridge.broker.integration.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fedbridge.broker.Broker;
import io.fedbridge.broker.BrokerConfig;
import io.fedbridge.core.ClientConfig;
import io.fedbridge.core.StompConnection;
import io.fedbridge.core.bridge.BridgeState;
import io.fedbridge.core.bridge.FederationBridge;
import io.fedbridge.core.bridge.NetworkConnector;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Link faults between two in-JVM brokers: A's network connector reaches B through a {@link FaultProxy} that cuts
 * (resets) or stalls (stops relaying, sockets open) the link. A producer on A and a consumer on B talk to their own
 * broker directly. Checks that the bridge notices (reset, dead-peer heart-beats, or the stall timeout), reconnects or
 * resumes, and that every receipted message still reaches the application exactly once; and that a link which stops
 * moving messages while it has demand and backlog is reported STALLED, never UP.
 */
class LinkFaultIT {

    private static final Duration WAIT = Duration.ofSeconds(20);
    /** Poll interval of awaits whose timing the tests report. */
    private static final Duration FINE = Duration.ofMillis(5);
    private static final String QUEUE = "/queue/link.fault";
    private static final int WINDOW = 100;
    private static final String RECONNECT = "initialReconnectDelay=100&maxReconnectDelay=1000";
    private static final AtomicInteger NAMES = new AtomicInteger();

    @TempDir
    Path tmp;

    /** Closed last-in first-out after each test: clients before the brokers they talk to. */
    private final Deque<AutoCloseable> resources = new ArrayDeque<>();

    private Broker a;
    private Broker b;
    private FaultProxy proxy;
    private NetworkConnector connector;
    private BridgeWatch watch;
    private SeqLedger ledger;
    private StompConnection producer;
    private final Semaphore window = new Semaphore(WINDOW);

    @AfterEach
    void closeResources() throws Exception {
        if (proxy != null) {
            proxy.resume(); // so that nothing waits on a stalled link while closing
        }
        Exception first = null;
        while (!resources.isEmpty()) {
            try {
                resources.pop().close();
            } catch (Exception e) {
                first = first == null ? e : first;
            }
        }
        if (first != null) {
            throw first;
        }
    }

    private <T extends AutoCloseable> T track(T resource) {
        resources.push(resource);
        return resource;
    }

    /**
     * Starts A and B (persistent, SYNC), the proxy in front of B, A's connector to the proxy with {@code options}, the
     * consumer on B and the producer on A; returns once demand has crossed the bridge.
     *
     * @param bHeartBeat B's heart-beat offer, or null for the broker default
     */
    private void link(String options, Duration bHeartBeat) throws Exception {
        int n = NAMES.incrementAndGet();
        BrokerConfig.Builder bc = BrokerConfig.builder("lf-B" + n).listen("tcp://127.0.0.1:0").dataDirectory(tmp.resolve("B"));
        if (bHeartBeat != null) {
            bc.heartBeat(bHeartBeat);
        }
        b = track(Broker.start(bc.build()));
        a = track(Broker.start(BrokerConfig.builder("lf-A" + n).listen("tcp://127.0.0.1:0").dataDirectory(tmp.resolve("A"))
                .build()));
        proxy = track(FaultProxy.start(b.connectUris().get(0)));
        connector = a.addNetworkConnector("static:(" + proxy.uri() + ")?" + options);
        watch = track(BridgeWatch.start(connector));
        ledger = new SeqLedger(QUEUE, 256);
        ledger.consume(track(connect(b)), WAIT);
        producer = track(connect(a));
        await("demand from B's consumer crosses the bridge").atMost(WAIT)
                .until(() -> upBridge() != null && upBridge().stats().networkSubscriptions() == 1);
    }

    /** A client of {@code broker} over {@code vm://}: only the bridge goes through the proxy. */
    private static StompConnection connect(Broker broker) {
        return StompConnection.connect(ClientConfig.builder(broker.vmUri()).heartBeats(Duration.ZERO).build());
    }

    /** A's bridge to B if it is UP now, else null. */
    private FederationBridge upBridge() {
        for (FederationBridge fb : connector.bridges()) {
            if (fb.state() == BridgeState.UP) {
                return fb;
            }
        }
        return null;
    }

    private FederationBridge awaitUp(String why) {
        AtomicReference<FederationBridge> up = new AtomicReference<>();
        await(why).atMost(WAIT).pollInterval(FINE).until(() -> {
            up.set(upBridge());
            return up.get() != null;
        });
        return up.get();
    }

    /** Sends seqs from..to on a background thread. */
    private CompletableFuture<Void> produceAsync(long from, long to) {
        return CompletableFuture.runAsync(() -> {
            try {
                ledger.send(producer, from, to, window, WAIT);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        });
    }

    private void awaitEverythingDeliveredExactlyOnce(CompletableFuture<Void> producing) throws Exception {
        producing.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        assertThat(window.tryAcquire(WINDOW, WAIT.toMillis(), TimeUnit.MILLISECONDS)).as("every send receipted by A").isTrue();
        window.release(WINDOW);
        await("every receipted message reaches B's consumer").atMost(WAIT).until(ledger::allReceiptedDelivered);
        await("no late duplicate arrives").during(Duration.ofMillis(300)).atMost(WAIT)
                .until(() -> ledger.deliveries() == ledger.distinctDelivered());
        ledger.assertEveryReceiptedSendDeliveredExactlyOnce();
    }

    private static long millisSince(long nanos) {
        return (System.nanoTime() - nanos) / 1_000_000;
    }

    private static void log(String format, Object... args) {
        System.out.printf("[LinkFaultIT] " + format + "%n", args);
    }

    // ---------------------------------------------------------------- (a) cut

    @Test
    void shouldReconnectAndDeliverEveryMessageExactlyOnceWhenTheLinkIsCutRepeatedly() throws Exception {
        link("heartBeat=500&" + RECONNECT, Duration.ofMillis(500));
        int total = 3_000;
        int cuts = 4;
        CompletableFuture<Void> producing = produceAsync(1, total);
        List<String> reconnects = new ArrayList<>();
        for (int i = 1; i <= cuts; i++) {
            int threshold = i * total / (cuts + 1);
            await("B's consumer has " + threshold + " messages").atMost(WAIT)
                    .until(() -> ledger.distinctDelivered() >= threshold);
            FederationBridge before = awaitUp("the bridge is up before cut " + i);
            // Cut while forwards await their receipt, if the flow allows (it may have drained already).
            await("forwards pending before cut " + i).atMost(WAIT).pollInterval(Duration.ofMillis(1))
                    .until(() -> before.stats().pending() > 0 || producing.isDone());
            long pendingAtCut = before.stats().pending();
            // Once, the peer also refuses new connections for a while: reconnect attempts fail and back off.
            boolean refusing = i == 2;
            int refusedBefore = proxy.refusedConnections();
            proxy.refuseNew(refusing);
            long cutAt = System.nanoTime();
            assertThat(proxy.cutAll()).as("connections cut").isGreaterThanOrEqualTo(1);
            await("the bridge goes DOWN after cut " + i).atMost(WAIT).pollInterval(FINE)
                    .until(() -> before.state() == BridgeState.DOWN);
            long downMillis = millisSince(cutAt);
            if (refusing) {
                await("two reconnects refused").atMost(WAIT).until(() -> proxy.refusedConnections() >= refusedBefore + 2);
                assertThat(upBridge()).as("no bridge UP while the peer refuses").isNull();
                proxy.refuseNew(false);
            }
            FederationBridge after = awaitUp("a new bridge comes UP after cut " + i);
            assertThat(after).isNotSameAs(before);
            reconnects.add("cut " + i + " at " + threshold + " delivered, " + pendingAtCut + " pending" + (refusing ? ", then "
                    + (proxy.refusedConnections() - refusedBefore) + " connects refused" : "") + ": DOWN after " + downMillis
                    + " ms, UP again after " + millisSince(cutAt) + " ms");
        }
        awaitEverythingDeliveredExactlyOnce(producing);
        reconnects.forEach(r -> log("%s", r));
        log("cuts: %s; B dropped %d duplicates (resends); bridges seen %d; %s", proxy.cutConnections(), b.duplicatesDropped(),
                watch.bridgesSeen(), ledger);
        assertThat(watch.bridgesSeen()).as("bridges A ran: the first and one per cut").isGreaterThanOrEqualTo(cuts + 1);
    }

    // ---------------------------------------------------------------- (b) stall, noticed by heart-beats

    @Test
    void shouldTakeAStalledLinkDownByHeartBeatAndDeliverExactlyOnceAfterItResumes() throws Exception {
        Duration heartBeat = Duration.ofMillis(500);
        Duration stallTimeout = Duration.ofMillis(1000);
        link("heartBeat=500&stallTimeout=1000&" + RECONNECT, heartBeat);
        int total = 2_000;
        CompletableFuture<Void> producing = produceAsync(1, total);
        await("B's consumer has 500 messages").atMost(WAIT).until(() -> ledger.distinctDelivered() >= 500);
        FederationBridge before = awaitUp("the bridge is up before the stall");

        long stalledAt = System.nanoTime();
        proxy.stall();
        await("the stalled bridge is no longer reported UP").atMost(Duration.ofSeconds(3)).pollInterval(FINE)
                .until(() -> before.state() != BridgeState.UP);
        long notUpMillis = millisSince(stalledAt);
        BridgeState seen = before.state();
        await("the dead-peer heart-beat takes the stalled bridge DOWN").atMost(Duration.ofSeconds(3)).pollInterval(FINE)
                .until(() -> before.state() == BridgeState.DOWN);
        long downMillis = millisSince(stalledAt);
        int deliveredWhileStalled = ledger.distinctDelivered();

        proxy.resume();
        long resumedAt = System.nanoTime();
        FederationBridge after = awaitUp("a new bridge comes UP after the stall ends");
        long upMillis = millisSince(resumedAt);
        awaitEverythingDeliveredExactlyOnce(producing);

        log("stall: not UP after %d ms (%s), DOWN after %d ms; %d delivered before resume; UP again %d ms after resume; "
                        + "B dropped %d duplicates; longest UP with pending and no receipt %d ms; %s; changes %s", notUpMillis, seen,
                downMillis, deliveredWhileStalled, upMillis, b.duplicatesDropped(), watch.maxUpWithPendingAndNoProgressMillis(),
                ledger, watch.changes());
        assertThat(after).isNotSameAs(before);
        assertThat(watch.maxUpWithPendingAndNoProgressMillis())
                .as("longest a bridge was shown UP with forwards pending and no receipt (ms)")
                .isLessThanOrEqualTo(stallTimeout.plus(heartBeat).toMillis());
    }

    // ---------------------------------------------------------------- (c) stalled-state reporting

    @Test
    void shouldReportALinkWithBacklogAndNoReceiptsAsStalledAndUpAgainWhenItMoves() throws Exception {
        Duration stallTimeout = Duration.ofMillis(500);
        link("heartBeat=0&stallTimeout=500&" + RECONNECT, null);
        ledger.send(producer, 1, 200, window, WAIT);
        await("B's consumer has the first 200").atMost(WAIT).until(() -> ledger.distinctDelivered() == 200);
        FederationBridge bridge = awaitUp("the bridge is up");

        proxy.stall();
        long stalledAt = System.nanoTime();
        CompletableFuture<Void> producing = produceAsync(201, 1_000); // the backlog, receipted by A
        await("the bridge has forwards awaiting receipts").atMost(WAIT).until(() -> bridge.stats().pending() > 0);
        await("a link with demand and backlog but no receipts is reported STALLED").atMost(Duration.ofSeconds(5))
                .pollInterval(FINE)
                .until(() -> bridge.state() == BridgeState.STALLED);
        long stalledMillis = millisSince(stalledAt);
        await("a stalled link is never shown UP while it does not move").during(Duration.ofMillis(700)).atMost(WAIT)
                .until(() -> bridge.state() == BridgeState.STALLED && bridge.stats().pending() > 0);
        int deliveredWhileStalled = ledger.distinctDelivered();

        proxy.resume();
        long resumedAt = System.nanoTime();
        await("the link is UP again once receipts come (linkResumed)").atMost(WAIT).pollInterval(FINE)
                .until(() -> bridge.state() == BridgeState.UP);
        long resumedMillis = millisSince(resumedAt);
        awaitEverythingDeliveredExactlyOnce(producing);

        log("stalled-state: STALLED %d ms after the stall (stallTimeout %s), %d delivered while stalled, UP %d ms after resume;"
                        + " longest UP with pending and no receipt %d ms; changes %s; %s", stalledMillis, stallTimeout,
                deliveredWhileStalled, resumedMillis, watch.maxUpWithPendingAndNoProgressMillis(), watch.changes(), ledger);
        assertThat(deliveredWhileStalled).as("nothing passes a stalled link").isEqualTo(200);
        assertThat(connector.bridges()).as("the same bridge resumed; no reconnect").containsExactly(bridge);
        assertThat(proxy.acceptedConnections()).as("connections through the proxy").isEqualTo(1);
        assertThat(watch.maxUpWithPendingAndNoProgressMillis())
                .as("longest the bridge was shown UP with forwards pending and no receipt (ms)")
                .isLessThanOrEqualTo(stallTimeout.toMillis() + 500); // + the stall check's period and scheduling
    }

    /**
     * The stall clock must start when a forward is made, not at the last receipt: a link that was idle (nothing pending)
     * for longer than the stall timeout and then forwards one message is not stalled until that message has gone
     * without a receipt for the stall timeout.
     */
    @Test
    void shouldNotReportALinkStalledBeforeStallTimeoutWhenItForwardsAfterIdling() throws Exception {
        Duration stallTimeout = Duration.ofMillis(1000);
        link("heartBeat=0&stallTimeout=1000&" + RECONNECT, null);
        ledger.send(producer, 1, 10, window, WAIT);
        await("B's consumer has the first 10").atMost(WAIT).until(() -> ledger.distinctDelivered() == 10);
        FederationBridge bridge = awaitUp("the bridge is up");
        await("an idle link (nothing pending) stays UP for longer than the stall timeout")
                .during(stallTimeout.plusMillis(500)).atMost(WAIT).until(() -> bridge.state() == BridgeState.UP);

        proxy.stall();
        ledger.send(producer, 11, 11, window, WAIT);
        await("the bridge forwards the new message").atMost(WAIT).pollInterval(FINE).until(() -> bridge.stats().pending() > 0);
        long forwardedAt = System.nanoTime();
        await("the link is reported STALLED").atMost(WAIT).pollInterval(FINE).until(() -> bridge.state() == BridgeState.STALLED);
        long stalledAfter = millisSince(forwardedAt);
        proxy.resume();
        await("UP again").atMost(WAIT).until(() -> bridge.state() == BridgeState.UP);
        await("B's consumer has all 11").atMost(WAIT).until(() -> ledger.distinctDelivered() == 11);

        log("idle-then-stall: STALLED %d ms after the first forward since idling (stallTimeout %s); changes %s", stalledAfter,
                stallTimeout, watch.changes());
        assertThat(stalledAfter).as("ms from the forward to STALLED: a forward must go unreceipted for stallTimeout (%s)",
                stallTimeout).isGreaterThanOrEqualTo(stallTimeout.toMillis() - 100);
        ledger.assertEveryReceiptedSendDeliveredExactlyOnce();
    }

    /**
     * BridgeConfig documents that with {@code heartBeat} a dead link is noticed within 3x that interval. The peer
     * here is a broker with default settings (heart-beat offer 10 s).
     */
    @Test
    void shouldNoticeADeadLinkWithinThreeBridgeHeartBeatsAgainstADefaultBroker() throws Exception {
        link("heartBeat=500&" + RECONNECT, null);
        ledger.send(producer, 1, 10, window, WAIT);
        await("B's consumer has the first 10").atMost(WAIT).until(() -> ledger.distinctDelivered() == 10);
        FederationBridge bridge = awaitUp("the bridge is up");

        long stalledAt = System.nanoTime();
        proxy.stall();
        long noticedMillis;
        try {
            // Waits longer than promised, to report how long it really takes.
            await("the bridge notices the dead link at all").atMost(WAIT).pollInterval(FINE)
                    .until(() -> bridge.state() == BridgeState.DOWN);
            noticedMillis = millisSince(stalledAt);
            log("dead link (bridge heartBeat=500) against a default broker noticed after %d ms", noticedMillis);
        } finally {
            proxy.resume();
        }
        assertThat(noticedMillis).as("ms until a bridge with heartBeat=500 noticed a dead link to a default broker "
                + "(documented: within 3 x heartBeat; allowed: 2500)").isLessThanOrEqualTo(2_500);
        awaitUp("the bridge is up again");
        ledger.send(producer, 11, 20, window, WAIT);
        await("B's consumer has all 20").atMost(WAIT).until(() -> ledger.distinctDelivered() == 20);
        ledger.assertEveryReceiptedSendDeliveredExactlyOnce();
    }
}
