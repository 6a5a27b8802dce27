package io.fedbridge.broker.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fedbridge.broker.Broker;
import io.fedbridge.broker.BrokerConfig;
import io.fedbridge.broker.DestinationPolicy;
import io.fedbridge.broker.cluster.DestinationDefinition;
import io.fedbridge.core.bridge.BridgeState;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;
import java.util.concurrent.ConcurrentHashMap;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * How long a definition and its deletion take to reach every broker of a chain and of a full mesh, over TCP: from the
 * call on the first broker until the last one applied it (each broker with its data directory: stored, committed). Prints the median and range of several runs. Four brokers
 * always; sixteen with {@code -Dfedbridge.soak=true}.
 */
class DefinitionPropagationIT {

    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final int RUNS = 7;
    private final List<Broker> brokers = new ArrayList<>();
    @TempDir
    Path dir;

    @AfterEach
    void stop() {
        brokers.parallelStream().forEach(Broker::close);
    }

    @ParameterizedTest(name = "{0} brokers, {1}")
    @CsvSource({"4, chain", "4, mesh", "16, chain", "16, mesh"})
    void shouldReachEveryBroker(int n, String topology) {
        if (n > 4 && !Boolean.getBoolean("fedbridge.soak")) {
            return; // the long form: -Dfedbridge.soak=true
        }
        for (int i = 0; i < n; i++) {
            brokers.add(Broker.start(BrokerConfig.builder("prop" + n + topology + i).listen("tcp://127.0.0.1:0").ioThreads(1)
                    .dataDirectory(dir.resolve("b" + i)).build()));
        }
        int links = 0;
        for (int i = 0; i < n - 1; i++) {
            StringJoiner peers = new StringJoiner(",");
            for (int j = i + 1; j < (topology.equals("chain") ? i + 2 : n); j++) {
                peers.add(brokers.get(j).connectUris().get(0));
                links++;
            }
            brokers.get(i).addNetworkConnector("static:(" + peers + ")?duplex=true&initialReconnectDelay=50&heartBeat=0");
        }
        int expected = links;
        await(expected + " bridges up").atMost(WAIT).until(() -> brokers.stream()
                .mapToLong(b -> b.bridges().stream().filter(s -> s.state() == BridgeState.UP).count()).sum() == expected);

        Map<String, Long> applied = new ConcurrentHashMap<>();
        for (Broker b : brokers) {
            b.cluster().addListener(d -> applied.put(b.name() + " " + d.destination() + " " + d.deleted(), System.nanoTime()));
        }
        List<Double> define = new ArrayList<>();
        List<Double> delete = new ArrayList<>();
        for (int run = -1; run < RUNS; run++) { // run -1 warms up
            String name = "/queue/prop.run" + run;
            if (run < 0) {
                measure(applied, name, false, () -> brokers.get(0).cluster().define(DestinationPolicy.builder(name).build()));
                measure(applied, name, true, () -> brokers.get(0).cluster().delete(name));
                continue;
            }
            define.add(measure(applied, name, false, () -> brokers.get(0).cluster().define(DestinationPolicy.builder(name).maxNumMsgs(10).build())));
            delete.add(measure(applied, name, true, () -> brokers.get(0).cluster().delete(name)));
        }
        System.out.printf("definition propagation, %d brokers, %s (%d bridges): define median %.1f ms (%.1f-%.1f), delete median %.1f ms (%.1f-%.1f), %d runs%n",
                n, topology, links, median(define), Collections.min(define), Collections.max(define), median(delete),
                Collections.min(delete), Collections.max(delete), RUNS);
        for (Broker b : brokers) {
            assertThat(b.cluster().definitions()).isEmpty();
            assertThat(b.cluster().definition("/queue/prop.run0")).get().extracting(DestinationDefinition::deleted).isEqualTo(true);
        }
    }

    /** Milliseconds from {@code action} until every broker applied it. */
    private double measure(Map<String, Long> applied, String name, boolean deleted, Runnable action) {
        long start = System.nanoTime();
        action.run();
        await(name + (deleted ? " deleted" : " defined") + " everywhere").atMost(WAIT).until(() -> brokers.stream()
                .allMatch(b -> applied.containsKey(b.name() + " " + name + " " + deleted)));
        long last = brokers.stream().mapToLong(b -> applied.get(b.name() + " " + name + " " + deleted)).max().orElseThrow();
        return (last - start) / 1e6;
    }

    private static double median(List<Double> l) {
        List<Double> s = new ArrayList<>(l);
        Collections.sort(s);
        return s.get(s.size() / 2);
    }
}
