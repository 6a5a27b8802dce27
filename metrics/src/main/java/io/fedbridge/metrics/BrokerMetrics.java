package io.fedbridge.metrics;

import io.fedbridge.broker.Broker;
import io.fedbridge.broker.DestinationStats;
import io.fedbridge.broker.store.JournalMessageStore;
import io.fedbridge.core.bridge.BridgeState;
import io.fedbridge.core.bridge.LinkStats;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.TimeGauge;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.BaseUnits;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Binds a broker's meters to a Micrometer {@link MeterRegistry}: per queue, per link, journal, dedupe, connections,
 * memory and the queue latency (enqueue to dispatch). Every meter has the tag {@code broker}; names follow
 * Prometheus conventions once a Prometheus registry renders them (docs/metrics.md lists them all).
 *
 * <pre>{@code
 * MeterRegistry registry = ...;                           // the embedder's own
 * BrokerMetrics metrics = BrokerMetrics.bind(broker, registry);
 * ...
 * metrics.close();                                        // removes the broker's meters again
 * }</pre>
 *
 * Queues and links come and go: their meters are added and removed by {@link #refresh()}, which runs every second
 * on a daemon thread of its own (and before each scrape of {@link MetricsEndpoint}); gauges read the values of the
 * last refresh. Only the queue latency and the journal's fsyncs are recorded as they happen: one Timer record per
 * dispatched message, one per fsync — no lock or allocation of their own on the message path. Thread-safe.
 */
public final class BrokerMetrics implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(BrokerMetrics.class);
    static final Duration REFRESH = Duration.ofSeconds(1);
    private static final Duration[] LATENCY_BUCKETS = millis(1, 2, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000, 30000);
    private static final Duration[] SYNC_BUCKETS = {Duration.ofNanos(100_000), Duration.ofNanos(250_000),
            Duration.ofNanos(500_000), Duration.ofMillis(1), Duration.ofNanos(2_500_000), Duration.ofMillis(5),
            Duration.ofMillis(10), Duration.ofMillis(25), Duration.ofMillis(50), Duration.ofMillis(100),
            Duration.ofMillis(250), Duration.ofMillis(500), Duration.ofSeconds(1)};

    private final Broker broker;
    private final MeterRegistry registry;
    private final Tags brokerTag;
    private final List<Meter> fixed = new ArrayList<>();
    private final Map<String, List<Meter>> queueMeters = new HashMap<>();
    private final Map<String, List<Meter>> linkMeters = new HashMap<>();
    private final ScheduledExecutorService refresher;
    private volatile Map<String, DestinationStats> queues = Map.of();
    private volatile Map<String, LinkStats> links = Map.of();
    private final Timer localLatency;
    private final Timer bridgeLatency;
    private final JournalMessageStore journal;

    private BrokerMetrics(Broker broker, MeterRegistry registry) {
        this.broker = broker;
        this.registry = registry;
        this.brokerTag = Tags.of("broker", broker.name());
        fixed.add(Gauge.builder("fedbridge.connections", broker, Broker::connectionCount).tags(brokerTag)
                .description("STOMP connections open, bridges' included").register(registry));
        fixed.add(Gauge.builder("fedbridge.memory.used", broker, Broker::memoryUsed).tags(brokerTag).baseUnit(BaseUnits.BYTES)
                .description("Message data held in memory").register(registry));
        fixed.add(Gauge.builder("fedbridge.memory.limit", broker, b -> b.config().memoryLimit()).tags(brokerTag)
                .baseUnit(BaseUnits.BYTES).description("Memory held before producers are flow-controlled").register(registry));
        fixed.add(FunctionCounter.builder("fedbridge.memory.limit.reached", broker, Broker::memoryLimitReached).tags(brokerTag)
                .description("Times the broker's memory reached memoryLimit and paused producers").register(registry));
        fixed.add(Gauge.builder("fedbridge.memory.paused.connections", broker, Broker::memoryPausedConnections).tags(brokerTag)
                .description("Producer connections paused now, waiting for memory below 70% of memoryLimit").register(registry));
        fixed.add(Gauge.builder("fedbridge.disk.low", broker, b -> b.isDiskSpaceLow() ? 1 : 0).tags(brokerTag)
                .description("1 while the data directory's disk is below minFreeDisk (persistent sends wait)").register(registry));
        fixed.add(Gauge.builder("fedbridge.dedupe.window.size", broker, Broker::dedupeWindowSize).tags(brokerTag)
                .description("Federation ids the dedupe window remembers").register(registry));
        fixed.add(FunctionCounter.builder("fedbridge.dedupe.duplicates", broker, Broker::duplicatesDropped).tags(brokerTag)
                .description("Messages dropped because their federation id was already accepted").register(registry));
        localLatency = latencyTimer("local");
        bridgeLatency = latencyTimer("bridge");
        fixed.add(localLatency);
        fixed.add(bridgeLatency);
        journal = broker.store() instanceof JournalMessageStore j ? j : null;
        if (journal != null) {
            bindJournal(journal);
        }
        refresh();
        broker.onDispatch((latencyMillis, toBridge) -> (toBridge ? bridgeLatency : localLatency)
                .record(latencyMillis, TimeUnit.MILLISECONDS));
        refresher = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "fedbridge-" + broker.name() + "-metrics-refresh");
            t.setDaemon(true);
            return t;
        });
        refresher.scheduleWithFixedDelay(this::refreshQuietly, REFRESH.toMillis(), REFRESH.toMillis(), TimeUnit.MILLISECONDS);
    }

    /**
     * Registers the broker's meters in {@code registry} and keeps them current until {@link #close()}. JVM metrics
     * are not included (bind Micrometer's JVM binders yourself, or use {@link MetricsEndpoint}, which does).
     */
    public static BrokerMetrics bind(Broker broker, MeterRegistry registry) {
        if (broker == null || registry == null) {
            throw new IllegalArgumentException("broker and registry must not be null, but were " + broker + ", " + registry);
        }
        return new BrokerMetrics(broker, registry);
    }

    private Timer latencyTimer(String consumer) {
        return Timer.builder("fedbridge.queue.latency").tags(brokerTag).tag("consumer", consumer)
                .description("Time a message waited in a queue, from enqueue to dispatch (millisecond resolution); "
                        + "consumer=bridge when a bridge forwarded it to a peer")
                .serviceLevelObjectives(LATENCY_BUCKETS).register(registry);
    }

    private void bindJournal(JournalMessageStore j) {
        Timer sync = Timer.builder("fedbridge.journal.sync").tags(brokerTag)
                .description("Duration of the journal's fsyncs").serviceLevelObjectives(SYNC_BUCKETS).register(registry);
        DistributionSummary records = DistributionSummary.builder("fedbridge.journal.records.per.sync").tags(brokerTag)
                .description("Journal records made durable by one fsync (group commit)")
                .serviceLevelObjectives(1, 2, 5, 10, 20, 50, 100, 200, 500, 1000).register(registry);
        fixed.add(sync);
        fixed.add(records);
        fixed.add(FunctionCounter.builder("fedbridge.journal.written", j, JournalMessageStore::bytesWritten).tags(brokerTag)
                .baseUnit(BaseUnits.BYTES).description("Journal bytes written").register(registry));
        fixed.add(Gauge.builder("fedbridge.journal.segments", j, s -> s.segmentFiles().size()).tags(brokerTag)
                .description("Journal segment files").register(registry));
        fixed.add(Gauge.builder("fedbridge.journal.size", j, BrokerMetrics::sizeOnDisk).tags(brokerTag)
                .baseUnit(BaseUnits.BYTES).description("Bytes of the journal's segment files on disk").register(registry));
        j.onSync((nanos, n) -> {
            sync.record(nanos, TimeUnit.NANOSECONDS);
            records.record(n);
        });
    }

    private static double sizeOnDisk(JournalMessageStore j) {
        long total = 0;
        for (Path p : j.segmentFiles()) {
            try {
                total += Files.size(p);
            } catch (IOException e) {
                // deleted since listed (compaction): not on disk any more
            }
        }
        return total;
    }

    /** The queue counters of the last refresh, by name. */
    public Map<String, DestinationStats> queues() {
        return queues;
    }

    /** The links of the last refresh, by peer URI. */
    public Map<String, LinkStats> links() {
        return links;
    }

    public Broker broker() {
        return broker;
    }

    private void refreshQuietly() {
        try {
            refresh();
        } catch (RuntimeException e) {
            LOG.debug("broker {}: metrics refresh failed: {}", broker.name(), e.toString());
        }
    }

    /** Reads the broker's queue and link counters, adding meters for new queues and links and removing stale ones. */
    public synchronized void refresh() {
        Map<String, DestinationStats> q = new HashMap<>();
        for (DestinationStats d : broker.queues()) {
            q.put(d.name(), d);
        }
        Map<String, LinkStats> l = new HashMap<>();
        for (LinkStats s : broker.links()) {
            l.put(s.peerUri(), s);
        }
        queues = q;
        links = l;
        sync(queueMeters, q.keySet(), this::queueMeters);
        Map<String, String> linkKeys = new HashMap<>();
        l.forEach((peer, s) -> linkKeys.put(peer + "\n" + (s.peerName() == null ? "" : s.peerName()), peer));
        sync(linkMeters, linkKeys.keySet(), key -> linkMeters(linkKeys.get(key), l.get(linkKeys.get(key)).peerName()));
    }

    private void sync(Map<String, List<Meter>> meters, java.util.Set<String> wanted, java.util.function.Function<String, List<Meter>> create) {
        meters.entrySet().removeIf(e -> {
            if (wanted.contains(e.getKey())) {
                return false;
            }
            e.getValue().forEach(registry::remove);
            return true;
        });
        for (String k : wanted) {
            meters.computeIfAbsent(k, create);
        }
    }

    private List<Meter> queueMeters(String name) {
        Tags t = brokerTag.and("destination", name);
        List<Meter> m = new ArrayList<>();
        m.add(queueGauge("fedbridge.queue.messages.pending", t, name, DestinationStats::pending, "Messages waiting for a consumer"));
        m.add(queueGauge("fedbridge.queue.messages.inflight", t, name, DestinationStats::inflight,
                "Messages delivered and not yet acknowledged"));
        m.add(Gauge.builder("fedbridge.queue.held", this, x -> queueValue(name, DestinationStats::bytes)).tags(t)
                .baseUnit(BaseUnits.BYTES).description("Bytes of the pending and inflight messages").register(registry));
        m.add(queueGauge("fedbridge.queue.consumers", t, name, DestinationStats::consumers, "Subscriptions attached"));
        m.add(queueCounter("fedbridge.queue.messages.enqueued", t, name, DestinationStats::enqueued, "Messages accepted"));
        m.add(queueCounter("fedbridge.queue.messages.dequeued", t, name, DestinationStats::dequeued, "Messages acknowledged"));
        m.add(queueCounter("fedbridge.queue.messages.expired", t, name, DestinationStats::expired,
                "Messages dropped because they expired"));
        m.add(queueCounter("fedbridge.queue.messages.deadlettered", t, name, DestinationStats::deadLettered,
                "Messages moved to (or dropped instead of) the dead-letter queue"));
        return m;
    }

    private Meter queueGauge(String meter, Tags t, String name, ToDoubleFunction<DestinationStats> f, String help) {
        return Gauge.builder(meter, this, x -> queueValue(name, f)).tags(t).description(help).register(registry);
    }

    private Meter queueCounter(String meter, Tags t, String name, ToDoubleFunction<DestinationStats> f, String help) {
        return FunctionCounter.builder(meter, this, x -> queueValue(name, f)).tags(t).description(help).register(registry);
    }

    private double queueValue(String name, ToDoubleFunction<DestinationStats> f) {
        DestinationStats d = queues.get(name);
        return d == null ? 0 : f.applyAsDouble(d);
    }

    private List<Meter> linkMeters(String peer, String peerName) {
        Tags t = brokerTag.and("peer", peer);
        List<Meter> m = new ArrayList<>();
        for (BridgeState s : BridgeState.values()) {
            m.add(Gauge.builder("fedbridge.link.state", this, x -> linkValue(peer, l -> l.state() == s ? 1 : 0)).tags(t)
                    .tag("state", s.name()).description("1 for the link's state, 0 for the others").register(registry));
        }
        m.add(Gauge.builder("fedbridge.link.info", () -> 1).tags(t).tag("peer_name", peerName == null ? "" : peerName)
                .description("The peer broker's name (empty before it first connected)").register(registry));
        m.add(FunctionCounter.builder("fedbridge.link.messages.forwarded", this, x -> linkValue(peer, LinkStats::forwarded))
                .tags(t).description("Messages forwarded to the peer").register(registry));
        m.add(Gauge.builder("fedbridge.link.messages.pending", this, x -> linkValue(peer, l -> l.bridge().pending())).tags(t)
                .description("Forwards awaiting the peer's receipt").register(registry));
        m.add(FunctionCounter.builder("fedbridge.link.duplicates", this, x -> linkValue(peer, LinkStats::duplicates)).tags(t)
                .description("Forwards the peer dropped as duplicates").register(registry));
        m.add(FunctionCounter.builder("fedbridge.link.reconnects", this, x -> linkValue(peer, LinkStats::reconnects)).tags(t)
                .description("Bridges started to the peer after the first").register(registry));
        m.add(FunctionCounter.builder("fedbridge.link.messages.filtered", this, x -> linkValue(peer, l -> l.bridge().filtered()))
                .tags(t).description("Messages a filter kept from the peer (current bridge)").register(registry));
        m.add(Gauge.builder("fedbridge.link.remote.consumers", this, x -> linkValue(peer, l -> l.bridge().remoteConsumers()))
                .tags(t).description("The peer's consumers that create demand here").register(registry));
        m.add(TimeGauge.builder("fedbridge.link.receipt.lag", this, TimeUnit.NANOSECONDS,
                x -> linkValue(peer, l -> l.receiptLag().toNanos())).tags(t)
                .description("How long forwards have waited for the peer's receipt").register(registry));
        m.add(TimeGauge.builder("fedbridge.link.time.in.state", this, TimeUnit.NANOSECONDS,
                x -> linkValue(peer, l -> l.timeInState().toNanos())).tags(t)
                .description("How long the link has been in its state").register(registry));
        return m;
    }

    private double linkValue(String peer, ToDoubleFunction<LinkStats> f) {
        LinkStats l = links.get(peer);
        return l == null ? 0 : f.applyAsDouble(l);
    }

    private static Duration[] millis(long... ms) {
        Duration[] d = new Duration[ms.length];
        for (int i = 0; i < ms.length; i++) {
            d[i] = Duration.ofMillis(ms[i]);
        }
        return d;
    }

    /** Stops refreshing and removes every meter this binding registered. */
    @Override
    public synchronized void close() {
        refresher.shutdownNow();
        broker.onDispatch(null);
        if (journal != null) {
            journal.onSync(null);
        }
        fixed.forEach(registry::remove);
        queueMeters.values().forEach(l -> l.forEach(registry::remove));
        linkMeters.values().forEach(l -> l.forEach(registry::remove));
        fixed.clear();
        queueMeters.clear();
        linkMeters.clear();
    }
}
