package io.fedbridge.benchmarks;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The results of one {@code persistent}, {@code bridge}, {@code fanout} or {@code discovery} invocation and how they
 * are printed, in the style of the {@code throughput} report: the setup, one table per scenario (each run's primary
 * figure, then medians), the aims with the ratio fedbridge / ActiveMQ, a Markdown table for the README, and a final
 * {@code RESULT} line.
 */
final class ScenarioReport {

    /** How a metric is printed. */
    enum Unit {
        RATE, MILLIS, MICROS, RATIO
    }

    /** One figure a run produces, e.g. msg/s or p99 ms. */
    record Metric(String key, String header, Unit unit, boolean higherIsBetter) {
    }

    /**
     * One scenario: its table shows {@code primary} per run and the median of every metric in {@code columns}; the
     * Markdown table shows the medians of {@code markdown}.
     */
    record Scenario(String key, String title, String markdownName, Metric primary, List<Metric> columns,
                    List<Metric> markdown, boolean cpu) {
    }

    /**
     * One measured run of one scenario on one target: its metrics, deliveries expected and received, CPU time per
     * message of the broker JVMs together and of the client JVM (NaN if not measured), and the CPU, in cores, other
     * processes took meanwhile.
     */
    record Sample(Map<String, Double> values, long expected, long received, double brokerMicros, double clientMicros,
                  double others) {

        double get(String key) {
            return values.getOrDefault(key, Double.NaN);
        }

        boolean allArrived() {
            return expected == received;
        }
    }

    /**
     * An aim: median {@code over} / median {@code under} (fedbridge / ActiveMQ unless named) of {@code metric} at
     * least {@code ratio}, or, where lower is better, below it ({@code inclusive}: at most).
     */
    record Aim(String text, String scenario, String metric, double ratio, boolean inclusive, Target over, Target under) {

        Aim(String text, String scenario, String metric, double ratio, boolean inclusive) {
            this(text, scenario, metric, ratio, inclusive, Target.FEDBRIDGE, Target.ACTIVEMQ);
        }

        Aim(String text, String scenario, String metric, double ratio) {
            this(text, scenario, metric, ratio, false);
        }
    }

    /** A ratio column of the Markdown table: median {@code over} / median {@code under}, headed {@code header}. */
    record Ratio(Target over, Target under, String header) {
    }

    private final String command;
    private final List<Target> targets;
    private final int runs;
    private final Map<String, String> setup = new LinkedHashMap<>();
    private final Map<String, Scenario> scenarios = new LinkedHashMap<>();
    private final Map<String, Map<Target, List<Sample>>> samples = new LinkedHashMap<>();
    private final List<Aim> aims = new ArrayList<>();
    private final Map<Target, List<String>> failures = new EnumMap<>(Target.class);
    private final List<String> notes = new ArrayList<>();
    private final Map<String, List<String>> sections = new LinkedHashMap<>();
    private final List<String> markdownRows = new ArrayList<>();
    private List<Target> markdownTargets = List.of(Target.FEDBRIDGE, Target.ACTIVEMQ);
    private List<Ratio> markdownRatios = List.of(new Ratio(Target.FEDBRIDGE, Target.ACTIVEMQ, "fedbridge/ActiveMQ"));
    private String footnote = "";

    ScenarioReport(String command, List<Target> targets, int runs) {
        this.command = command;
        this.targets = List.copyOf(targets);
        this.runs = runs;
    }

    void setup(String key, String value) {
        setup.put(key, value);
    }

    void footnote(String text) {
        footnote = text;
    }

    /** A line printed under the aims (what a figure counts, why a scenario was skipped). */
    void note(String text) {
        notes.add(text);
    }

    /** The Markdown table's value columns and ratio columns (by default fedbridge, ActiveMQ, fedbridge/ActiveMQ). */
    void markdownColumns(List<Target> columns, List<Ratio> ratios) {
        markdownTargets = List.copyOf(columns);
        markdownRatios = List.copyOf(ratios);
    }

    /** A section of its own, printed after the scenario tables (a measurement that is not a series of runs). */
    void section(String title, List<String> lines) {
        sections.put(title, List.copyOf(lines));
    }

    /** A ready-made row for the Markdown table, after the scenarios' rows. */
    void markdownRow(String row) {
        markdownRows.add(row);
    }

    void scenario(Scenario s) {
        scenarios.put(s.key(), s);
        Map<Target, List<Sample>> m = new EnumMap<>(Target.class);
        for (Target t : targets) {
            m.put(t, new ArrayList<>());
        }
        samples.put(s.key(), m);
    }

    /** {@code t} does not take part in {@code scenario} (the relay ceiling has no store): no row, not missing. */
    void skip(String scenario, Target t) {
        samples.get(scenario).remove(t);
    }

    void aim(Aim a) {
        aims.add(a);
    }

    void add(String scenario, Target t, Sample s) {
        samples.get(scenario).get(t).add(s);
    }

    void fail(Target t, String why) {
        failures.computeIfAbsent(t, k -> new ArrayList<>()).add(why);
    }

    Map<String, List<String>> failures() {
        Map<String, List<String>> m = new LinkedHashMap<>();
        failures.forEach((t, l) -> m.put(t.key, List.copyOf(l)));
        return m;
    }

    /** Samples of one scenario per target key. */
    Map<String, List<Sample>> samples(String scenario) {
        Map<String, List<Sample>> m = new LinkedHashMap<>();
        samples.get(scenario).forEach((t, l) -> m.put(t.key, List.copyOf(l)));
        return m;
    }

    /** True if nothing failed, every scenario has all its runs on every target and every delivery arrived. */
    boolean isComplete() {
        if (!failures.isEmpty()) {
            return false;
        }
        for (Map<Target, List<Sample>> m : samples.values()) {
            for (List<Sample> l : m.values()) {
                if (l.size() < runs || !l.stream().allMatch(Sample::allArrived)) {
                    return false;
                }
            }
        }
        return true;
    }

    double median(String scenario, Target t, String metric) {
        List<Sample> l = samples.get(scenario).get(t);
        return l == null ? Double.NaN : Results.median(l, s -> s.get(metric));
    }

    /**
     * Writes {@code <command>.html} into {@code dir}: per scenario a bar chart of the median of each Markdown metric
     * per target (ActiveMQ beside fedbridge), inline SVG; also each chart as {@code <command>-<scenario>.svg}.
     */
    java.nio.file.Path writeCharts(java.nio.file.Path dir) throws java.io.IOException {
        List<String[]> sections = new ArrayList<>();
        for (Scenario s : scenarios.values()) {
            List<String> categories = s.markdown().stream().map(Metric::header).toList();
            List<SvgChart.Series> series = new ArrayList<>();
            for (Target t : targets) {
                series.add(new SvgChart.Series(t.title, new double[0],
                        s.markdown().stream().mapToDouble(m -> median(s.key(), t, m.key())).toArray()));
            }
            String svg = SvgChart.bars(command + ": " + s.title(), "median of " + runs + " runs", categories, series);
            SvgChart.write(dir.resolve(command + "-" + s.key() + ".svg"), svg);
            sections.add(new String[] {s.title(), "", svg});
        }
        java.nio.file.Path html = dir.resolve(command + ".html");
        java.nio.file.Files.writeString(html, SvgChart.page("fedbridge benchmarks: " + command, sections));
        return html;
    }

    double ratio(String scenario, String metric) {
        return ratio(scenario, metric, Target.FEDBRIDGE, Target.ACTIVEMQ);
    }

    double ratio(String scenario, String metric, Target over, Target under) {
        return median(scenario, over, metric) / median(scenario, under, metric);
    }

    /** True, false, or null when the aim cannot be judged (a target missing). */
    Boolean isMet(Aim a) {
        double r = ratio(a.scenario(), a.metric(), a.over(), a.under());
        if (Double.isNaN(r) || Double.isInfinite(r)) {
            return null;
        }
        return holds(a, r);
    }

    /** Whether a ratio fedbridge / ActiveMQ of {@code a}'s metric meets {@code a}. */
    private boolean holds(Aim a, double r) {
        return metric(a).higherIsBetter() ? r >= a.ratio() : a.inclusive() ? r <= a.ratio() : r < a.ratio();
    }

    private Metric metric(Aim a) {
        Scenario s = scenarios.get(a.scenario());
        if (s.primary().key().equals(a.metric())) {
            return s.primary();
        }
        return s.columns().stream().filter(m -> m.key().equals(a.metric())).findFirst().orElseThrow();
    }

    // ---------------------------------------------------------------- printing

    void print(PrintWriter out) {
        out.println();
        out.println("== Setup");
        setup.forEach((k, v) -> out.printf(Locale.ROOT, "%-14s %s%n", k + ":", v));
        for (Scenario s : scenarios.values()) {
            printScenario(out, s);
        }
        sections.forEach((title, lines) -> {
            out.println();
            out.println("== " + title);
            lines.forEach(out::println);
        });
        printAims(out);
        printSecurityCost(out);
        if (!failures.isEmpty()) {
            out.println();
            out.println("== Failures");
            failures.forEach((t, l) -> l.forEach(why -> out.println(t.key + ": " + why)));
        }
        printMarkdown(out);
        out.println();
        out.println(isComplete() ? "RESULT complete: every message sent arrived, on every target and run"
                : "RESULT incomplete: see failures / 'all arrived' above");
        out.flush();
    }

    private void printScenario(PrintWriter out, Scenario s) {
        out.println();
        out.println("== " + s.title() + "; " + s.primary().header() + " per run, medians of " + runs + " runs"
                + (s.cpu() ? "; CPU time per message of the broker JVMs (together) and the client JVM" : "") + "; others = most"
                + " CPU, in cores, other processes took during a run (noise)");
        // Wide enough for the longest title ("fedbridge -> RabbitMQ"), at least the 16 columns older reports had.
        String name = "%-" + Math.max(16, targets.stream().mapToInt(t -> t.title.length() + 2).max().orElse(0)) + "s";
        StringBuilder head = new StringBuilder(String.format(Locale.ROOT, name, "target"));
        for (int r = 1; r <= runs; r++) {
            head.append(String.format(Locale.ROOT, "%10s", "run " + r));
        }
        head.append(String.format(Locale.ROOT, "%10s", "median"));
        for (Metric m : s.columns()) {
            head.append(String.format(Locale.ROOT, "%" + Math.max(10, m.header().length() + 2) + "s", m.header()));
        }
        if (s.cpu()) {
            head.append(String.format(Locale.ROOT, "%15s%15s", "brokers us/msg", "client us/msg"));
        }
        head.append(String.format(Locale.ROOT, "%8s  %s", "others", "all arrived"));
        out.println(head);
        for (Target t : targets) {
            List<Sample> l = samples.get(s.key()).get(t);
            if (l == null) {
                continue; // skipped
            }
            StringBuilder row = new StringBuilder(String.format(Locale.ROOT, name, t.title));
            for (int r = 0; r < runs; r++) {
                row.append(String.format(Locale.ROOT, "%10s", r < l.size() ? format(s.primary(), l.get(r).get(s.primary().key())) : "-"));
            }
            row.append(String.format(Locale.ROOT, "%10s", format(s.primary(), median(s.key(), t, s.primary().key()))));
            for (Metric m : s.columns()) {
                row.append(String.format(Locale.ROOT, "%" + Math.max(10, m.header().length() + 2) + "s",
                        format(m, median(s.key(), t, m.key()))));
            }
            if (s.cpu()) {
                row.append(String.format(Locale.ROOT, "%15s%15s", Report.micros(Results.median(l, Sample::brokerMicros)),
                        Report.micros(Results.median(l, Sample::clientMicros))));
            }
            long lost = l.stream().mapToLong(x -> x.expected() - x.received()).sum();
            row.append(String.format(Locale.ROOT, "%8s  %s", Report.cores(l.stream().mapToDouble(Sample::others).max().orElse(Double.NaN)),
                    l.isEmpty() ? (failures.containsKey(t) ? "failed" : "-") : lost == 0 ? "yes" : "NO (" + lost + " missing)"));
            out.println(row);
        }
    }

    /**
     * What security, TLS and metrics cost: each fedbridge variant against plain fedbridge, median against median, for
     * every metric of every scenario, and the brokers' CPU per message.
     */
    private void printSecurityCost(PrintWriter out) {
        List<Target> secured = targets.stream().filter(Target::isVariant).toList();
        if (secured.isEmpty() || !targets.contains(Target.FEDBRIDGE)) {
            return;
        }
        out.println();
        out.println("== Cost of the variants (medians, variant / fedbridge; for latencies lower is better)");
        for (Scenario s : scenarios.values()) {
            for (Target t : secured) {
                StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "%-20s %-14s", s.key(), t.title));
                List<Metric> metrics = new ArrayList<>();
                metrics.add(s.primary());
                metrics.addAll(s.columns());
                for (Metric m : metrics) {
                    line.append(String.format(Locale.ROOT, "  %s %s", m.header(),
                            Report.times(median(s.key(), t, m.key()) / median(s.key(), Target.FEDBRIDGE, m.key()))));
                }
                if (s.cpu()) {
                    List<Sample> open = samples.get(s.key()).get(Target.FEDBRIDGE);
                    List<Sample> sec = samples.get(s.key()).get(t);
                    line.append(String.format(Locale.ROOT, "  brokers us/msg %s", Report.times(
                            Results.median(sec, Sample::brokerMicros) / Results.median(open, Sample::brokerMicros))));
                }
                out.println(line);
            }
        }
    }

    private void printAims(PrintWriter out) {
        out.println();
        boolean usual = aims.stream().allMatch(a -> a.over() == Target.FEDBRIDGE && a.under() == Target.ACTIVEMQ);
        out.println(usual ? "== Aims (medians, fedbridge / ActiveMQ)" : "== Aims (medians, each aim's first target / its second)");
        if (aims.isEmpty()) {
            out.println("(none)");
        }
        for (Aim a : aims) {
            Metric m = metric(a);
            Boolean met = isMet(a);
            out.printf(Locale.ROOT, "%s: %s %s  (aim %s %s%s: %s%s)%n", a.text(), m.header(),
                    Report.times(ratio(a.scenario(), a.metric(), a.over(), a.under())),
                    m.higherIsBetter() ? ">=" : a.inclusive() ? "<=" : "<", trim(a.ratio()) + "x", m.higherIsBetter() ? "" : ", lower is better",
                    met == null ? "not judged, a target is missing" : met ? "met" : "NOT met", met == null ? "" : pairsMet(a));
        }
        notes.forEach(out::println);
    }

    /**
     * How often the aim held run by run: runs are interleaved (fedbridge's run k, then ActiveMQ's run k), so run k of
     * each target saw about the same machine. A median can hide a coin toss; this shows it.
     */
    private String pairsMet(Aim a) {
        List<Sample> f = samples.getOrDefault(a.scenario(), Map.of()).getOrDefault(a.over(), List.of());
        List<Sample> o = samples.getOrDefault(a.scenario(), Map.of()).getOrDefault(a.under(), List.of());
        int n = Math.min(f.size(), o.size());
        int held = 0;
        for (int i = 0; i < n; i++) {
            if (holds(a, f.get(i).get(a.metric()) / o.get(i).get(a.metric()))) {
                held++;
            }
        }
        return String.format(Locale.ROOT, "; held in %d of %d run pairs", held, n);
    }

    private void printMarkdown(PrintWriter out) {
        out.println();
        out.println("== Markdown (for the README)");
        StringBuilder head = new StringBuilder("| " + command + " scenario |");
        StringBuilder rule = new StringBuilder("|---|");
        markdownTargets.forEach(t -> {
            head.append(' ').append(t.title).append(" |");
            rule.append("---:|");
        });
        markdownRatios.forEach(r -> {
            head.append(' ').append(r.header()).append(" |");
            rule.append("---:|");
        });
        out.println(head);
        out.println(rule);
        for (Scenario s : scenarios.values()) {
            for (Metric m : s.markdown()) {
                StringBuilder row = new StringBuilder("| " + s.markdownName() + ", " + m.header() + " |");
                markdownTargets.forEach(t -> row.append(' ').append(cell(s, t, m)).append(" |"));
                markdownRatios.forEach(r -> row.append(' ').append(Report.times(ratio(s.key(), m.key(), r.over(), r.under()))).append(" |"));
                out.println(row);
            }
        }
        markdownRows.forEach(out::println);
        out.println();
        out.println(footnote);
    }

    private String cell(Scenario s, Target t, Metric m) {
        if (!targets.contains(t)) {
            return "not run";
        }
        String v = format(m, median(s.key(), t, m.key()));
        return v.equals("-") && failures.containsKey(t) ? "failed" : v;
    }

    static String format(Metric m, double v) {
        return switch (m.unit()) {
            case RATE -> Report.grouped(v);
            case MILLIS -> Report.ms(v);
            case MICROS -> Report.micros(v);
            case RATIO -> Double.isNaN(v) ? "-" : String.format(Locale.ROOT, "%.2f", v);
        };
    }

    private static String trim(double v) {
        return v == Math.rint(v) ? Long.toString((long) v) : Double.toString(v);
    }
}
