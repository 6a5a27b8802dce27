package io.fedbridge.samples;

import io.fedbridge.samples.LinkMonitor.Node;
import io.fedbridge.samples.LinkMonitor.Row;
import io.fedbridge.samples.LinkMonitor.Snapshot;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * What the demo shows while it runs: on a terminal a progress bar and a table per link redrawn in place with ANSI
 * escapes ({@link Live}); otherwise a few plain lines ({@link Plain}), so that logs and pipes stay readable. Events
 * (a broker stopped, links up again) are lines of their own in both. Thread-safe: the ticker refreshes, the main
 * thread reports events.
 */
interface DemoView {

    /**
     * The run at one moment.
     *
     * @param total    messages to send
     * @param sent     sends the producer's broker confirmed
     * @param received distinct messages the consumers received
     * @param elapsedNanos since the producer started
     */
    record Status(int total, int sent, int received, long elapsedNanos, Snapshot federation) {
    }

    /** A line about something that happened, kept above the live part. */
    void event(String line);

    void refresh(Status status);

    /** Draws the final state; nothing is drawn after this. */
    void finish(Status status);

    static DemoView of(PrintWriter out, boolean live) {
        return live ? new Live(out) : new Plain(out);
    }

    /** The table of links and the line of brokers. */
    static List<String> table(Snapshot s) {
        List<String> lines = new ArrayList<>();
        int width = Math.max("link".length(), s.links().stream().mapToInt(r -> r.link().label().length()).max().orElse(0));
        String format = "%-" + width + "s  %-10s  %9s  %9s  %7s  %9s";
        lines.add(String.format(Locale.ROOT, format, "link", "state", "fwd/s", "forwarded", "pending", "consumers"));
        for (Row r : s.links()) {
            lines.add(String.format(Locale.ROOT, format, r.link().label(), r.state(), String.format(Locale.ROOT, "%.0f", r.perSecond()),
                    r.forwarded(), r.pending(), r.consumers()));
        }
        lines.add("messages held  " + s.brokers().stream()
                .map(n -> n.name() + " " + (n.running() ? Integer.toString(n.waiting()) : "(stopped)"))
                .collect(Collectors.joining("   ")));
        return lines;
    }

    private static int percent(int part, int total) {
        return total == 0 ? 100 : (int) ((long) part * 100 / total);
    }

    /** Progress bar and table, redrawn in place. */
    final class Live implements DemoView {
        private static final int WIDTH = 30;
        private static final String CLEAR_LINE = "\u001b[2K";
        private static final String CLEAR_TO_END = "\u001b[J";
        private final PrintWriter out;
        private Status last;
        private int drawnLines;
        private boolean finished;

        Live(PrintWriter out) {
            this.out = out;
        }

        @Override
        public synchronized void event(String line) {
            if (finished) {
                return;
            }
            rewind();
            out.print(CLEAR_TO_END);
            out.println(line);
            drawnLines = 0;
            if (last != null) {
                draw(last);
            }
            out.flush();
        }

        @Override
        public synchronized void refresh(Status status) {
            if (finished) {
                return;
            }
            last = status;
            rewind();
            draw(status);
            out.flush();
        }

        @Override
        public synchronized void finish(Status status) {
            refresh(status);
            finished = true;
        }

        /** Moves the cursor to the start of the live part. */
        private void rewind() {
            if (drawnLines > 0) {
                out.print("\u001b[" + drawnLines + "F");
            }
        }

        private void draw(Status s) {
            List<String> lines = new ArrayList<>();
            int filled = s.total() == 0 ? WIDTH : (int) ((long) s.received() * WIDTH / s.total());
            int digits = Integer.toString(s.total()).length();
            lines.add(String.format(Locale.ROOT, "sent %" + digits + "d/%d  received %" + digits + "d/%d  [%s] %3d%%  %.1f s",
                    s.sent(), s.total(), s.received(), s.total(), "#".repeat(filled) + " ".repeat(WIDTH - filled),
                    percent(s.received(), s.total()), s.elapsedNanos() / 1e9));
            lines.addAll(table(s.federation()));
            for (String line : lines) {
                out.print(CLEAR_LINE);
                out.println(line);
            }
            if (lines.size() < drawnLines) {
                out.print(CLEAR_TO_END);
            }
            drawnLines = lines.size();
        }
    }

    /** A line each time another quarter of the messages has arrived, and the table once at the end. */
    final class Plain implements DemoView {
        private static final int STEPS = 4;
        private final PrintWriter out;
        private int printedSteps;
        private boolean finished;

        Plain(PrintWriter out) {
            this.out = out;
        }

        @Override
        public synchronized void event(String line) {
            if (!finished) {
                out.println(line);
                out.flush();
            }
        }

        @Override
        public synchronized void refresh(Status s) {
            int steps = s.total() == 0 ? STEPS : (int) ((long) s.received() * STEPS / s.total());
            if (finished || steps <= printedSteps) {
                return;
            }
            printedSteps = steps;
            out.printf(Locale.ROOT, "received %d/%d (%d%%), sent %d; %s%n", s.received(), s.total(), percent(s.received(), s.total()),
                    s.sent(), s.federation().links().stream().map(r -> r.link().label() + " " + r.state())
                            .collect(Collectors.joining(", ")));
            out.flush();
        }

        @Override
        public synchronized void finish(Status s) {
            refresh(s);
            if (!finished) {
                table(s.federation()).forEach(out::println);
                out.flush();
            }
            finished = true;
        }
    }
}
