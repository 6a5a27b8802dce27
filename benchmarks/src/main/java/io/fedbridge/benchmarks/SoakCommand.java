package io.fedbridge.benchmarks;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.function.ToDoubleFunction;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code soak --minutes N}: the chaos soak ({@link Soak}). Prints the faults as they happen (stderr), then a table of
 * what each broker held over the run, writes {@code soak.html} and its SVG charts into {@code --report-dir}, and ends
 * with the one line {@code soak: receipted=… delivered=… lost=… duplicated=… kills=… cuts=…}. Exit code 0 only if
 * nothing was lost and nothing duplicated. With {@code --ha} the last position of the mesh is an HA group of two
 * members and ZooKeeper, whose primary a kill of that position kills; the line before the last then says
 * {@code soak-ha: ha-kills=… ha-promotions=…} (those kills are among {@code kills=}).
 */
@Command(name = "soak", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Chaos soak: brokers in child JVMs in a mesh, failover producers and consumers, while a seeded",
                "scheduler kills -9 and restarts brokers, cuts and stalls links and fills queues. Exit 0 only if every",
                "receipted message was delivered exactly once."})
public final class SoakCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = "--minutes", description = "how long faults are injected (default ${DEFAULT-VALUE}).")
    double minutes = 10;

    @Option(names = "--seed", description = "seed of the fault scheduler (default: the time; printed, to replay a run).")
    Long seed;

    @Option(names = "--brokers", description = "brokers in the mesh (default ${DEFAULT-VALUE}).")
    int brokers = 5;

    @Option(names = "--rate", description = "msg/s per producer, one producer per broker (default ${DEFAULT-VALUE}).")
    int rate = 100;

    @Option(names = "--fault-every-seconds", description = "mean time between faults (default ${DEFAULT-VALUE}).")
    double faultEverySeconds = 8;

    @Option(names = "--sample-seconds", description = "time between samples of each broker (default ${DEFAULT-VALUE}).")
    double sampleSeconds = 5;

    @Option(names = "--drain-seconds", description = "wait after the faults for every receipted message (default ${DEFAULT-VALUE}).")
    int drainSeconds = 180;

    @Option(names = "--ha", description = {"Make the last position an HA group of two members coordinated by a ZooKeeper",
            "child JVM: its kills kill the current primary, restarted as a backup once the other member is promoted."})
    boolean ha;

    @Option(names = "--jvm-args", description = "options of every broker JVM (default ${DEFAULT-VALUE}).")
    String jvmArgs = "-Xmx256m -XX:+UseSerialGC";

    @Option(names = "--work-dir", description = "data directories and logs of the brokers (default: a new temporary directory).")
    Path workDir;

    @Option(names = "--report-dir", description = "where soak.html and its SVG charts go (default ${DEFAULT-VALUE}).")
    Path reportDir = Path.of("soak-report");

    @Option(names = "--classpath", description = "class path of the broker JVMs (default: this JVM's).")
    String classPath = System.getProperty("java.class.path");

    private Soak.Result result;

    Soak.Result result() {
        return result;
    }

    @Override
    public Integer call() throws Exception {
        if (!(minutes > 0)) {
            throw new IllegalArgumentException("--minutes must be more than 0, but was " + minutes);
        }
        long s = seed != null ? seed : System.currentTimeMillis();
        Path work = workDir != null ? Files.createDirectories(workDir) : Files.createTempDirectory("fedbridge-soak-");
        System.err.println("[soak] seed " + s + ", work directory " + work);
        List<String> jvm = Arrays.stream(jvmArgs.trim().split("\\s+")).filter(a -> !a.isEmpty()).toList();
        Soak.Settings settings = new Soak.Settings(Duration.ofMillis((long) (minutes * 60_000)), s, brokers, rate,
                Duration.ofMillis((long) (faultEverySeconds * 1000)), Duration.ofMillis((long) (sampleSeconds * 1000)),
                Duration.ofSeconds(drainSeconds), ha, work, jvm, classPath, System.err);
        result = new Soak(settings).run();
        PrintWriter out = spec.commandLine().getOut();
        out.print(summary(result));
        Path html = writeReport(result, reportDir);
        out.println("report: " + html.toAbsolutePath());
        if (ha) {
            out.println(result.haLine());
        }
        out.println(result.line());
        out.flush();
        return result.passed() ? 0 : 1;
    }

    static String summary(Soak.Result r) {
        StringBuilder b = new StringBuilder();
        Soak.Settings s = r.settings();
        b.append(String.format(Locale.ROOT, "Soak: %d brokers (child JVMs %s) in a full mesh through fault proxies, %d failover"
                        + " producers at %d msg/s (persistent, receipted), seed %d, faults for %.1f min, auditDepth %d%n",
                s.brokers(), String.join(" ", s.jvmArgs()), s.brokers(), s.rate(), s.seed(), r.runMillis() / 60_000.0,
                Soak.CLIENT_AUDIT_DEPTH));
        if (s.ha()) {
            b.append(String.format(Locale.ROOT, "HA: B%d is a group of two members (ZooKeeper child JVM, tickTime %d ms, session"
                            + " timeout %d ms); %d of the kills were of its primary, followed by %d promotions%n", s.brokers() - 1,
                    SoakHaGroup.ZK_TICK_MILLIS, SoakHaGroup.SESSION_TIMEOUT.toMillis(), r.haKills(), r.haPromotions()));
        }
        b.append(String.format(Locale.ROOT, "faults: %d kills -9, %d link cuts, %d link stalls, %d full queues; sent %d,"
                        + " receipted %d, send failures %d, delivered %d, lost %d, duplicated %d, reordered %d; drained in %.1f s%n%n",
                r.kills(), r.cuts(), r.stalls(), r.fills(), r.sent(), r.receipted(), r.sendFailures(), r.delivered(), r.lost(),
                r.duplicated(), r.reordered(), r.drainMillis() / 1000.0));
        b.append("| broker | samples | heap MiB min / median / max | fds first / max / last | threads first / max / last"
                + " | journal MiB max / last |\n|---|---|---|---|---|---|\n");
        List<String> names = Soak.seriesNames(s);
        for (int i = 0; i < names.size(); i++) {
            int broker = i;
            List<ProcessSample> l = r.samples().stream().filter(x -> x.broker() == broker).map(Soak.Sample::sample).toList();
            if (l.isEmpty()) {
                b.append("| ").append(names.get(i)).append(" | 0 | | | | |\n");
                continue;
            }
            double[] heap = l.stream().mapToDouble(x -> x.heap() / 1048576.0).sorted().toArray();
            long fdMax = l.stream().mapToLong(ProcessSample::fds).max().orElse(0);
            int thMax = l.stream().mapToInt(ProcessSample::threads).max().orElse(0);
            double diskMax = l.stream().mapToLong(ProcessSample::disk).max().orElse(0) / 1048576.0;
            b.append(String.format(Locale.ROOT, "| %s | %d | %.0f / %.0f / %.0f | %d / %d / %d | %d / %d / %d | %.1f / %.1f |%n",
                    names.get(i), l.size(), heap[0], heap[heap.length / 2], heap[heap.length - 1], l.get(0).fds(), fdMax,
                    l.get(l.size() - 1).fds(), l.get(0).threads(), thMax, l.get(l.size() - 1).threads(), diskMax,
                    l.get(l.size() - 1).disk() / 1048576.0));
        }
        return b.append('\n').toString();
    }

    /** Writes soak.html and soak-*.svg into {@code dir}; returns the HTML file. */
    static Path writeReport(Soak.Result r, Path dir) throws IOException {
        Files.createDirectories(dir);
        List<SvgChart.Marker> markers = new ArrayList<>();
        for (Soak.Event e : r.events()) {
            if (List.of("kill", "cut", "stall", "fill", "promote").contains(e.kind())) {
                markers.add(new SvgChart.Marker(e.at() / 1000.0, e.kind()));
            }
        }
        long[] perSecond = r.deliveredPerSecond();
        double[] xs = new double[perSecond.length];
        double[] ys = new double[perSecond.length];
        for (int i = 0; i < perSecond.length; i++) {
            xs[i] = i;
            ys[i] = perSecond[i];
        }
        String deliveries = SvgChart.lines("Deliveries per second, faults injected", "s since start", "msg/s",
                List.of(new SvgChart.Series("delivered", xs, ys)), markers);
        String heap = perBroker(r, "Heap in use per broker (sawtooth: between GCs)", "MiB", x -> x.heap() / 1048576.0, markers);
        String threads = perBroker(r, "Threads per broker", "threads", x -> x.threads(), markers);
        String fds = perBroker(r, "Open file descriptors per broker", "fds", x -> x.fds(), markers);
        String disk = perBroker(r, "Journal on disk per broker", "MiB", x -> x.disk() / 1048576.0, markers);
        String[][] charts = {{"soak-deliveries.svg", deliveries}, {"soak-heap.svg", heap}, {"soak-threads.svg", threads},
                {"soak-fds.svg", fds}, {"soak-disk.svg", disk}};
        for (String[] c : charts) {
            SvgChart.write(dir.resolve(c[0]), c[1]);
        }
        String table = "<pre>" + SvgChart.esc(summary(r)) + "</pre>";
        StringBuilder faults = new StringBuilder("<pre>");
        r.events().forEach(e -> faults.append(String.format(Locale.ROOT, "%8.1f s  %-7s %s%n", e.at() / 1000.0, e.kind(),
                SvgChart.esc(e.detail()))));
        faults.append("</pre>");
        Path html = dir.resolve("soak.html");
        Files.writeString(html, SvgChart.page("fedbridge chaos soak: " + r.line(), List.of(
                new String[] {"Outcome", table, null},
                new String[] {"Deliveries and faults", "", deliveries},
                new String[] {"Heap", "", heap},
                new String[] {"Threads", "", threads},
                new String[] {"File descriptors", "", fds},
                new String[] {"Journal", "", disk},
                new String[] {"Faults injected", faults.toString(), null})), StandardCharsets.UTF_8);
        return html;
    }

    private static String perBroker(Soak.Result r, String title, String unit, ToDoubleFunction<ProcessSample> f,
                                    List<SvgChart.Marker> markers) {
        List<SvgChart.Series> series = new ArrayList<>();
        List<String> names = Soak.seriesNames(r.settings());
        for (int i = 0; i < names.size(); i++) {
            int broker = i;
            List<Soak.Sample> l = r.samples().stream().filter(x -> x.broker() == broker).toList();
            series.add(new SvgChart.Series(names.get(i), l.stream().mapToDouble(x -> x.at() / 1000.0).toArray(),
                    l.stream().mapToDouble(x -> f.applyAsDouble(x.sample())).toArray()));
        }
        return SvgChart.lines(title, "s since start", unit, series, markers);
    }
}
