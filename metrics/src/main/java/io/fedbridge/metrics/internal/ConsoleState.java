package io.fedbridge.metrics.internal;

import io.fedbridge.broker.Broker;
import io.fedbridge.broker.DestinationStats;
import io.fedbridge.core.bridge.LinkStats;
import io.fedbridge.metrics.BrokerMetrics;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * What the console shows, sampled every second: queue depths with a minute of history (the sparklines), link rates,
 * and the readiness checks, rendered as the JSON of {@code /api/state}. Synchronized: sampled and read on the
 * endpoint's thread.
 */
public final class ConsoleState {

    /** Samples of history a queue keeps: a minute at one per second. */
    static final int HISTORY = 60;

    private final BrokerMetrics metrics;
    private final Readiness readiness;
    private final Map<String, ArrayDeque<Integer>> depths = new HashMap<>();
    private final Map<String, double[]> lastForwarded = new HashMap<>();
    private final Map<String, Double> rates = new HashMap<>();
    private String json = "{}";

    public ConsoleState(BrokerMetrics metrics, Readiness readiness) {
        this.metrics = metrics;
        this.readiness = readiness;
    }

    /** Takes a sample and renders it. */
    public synchronized void sample() {
        metrics.refresh();
        Broker broker = metrics.broker();
        long now = System.nanoTime();
        Map<String, DestinationStats> queues = new TreeMap<>(metrics.queues());
        depths.keySet().retainAll(queues.keySet());
        queues.forEach((name, d) -> {
            ArrayDeque<Integer> h = depths.computeIfAbsent(name, n -> new ArrayDeque<>());
            if (h.size() == HISTORY) {
                h.removeFirst();
            }
            h.addLast(d.pending());
        });
        Map<String, LinkStats> links = new TreeMap<>(metrics.links());
        lastForwarded.keySet().retainAll(links.keySet());
        rates.keySet().retainAll(links.keySet());
        links.forEach((peer, l) -> {
            double[] last = lastForwarded.get(peer);
            if (last != null && now > last[1]) {
                rates.put(peer, Math.max(0, (l.forwarded() - last[0]) / ((now - last[1]) / 1e9)));
            }
            lastForwarded.put(peer, new double[] {l.forwarded(), now});
        });
        Readiness.Result ready = readiness.check();

        StringBuilder b = new StringBuilder(256 + 128 * (queues.size() + links.size()));
        b.append("{\"broker\":").append(Json.string(broker.name()))
                .append(",\"id\":").append(Json.string(broker.id()))
                .append(",\"time\":").append(System.currentTimeMillis())
                .append(",\"ready\":").append(ready.ready())
                .append(",\"connections\":").append(broker.connectionCount())
                .append(",\"memoryUsed\":").append(broker.memoryUsed())
                .append(",\"memoryLimit\":").append(broker.config().memoryLimit())
                .append(",\"diskLow\":").append(broker.isDiskSpaceLow())
                .append(",\"duplicatesDropped\":").append(broker.duplicatesDropped())
                .append(",\"links\":[");
        boolean first = true;
        for (LinkStats l : links.values()) {
            b.append(first ? "" : ",").append("{\"peer\":").append(Json.string(l.peerUri()))
                    .append(",\"name\":").append(Json.string(l.peerName()))
                    .append(",\"state\":\"").append(l.state()).append('"')
                    .append(",\"forwarded\":").append(l.forwarded())
                    .append(",\"rate\":").append(Json.number(rates.getOrDefault(l.peerUri(), 0.0)))
                    .append(",\"pending\":").append(l.bridge().pending())
                    .append(",\"duplicates\":").append(l.duplicates())
                    .append(",\"reconnects\":").append(l.reconnects())
                    .append(",\"secondsInState\":").append(Json.number(l.timeInState().toMillis() / 1000.0))
                    .append(",\"receiptLagSeconds\":").append(Json.number(l.receiptLag().toMillis() / 1000.0))
                    .append(",\"lastError\":").append(Json.string(l.bridge().lastError())).append('}');
            first = false;
        }
        b.append("],\"queues\":[");
        first = true;
        for (DestinationStats d : queues.values()) {
            b.append(first ? "" : ",").append("{\"name\":").append(Json.string(d.name()))
                    .append(",\"pending\":").append(d.pending())
                    .append(",\"inflight\":").append(d.inflight())
                    .append(",\"consumers\":").append(d.consumers())
                    .append(",\"enqueued\":").append(d.enqueued())
                    .append(",\"dequeued\":").append(d.dequeued())
                    .append(",\"bytes\":").append(d.bytes())
                    .append(",\"history\":[");
            boolean firstSample = true;
            for (int v : depths.get(d.name())) {
                b.append(firstSample ? "" : ",").append(v);
                firstSample = false;
            }
            b.append("]}");
            first = false;
        }
        b.append("],\"checks\":").append(ready.json()).append("}\n");
        json = b.toString();
    }

    /** The last sample as JSON. */
    public synchronized String json() {
        return json;
    }
}
