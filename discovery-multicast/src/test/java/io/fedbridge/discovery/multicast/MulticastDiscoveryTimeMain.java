package io.fedbridge.discovery.multicast;

import io.fedbridge.core.discovery.DiscoveryContext;
import io.fedbridge.core.discovery.DiscoveryListener;
import io.fedbridge.core.discovery.PeerInfo;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Measures multicast discovery time on the loopback interface: three agents in one group, the first two running,
 * then the clock starts as the third one starts and stops when every agent has discovered both others (6
 * {@code peerDiscovered} calls, the moment a broker's network connector starts its bridges). Prints min, median
 * and max over a number of rounds (after 5 uncounted warm-up rounds), for the test timings (heartbeat 100 ms) and ActiveMQ's (500 ms).
 *
 * <pre>
 * mvn -q -pl discovery-multicast test-compile
 * CP=$(mvn -q -pl discovery-multicast dependency:build-classpath -Dmdep.includeScope=test -Dmdep.outputFile=/dev/stdout)
 * java -cp discovery-multicast/target/test-classes:discovery-multicast/target/classes:$CP \
 *     io.fedbridge.discovery.multicast.MulticastDiscoveryTimeMain [ROUNDS, default 20]
 * </pre>
 *
 * Bridge set-up on top (STOMP connects to the peers) is measured with brokers by {@code MulticastFederationIT}.
 */
public final class MulticastDiscoveryTimeMain {

    private MulticastDiscoveryTimeMain() {
    }

    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 20;
        System.out.println("multicast discovery time on lo: start of the third agent to all 6 peers discovered");
        measure(5, Duration.ofMillis(100)); // warm-up: class loading and JIT, not counted
        for (Duration heartbeat : List.of(Duration.ofMillis(100), Duration.ofMillis(500))) {
            List<Double> millis = measure(rounds, heartbeat);
            Collections.sort(millis);
            System.out.printf(Locale.ROOT, "heartbeatInterval=%4d ms, %d rounds: min %.1f ms, median %.1f ms, max %.1f ms%n",
                    heartbeat.toMillis(), rounds, millis.get(0), millis.get(millis.size() / 2), millis.get(millis.size() - 1));
        }
    }

    /** Discovery times in milliseconds, one per round, each round on a fresh group. */
    static List<Double> measure(int rounds, Duration heartbeat) throws Exception {
        List<Double> result = new ArrayList<>();
        for (int round = 0; round < rounds; round++) {
            try (Loopback net = Loopback.random()) {
                MulticastDiscoveryConfig config = net.config().heartbeatInterval(heartbeat).build();
                CountDownLatch discovered = new CountDownLatch(6);
                List<AutoCloseable> running = new ArrayList<>();
                try {
                    start(config, "a", 1, discovered, running);
                    start(config, "b", 2, discovered, running);
                    long t0 = System.nanoTime();
                    start(config, "c", 3, discovered, running);
                    if (!discovered.await(10, TimeUnit.SECONDS)) {
                        throw new IllegalStateException("not all peers discovered within 10 s (round " + round + ")");
                    }
                    result.add((System.nanoTime() - t0) / 1e6);
                } finally {
                    for (int i = running.size() - 1; i >= 0; i--) {
                        running.get(i).close();
                    }
                }
            }
        }
        return result;
    }

    private static void start(MulticastDiscoveryConfig config, String name, int port, CountDownLatch discovered,
                              List<AutoCloseable> running) {
        ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
        running.add(scheduler::shutdownNow);
        MulticastDiscoveryAgent agent = MulticastDiscoveryAgent.of(config, new DiscoveryContext(UUID.randomUUID().toString(),
                name, List.of("tcp://127.0.0.1:" + port), scheduler, Clock.systemUTC()));
        running.add(agent);
        agent.start(new DiscoveryListener() {
            @Override
            public void peerDiscovered(PeerInfo peer) {
                discovered.countDown();
            }

            @Override
            public void peerLost(PeerInfo peer) {
            }
        });
    }
}
