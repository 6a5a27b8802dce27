package io.fedbridge.benchmarks;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.function.ToDoubleFunction;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code scale}: every shape of {@link Federation} at every size, measured by {@link ScaleRun}, in this JVM (run it
 * with a heap large enough for the biggest federation, e.g. {@code java -Xmx2g -jar …}). Prints one table row per
 * topology and writes {@code scale.html} with its SVG charts into {@code --report-dir}. Exit code 0 only if every
 * topology delivered every message exactly once and converged within the timeout.
 */
@Command(name = "scale", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Topology scale: chain, ring, mesh, hub and random federations of brokers in this JVM over TCP;",
                "demand convergence and withdrawal times, exactly-once delivery, heap per broker and per remote subscription."})
public final class ScaleCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = "--shapes", split = ",", description = "topologies: chain, ring, mesh, hub, random (default ${DEFAULT-VALUE}).")
    List<String> shapes = List.of("chain", "ring", "mesh", "hub", "random");

    @Option(names = "--sizes", split = ",", description = "brokers per federation (default ${DEFAULT-VALUE}).")
    List<Integer> sizes = List.of(8, 16, 32);

    @Option(names = "--remote-subscriptions", description = "consumers on distinct queues weighed per remote subscription (default ${DEFAULT-VALUE}).")
    int remoteSubscriptions = 100;

    @Option(names = "--ttl", description = "networkTTL of every bridge; 0 = each topology's diameter (default ${DEFAULT-VALUE}).")
    int ttl;

    @Option(names = "--seed", description = "seed of the random topology (default ${DEFAULT-VALUE}).")
    long seed = 22;

    @Option(names = "--timeout-seconds", description = "bound on each wait (default ${DEFAULT-VALUE}).")
    int timeoutSeconds = 60;

    @Option(names = "--report-dir", description = "where scale.html and its SVG charts go (default ${DEFAULT-VALUE}).")
    Path reportDir = Path.of("scale-report");

    private final List<ScaleRun> runs = new ArrayList<>();
    private final List<String> failures = new ArrayList<>();

    List<ScaleRun> runs() {
        return runs;
    }

    List<String> failures() {
        return failures;
    }

    @Override
    public Integer call() throws Exception {
        if (remoteSubscriptions < 1) {
            throw new IllegalArgumentException("--remote-subscriptions must be at least 1, but was " + remoteSubscriptions);
        }
        if (ttl < 0) {
            throw new IllegalArgumentException("--ttl must be 0 (the diameter) or more, but was " + ttl);
        }
        List<Federation.Shape> chosen = new ArrayList<>();
        for (String name : shapes) {
            try {
                chosen.add(Federation.Shape.valueOf(name.trim().toUpperCase(Locale.ROOT)));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("--shapes must be among chain, ring, mesh, hub, random, but was '" + name + "'", e);
            }
        }
        PrintWriter out = spec.commandLine().getOut();
        for (int n : sizes) {
            for (Federation.Shape shape : chosen) {
                System.err.printf(Locale.ROOT, "[scale] %s of %d ...%n", shape.label(), n);
                try {
                    ScaleRun r = ScaleRun.measure(shape, n, ttl, remoteSubscriptions, seed, Duration.ofSeconds(timeoutSeconds));
                    runs.add(r);
                    System.err.println("[scale] " + row(r));
                    if (!r.exactlyOnce()) {
                        failures.add(shape.label() + " of " + n + ": queue " + r.queueDelivered() + ", topic " + r.topicDelivered()
                                + " deliveries of " + n + " messages each, " + r.copies() + " delivered twice");
                    }
                } catch (BenchmarkException | OutOfMemoryError e) {
                    failures.add(shape.label() + " of " + n + ": " + e.getMessage());
                    System.err.println("[scale] " + shape.label() + " of " + n + " FAILED: " + e.getMessage());
                }
            }
        }
        out.print(table(runs));
        failures.forEach(f -> out.println("FAILED " + f));
        out.println("report: " + writeReport(runs, reportDir).toAbsolutePath());
        out.flush();
        return failures.isEmpty() ? 0 : 1;
    }

    static String row(ScaleRun r) {
        return String.format(Locale.ROOT, "| %s | %d | %d | %d | %.1f | %.1f | %.1f | %d/%d/%d | %.0f | %.0f | %.0f | %d | %.1f |",
                r.shape().label(), r.brokers(), r.links(), r.ttl(), r.startMillis() / 1000.0, r.demandMax(), r.withdrawMax(),
                r.queueDelivered(), r.topicDelivered(), r.copies(), r.heapPerBroker() / 1024.0, r.heapPerRemoteSub(),
                r.heapPerRemoteSub() * (r.brokers() - 1), r.threads(), r.leaveMillis());
    }

    static String table(List<ScaleRun> runs) {
        StringBuilder b = new StringBuilder("Topology scale: brokers in one JVM over TCP loopback, one duplex bridge per link,"
                + " networkTTL = the topology's diameter unless --ttl says otherwise. Heap: MemoryMXBean after System.gc(), ±10 %"
                + " (the consumers command weighs a remote subscription precisely, with a class histogram).\n"
                + "demand = consumer SUBSCRIBEs until every other broker holds its network subscription (max of 3 consumers:"
                + " first, middle, last broker); withdraw = UNSUBSCRIBE until none does; leave = the consumers' broker closes"
                + " until no broker holds any demand.\n\n"
                + "| shape | brokers | links | TTL | start s | demand ms | withdraw ms | queue/topic/copies | heap KiB/broker"
                + " | heap B/remote sub | heap B/consumer federation-wide | threads | leave ms |\n"
                + "|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
        runs.forEach(r -> b.append(row(r)).append('\n'));
        return b.append('\n').toString();
    }

    /** Writes scale.html and scale-*.svg into {@code dir}; returns the HTML file. */
    static Path writeReport(List<ScaleRun> runs, Path dir) throws IOException {
        Files.createDirectories(dir);
        String demand = bySize(runs, "Demand convergence: consumer to every broker (max of 3)", "ms", ScaleRun::demandMax);
        String withdraw = bySize(runs, "Demand withdrawal after UNSUBSCRIBE (max of 3)", "ms", ScaleRun::withdrawMax);
        String heap = bySize(runs, "Heap per broker, its bridges included", "KiB", r -> r.heapPerBroker() / 1024.0);
        String perSub = bySize(runs, "Heap per remote subscription", "bytes", ScaleRun::heapPerRemoteSub);
        String[][] charts = {{"scale-demand.svg", demand}, {"scale-withdraw.svg", withdraw}, {"scale-heap.svg", heap},
                {"scale-remote-sub.svg", perSub}};
        for (String[] c : charts) {
            SvgChart.write(dir.resolve(c[0]), c[1]);
        }
        Path html = dir.resolve("scale.html");
        Files.writeString(html, SvgChart.page("fedbridge topology scale", List.of(
                new String[] {"Table", "<pre>" + SvgChart.esc(table(runs)) + "</pre>", null},
                new String[] {"Demand convergence", "", demand},
                new String[] {"Demand withdrawal", "", withdraw},
                new String[] {"Heap per broker", "", heap},
                new String[] {"Heap per remote subscription", "", perSub})), StandardCharsets.UTF_8);
        return html;
    }

    private static String bySize(List<ScaleRun> runs, String title, String unit, ToDoubleFunction<ScaleRun> f) {
        List<SvgChart.Series> series = new ArrayList<>();
        for (Federation.Shape shape : Federation.Shape.values()) {
            List<ScaleRun> l = runs.stream().filter(r -> r.shape() == shape).toList();
            if (!l.isEmpty()) {
                series.add(new SvgChart.Series(shape.label(), l.stream().mapToDouble(ScaleRun::brokers).toArray(),
                        l.stream().mapToDouble(f).toArray()));
            }
        }
        return SvgChart.lines(title, "brokers", unit, series, List.of());
    }
}
