package io.fedbridge.benchmarks;

import io.fedbridge.broker.Broker;
import io.fedbridge.broker.DestinationPolicy;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code definitions}: how long a cluster-wide destination definition (docs/cluster.md) and its deletion take to reach
 * every broker of a {@link Federation}: from {@code cluster().define(…)} (or {@code delete}) on broker 0 until the last
 * broker applied it (its definition listener ran), each broker storing it in its data directory (a MapDB commit)
 * before passing it on, unless {@code --no-store}. Runs in this JVM over TCP loopback; prints a Markdown table of the
 * median and range per topology. Exit code 0 only if every change reached every broker within the timeout.
 */
@Command(name = "definitions", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Cluster-wide destinations: propagation time of a define and of a delete from one broker to all,",
                "chain and full mesh of 4 and 16 brokers in this JVM over TCP, each broker storing what it applies."})
public final class DefinitionsCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = "--shapes", split = ",", description = "topologies: chain, ring, mesh, hub, random (default ${DEFAULT-VALUE}).")
    List<String> shapes = List.of("chain", "mesh");

    @Option(names = "--sizes", split = ",", description = "brokers per federation (default ${DEFAULT-VALUE}).")
    List<Integer> sizes = List.of(4, 16);

    @Option(names = "--runs", description = "measured define/delete pairs per topology (default ${DEFAULT-VALUE}).")
    int runs = 7;

    @Option(names = "--warmup", description = "unmeasured define/delete pairs first (default ${DEFAULT-VALUE}).")
    int warmup = 1;

    @Option(names = "--no-store", description = "brokers without data directories: definitions kept in memory only.")
    boolean noStore;

    @Option(names = "--timeout-seconds", description = "bound on each wait (default ${DEFAULT-VALUE}).")
    int timeoutSeconds = 60;

    /** One topology's figures, in milliseconds. */
    record Row(String shape, int brokers, int bridges, List<Double> define, List<Double> delete) {
    }

    private final List<Row> rows = new ArrayList<>();
    private final List<String> failures = new ArrayList<>();

    List<Row> rows() {
        return rows;
    }

    List<String> failures() {
        return failures;
    }

    @Override
    public Integer call() throws Exception {
        if (runs < 1) {
            throw new IllegalArgumentException("--runs must be at least 1, but was " + runs);
        }
        if (warmup < 0) {
            throw new IllegalArgumentException("--warmup must be 0 or more, but was " + warmup);
        }
        List<Federation.Shape> chosen = new ArrayList<>();
        for (String name : shapes) {
            try {
                chosen.add(Federation.Shape.valueOf(name.trim().toUpperCase(Locale.ROOT)));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("--shapes must be among chain, ring, mesh, hub, random, but was '" + name + "'", e);
            }
        }
        Duration timeout = Duration.ofSeconds(timeoutSeconds);
        for (int n : sizes) {
            for (Federation.Shape shape : chosen) {
                System.err.printf(Locale.ROOT, "[definitions] %s of %d ...%n", shape.label(), n);
                Path data = noStore ? null : Files.createTempDirectory("fedbridge-definitions-");
                try (Federation f = Federation.start(shape, n, 0, 22, timeout, data)) {
                    Row r = measure(f, timeout);
                    rows.add(r);
                    System.err.println("[definitions] " + row(r));
                } catch (BenchmarkException e) {
                    failures.add(shape.label() + " of " + n + ": " + e.getMessage());
                    System.err.println("[definitions] " + shape.label() + " of " + n + " FAILED: " + e.getMessage());
                } finally {
                    delete(data);
                }
            }
        }
        PrintWriter out = spec.commandLine().getOut();
        out.print(table(rows, noStore));
        failures.forEach(f -> out.println("FAILED " + f));
        out.flush();
        return failures.isEmpty() ? 0 : 1;
    }

    private Row measure(Federation f, Duration timeout) {
        Map<String, Long> applied = new ConcurrentHashMap<>();
        for (int i = 0; i < f.size(); i++) {
            Broker b = f.broker(i);
            b.cluster().addListener(d -> applied.put(b.name() + " " + d.destination() + " " + d.deleted(), System.nanoTime()));
        }
        List<Double> define = new ArrayList<>();
        List<Double> delete = new ArrayList<>();
        Broker first = f.broker(0);
        for (int run = -warmup; run < runs; run++) {
            String name = "/queue/definitions.run" + (run + warmup);
            double d = millisUntilEverywhere(f, applied, name, false, timeout,
                    () -> first.cluster().define(DestinationPolicy.builder(name).maxNumMsgs(10).build()));
            double x = millisUntilEverywhere(f, applied, name, true, timeout, () -> first.cluster().delete(name));
            if (run >= 0) {
                define.add(d);
                delete.add(x);
            }
        }
        return new Row(f.shape().label(), f.size(), f.edges().size(), define, delete);
    }

    /** Milliseconds from {@code change} until every broker applied it. */
    private static double millisUntilEverywhere(Federation f, Map<String, Long> applied, String name, boolean deleted,
                                                Duration timeout, Runnable change) {
        long start = System.nanoTime();
        change.run();
        f.await(name + (deleted ? " deleted" : " defined") + " on every broker", timeout, () -> {
            for (int i = 0; i < f.size(); i++) {
                if (!applied.containsKey(f.broker(i).name() + " " + name + " " + deleted)) {
                    return false;
                }
            }
            return true;
        });
        long last = 0;
        for (int i = 0; i < f.size(); i++) {
            last = Math.max(last, applied.get(f.broker(i).name() + " " + name + " " + deleted));
        }
        return (last - start) / 1e6;
    }

    static double median(List<Double> l) {
        List<Double> s = new ArrayList<>(l);
        Collections.sort(s);
        int m = s.size() / 2;
        return s.size() % 2 == 1 ? s.get(m) : (s.get(m - 1) + s.get(m)) / 2;
    }

    static String row(Row r) {
        return String.format(Locale.ROOT, "| %d, %s (%d) | %.0f | %.0f–%.0f | %.0f | %.0f–%.0f |", r.brokers(), r.shape(), r.bridges(),
                median(r.define()), Collections.min(r.define()), Collections.max(r.define()),
                median(r.delete()), Collections.min(r.delete()), Collections.max(r.delete()));
    }

    static String table(List<Row> rows, boolean noStore) {
        StringBuilder b = new StringBuilder("Definition propagation: from define/delete on broker 0 until the last broker applied it;"
                + " brokers in one JVM over TCP loopback, one duplex bridge per link, "
                + (noStore ? "no data directories" : "each broker storing each change (MapDB commit) before passing it on")
                + "; " + (rows.isEmpty() ? 0 : rows.get(0).define().size()) + " runs per topology.\n\n"
                + "| brokers, topology (bridges) | define median ms | define range | delete median ms | delete range |\n"
                + "|---|---:|---:|---:|---:|\n");
        rows.forEach(r -> b.append(row(r)).append('\n'));
        return b.append('\n').toString();
    }

    private static void delete(Path dir) {
        if (dir == null) {
            return;
        }
        try (Stream<Path> all = Files.walk(dir)) {
            all.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            System.err.println("[definitions] could not delete " + dir + ": " + e.getMessage());
        }
    }
}
