package io.fedbridge.benchmarks;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Self-contained SVG charts (no script, no fonts or styles from elsewhere), so a report is one file a browser, a
 * Markdown renderer or a code review shows as it is: line charts with optional event markers, and grouped bar
 * charts. 640 × 340 px.
 *
 * <pre>{@code
 * String svg = SvgChart.lines("Heap", "s", "MiB", List.of(new SvgChart.Series("B0", xs, ys)), List.of());
 * }</pre>
 */
final class SvgChart {

    /** A named series; for bar charts {@code x} is ignored and {@code y} has one value per category. */
    record Series(String name, double[] x, double[] y) {
        static Series of(String name, List<Double> x, List<Double> y) {
            return new Series(name, x.stream().mapToDouble(Double::doubleValue).toArray(),
                    y.stream().mapToDouble(Double::doubleValue).toArray());
        }
    }

    /** A vertical line at {@code x}, in the colour of its {@code kind}'s legend entry. */
    record Marker(double x, String kind) {
    }

    static final String[] COLORS = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2",
            "#7f7f7f", "#bcbd22", "#17becf"};
    private static final int W = 640;
    private static final int H = 340;
    private static final int LEFT = 64;
    private static final int RIGHT = 150;
    private static final int TOP = 34;
    private static final int BOTTOM = 44;

    private SvgChart() {
    }

    static String lines(String title, String xLabel, String yLabel, List<Series> series, List<Marker> markers) {
        double xMax = 0;
        double yMax = 0;
        for (Series s : series) {
            for (double v : s.x()) {
                xMax = Math.max(xMax, v);
            }
            for (double v : s.y()) {
                yMax = finiteMax(yMax, v);
            }
        }
        for (Marker m : markers) {
            xMax = Math.max(xMax, m.x());
        }
        double xTop = niceTop(xMax);
        double yTop = niceTop(yMax);
        StringBuilder b = frame(title, xLabel, yLabel, xTop, yTop, true);
        List<String> kinds = new ArrayList<>();
        for (Marker m : markers) {
            if (!kinds.contains(m.kind())) {
                kinds.add(m.kind());
            }
            String color = COLORS[(series.size() + kinds.indexOf(m.kind())) % COLORS.length];
            double x = px(m.x(), xTop);
            b.append(String.format(Locale.ROOT, "<line x1='%.1f' y1='%d' x2='%.1f' y2='%d' stroke='%s' stroke-width='1'"
                    + " stroke-opacity='0.55'/>%n", x, TOP, x, H - BOTTOM, color));
        }
        for (int i = 0; i < series.size(); i++) {
            Series s = series.get(i);
            StringBuilder pts = new StringBuilder();
            for (int k = 0; k < Math.min(s.x().length, s.y().length); k++) {
                if (!Double.isFinite(s.y()[k])) {
                    continue; // a failed or missing measurement: no point
                }
                pts.append(String.format(Locale.ROOT, "%.1f,%.1f ", px(s.x()[k], xTop), py(s.y()[k], yTop)));
            }
            String color = COLORS[i % COLORS.length];
            b.append("<polyline fill='none' stroke='").append(color).append("' stroke-width='1.6' points='")
                    .append(pts.toString().trim()).append("'/>\n");
            if (s.x().length <= 12) {
                for (int k = 0; k < Math.min(s.x().length, s.y().length); k++) {
                    if (!Double.isFinite(s.y()[k])) {
                        continue;
                    }
                    b.append(String.format(Locale.ROOT, "<circle cx='%.1f' cy='%.1f' r='2.5' fill='%s'/>%n",
                            px(s.x()[k], xTop), py(s.y()[k], yTop), color));
                }
            }
        }
        List<String> legend = new ArrayList<>(series.stream().map(Series::name).toList());
        legend.addAll(kinds);
        return legend(b, legend).append("</svg>\n").toString();
    }

    static String bars(String title, String yLabel, List<String> categories, List<Series> series) {
        double yMax = 0;
        for (Series s : series) {
            for (double v : s.y()) {
                yMax = finiteMax(yMax, v);
            }
        }
        double yTop = niceTop(yMax);
        StringBuilder b = frame(title, "", yLabel, 0, yTop, false);
        double slot = (double) (W - LEFT - RIGHT) / Math.max(1, categories.size());
        double bar = slot * 0.8 / Math.max(1, series.size());
        for (int c = 0; c < categories.size(); c++) {
            double x0 = LEFT + c * slot + slot * 0.1;
            for (int i = 0; i < series.size(); i++) {
                double v = c < series.get(i).y().length && Double.isFinite(series.get(i).y()[c]) ? series.get(i).y()[c] : 0;
                double y = py(v, yTop);
                b.append(String.format(Locale.ROOT, "<rect x='%.1f' y='%.1f' width='%.1f' height='%.1f' fill='%s'/>%n",
                        x0 + i * bar, y, bar * 0.92, H - BOTTOM - y, COLORS[i % COLORS.length]));
            }
            b.append(String.format(Locale.ROOT, "<text x='%.1f' y='%d' font-size='11' text-anchor='middle'>%s</text>%n",
                    LEFT + c * slot + slot / 2, H - BOTTOM + 16, esc(categories.get(c))));
        }
        return legend(b, series.stream().map(Series::name).toList()).append("</svg>\n").toString();
    }

    private static StringBuilder frame(String title, String xLabel, String yLabel, double xTop, double yTop, boolean xTicks) {
        StringBuilder b = new StringBuilder();
        b.append("<svg xmlns='http://www.w3.org/2000/svg' width='").append(W).append("' height='").append(H)
                .append("' viewBox='0 0 ").append(W).append(' ').append(H)
                .append("' font-family='sans-serif'>\n<rect width='100%' height='100%' fill='white'/>\n");
        b.append("<text x='").append(LEFT).append("' y='20' font-size='14' font-weight='bold'>").append(esc(title)).append("</text>\n");
        for (int t = 0; t <= 5; t++) {
            double v = yTop * t / 5;
            double y = py(v, yTop);
            b.append(String.format(Locale.ROOT, "<line x1='%d' y1='%.1f' x2='%d' y2='%.1f' stroke='#e4e4e4'/>%n", LEFT, y, W - RIGHT, y));
            b.append(String.format(Locale.ROOT, "<text x='%d' y='%.1f' font-size='11' text-anchor='end'>%s</text>%n",
                    LEFT - 5, y + 4, num(v)));
            if (xTicks) {
                double xv = xTop * t / 5;
                b.append(String.format(Locale.ROOT, "<text x='%.1f' y='%d' font-size='11' text-anchor='middle'>%s</text>%n",
                        px(xv, xTop), H - BOTTOM + 16, num(xv)));
            }
        }
        b.append(String.format(Locale.ROOT, "<line x1='%d' y1='%d' x2='%d' y2='%d' stroke='black'/>%n", LEFT, H - BOTTOM, W - RIGHT, H - BOTTOM));
        b.append(String.format(Locale.ROOT, "<line x1='%d' y1='%d' x2='%d' y2='%d' stroke='black'/>%n", LEFT, TOP, LEFT, H - BOTTOM));
        b.append(String.format(Locale.ROOT, "<text x='%d' y='%d' font-size='12' text-anchor='middle'>%s</text>%n",
                (LEFT + W - RIGHT) / 2, H - 8, esc(xLabel)));
        b.append(String.format(Locale.ROOT, "<text x='14' y='%d' font-size='12' text-anchor='middle' transform='rotate(-90 14 %d)'>%s</text>%n",
                (TOP + H - BOTTOM) / 2, (TOP + H - BOTTOM) / 2, esc(yLabel)));
        return b;
    }

    private static StringBuilder legend(StringBuilder b, List<String> names) {
        for (int i = 0; i < names.size(); i++) {
            int y = TOP + 6 + i * 17;
            b.append(String.format(Locale.ROOT, "<rect x='%d' y='%d' width='12' height='10' fill='%s'/>%n", W - RIGHT + 12, y,
                    COLORS[i % COLORS.length]));
            b.append(String.format(Locale.ROOT, "<text x='%d' y='%d' font-size='11'>%s</text>%n", W - RIGHT + 29, y + 9,
                    esc(names.get(i))));
        }
        return b;
    }

    /** The larger of the two, ignoring a NaN or infinite {@code v} (a measurement that failed). */
    private static double finiteMax(double max, double v) {
        return Double.isFinite(v) ? Math.max(max, v) : max;
    }

    private static double px(double x, double xTop) {
        return LEFT + (W - LEFT - RIGHT) * (xTop == 0 ? 0 : x / xTop);
    }

    private static double py(double y, double yTop) {
        return H - BOTTOM - (H - TOP - BOTTOM) * (yTop == 0 ? 0 : y / yTop);
    }

    /** The smallest 1, 2, 2.5 or 5 × 10^n at or above {@code v}. */
    static double niceTop(double v) {
        if (v <= 0) {
            return 1;
        }
        double p = Math.pow(10, Math.floor(Math.log10(v)));
        for (double m : new double[] {1, 2, 2.5, 5, 10}) {
            if (m * p >= v) {
                return m * p;
            }
        }
        return 10 * p;
    }

    private static String num(double v) {
        if (v == Math.rint(v) && Math.abs(v) < 1e9) {
            return String.format(Locale.ROOT, "%,d", (long) v);
        }
        return String.format(Locale.ROOT, Math.abs(v) < 10 ? "%.2f" : "%.1f", v);
    }

    static String esc(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("'", "&#39;");
    }

    /** Writes {@code svg} to {@code file}, creating its directory. */
    static void write(Path file, String svg) throws IOException {
        Files.createDirectories(file.toAbsolutePath().getParent());
        Files.writeString(file, svg, StandardCharsets.UTF_8);
    }

    /** One self-contained HTML page: a title, then each section's heading, text (already HTML) and inline SVG. */
    static String page(String title, List<String[]> sections) {
        StringBuilder b = new StringBuilder("<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'><title>")
                .append(esc(title)).append("</title>\n<style>body{font-family:sans-serif;max-width:960px;margin:2em auto}"
                        + "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:2px 8px;text-align:right}"
                        + "</style></head><body>\n<h1>").append(esc(title)).append("</h1>\n");
        for (String[] s : sections) {
            b.append("<h2>").append(esc(s[0])).append("</h2>\n").append(s[1]).append('\n');
            if (s.length > 2 && s[2] != null) {
                b.append(s[2]);
            }
        }
        return b.append("</body></html>\n").toString();
    }
}
