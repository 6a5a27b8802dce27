package io.fedbridge.broker.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fedbridge.broker.Broker;
import io.fedbridge.broker.BrokerConfig;
import io.fedbridge.core.AckMode;
import io.fedbridge.core.FederationHeaders;
import io.fedbridge.core.Message;
import io.fedbridge.core.ReceivedMessage;
import io.fedbridge.core.StompConnection;
import io.fedbridge.core.StompFrame;
import io.fedbridge.core.Subscription;
import io.fedbridge.core.SubscriptionRequest;
import io.fedbridge.core.bridge.BridgeConfig;
import io.fedbridge.core.bridge.BridgeFilter;
import io.fedbridge.core.bridge.BridgeState;
import io.fedbridge.core.bridge.BridgeStats;
import io.fedbridge.core.bridge.FederationBridge;
import io.fedbridge.core.bridge.RemoteConsumer;
import io.fedbridge.filter.ForwardOnlyWhenIdle;
import io.fedbridge.filter.RateLimit;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Conduit, selector awareness, replay when no consumers, capacity-aware forwarding, rate limits, the SPI. */
class ConditionalFiltersIT extends BrokerTestSupport {

    private static final Duration WAIT = Duration.ofSeconds(20);

    private static String tcp(Broker b) {
        return b.connectUris().get(0);
    }

    private FederationBridge bridge(BridgeConfig.Builder b) {
        FederationBridge fb = FederationBridge.start(b.heartBeat(Duration.ZERO).build());
        resources.add(0, fb);
        fb.awaitUp(WAIT);
        return fb;
    }

    /** Counts forwarded messages (SEND frames with a federation id) crossing a TCP link: the wire copies. */
    private static final class SendCounter implements AutoCloseable {
        final ServerSocket server;
        final AtomicLong sends = new AtomicLong();

        SendCounter(String targetTcpUri) throws Exception {
            server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
            String hp = targetTcpUri.substring("tcp://".length());
            int port = Integer.parseInt(hp.substring(hp.lastIndexOf(':') + 1));
            Thread t = new Thread(() -> {
                try {
                    while (true) {
                        Socket in = server.accept();
                        Socket out = new Socket(InetAddress.getLoopbackAddress(), port);
                        pump(in.getInputStream(), out.getOutputStream(), true);
                        pump(out.getInputStream(), in.getOutputStream(), false);
                    }
                } catch (Exception closed) {
                    // test over
                }
            }, "send-counter");
            t.setDaemon(true);
            t.start();
        }

        private void pump(InputStream from, OutputStream to, boolean count) {
            Thread t = new Thread(() -> {
                byte[] buf = new byte[65536];
                // every forwarded message carries its federation id once; a bridge's receipt-only SEND carries none
                byte[] marker = ("\n" + FederationHeaders.FEDERATION_ID + ":").getBytes(StandardCharsets.US_ASCII);
                byte[] window = new byte[marker.length];
                try {
                    int n;
                    while ((n = from.read(buf)) > 0) {
                        if (count) {
                            for (int i = 0; i < n; i++) {
                                System.arraycopy(window, 1, window, 0, window.length - 1);
                                window[window.length - 1] = buf[i];
                                if (java.util.Arrays.equals(window, marker)) {
                                    sends.incrementAndGet();
                                }
                            }
                        }
                        to.write(buf, 0, n);
                        to.flush();
                    }
                } catch (Exception e) {
                    // closed
                }
            });
            t.setDaemon(true);
            t.start();
        }

        String uri() {
            return "tcp://127.0.0.1:" + server.getLocalPort();
        }

        @Override
        public void close() throws java.io.IOException {
            server.close();
        }
    }

    @ParameterizedTest(name = "{0} identical subscribers")
    @ValueSource(ints = {1, 10, 100})
    void shouldSendOneWireCopyPerTopicMessageWhateverTheNumberOfIdenticalSubscribers(int subscribers) throws Exception {
        Broker a = startBroker(BrokerConfig.builder("conduit-A-" + subscribers));
        Broker b = startBroker(BrokerConfig.builder("conduit-B-" + subscribers));
        SendCounter link = new SendCounter(tcp(b));
        resources.add(link);
        FederationBridge fb = bridge(BridgeConfig.builder(a.vmUri(), link.uri()));
        AtomicInteger deliveries = new AtomicInteger();
        StompConnection subs = connect(b, "tcp");
        for (int i = 0; i < subscribers; i++) {
            subs.subscribeAndWait(SubscriptionRequest.of("/topic/fanout"), m -> deliveries.incrementAndGet(), WAIT);
        }
        await().atMost(WAIT).until(() -> fb.stats().remoteConsumers() == subscribers && fb.stats().networkSubscriptions() == 1);
        StompConnection p = connect(a, "tcp");
        for (int i = 0; i < 50; i++) {
            p.send(Message.of("/topic/fanout", "t" + i)).get();
        }
        await().atMost(WAIT).until(() -> deliveries.get() == 50 * subscribers);
        await().atMost(WAIT).until(() -> fb.stats().acked() == 50);
        assertThat(fb.stats().forwarded()).isEqualTo(50);
        assertThat(link.sends.get()).as("SEND frames on the link").isEqualTo(50);
        assertThat(b.duplicatesDropped()).isZero();
    }

    @Test
    void shouldKeepSubscriptionsWithDifferentSelectorsApartAndLeaveUnmatchedMessagesWhereTheyAre() throws Exception {
        Broker a = startBroker(BrokerConfig.builder("sel-A"));
        Broker b = startBroker(BrokerConfig.builder("sel-B"));
        FederationBridge fb = bridge(BridgeConfig.builder(a.vmUri(), tcp(b)));
        AtomicInteger red = new AtomicInteger();
        AtomicInteger blue = new AtomicInteger();
        connect(b, "tcp").subscribeAndWait(SubscriptionRequest.builder("/queue/paint").selector("color = 'red'").build(), m -> red.incrementAndGet(), WAIT);
        connect(b, "tcp").subscribeAndWait(SubscriptionRequest.builder("/queue/paint").selector("color = 'blue'").build(), m -> blue.incrementAndGet(), WAIT);
        await().atMost(WAIT).until(() -> fb.stats().networkSubscriptions() == 2);
        StompConnection p = connect(a, "tcp");
        for (String c : new String[] {"red", "blue", "green", "red", "green"}) {
            p.send(Message.builder("/queue/paint").body(c).header("color", c).build()).get();
        }
        await().atMost(WAIT).until(() -> red.get() == 2 && blue.get() == 1);
        assertThat(fb.stats().forwarded()).as("green matches no remote selector: it never crosses").isEqualTo(3);
        assertThat(a.queue("/queue/paint").pending()).isEqualTo(2);
        assertThat(b.queue("/queue/paint").pending()).isZero();
    }

    @Test
    void shouldReplayMessagesTowardConsumersThatMovedExactlyOnceWithDedupeOn() throws Exception {
        Broker a = startBroker(BrokerConfig.builder("replay-A"));
        Broker b = startBroker(BrokerConfig.builder("replay-B"));
        a.addNetworkConnector("static:(" + tcp(b) + ")?duplex=true&replayWhenNoConsumers=true&replayDelay=200&initialReconnectDelay=50");
        await().atMost(WAIT).until(() -> a.bridges().stream().anyMatch(s -> s.state() == BridgeState.UP));
        Map<String, AtomicInteger> seen = new ConcurrentHashMap<>();
        StompConnection onB = connect(b, "tcp");
        Subscription bSub = onB.subscribeAndWait(SubscriptionRequest.builder("/queue/moving").ackMode(AckMode.CLIENT_INDIVIDUAL)
                .prefetch(1).build(), null, WAIT);
        await().atMost(WAIT).until(() -> networkSubs(a) == 1);
        StompConnection p = connect(a, "tcp");
        for (int i = 0; i < 300; i++) {
            p.send(Message.builder("/queue/moving").body("m" + i).persistent(true).build()).get();
        }
        await("everything moved to B, where the consumer is").atMost(WAIT).until(() ->
                b.queue("/queue/moving") != null && b.queue("/queue/moving").pending() + b.queue("/queue/moving").inflight() == 300);
        for (int i = 0; i < 100; i++) {
            ReceivedMessage m = bSub.receive(WAIT);
            seen.computeIfAbsent(m.bodyAsString(), k -> new AtomicInteger()).incrementAndGet();
            m.ack();
        }
        onB.send(Message.of("/queue/fence", "f")).get();
        onB.close(); // the consumer leaves B with 200 messages stranded there
        connect(a, "tcp").subscribeAndWait(SubscriptionRequest.of("/queue/moving"),
                m -> seen.computeIfAbsent(m.bodyAsString(), k -> new AtomicInteger()).incrementAndGet(), WAIT);
        await("the stranded messages come back to A's consumer").atMost(WAIT).until(() -> seen.size() == 300);
        await().during(Duration.ofMillis(500)).atMost(WAIT).until(() -> seen.values().stream().allMatch(n -> n.get() == 1));
        assertThat(a.bridges().get(0).replayed()).isEqualTo(200);
        assertThat(b.queue("/queue/moving").pending()).isZero();
    }

    @Test
    void shouldNotPingPongWhenNeitherSideHasConsumers() throws Exception {
        Broker a = startBroker(BrokerConfig.builder("pp-A"));
        Broker b = startBroker(BrokerConfig.builder("pp-B"));
        a.addNetworkConnector("static:(" + tcp(b) + ")?duplex=true&replayWhenNoConsumers=true&replayDelay=50&initialReconnectDelay=50");
        await().atMost(WAIT).until(() -> a.bridges().stream().anyMatch(s -> s.state() == BridgeState.UP));
        StompConnection onB = connect(b, "tcp");
        Subscription bSub = onB.subscribeAndWait(SubscriptionRequest.builder("/queue/pp").ackMode(AckMode.CLIENT_INDIVIDUAL).prefetch(1).build(), null, WAIT);
        await().atMost(WAIT).until(() -> networkSubs(a) == 1);
        StompConnection p = connect(a, "tcp");
        for (int i = 0; i < 20; i++) {
            p.send(Message.of("/queue/pp", "m" + i)).get();
        }
        assertThat(bSub.receive(WAIT)).isNotNull();
        onB.close();
        await().atMost(WAIT).until(() -> networkSubs(a) == 0);
        await().atMost(WAIT).until(() -> pending(a, "/queue/pp") + pending(b, "/queue/pp") == 20);
        long forwarded = a.bridges().get(0).forwarded();
        await("messages stay where they are: no consumer anywhere").during(Duration.ofMillis(800)).atMost(WAIT)
                .until(() -> a.bridges().get(0).forwarded() == forwarded
                        && pending(a, "/queue/pp") + pending(b, "/queue/pp") == 20);
        assertThat(a.bridges().get(0).replayed()).isZero();
    }

    @Test
    void shouldForwardOnlyWhileThePeersConsumersKeepUp() throws Exception {
        Broker a = startBroker(BrokerConfig.builder("idle-A"));
        Broker b = startBroker(BrokerConfig.builder("idle-B"));
        FederationBridge fb = bridge(BridgeConfig.builder(a.vmUri(), tcp(b)).prefetchSize(5)
                .filter("/queue/>", new ForwardOnlyWhenIdle(0, Duration.ofMillis(100))));
        // A slow consumer on B: takes one message and never acks it.
        Subscription slow = connect(b, "tcp").subscribeAndWait(SubscriptionRequest.builder("/queue/work")
                .ackMode(AckMode.CLIENT_INDIVIDUAL).prefetch(1).build(), null, WAIT);
        await().atMost(WAIT).until(() -> fb.stats().networkSubscriptions() == 1);
        StompConnection p = connect(a, "tcp");
        long start = System.nanoTime();
        for (int i = 0; i < 200; i++) {
            p.send(Message.of("/queue/work", "m" + i)).get();
        }
        assertThat(slow.receive(WAIT)).isNotNull();
        AtomicInteger local = new AtomicInteger();
        connect(a, "tcp").subscribe(SubscriptionRequest.of("/queue/work"), m -> local.incrementAndGet());
        await("A's idle local consumer gets the backlog").atMost(WAIT).until(() -> local.get() + bCount(b) >= 200);
        // Each hold (100 ms) ends with at most one prefetch window (5) pushed before the receipts report the backlog
        // again, so what crossed is bounded by the time the backlog waited at A, however long this machine took to
        // send it; without the filter the whole backlog would have crossed while A had no local consumer.
        long holds = 1 + (System.nanoTime() - start) / 100_000_000L;
        int bound = (int) Math.min(5 * (holds + 1), 100);
        assertThat(b.queue("/queue/work").pending()).as("at most a window per hold stranded behind the slow consumer (%d holds)",
                holds).isLessThanOrEqualTo(bound);
        assertThat(local.get()).isGreaterThanOrEqualTo(200 - bound - 1);
    }

    private static int bCount(Broker b) {
        var q = b.queue("/queue/work");
        return q == null ? 0 : q.pending() + q.inflight();
    }

    @Test
    void shouldRateLimitEachNetworkSubscription() throws Exception {
        Broker a = startBroker(BrokerConfig.builder("rate-A"));
        Broker b = startBroker(BrokerConfig.builder("rate-B"));
        FederationBridge fb = bridge(BridgeConfig.builder(a.vmUri(), tcp(b)).filter(">", new RateLimit(10, Duration.ofMillis(500))));
        AtomicInteger got = new AtomicInteger();
        connect(b, "tcp").subscribeAndWait(SubscriptionRequest.of("/queue/slow"), m -> got.incrementAndGet(), WAIT);
        await().atMost(WAIT).until(() -> fb.stats().networkSubscriptions() == 1);
        StompConnection p = connect(a, "tcp");
        for (int i = 0; i < 30; i++) {
            p.send(Message.of("/queue/slow", "m" + i)).get();
        }
        long start = System.nanoTime();
        await().atMost(WAIT).until(() -> got.get() == 30);
        long millis = (System.nanoTime() - start) / 1_000_000;
        assertThat(millis).as("30 messages at 10 per 500 ms need at least two more periods").isGreaterThanOrEqualTo(800);
    }

    @Test
    void shouldApplyAUserFilterThroughTheSpi() throws Exception {
        Broker a = startBroker(BrokerConfig.builder("spi-A"));
        Broker b = startBroker(BrokerConfig.builder("spi-B"));
        BridgeFilter noAudit = new BridgeFilter() {
            @Override
            public boolean admitsDemand(RemoteConsumer consumer) {
                return !consumer.destination().startsWith("/queue/audit");
            }

            @Override
            public boolean beforeForward(RemoteConsumer consumer, StompFrame message) {
                message.headers().set("x-bridged-by", "spi");
                return !"true".equals(message.header("internal"));
            }
        };
        FederationBridge fb = bridge(BridgeConfig.builder(a.vmUri(), tcp(b)).filter(">", noAudit));
        connect(b, "tcp").subscribeAndWait(SubscriptionRequest.of("/queue/audit.log"), null, WAIT);
        Subscription s = connect(b, "tcp").subscribeAndWait(SubscriptionRequest.of("/queue/public"), null, WAIT);
        await().atMost(WAIT).until(() -> fb.stats().remoteConsumers() == 1 && fb.stats().networkSubscriptions() == 1);
        assertThat(fb.stats().remoteConsumers()).as("the audit consumer creates no demand").isEqualTo(1);
        StompConnection p = connect(a, "tcp");
        p.send(Message.builder("/queue/public").body("keep").build()).get();
        p.send(Message.builder("/queue/public").body("drop").header("internal", "true").build()).get();
        ReceivedMessage m = s.receive(WAIT);
        assertThat(m.bodyAsString()).isEqualTo("keep");
        assertThat(m.header("x-bridged-by")).isEqualTo("spi");
        await().atMost(WAIT).until(() -> fb.stats().filtered() == 1);
        assertThat(s.receive(Duration.ofMillis(300))).isNull();
    }

    /**
     * A filter that drops messages in the middle of a stream: with a non-blocking filter the bridge acknowledges the
     * source cumulatively, once per receipt, so a dropped message sits in the same ordered window as the forwarded
     * ones; with a blocking one every message is acknowledged on its own. Either way every message must leave the
     * source, the kept ones reach the peer exactly once and the dropped ones never.
     */
    @ParameterizedTest(name = "filter may block: {0}")
    @ValueSource(booleans = {false, true})
    void shouldAcknowledgeDroppedAndForwardedMessagesAlikeInOneStream(boolean mayBlock) throws Exception {
        Broker a = startBroker(BrokerConfig.builder("drop-A-" + mayBlock));
        Broker b = startBroker(BrokerConfig.builder("drop-B-" + mayBlock));
        BridgeFilter everyThird = new BridgeFilter() {
            @Override
            public boolean beforeForward(RemoteConsumer consumer, StompFrame message) {
                return Integer.parseInt(message.header("n")) % 3 != 0;
            }

            @Override
            public boolean mayBlock() {
                return mayBlock;
            }
        };
        FederationBridge fb = bridge(BridgeConfig.builder(a.vmUri(), tcp(b)).prefetchSize(50).filter(">", everyThird));
        Set<Integer> got = ConcurrentHashMap.newKeySet();
        AtomicInteger deliveries = new AtomicInteger();
        connect(b, "tcp").subscribeAndWait(SubscriptionRequest.of("/queue/mix"), m -> {
            got.add(Integer.parseInt(m.header("n")));
            deliveries.incrementAndGet();
        }, WAIT);
        await().atMost(WAIT).until(() -> fb.stats().networkSubscriptions() == 1);
        StompConnection p = connect(a, "tcp");
        for (int i = 0; i < 3000; i++) {
            p.sendWithoutReceipt(Message.builder("/queue/mix").body("m").header("n", Integer.toString(i)).build());
        }
        await().atMost(WAIT).until(() -> got.size() == 2000);
        await("every message left the source").atMost(WAIT)
                .until(() -> a.queue("/queue/mix").pending() == 0 && a.queue("/queue/mix").inflight() == 0);
        assertThat(got).allMatch(n -> n % 3 != 0);
        assertThat(deliveries.get()).isEqualTo(2000);
        assertThat(fb.stats().filtered()).isEqualTo(1000);
        assertThat(fb.stats().acked()).isEqualTo(2000);
        assertThat(fb.stats().pending()).isZero();
        assertThat(fb.state()).isEqualTo(BridgeState.UP);
    }

    @Test
    void shouldTakeTheLinkDownSayingWhyWhenAFilterThrowsAndLoseNothing() throws Exception {
        Broker a = startBroker(BrokerConfig.builder("throw-A"));
        Broker b = startBroker(BrokerConfig.builder("throw-B"));
        java.util.concurrent.atomic.AtomicBoolean buggy = new java.util.concurrent.atomic.AtomicBoolean(true);
        BridgeFilter filter = new BridgeFilter() {
            @Override
            public boolean beforeForward(RemoteConsumer consumer, StompFrame message) {
                if (buggy.get() && message.bodyAsString().equals("poison")) {
                    throw new IllegalStateException("filter bug on poison");
                }
                return true;
            }

            @Override
            public boolean mayBlock() {
                return false;
            }
        };
        Map<String, AtomicInteger> got = new ConcurrentHashMap<>();
        connect(b, "tcp").subscribeAndWait(SubscriptionRequest.of("/queue/poison"),
                m -> got.computeIfAbsent(m.bodyAsString(), k -> new AtomicInteger()).incrementAndGet(), WAIT);
        FederationBridge first = bridge(BridgeConfig.builder(a.vmUri(), tcp(b)).filter(">", filter));
        await().atMost(WAIT).until(() -> first.stats().networkSubscriptions() == 1);
        StompConnection p = connect(a, "tcp");
        for (String body : new String[] {"m1", "poison", "m2"}) {
            p.send(Message.of("/queue/poison", body)).get();
        }

        await("the link goes down rather than acknowledge past the message it could not forward").atMost(WAIT)
                .until(() -> first.state() == BridgeState.DOWN);
        assertThat(first.stats().lastError()).contains("filter bug on poison");

        buggy.set(false);
        bridge(BridgeConfig.builder(a.vmUri(), tcp(b)).filter(">", filter)); // as a reconnect would
        await().atMost(WAIT).until(() -> got.keySet().containsAll(Set.of("m1", "poison", "m2")));
        await("exactly once").during(Duration.ofMillis(300)).atMost(WAIT)
                .until(() -> got.values().stream().allMatch(n -> n.get() == 1));
        await().atMost(WAIT).until(() -> pending(a, "/queue/poison") == 0);
    }

    private static int pending(Broker b, String q) {
        var s = b.queue(q);
        return s == null ? 0 : s.pending();
    }

    private static int networkSubs(Broker b) {
        return b.bridges().stream().mapToInt(BridgeStats::networkSubscriptions).sum();
    }
}
