package io.fedbridge.benchmarks;

import io.fedbridge.broker.Broker;
import io.fedbridge.broker.BrokerConfig;
import io.fedbridge.core.bridge.BridgeState;
import io.fedbridge.core.bridge.BridgeStats;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Child JVM: a fedbridge broker node listening on {@code tcp://127.0.0.1:0}. Prints
 * {@code READY tcp://127.0.0.1:PORT startMicros=T startedMicros=T} and runs until its stdin closes.
 *
 * <p>Options (all optional; without any, a broker with its defaults, as the {@code throughput} benchmark uses):
 * <ul>
 *   <li>{@code --name NAME}: the broker name (default {@code bench});</li>
 *   <li>{@code --data DIR}: persistent messages are kept in DIR ({@code BrokerConfig.dataDirectory}, the default
 *       durability: SYNC);</li>
 *   <li>{@code --network-connector URI} (repeatable): a bridge, e.g. {@code static:(tcp://127.0.0.1:PORT)};</li>
 *   <li>{@code --watch-bridges}: note when the number of bridges UP changes, every millisecond;</li>
 *   <li>{@code --secure}: users and authorization rules ({@link BenchSecurity}), so every SEND, SUBSCRIBE and
 *       forward is checked, the bridges' federation right included;</li>
 *   <li>{@code --tls KEYSTORE}: listen on {@code ssl://127.0.0.1:0} with that key store instead of tcp://;</li>
 *   <li>{@code --metrics}: the metrics endpoint on {@code http://127.0.0.1:0}, scraped every 5 s from this JVM (a
 *       Prometheus server's work is not on the broker's bill, but building the scrape is).</li>
 *   <li>{@code --port N}: listen on that port instead of any free one (the soak restarts a killed broker on its port).</li>
 * </ul>
 * Commands on stdin: {@code stats} answers {@code STATS up=N bridges=N forwarded=N acked=N pending=N
 * duplicates=N networkSubscriptions=N remoteConsumers=N [upChangedMicros=T]}, summed over every bridge;
 * {@code sample} answers {@code SAMPLE heap=BYTES fds=N threads=N disk=BYTES} (heap in use without a GC, open file
 * descriptors, live threads, bytes under the data directory); {@code consumers} answers {@code CONSUMERS N}, the
 * consumers of every queue (network subscriptions included); {@code connect URI} adds a network connector,
 * {@code disconnect URI} removes it.
 * {@code startMicros} and {@code startedMicros} are the wall clock (µs since the epoch) just before and just after
 * {@code Broker.start}.
 */
public final class FedbridgeBrokerMain {

    private FedbridgeBrokerMain() {
    }

    public static void main(String[] args) {
        String name = "bench";
        Path data = null;
        boolean watch = false;
        boolean secure = false;
        Path keyStore = null;
        boolean metrics = false;
        int port = 0;
        List<String> connectors = new ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--name" -> name = args[++i];
                case "--data" -> data = Path.of(args[++i]);
                case "--network-connector" -> connectors.add(args[++i]);
                case "--watch-bridges" -> watch = true;
                case "--secure" -> secure = true;
                case "--tls" -> keyStore = Path.of(args[++i]);
                case "--metrics" -> metrics = true;
                case "--port" -> port = Integer.parseInt(args[++i]);
                default -> {
                    System.out.println("ERROR unknown option '" + args[i] + "'; valid: --name, --data, --network-connector,"
                            + " --watch-bridges, --secure, --tls, --metrics, --port");
                    System.exit(2);
                }
            }
        }
        BrokerConfig.Builder config = BrokerConfig.builder(name).listen((keyStore != null ? "ssl" : "tcp") + "://127.0.0.1:" + port)
                .dataDirectory(data);
        if (secure) {
            config.security(BenchSecurity.brokerSecurity(keyStore));
        }
        if (metrics) {
            config.metrics("http://127.0.0.1:0");
        }
        connectors.forEach(config::networkConnector);
        long startMicros = BridgeWatch.nowMicros();
        Broker broker = Broker.start(config.build());
        long startedMicros = BridgeWatch.nowMicros();
        Runtime.getRuntime().addShutdownHook(new Thread(broker::close, "fedbridge-bench-broker-stop"));
        BridgeWatch watcher = watch ? BridgeWatch.start(() -> up(broker.bridges())) : null;
        if (metrics) {
            scrapeEvery5s(broker.extension(io.fedbridge.metrics.MetricsEndpoint.class).uri().resolve("/metrics"));
        }
        ChildProtocol.ready(broker.connectUris().get(0) + " startMicros=" + startMicros + " startedMicros=" + startedMicros);
        Path dataDirectory = data;
        ChildProtocol.serve(command -> {
            if (command.startsWith("connect ")) {
                broker.addNetworkConnector(command.substring("connect ".length()).trim());
                return "CONNECTED";
            }
            if (command.startsWith("disconnect ")) {
                return "DISCONNECTED " + broker.removeNetworkConnector(command.substring("disconnect ".length()).trim());
            }
            return switch (command) {
                case "stats" -> stats(broker.bridges()) + (watcher != null ? " " + watcher.describe() : "");
                case "consumers" -> "CONSUMERS " + broker.queues().stream().mapToLong(q -> q.consumers()).sum();
                case "sample" -> ProcessSample.take(dataDirectory).line();
                default -> "ERROR unknown command '" + command + "'";
            };
        });
        broker.close();
        System.exit(0);
    }

    private static void scrapeEvery5s(java.net.URI metrics) {
        java.net.http.HttpClient http = java.net.http.HttpClient.newHttpClient();
        java.util.concurrent.ScheduledExecutorService s = java.util.concurrent.Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "bench-scraper");
            t.setDaemon(true);
            return t;
        });
        s.scheduleWithFixedDelay(() -> {
            try {
                http.send(java.net.http.HttpRequest.newBuilder(metrics).build(), java.net.http.HttpResponse.BodyHandlers.discarding());
            } catch (java.io.IOException e) {
                System.err.println("scrape of " + metrics + " failed: " + e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, 5, 5, java.util.concurrent.TimeUnit.SECONDS);
    }

    private static int up(List<BridgeStats> bridges) {
        int n = 0;
        for (BridgeStats s : bridges) {
            if (s.state() == BridgeState.UP) {
                n++;
            }
        }
        return n;
    }

    private static String stats(List<BridgeStats> bridges) {
        long forwarded = 0;
        long acked = 0;
        long pending = 0;
        long duplicates = 0;
        long subs = 0;
        long consumers = 0;
        for (BridgeStats s : bridges) {
            forwarded += s.forwarded();
            acked += s.acked();
            pending += s.pending();
            duplicates += s.duplicates();
            subs += s.networkSubscriptions();
            consumers += s.remoteConsumers();
        }
        return "STATS up=" + up(bridges) + " bridges=" + bridges.size() + " forwarded=" + forwarded + " acked=" + acked
                + " pending=" + pending + " duplicates=" + duplicates + " networkSubscriptions=" + subs
                + " remoteConsumers=" + consumers;
    }
}
