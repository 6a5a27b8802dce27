package io.fedbridge.broker.integration.security;

import io.fedbridge.broker.Broker;
import io.fedbridge.broker.BrokerConfig;
import io.fedbridge.broker.security.SecurityConfig;
import io.fedbridge.core.ClientConfig;
import io.fedbridge.core.Message;
import io.fedbridge.core.StompConnection;
import io.fedbridge.core.SubscriptionRequest;
import io.fedbridge.core.bridge.BridgeConfig;
import io.fedbridge.core.bridge.FederationBridge;
import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * Throughput and latency over one bridge hop, plain TCP against TLS: producer -> broker A -> bridge -> broker B
 * -> consumer, every link on the transport under test (clients and bridge alike), non-persistent 1 KiB
 * messages, in one JVM (so send and receive times share a clock).
 *
 * <p>Two phases per transport: <b>throughput</b>, as fast as flow control lets the producer go, measured from
 * the first send to the last receive; <b>latency</b>, at a fixed rate well below saturation, reporting p50, p99
 * and max end-to-end. Run from the broker module:
 *
 * <pre>
 * mvn -o -q -pl broker test-compile dependency:build-classpath -Dmdep.outputFile=/tmp/cp.txt
 * java -cp broker/target/test-classes:broker/target/classes:$(cat /tmp/cp.txt) \
 *     io.fedbridge.broker.integration.security.TlsThroughputMain [messages] [rate/s]
 * </pre>
 */
public final class TlsThroughputMain {

    private static final String SENT = "bench-sent-nanos";
    private static final int SIZE = 1024;

    private TlsThroughputMain() {
    }

    public static void main(String[] args) throws Exception {
        int messages = args.length > 0 ? Integer.parseInt(args[0]) : 200_000;
        int rate = args.length > 1 ? Integer.parseInt(args[1]) : 5_000;
        System.out.printf("one bridge hop, %d B non-persistent messages; throughput: %d messages; latency: %d msg/s for 5 s%n",
                SIZE, messages, rate);
        for (int round = 0; round < 2; round++) { // the first round warms up the JIT; report the second
            for (String transport : new String[] {"tcp", "ssl"}) {
                Result r = run(transport, messages, rate);
                if (round == 1) {
                    System.out.printf(Locale.ROOT, "%-4s throughput %,10.0f msg/s (%6.1f MiB/s)   latency p50 %6.3f ms  p99 %6.3f ms  max %7.3f ms%n",
                            transport, r.throughput, r.throughput * SIZE / (1 << 20), r.p50Millis, r.p99Millis, r.maxMillis);
                }
            }
        }
        System.exit(0);
    }

    private record Result(double throughput, double p50Millis, double p99Millis, double maxMillis) {
    }

    private static Result run(String transport, int messages, int rate) throws Exception {
        boolean tls = transport.equals("ssl");
        TestCertificates certs = tls ? TestCertificates.get() : null;
        SecurityConfig security = tls ? SecurityConfig.builder().tls(certs.serverTls()).build() : SecurityConfig.ofDefaults();
        String listen = transport + "://127.0.0.1:0";
        try (Broker a = Broker.start(BrokerConfig.builder("bench-a-" + transport).listen(listen).security(security).build());
             Broker b = Broker.start(BrokerConfig.builder("bench-b-" + transport).listen(listen).security(security).build())) {
            // The bridge takes A's listener too, so that both of its connections run the transport under test.
            BridgeConfig bc = BridgeConfig.builder(a.connectUris().get(0), b.connectUris().get(0)).heartBeat(Duration.ZERO)
                    .tls(tls ? certs.clientTls() : null).build();
            try (FederationBridge bridge = FederationBridge.start(bc);
                 StompConnection producer = StompConnection.connect(client(a, tls ? certs : null));
                 StompConnection consumer = StompConnection.connect(client(b, tls ? certs : null))) {
                bridge.awaitUp(Duration.ofSeconds(10));
                AtomicInteger received = new AtomicInteger();
                long[] latencies = new long[Math.max(messages, rate * 5)];
                CountDownLatch[] done = {new CountDownLatch(messages)};
                consumer.subscribe(SubscriptionRequest.of("/queue/bench"), m -> {
                    int i = received.getAndIncrement();
                    if (i < latencies.length) {
                        latencies[i] = System.nanoTime() - Long.parseLong(m.header(SENT));
                    }
                    done[0].countDown();
                });
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                while (bridge.stats().networkSubscriptions() < 1) {
                    if (System.nanoTime() > deadline) {
                        throw new IllegalStateException("no demand over the bridge");
                    }
                    LockSupport.parkNanos(1_000_000);
                }
                byte[] body = new byte[SIZE];
                Arrays.fill(body, (byte) 'x');

                long t0 = System.nanoTime();
                for (int i = 0; i < messages; i++) {
                    producer.sendWithoutReceipt(Message.builder("/queue/bench").body(body)
                            .header(SENT, Long.toString(System.nanoTime())).build());
                }
                if (!done[0].await(5, TimeUnit.MINUTES)) {
                    throw new IllegalStateException(transport + ": only " + received.get() + " of " + messages + " arrived");
                }
                double throughput = messages / ((System.nanoTime() - t0) / 1e9);

                int paced = rate * 5;
                received.set(0);
                done[0] = new CountDownLatch(paced);
                long interval = 1_000_000_000L / rate;
                long start = System.nanoTime();
                for (int i = 0; i < paced; i++) {
                    long due = start + i * interval;
                    long wait = due - System.nanoTime();
                    if (wait > 0) {
                        LockSupport.parkNanos(wait);
                    }
                    producer.sendWithoutReceipt(Message.builder("/queue/bench").body(body)
                            .header(SENT, Long.toString(System.nanoTime())).build());
                }
                if (!done[0].await(1, TimeUnit.MINUTES)) {
                    throw new IllegalStateException(transport + ": paced phase incomplete");
                }
                long[] l = Arrays.copyOf(latencies, paced);
                Arrays.sort(l);
                return new Result(throughput, l[paced / 2] / 1e6, l[(int) (paced * 0.99)] / 1e6, l[paced - 1] / 1e6);
            }
        }
    }

    private static ClientConfig client(Broker broker, TestCertificates certs) {
        ClientConfig.Builder b = ClientConfig.builder(broker.connectUris().get(0)).heartBeats(Duration.ZERO);
        if (certs != null) {
            b.tls(certs.clientTls());
        }
        return b.build();
    }
}
