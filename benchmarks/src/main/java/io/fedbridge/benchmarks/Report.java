package io.fedbridge.benchmarks;

import io.fedbridge.benchmarks.Results.LatencyRun;
import io.fedbridge.benchmarks.Results.ThroughputRun;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToDoubleFunction;

/** The results of one benchmark invocation and how they are printed: per-scenario tables, ratios, Markdown. */
final class Report {

    private final List<Target> targets;
    private final int runs;
    private final Map<Target, List<ThroughputRun>> throughput = new EnumMap<>(Target.class);
    private final Map<Target, List<LatencyRun>> latency = new EnumMap<>(Target.class);
    private final Map<Target, String> failures = new EnumMap<>(Target.class);
    private final Map<String, String> setup = new LinkedHashMap<>();
    private final Map<String, String> labels = new LinkedHashMap<>();

    Report(List<Target> targets, int runs) {
        this.targets = List.copyOf(targets);
        this.runs = runs;
        for (Target t : targets) {
            throughput.put(t, new ArrayList<>());
            latency.put(t, new ArrayList<>());
        }
    }

    void setup(String key, String value) {
        setup.put(key, value);
    }

    /** Texts used in the tables (scenario names, the Markdown footnote), not printed as setup. */
    void label(String key, String value) {
        labels.put(key, value);
    }

    void add(Target t, ThroughputRun r) {
        throughput.get(t).add(r);
    }

    void add(Target t, LatencyRun r) {
        latency.get(t).add(r);
    }

    void fail(Target t, String why) {
        failures.putIfAbsent(t, why);
    }

    boolean hasFailed(Target t) {
        return failures.containsKey(t);
    }

    /** True if every target completed every run and every message sent arrived. */
    boolean isComplete() {
        if (!failures.isEmpty()) {
            return false;
        }
        for (Target t : targets) {
            if (!throughput.get(t).stream().allMatch(ThroughputRun::allArrived)
                    || !latency.get(t).stream().allMatch(LatencyRun::allArrived)) {
                return false;
            }
        }
        return true;
    }

    /** Runs of the throughput scenario per target key ({@code fedbridge}, {@code activemq}, {@code relay}). */
    Map<String, List<ThroughputRun>> throughputRuns() {
        Map<String, List<ThroughputRun>> m = new LinkedHashMap<>();
        throughput.forEach((t, l) -> m.put(t.key, List.copyOf(l)));
        return m;
    }

    Map<String, List<LatencyRun>> latencyRuns() {
        Map<String, List<LatencyRun>> m = new LinkedHashMap<>();
        latency.forEach((t, l) -> m.put(t.key, List.copyOf(l)));
        return m;
    }

    Map<String, String> failures() {
        Map<String, String> m = new LinkedHashMap<>();
        failures.forEach((t, why) -> m.put(t.key, why));
        return m;
    }

    double medianThroughput(Target t) {
        List<ThroughputRun> l = throughput.get(t);
        return l == null ? Double.NaN : Results.median(l, ThroughputRun::msgsPerSecond);
    }

    double medianLatencyMillis(Target t, ToDoubleFunction<LatencyRun> nanos) {
        List<LatencyRun> l = latency.get(t);
        return l == null ? Double.NaN : Results.median(l, nanos) / 1e6;
    }

    // ---------------------------------------------------------------- printing

    void print(PrintWriter out, boolean withThroughput, boolean withLatency) {
        out.println();
        out.println("== Setup");
        setup.forEach((k, v) -> out.printf(Locale.ROOT, "%-14s %s%n", k + ":", v));
        if (withThroughput) {
            printThroughput(out);
        }
        if (withLatency) {
            printLatency(out);
        }
        printRatios(out, withThroughput, withLatency);
        if (!failures.isEmpty()) {
            out.println();
            out.println("== Failures");
            failures.forEach((t, why) -> out.println(t.key + ": " + why));
        }
        printMarkdown(out, withThroughput, withLatency);
        out.println();
        out.println(isComplete() ? "RESULT complete: every message sent arrived, on every target and run"
                : "RESULT incomplete: see failures / 'all arrived' above");
        out.flush();
    }

    private void printThroughput(PrintWriter out) {
        out.println();
        out.println("== Throughput, msg/s (N / first send -> last receive); median of " + runs + " runs;"
                + " CPU time per message of the broker and client JVMs (medians);");
        out.println("   others = most CPU, in cores, that other processes on this machine took during a run (noise)");
        StringBuilder head = new StringBuilder(String.format(Locale.ROOT, "%-16s", "target"));
        for (int r = 1; r <= runs; r++) {
            head.append(String.format(Locale.ROOT, "%12s", "run " + r));
        }
        head.append(String.format(Locale.ROOT, "%12s%14s%14s%8s  %s", "median", "broker us/msg", "client us/msg", "others",
                "all arrived"));
        out.println(head);
        for (Target t : targets) {
            StringBuilder row = new StringBuilder(String.format(Locale.ROOT, "%-16s", t.title));
            List<ThroughputRun> l = throughput.get(t);
            for (int r = 0; r < runs; r++) {
                row.append(String.format(Locale.ROOT, "%12s", r < l.size() ? grouped(l.get(r).msgsPerSecond()) : "-"));
            }
            row.append(String.format(Locale.ROOT, "%12s%14s%14s%8s  %s", grouped(medianThroughput(t)),
                    micros(Results.median(l, ThroughputRun::brokerMicrosPerMessage)),
                    micros(Results.median(l, ThroughputRun::clientMicrosPerMessage)),
                    cores(l.stream().mapToDouble(ThroughputRun::otherCores).max().orElse(Double.NaN)), arrived(l.stream()
                    .map(x -> new long[] {x.sent(), x.received()}).toList())));
            out.println(row);
        }
    }

    private void printLatency(PrintWriter out) {
        out.println();
        out.println("== Latency at a fixed rate, ms (send -> receive, same client JVM); median of " + runs + " runs;"
                + " others as above");
        out.printf(Locale.ROOT, "%-16s%9s%9s%9s%9s%9s%10s%8s  %s%n", "target", "p50", "p90", "p99", "p99.9", "max",
                "rate/s", "others", "all arrived");
        for (Target t : targets) {
            List<LatencyRun> l = latency.get(t);
            out.printf(Locale.ROOT, "%-16s%9s%9s%9s%9s%9s%10s%8s  %s%n", t.title,
                    ms(medianLatencyMillis(t, LatencyRun::p50)), ms(medianLatencyMillis(t, LatencyRun::p90)),
                    ms(medianLatencyMillis(t, LatencyRun::p99)), ms(medianLatencyMillis(t, LatencyRun::p999)),
                    ms(medianLatencyMillis(t, LatencyRun::max)),
                    grouped(Results.median(l, LatencyRun::achievedRate)),
                    cores(l.stream().mapToDouble(LatencyRun::otherCores).max().orElse(Double.NaN)),
                    arrived(l.stream().map(x -> new long[] {x.sent(), x.received()}).toList()));
        }
    }

    private void printRatios(PrintWriter out, boolean withThroughput, boolean withLatency) {
        out.println();
        out.println("== Ratios (medians)");
        boolean any = false;
        if (withThroughput && has(Target.FEDBRIDGE) && has(Target.ACTIVEMQ)) {
            double x = medianThroughput(Target.FEDBRIDGE) / medianThroughput(Target.ACTIVEMQ);
            out.printf(Locale.ROOT, "throughput fedbridge / ActiveMQ:      %s  (aim >= 3x: %s)%n", times(x),
                    x >= 3 ? "met" : "NOT met");
            any = true;
        }
        if (withThroughput && has(Target.FEDBRIDGE) && has(Target.RELAY)) {
            out.printf(Locale.ROOT, "throughput fedbridge / relay ceiling: %s%n",
                    percent(medianThroughput(Target.FEDBRIDGE) / medianThroughput(Target.RELAY)));
            any = true;
        }
        if (withThroughput && has(Target.ACTIVEMQ) && has(Target.RELAY)) {
            out.printf(Locale.ROOT, "throughput ActiveMQ / relay ceiling:  %s%n",
                    percent(medianThroughput(Target.ACTIVEMQ) / medianThroughput(Target.RELAY)));
            any = true;
        }
        if (withLatency && has(Target.FEDBRIDGE) && has(Target.ACTIVEMQ)) {
            out.printf(Locale.ROOT, "latency fedbridge / ActiveMQ:         p50 %s, p99 %s, p99.9 %s (lower is better)%n",
                    times(latencyRatio(LatencyRun::p50)), times(latencyRatio(LatencyRun::p99)),
                    times(latencyRatio(LatencyRun::p999)));
            any = true;
        }
        if (!any) {
            out.println("(needs fedbridge and activemq or relay among the targets)");
        }
    }

    private double latencyRatio(ToDoubleFunction<LatencyRun> f) {
        return medianLatencyMillis(Target.FEDBRIDGE, f) / medianLatencyMillis(Target.ACTIVEMQ, f);
    }

    private void printMarkdown(PrintWriter out, boolean withThroughput, boolean withLatency) {
        out.println();
        out.println("== Markdown (for the README)");
        out.println("| scenario | fedbridge | " + Target.ACTIVEMQ.title + " | relay ceiling | fedbridge/ActiveMQ |");
        out.println("|---|---:|---:|---:|---:|");
        if (withThroughput) {
            String ratio = has(Target.FEDBRIDGE) && has(Target.ACTIVEMQ)
                    ? times(medianThroughput(Target.FEDBRIDGE) / medianThroughput(Target.ACTIVEMQ)) : "-";
            out.println("| " + labels.getOrDefault("throughput", "throughput") + ", msg/s | "
                    + cell(Target.FEDBRIDGE, grouped(medianThroughput(Target.FEDBRIDGE))) + " | "
                    + cell(Target.ACTIVEMQ, grouped(medianThroughput(Target.ACTIVEMQ))) + " | "
                    + cell(Target.RELAY, grouped(medianThroughput(Target.RELAY))) + " | " + ratio + " |");
        }
        if (withLatency) {
            String rate = labels.getOrDefault("latency", "fixed rate");
            markdownLatency(out, rate + ", p50, ms", LatencyRun::p50);
            markdownLatency(out, rate + ", p99, ms", LatencyRun::p99);
            markdownLatency(out, rate + ", p99.9, ms", LatencyRun::p999);
        }
        out.println();
        out.println(labels.getOrDefault("footnote", ""));
    }

    private void markdownLatency(PrintWriter out, String label, ToDoubleFunction<LatencyRun> f) {
        String ratio = has(Target.FEDBRIDGE) && has(Target.ACTIVEMQ) ? times(latencyRatio(f)) : "-";
        out.println("| " + label + " | " + cell(Target.FEDBRIDGE, ms(medianLatencyMillis(Target.FEDBRIDGE, f))) + " | "
                + cell(Target.ACTIVEMQ, ms(medianLatencyMillis(Target.ACTIVEMQ, f))) + " | "
                + cell(Target.RELAY, ms(medianLatencyMillis(Target.RELAY, f))) + " | " + ratio + " |");
    }

    private String cell(Target t, String value) {
        if (!targets.contains(t)) {
            return "not run";
        }
        return failures.containsKey(t) && value.equals("-") ? "failed" : value;
    }

    private boolean has(Target t) {
        return targets.contains(t) && (!throughput.get(t).isEmpty() || !latency.get(t).isEmpty());
    }

    private static String arrived(List<long[]> sentReceived) {
        if (sentReceived.isEmpty()) {
            return "-";
        }
        long lost = 0;
        for (long[] sr : sentReceived) {
            lost += sr[0] - sr[1];
        }
        return lost == 0 ? "yes" : "NO (" + lost + " missing)";
    }

    static String grouped(double v) {
        return Double.isNaN(v) ? "-" : String.format(Locale.ROOT, "%,d", Math.round(v));
    }

    static String cores(double v) {
        return Double.isNaN(v) ? "-" : String.format(Locale.ROOT, "%.2f", v);
    }

    static String micros(double v) {
        return Double.isNaN(v) ? "-" : String.format(Locale.ROOT, "%.1f", v);
    }

    static String ms(double v) {
        if (Double.isNaN(v)) {
            return "-";
        }
        return String.format(Locale.ROOT, v < 10 ? "%.3f" : v < 100 ? "%.1f" : "%.0f", v);
    }

    static String times(double v) {
        return Double.isNaN(v) || Double.isInfinite(v) ? "-" : String.format(Locale.ROOT, "%.2fx", v);
    }

    static String percent(double v) {
        return Double.isNaN(v) ? "-" : String.format(Locale.ROOT, "%.0f%%", v * 100);
    }
}
